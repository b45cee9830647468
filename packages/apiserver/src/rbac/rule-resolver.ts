// Which PolicyRules apply to a user in a namespace: the ClusterRoleBindings, then the namespace's
// RoleBindings, whose subjects name the user, one of its groups or its service account, each resolved to
// its role's rules (kube's DefaultRuleResolver, pkg/registry/rbac/validation/rule.go). Reads the store
// directly: the built-in server has no informer lag, so a new binding applies to the next request.
import type { UserInfo } from '../authentication/authenticate.ts';
import { storageKey } from '../resources/builtin-resources.ts';
import type { KubeObject, Store } from '../storage/store.ts';
import type { PolicyRule, RoleRef, Subject } from './policy-rule.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
/** Storage keys of the four RBAC resources. */
export const rbacKeys = {
  roles: storageKey({ group: rbacGroup, resource: 'roles' }),
  roleBindings: storageKey({ group: rbacGroup, resource: 'rolebindings' }),
  clusterRoles: storageKey({ group: rbacGroup, resource: 'clusterroles' }),
  clusterRoleBindings: storageKey({ group: rbacGroup, resource: 'clusterrolebindings' }),
} as const;

/**
 * Called with each rule that applies (and `describe()` naming the binding that grants it), or with each
 * error met resolving a binding (a missing role). Returning false stops the walk.
 */
export type RuleVisitor = (
  rule: PolicyRule | undefined,
  describe: (() => string) | undefined,
  error: string | undefined,
) => boolean;

/** The rules that apply to a user, and the errors met collecting them (each still a partial answer). */
export interface ResolvedRules {
  rules: PolicyRule[];
  errors: string[];
}

interface Binding {
  name: string;
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

function bindingOf(object: KubeObject): Binding {
  const metadata = object.metadata ?? {};
  return {
    name: String(metadata.name ?? ''),
    namespace: String(metadata.namespace ?? ''),
    roleRef: (object.roleRef ?? { apiGroup: rbacGroup, kind: '', name: '' }) as RoleRef,
    subjects: Array.isArray(object.subjects) ? (object.subjects as Subject[]) : [],
  };
}

/** kube's Subject description in an "allowed by" reason. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const namespace = subject.namespace ? subject.namespace : bindingNamespace;
    return `${subject.kind} "${subject.name}/${namespace}"`;
  }
  return `${subject.kind} "${subject.name}"`;
}

/** True when `subject` names `user` (a ServiceAccount subject without namespace means `namespace`'s). */
export function subjectAppliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const accountNamespace = subject.namespace ? subject.namespace : namespace;
      if (accountNamespace === '') return false;
      return user.name === `system:serviceaccount:${accountNamespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** The store reads rule resolution needs. */
export type RbacObjects = Pick<Store, 'get' | 'snapshot'>;

/** Resolves bindings to rules from the Roles, ClusterRoles and bindings in a {@link Store}. */
export class RuleResolver {
  readonly #store: RbacObjects;

  constructor(store: RbacObjects) {
    this.#store = store;
  }

  /** The rules of the role `roleRef` names, read in `bindingNamespace` for a Role. Throws its message. */
  roleReferenceRules(roleRef: RoleRef, bindingNamespace: string): PolicyRule[] {
    let role: KubeObject | undefined;
    if (roleRef.kind === 'Role') {
      role = this.#store.get(rbacKeys.roles, bindingNamespace, roleRef.name);
      if (role === undefined) throw new RoleNotFoundError('role', roleRef.name);
    } else if (roleRef.kind === 'ClusterRole') {
      role = this.#store.get(rbacKeys.clusterRoles, '', roleRef.name);
      if (role === undefined) throw new RoleNotFoundError('clusterrole', roleRef.name);
    } else {
      throw new RoleNotFoundError(
        '',
        roleRef.name,
        `unsupported role reference kind: "${roleRef.kind}"`,
      );
    }
    return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
  }

  /** Visit every rule that applies to `user` cluster-wide and, when `namespace` is set, in `namespace`. */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    const scopes: Array<{ key: string; kind: string; namespace: string | undefined }> = [
      { key: rbacKeys.clusterRoleBindings, kind: 'ClusterRoleBinding', namespace: undefined },
    ];
    if (namespace !== '') {
      scopes.push({ key: rbacKeys.roleBindings, kind: 'RoleBinding', namespace });
    }
    for (const scope of scopes) {
      const bindingNamespace = scope.namespace ?? '';
      const bindings = [...this.#store.snapshot(scope.key).objects(scope.namespace)].map(bindingOf);
      for (const binding of bindings) {
        const subject = binding.subjects.find((candidate) =>
          subjectAppliesTo(user, candidate, bindingNamespace),
        );
        if (subject === undefined) continue;
        let rules: PolicyRule[];
        try {
          rules = this.roleReferenceRules(binding.roleRef, bindingNamespace);
        } catch (error) {
          if (!(error instanceof RoleNotFoundError)) throw error;
          if (!visitor(undefined, undefined, error.message)) return;
          continue;
        }
        const describe = (): string => {
          const name =
            scope.kind === 'RoleBinding' ? `${binding.name}/${binding.namespace}` : binding.name;
          return `${scope.kind} "${name}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, bindingNamespace)}`;
        };
        for (const rule of rules) {
          if (!visitor(rule, describe, undefined)) return;
        }
      }
    }
  }

  /** Every rule that applies to `user` in `namespace` ('' for cluster-wide only), with resolution errors. */
  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (rule, _describe, error) => {
      if (rule !== undefined) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}

/** A binding's role that does not exist (kube's NotFound text, `clusterrole.rbac.authorization.k8s.io "x" not found`). */
export class RoleNotFoundError extends Error {
  constructor(resource: string, name: string, message?: string) {
    super(message ?? `${resource}.${rbacGroup} "${name}" not found`);
    this.name = 'RoleNotFoundError';
  }
}

/**
 * utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated, comma-separated and
 * bracketed.
 */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
