// The REST strategies of the four RBAC kinds: the fields each Go type has, and a binding's roleRef that
// cannot change (pkg/registry/rbac/*/strategy.go, pkg/apis/rbac/validation).
import { builtinStrategy, type Strategy } from '../strategies/strategy.ts';
import type { FieldCause } from '../validation.ts';
import type { RoleRef } from './policy-rule.ts';

/** Go's %#v of an rbac.RoleRef, as field.Invalid prints it. */
function goRoleRef(value: unknown): string {
  const ref = (value ?? {}) as Partial<RoleRef>;
  return `rbac.RoleRef{APIGroup:${JSON.stringify(ref.apiGroup ?? '')}, Kind:${JSON.stringify(ref.kind ?? '')}, Name:${JSON.stringify(ref.name ?? '')}}`;
}

const bindingStrategy: Strategy = {
  ...builtinStrategy,
  topLevelFields: ['subjects', 'roleRef'],
  validateUpdate(existing, next): FieldCause[] {
    if (JSON.stringify(existing.roleRef) === JSON.stringify(next.roleRef)) return [];
    return [
      {
        type: 'FieldValueInvalid',
        field: 'roleRef',
        message: `Invalid value: ${goRoleRef(next.roleRef)}: cannot change roleRef`,
      } as FieldCause,
    ];
  },
};

/** Strategies by storage key (`group/resource`). */
export const rbacStrategies: Record<string, Strategy> = {
  'rbac.authorization.k8s.io/roles': { ...builtinStrategy, topLevelFields: ['rules'] },
  'rbac.authorization.k8s.io/clusterroles': {
    ...builtinStrategy,
    topLevelFields: ['rules', 'aggregationRule'],
  },
  'rbac.authorization.k8s.io/rolebindings': bindingStrategy,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingStrategy,
};
