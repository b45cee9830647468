// The REST strategies of the four RBAC kinds (pkg/registry/rbac/*/strategy.go): the fields each Go type
// has, subject defaulting (SetDefaults_Subject), kube's rule and binding validation
// (pkg/apis/rbac/validation) and a binding's roleRef that cannot change.

import type { FieldCause } from '../apimachinery/name-validation.ts';
import type { PolicyRule, RoleRef, Subject } from '../rbac/policy-rule.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/** Go's %q of a string. */
const quote = (value: string) => JSON.stringify(value);

/** Go's %#v of a []string, as field.Invalid prints a list. */
const goStrings = (values: readonly string[]) => `[]string{${values.map(quote).join(', ')}}`;

/** Go's %#v of an rbac.RoleRef. */
function goRoleRef(value: unknown): string {
  const ref = (value ?? {}) as Partial<RoleRef>;
  return `rbac.RoleRef{APIGroup:${quote(ref.apiGroup ?? '')}, Kind:${quote(ref.kind ?? '')}, Name:${quote(ref.name ?? '')}}`;
}

const required = (field: string, detail = ''): FieldCause => ({
  type: 'FieldValueRequired',
  field,
  message: detail === '' ? 'Required value' : `Required value: ${detail}`,
});

const notSupported = (field: string, value: string, supported: string[]): FieldCause => ({
  type: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${quote(value)}: supported values: ${supported.map(quote).join(', ')}`,
});

/** ValidatePolicyRule. */
function validateRules(object: KubeObject, namespaced: boolean): FieldCause[] {
  const rules = Array.isArray(object.rules) ? (object.rules as PolicyRule[]) : [];
  return rules.flatMap((rule, index) => {
    const path = `rules[${index}]`;
    const causes: FieldCause[] = [];
    if ((rule.verbs ?? []).length === 0) {
      causes.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
    }
    const urls = rule.nonResourceURLs ?? [];
    if (urls.length > 0) {
      const invalid = (detail: string): FieldCause => ({
        type: 'FieldValueInvalid',
        field: `${path}.nonResourceURLs`,
        message: `Invalid value: ${goStrings(urls)}: ${detail}`,
      });
      if (namespaced) causes.push(invalid('namespaced rules cannot apply to non-resource URLs'));
      const resourceParts =
        (rule.apiGroups ?? []).length +
        (rule.resources ?? []).length +
        (rule.resourceNames ?? []).length;
      if (resourceParts > 0) {
        causes.push(invalid('rules cannot apply to both regular resources and non-resource URLs'));
      }
      return causes;
    }
    if ((rule.apiGroups ?? []).length === 0) {
      causes.push(
        required(`${path}.apiGroups`, 'resource rules must supply at least one api group'),
      );
    }
    if ((rule.resources ?? []).length === 0) {
      causes.push(
        required(`${path}.resources`, 'resource rules must supply at least one resource'),
      );
    }
    return causes;
  });
}

/** ValidateRoleBinding / ValidateClusterRoleBinding (roleRef and subjects). */
function validateBinding(object: KubeObject, namespaced: boolean): FieldCause[] {
  const causes: FieldCause[] = [];
  const roleRef = (object.roleRef ?? {}) as Partial<RoleRef>;
  if (roleRef.apiGroup !== rbacGroup) {
    causes.push(notSupported('roleRef.apiGroup', roleRef.apiGroup ?? '', [rbacGroup]));
  }
  if (roleRef.kind !== 'Role' && roleRef.kind !== 'ClusterRole') {
    causes.push(notSupported('roleRef.kind', roleRef.kind ?? '', ['Role', 'ClusterRole']));
  }
  if ((roleRef.name ?? '') === '') causes.push(required('roleRef.name'));
  const subjects = Array.isArray(object.subjects) ? (object.subjects as Subject[]) : [];
  subjects.forEach((subject, index) => {
    const path = `subjects[${index}]`;
    if ((subject.name ?? '') === '') causes.push(required(`${path}.name`));
    const apiGroup = subject.apiGroup ?? '';
    switch (subject.kind) {
      case 'ServiceAccount':
        if (apiGroup !== '') causes.push(notSupported(`${path}.apiGroup`, apiGroup, ['']));
        if (!namespaced && (subject.namespace ?? '') === '') {
          causes.push(required(`${path}.namespace`));
        }
        break;
      case 'User':
      case 'Group':
        if (apiGroup !== rbacGroup) {
          causes.push(notSupported(`${path}.apiGroup`, apiGroup, [rbacGroup]));
        }
        break;
      default:
        causes.push(
          notSupported(`${path}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']),
        );
    }
  });
  return causes;
}

/** SetDefaults_Subject: a User or Group subject without apiGroup is in rbac.authorization.k8s.io. */
function defaultSubjects(object: KubeObject): void {
  if (!Array.isArray(object.subjects)) return;
  for (const subject of object.subjects as Subject[]) {
    if ((subject.kind === 'User' || subject.kind === 'Group') && !subject.apiGroup) {
      subject.apiGroup = rbacGroup;
    }
  }
}

function bindingStrategy(namespaced: boolean): Strategy {
  return {
    ...builtinStrategy,
    topLevelFields: ['subjects', 'roleRef'],
    canonicalize(context, info, object) {
      builtinStrategy.canonicalize.call(this, context, info, object);
      defaultSubjects(object);
    },
    validate: (_context, _info, object) => validateBinding(object, namespaced),
    validateUpdate(existing, next): FieldCause[] {
      if (JSON.stringify(existing.roleRef) === JSON.stringify(next.roleRef)) return [];
      return [
        {
          type: 'FieldValueInvalid',
          field: 'roleRef',
          message: `Invalid value: ${goRoleRef(next.roleRef)}: cannot change roleRef`,
        },
      ];
    },
  };
}

/** Strategies by storage key (`group/resource`). */
export const rbacStrategies: Record<string, Strategy> = {
  [`${rbacGroup}/roles`]: {
    ...builtinStrategy,
    topLevelFields: ['rules'],
    validate: (_context, _info, object) => validateRules(object, true),
  },
  [`${rbacGroup}/clusterroles`]: {
    ...builtinStrategy,
    topLevelFields: ['rules', 'aggregationRule'],
    validate: (_context, _info, object) => validateRules(object, false),
  },
  [`${rbacGroup}/rolebindings`]: bindingStrategy(true),
  [`${rbacGroup}/clusterrolebindings`]: bindingStrategy(false),
};
