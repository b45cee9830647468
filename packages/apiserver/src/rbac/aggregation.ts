// The clusterrole-aggregation controller (kube-controller-manager, pkg/controller/clusterroleaggregation):
// a ClusterRole with `aggregationRule.clusterRoleSelectors` has its `rules` rewritten to the union of the
// rules of the ClusterRoles its selectors match (by name order, each rule once), whenever a ClusterRole
// changes. A bare kube-apiserver leaves them empty; the built-in server behaves as a cluster does.
import { type LabelRequirement, matchesLabelSelector } from '../apimachinery/selectors.ts';
import type { KubeObject, Store } from '../storage/store.ts';
import type { PolicyRule } from './policy-rule.ts';
import { rbacKeys } from './rule-resolver.ts';

/** A metav1.LabelSelector. */
interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

const operators: Record<string, LabelRequirement['operator']> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** metav1.LabelSelectorAsSelector: an empty selector matches every object. */
export function labelSelectorRequirements(selector: LabelSelector): LabelRequirement[] {
  const requirements: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(
    ([key, value]) => ({ key, operator: '=', values: [value] }),
  );
  for (const expression of selector.matchExpressions ?? []) {
    const operator = operators[expression.operator];
    // An invalid expression selects nothing, as the controller skips a selector it cannot convert.
    if (operator === undefined) return [{ key: expression.key, operator: 'in', values: [] }];
    requirements.push({
      key: expression.key,
      operator,
      values: [...new Set(expression.values ?? [])].sort(),
    });
  }
  return requirements;
}

/** A rule in a form where semantically equal rules (nil and empty lists) compare equal. */
function ruleKey(rule: PolicyRule): string {
  const list = (values: string[] | undefined) => values ?? [];
  return JSON.stringify([
    list(rule.verbs),
    list(rule.apiGroups),
    list(rule.resources),
    list(rule.resourceNames),
    list(rule.nonResourceURLs),
  ]);
}

function nameOf(object: KubeObject): string {
  return String(object.metadata?.name ?? '');
}

/** The rules `role`'s aggregation rule selects from `roles`, as the controller computes them. */
export function aggregatedRules(role: KubeObject, roles: readonly KubeObject[]): PolicyRule[] {
  const selectors = (role.aggregationRule as { clusterRoleSelectors?: LabelSelector[] } | undefined)
    ?.clusterRoleSelectors;
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  const byName = [...roles].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1));
  for (const selector of selectors ?? []) {
    const requirements = labelSelectorRequirements(selector);
    for (const candidate of byName) {
      if (nameOf(candidate) === nameOf(role)) continue;
      const labels = candidate.metadata?.labels as Record<string, string> | undefined;
      if (!matchesLabelSelector(requirements, labels)) continue;
      for (const rule of (candidate.rules as PolicyRule[] | null | undefined) ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(structuredClone(rule));
      }
    }
  }
  return rules;
}

function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((rule, index) => ruleKey(rule) === ruleKey(b[index]!));
}

/**
 * Keeps aggregated ClusterRoles up to date. A change to any ClusterRole schedules one pass (on a
 * microtask, after the write that caused it has been answered) that rewrites through `update` every
 * aggregated role whose rules differ.
 */
export class ClusterRoleAggregator {
  readonly #store: Store;
  readonly #update: (role: KubeObject) => void;
  readonly #onError: (error: unknown) => void;
  #scheduled = false;
  #unsubscribe: (() => void) | undefined;

  constructor(options: {
    store: Store;
    /** Writes an aggregated role with new rules (an update by the controller's identity). */
    update: (role: KubeObject) => void;
    onError: (error: unknown) => void;
  }) {
    this.#store = options.store;
    this.#update = options.update;
    this.#onError = options.onError;
  }

  /** Start watching ClusterRoles (and aggregate once now). */
  start(): void {
    this.#unsubscribe ??= this.#store.subscribe((event) => {
      if (event.key === rbacKeys.clusterRoles) this.#schedule();
    });
    this.sync();
  }

  /** Stop watching. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Rewrite every aggregated role whose rules are out of date. */
  sync(): void {
    const roles = this.#store.list(rbacKeys.clusterRoles, undefined);
    for (const role of roles) {
      if (role.aggregationRule === undefined || role.aggregationRule === null) continue;
      const rules = aggregatedRules(role, roles);
      const current = (role.rules as PolicyRule[] | null | undefined) ?? [];
      if (sameRules(rules, current)) continue;
      try {
        this.#update({ ...role, rules });
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.#unsubscribe !== undefined) this.sync();
    });
  }
}
