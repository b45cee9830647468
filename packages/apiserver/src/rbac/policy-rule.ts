// RBAC's PolicyRule and how one rule matches a request (k8s.io/kubernetes pkg/apis/rbac/v1 evaluation
// helpers): `*` in verbs, apiGroups, resources and nonResourceURLs; `*/<subresource>`; resourceNames;
// a trailing `*` in a non-resource URL matches by prefix.
import type { AuthorizationAttributes } from './attributes.ts';

/** One rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A `roleRef` of a RoleBinding or ClusterRoleBinding. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** A subject of a binding: `User`, `Group` or `ServiceAccount`. */
export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

function matchesAny(values: readonly string[] | undefined, wanted: string): boolean {
  return values?.some((value) => value === '*' || value === wanted) ?? false;
}

/** True when `rule` names `verb` (or `*`). */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return matchesAny(rule.verbs, verb);
}

/** True when `rule` names the API group (or `*`). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return matchesAny(rule.apiGroups, group);
}

/**
 * True when `rule` names `resource` with its subresource: `*`, the exact `pods/status`, or `*\/status` for
 * any resource's status. `pods/*` is not a wildcard in kube's matching: it names only itself.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (ruleResource) =>
      ruleResource === '*' ||
      ruleResource === combined ||
      (subresource !== '' && ruleResource === `*/${subresource}`),
  );
}

/** True when `rule` has no resourceNames or names `name` (a nameless request never matches a list). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** True when `rule` names `path`, `*`, or a prefix of it ending in `*`. */
export function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((url) => {
    if (url === '*' || url === path) return true;
    return url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''));
  });
}

/** True when `rule` allows the request described by `attributes`. */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (attributes.path !== undefined) return nonResourceUrlMatches(rule, attributes.path);
  return (
    apiGroupMatches(rule, attributes.group) &&
    resourceMatches(rule, attributes.resource, attributes.subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}
