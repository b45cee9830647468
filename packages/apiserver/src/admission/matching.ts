// Which webhooks a request goes to, as k8s.io/apiserver's admission/plugin/webhook matches them (1.20):
// the rules (operations, groups, versions, resources with their wildcards and subresources, scope), then
// the namespaceSelector, then the objectSelector. matchPolicy Equivalent is resolved by the caller
// (dispatcher.ts), which tries the rules against each version the server serves of the same resource.
import { isRecord, type Json } from '../apimachinery/objects.ts';
import type { LabelRequirement } from '../apimachinery/selectors.ts';
import { matchesLabelSelector } from '../apimachinery/selectors.ts';

/** The request facts the rules look at. */
export interface RuleAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** The request's namespace ('' for cluster-scoped objects). */
  namespace: string;
  /** True when the object is a Namespace (cluster-scoped whatever the request's namespace). */
  isNamespace: boolean;
}

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}

function resourceMatches(patterns: readonly string[], resource: string, sub: string): boolean {
  // `pods` is pods alone, `pods/*` pods and every subresource of them, `*` every resource without its
  // subresources, `*/status` every status subresource (a missing part is the empty subresource).
  return patterns.some((pattern) => {
    const slash = pattern.indexOf('/');
    const res = slash < 0 ? pattern : pattern.slice(0, slash);
    const subPattern = slash < 0 ? '' : pattern.slice(slash + 1);
    return (res === '*' || res === resource) && (subPattern === '*' || subPattern === sub);
  });
}

function scopeMatches(scope: unknown, attributes: RuleAttributes): boolean {
  const cluster = attributes.isNamespace || attributes.namespace === '';
  if (scope === 'Cluster') return cluster;
  if (scope === 'Namespaced') return !cluster;
  return true;
}

/** True when one RuleWithOperations covers the request. */
export function ruleMatches(rule: Json, attributes: RuleAttributes): boolean {
  const operations = listOf(rule.operations);
  if (!operations.includes('*') && !operations.includes(attributes.operation)) return false;
  const groups = listOf(rule.apiGroups);
  if (!groups.includes('*') && !groups.includes(attributes.group)) return false;
  const versions = listOf(rule.apiVersions);
  if (!versions.includes('*') && !versions.includes(attributes.version)) return false;
  if (!resourceMatches(listOf(rule.resources), attributes.resource, attributes.subresource)) {
    return false;
  }
  return scopeMatches(rule.scope, attributes);
}

/** True when any of `rules` covers the request. */
export function rulesMatch(rules: unknown, attributes: RuleAttributes): boolean {
  return (
    Array.isArray(rules) && rules.some((rule) => isRecord(rule) && ruleMatches(rule, attributes))
  );
}

/** A metav1.LabelSelector as requirements; undefined when it cannot match anything (a bad operator). */
function requirementsOf(selector: unknown): LabelRequirement[] | undefined {
  if (!isRecord(selector)) return [];
  const requirements: LabelRequirement[] = [];
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) {
      requirements.push({ key, operator: '=', values: [String(value)] });
    }
  }
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const expression of expressions) {
    if (!isRecord(expression)) return undefined;
    const key = String(expression.key ?? '');
    const values = listOf(expression.values);
    switch (expression.operator) {
      case 'In':
        requirements.push({ key, operator: 'in', values });
        break;
      case 'NotIn':
        requirements.push({ key, operator: 'notin', values });
        break;
      case 'Exists':
        requirements.push({ key, operator: 'exists', values: [] });
        break;
      case 'DoesNotExist':
        requirements.push({ key, operator: '!', values: [] });
        break;
      default:
        return undefined;
    }
  }
  return requirements;
}

function labelsOf(object: unknown): Record<string, string> {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  const labels: Record<string, string> = {};
  if (isRecord(metadata.labels)) {
    for (const [key, value] of Object.entries(metadata.labels)) labels[key] = String(value);
  }
  return labels;
}

/** True when a label selector (metav1.LabelSelector; `{}` matches everything) selects `labels`. */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  const requirements = requirementsOf(selector);
  return requirements !== undefined && matchesLabelSelector(requirements, labels);
}

/** The objectSelector: the new object's labels or the old object's match (an absent object never does). */
export function objectSelectorMatches(
  selector: unknown,
  object: unknown,
  oldObject: unknown,
): boolean {
  const requirements = requirementsOf(selector);
  if (requirements === undefined) return false;
  if (requirements.length === 0) return true;
  return [object, oldObject].some(
    (candidate) => isRecord(candidate) && matchesLabelSelector(requirements, labelsOf(candidate)),
  );
}

/** The labels of an object (its metadata.labels as strings). */
export { labelsOf };
