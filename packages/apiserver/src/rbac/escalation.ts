// RBAC's escalation prevention (pkg/registry/rbac/*/policybased and pkg/registry/rbac/validation): a user
// may write a Role or ClusterRole only with rules it holds itself, and bind a role only when it holds the
// role's rules, unless it is in system:masters or is allowed the `escalate` (roles) or `bind` (bindings)
// verb on that role. Refusals are kube's 403 with the missing rules listed.

import { failure, StatusError } from '../apimachinery/status.ts';
import { mastersGroup, type UserInfo } from '../authentication/authenticate.ts';
import type { KubeObject } from '../storage/store.ts';
import type { Authorizer } from './authorizer.ts';
import type { PolicyRule, RoleRef } from './policy-rule.ts';
import { RoleNotFoundError } from './rule-resolver.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const has = (values: readonly string[] | undefined, wanted: string) =>
  values?.includes(wanted) ?? false;
const hasAll = (values: readonly string[] | undefined, wanted: readonly string[] | undefined) =>
  (wanted ?? []).every((value) => has(values, value));

/** BreakdownRule: one rule per group, resource, verb and name (or non-resource URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const subrules: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) {
          subrules.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
        for (const name of names) {
          subrules.push({
            apiGroups: [group],
            resources: [resource],
            verbs: [verb],
            resourceNames: [name],
          });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) subrules.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return subrules;
}

function resourcesCoverAll(owned: readonly string[] | undefined, wanted: readonly string[]) {
  if (has(owned, '*') || hasAll(owned, wanted)) return true;
  return wanted.every((path) => {
    if (has(owned, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owned, `*/${path.slice(slash + 1)}`);
  });
}

function urlCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  return (
    (has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs)) &&
    (has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups)) &&
    resourcesCoverAll(owner.resources, sub.resources ?? []) &&
    (sub.nonResourceURLs ?? []).every((path) =>
      (owner.nonResourceURLs ?? []).some((url) => urlCovers(url, path)),
    ) &&
    (subNames.length === 0
      ? ownerNames.length === 0
      : ownerNames.length === 0 || hasAll(ownerNames, subNames))
  );
}

/** validation.Covers: the parts of `wanted` that no rule of `owned` covers. */
export function uncoveredRules(
  owned: readonly PolicyRule[],
  wanted: readonly PolicyRule[],
): PolicyRule[] {
  return wanted
    .flatMap(breakdownRule)
    .filter((sub) => !owned.some((owner) => ruleCovers(owner, sub)));
}

/** CompactRules: simple one-group one-resource rules that differ only in verbs become one rule. */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple =
      names.length <= 1 &&
      (rule.nonResourceURLs ?? []).length === 0 &&
      rule.apiGroups?.length === 1 &&
      rule.resources?.length === 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, names]);
    const existing = simple.get(key);
    if (existing === undefined) simple.set(key, structuredClone(rule));
    else existing.verbs = [...existing.verbs, ...rule.verbs];
  }
  return [...compacted, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
function goQuotedList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

/** rbacv1helpers.CompactString. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuotedList(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuotedList(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) {
    parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs!)}`);
  }
  if ((rule.resourceNames ?? []).length > 0) {
    parts.push(`ResourceNames:${goQuotedList(rule.resourceNames!)}`);
  }
  if ((rule.verbs ?? []).length > 0) parts.push(`Verbs:${goQuotedList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** ConfirmNoEscalation: undefined when `user` holds `rules` in `namespace`, else kube's message. */
export function escalationMessage(
  authorizer: Authorizer,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const owned = authorizer.resolver.rulesFor(user, namespace);
  const missing = uncoveredRules(owned.rules, rules);
  if (missing.length === 0) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user "${user.name}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) message += `; resolution errors: [${owned.errors.join(' ')}]`;
  return message;
}

function forbiddenWrite(resource: string, name: string, message: string): StatusError {
  return new StatusError(
    failure(403, 'Forbidden', `${resource}.${rbacGroup} "${name}" is forbidden: ${message}`, {
      name,
      group: rbacGroup,
      kind: resource,
    }),
  );
}

/**
 * Throws kube's 403 when `user` may not write `object` (a Role, ClusterRole, RoleBinding or
 * ClusterRoleBinding as `resource`, in `namespace`) because it would grant more than `user` holds;
 * and the 404 of a binding's missing role.
 */
export function checkEscalation(options: {
  authorizer: Authorizer;
  user: UserInfo;
  resource: string;
  namespace: string;
  object: KubeObject;
}): void {
  const { authorizer, user, resource, namespace, object } = options;
  if (user.groups.includes(mastersGroup)) return;
  const name = String(object.metadata?.name ?? '');
  const allowed = (verb: string, target: string, targetName: string) =>
    authorizer.authorize({
      user,
      verb,
      group: rbacGroup,
      version: '',
      resource: target,
      subresource: '',
      namespace,
      name: targetName,
    }).allowed;
  if (resource === 'roles' || resource === 'clusterroles') {
    if (allowed('escalate', resource, name)) return;
    const rules = Array.isArray(object.rules) ? (object.rules as PolicyRule[]) : [];
    const message = escalationMessage(authorizer, user, namespace, rules);
    if (message !== undefined) throw forbiddenWrite(resource, name, message);
    if (resource === 'clusterroles' && object.aggregationRule != null) {
      if (escalationMessage(authorizer, user, namespace, fullAuthority) !== undefined) {
        throw forbiddenWrite(
          resource,
          name,
          'must have cluster-admin privileges to use the aggregationRule',
        );
      }
    }
    return;
  }
  if (resource !== 'rolebindings' && resource !== 'clusterrolebindings') return;
  const roleRef = (object.roleRef ?? {}) as RoleRef;
  const roleResource = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
  if (allowed('bind', roleResource, roleRef.name)) return;
  let rules: PolicyRule[];
  try {
    rules = authorizer.resolver.roleReferenceRules(roleRef, namespace);
  } catch (error) {
    if (!(error instanceof RoleNotFoundError)) throw error;
    const details = { name: roleRef.name, group: rbacGroup, kind: roleRef.kind.toLowerCase() };
    throw new StatusError(failure(404, 'NotFound', error.message, details));
  }
  const message = escalationMessage(authorizer, user, namespace, rules);
  if (message !== undefined) throw forbiddenWrite(resource, name, message);
}
