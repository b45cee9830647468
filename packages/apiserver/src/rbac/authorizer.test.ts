import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import { Store } from '../storage/store.ts';
import type { AuthorizationAttributes, ResourceAttributes } from './attributes.ts';
import { Authorizer, forbiddenError } from './authorizer.ts';
import type { PolicyRule, Subject } from './policy-rule.ts';
import { rbacKeys } from './rule-resolver.ts';

const alice = { name: 'alice', groups: ['system:authenticated'] };
const robot = {
  name: 'system:serviceaccount:ns:robot',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
};

function get(
  user: { name: string; groups: string[] },
  resource: string,
  options: { namespace?: string; name?: string; verb?: string; group?: string } = {},
): ResourceAttributes {
  return {
    user,
    verb: options.verb ?? 'get',
    group: options.group ?? '',
    version: 'v1',
    resource,
    subresource: '',
    namespace: options.namespace ?? 'ns',
    name: options.name ?? '',
  };
}

function setup() {
  const store = new Store();
  const clusterRole = (name: string, rules: PolicyRule[]) =>
    store.create(rbacKeys.clusterRoles, { metadata: { name }, rules });
  const role = (namespace: string, name: string, rules: PolicyRule[]) =>
    store.create(rbacKeys.roles, { metadata: { namespace, name }, rules });
  const clusterBinding = (name: string, kind: string, role: string, subjects: Subject[]) =>
    store.create(rbacKeys.clusterRoleBindings, {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
      subjects,
    });
  const binding = (
    namespace: string,
    name: string,
    kind: string,
    role: string,
    subjects: Subject[],
  ) =>
    store.create(rbacKeys.roleBindings, {
      metadata: { namespace, name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
      subjects,
    });
  return { store, authorizer: new Authorizer(store), clusterRole, role, clusterBinding, binding };
}

const readConfigMaps: PolicyRule = {
  verbs: ['get', 'list'],
  apiGroups: [''],
  resources: ['configmaps'],
};

describe('Authorizer', () => {
  it('allows system:masters without a rule and without a reason', () => {
    const { authorizer } = setup();
    expect(
      authorizer.authorize(get({ name: 'root', groups: ['system:masters'] }, 'secrets')),
    ).toEqual({
      allowed: true,
      reason: '',
    });
  });

  it('denies without a binding, with no reason', () => {
    const { authorizer } = setup();
    expect(authorizer.authorize(get(alice, 'configmaps'))).toEqual({ allowed: false, reason: '' });
  });

  it('allows through a ClusterRoleBinding to a user, naming it in the reason', () => {
    const { authorizer, clusterRole, clusterBinding } = setup();
    clusterRole('reader', [readConfigMaps]);
    clusterBinding('read', 'ClusterRole', 'reader', [{ kind: 'User', name: 'alice' }]);
    expect(authorizer.authorize(get(alice, 'configmaps', { namespace: 'other' }))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "read" of ClusterRole "reader" to User "alice"',
    });
    expect(authorizer.authorize(get(alice, 'configmaps', { verb: 'delete' })).allowed).toBe(false);
  });

  it('allows through a RoleBinding only in its namespace, to a ClusterRole or a Role', () => {
    const { authorizer, clusterRole, role, binding } = setup();
    clusterRole('reader', [readConfigMaps]);
    role('ns', 'secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    binding('ns', 'a', 'ClusterRole', 'reader', [{ kind: 'Group', name: 'system:authenticated' }]);
    binding('ns', 'b', 'Role', 'secret-reader', [{ kind: 'User', name: 'alice' }]);
    expect(authorizer.authorize(get(alice, 'configmaps'))).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "a/ns" of ClusterRole "reader" to Group "system:authenticated"',
    });
    expect(authorizer.authorize(get(alice, 'secrets')).allowed).toBe(true);
    expect(authorizer.authorize(get(alice, 'configmaps', { namespace: 'other' })).allowed).toBe(
      false,
    );
    // A namespaced grant never reaches cluster scope.
    expect(authorizer.authorize(get(alice, 'configmaps', { namespace: '' })).allowed).toBe(false);
  });

  it('matches service accounts by name, by the binding namespace default and by their groups', () => {
    const { authorizer, clusterRole, binding, clusterBinding } = setup();
    clusterRole('reader', [readConfigMaps]);
    clusterRole('lister', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
    binding('ns', 'implicit', 'ClusterRole', 'reader', [{ kind: 'ServiceAccount', name: 'robot' }]);
    clusterBinding('all-accounts', 'ClusterRole', 'lister', [
      { kind: 'Group', name: 'system:serviceaccounts:ns' },
    ]);
    expect(authorizer.authorize(get(robot, 'configmaps')).reason).toBe(
      'RBAC: allowed by RoleBinding "implicit/ns" of ClusterRole "reader" to ServiceAccount "robot/ns"',
    );
    expect(authorizer.authorize(get(robot, 'pods', { verb: 'list', namespace: 'x' })).allowed).toBe(
      true,
    );
    // A ServiceAccount subject without namespace in a ClusterRoleBinding names nobody.
    clusterBinding('no-namespace', 'ClusterRole', 'reader', [
      { kind: 'ServiceAccount', name: 'robot' },
    ]);
    expect(authorizer.authorize(get(robot, 'configmaps', { namespace: 'x' })).allowed).toBe(false);
  });

  it('reports a binding to a missing role as RBAC reason, and still allows through another binding', () => {
    const { authorizer, clusterRole, clusterBinding, binding } = setup();
    clusterBinding('dangling', 'ClusterRole', 'x', [{ kind: 'User', name: 'alice' }]);
    expect(authorizer.authorize(get(alice, 'configmaps'))).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "x" not found',
    });
    binding('ns', 'dangling-role', 'Role', 'y', [{ kind: 'User', name: 'alice' }]);
    expect(authorizer.authorize(get(alice, 'configmaps')).reason).toBe(
      'RBAC: [clusterrole.rbac.authorization.k8s.io "x" not found, role.rbac.authorization.k8s.io "y" not found]',
    );
    clusterRole('reader', [readConfigMaps]);
    binding('ns', 'ok', 'ClusterRole', 'reader', [{ kind: 'User', name: 'alice' }]);
    expect(authorizer.authorize(get(alice, 'configmaps')).allowed).toBe(true);
  });

  it('lists rules for a rules review, split into resource and non-resource rules', () => {
    const { authorizer, clusterRole, clusterBinding } = setup();
    clusterRole('mixed', [
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    ]);
    clusterBinding('mixed', 'ClusterRole', 'mixed', [{ kind: 'User', name: 'alice' }]);
    clusterBinding('dangling', 'ClusterRole', 'gone', [{ kind: 'User', name: 'alice' }]);
    expect(authorizer.rulesFor(alice, 'ns')).toEqual({
      resourceRules: [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it('throws kube 403 messages from check', () => {
    const { authorizer } = setup();
    const message = (attributes: AuthorizationAttributes) => {
      try {
        authorizer.check(attributes);
      } catch (error) {
        return (error as StatusError).status;
      }
      throw new Error('allowed');
    };
    expect(message(get(alice, 'configmaps', { name: 'a', namespace: 'default' }))).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'configmaps "a" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"',
      details: { name: 'a', kind: 'configmaps' },
    });
    expect(message(get(alice, 'namespaces', { verb: 'list', namespace: '' })).message).toBe(
      'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    expect(
      message({
        ...get(alice, 'deployments', { name: 'd', group: 'apps', verb: 'update' }),
        subresource: 'scale',
      }).message,
    ).toBe(
      'deployments.apps "d" is forbidden: User "alice" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"',
    );
    expect(message({ user: alice, verb: 'get', path: '/foo' })).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'forbidden: User "alice" cannot get path "/foo"',
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
  });

  it('appends the reason and escapes HTML in the user part of a 403', () => {
    const error = forbiddenError(
      { user: { name: '<b>', groups: [] }, verb: 'get', path: '/x' },
      'RBAC: why',
    );
    expect(error).toBeInstanceOf(StatusError);
    expect(error.status.message).toBe(
      'forbidden: User "&lt;b&gt;" cannot get path "/x": RBAC: why',
    );
  });
});
