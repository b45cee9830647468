import { describe, expect, it } from 'vitest';
import type { StatusError } from '../apimachinery/status.ts';
import { Store } from '../storage/store.ts';
import { Authorizer } from './authorizer.ts';
import { checkEscalation, compactString, uncoveredRules } from './escalation.ts';
import { rbacKeys } from './rule-resolver.ts';

describe('uncoveredRules (validation.Covers)', () => {
  it('covers by *, exact values, */subresource, resourceNames and URL prefixes', () => {
    const owned = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] },
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      { verbs: ['get'], nonResourceURLs: ['/logs*'] },
    ];
    expect(
      uncoveredRules(owned, [
        { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/status'] },
      ]),
    ).toEqual([]);
    expect(
      uncoveredRules(owned, [
        { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      ]),
    ).toEqual([]);
    expect(
      uncoveredRules(owned, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]),
    ).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    expect(
      uncoveredRules(owned, [{ verbs: ['get'], nonResourceURLs: ['/logs/x', '/metrics'] }]),
    ).toEqual([{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]);
  });

  it('writes rules as CompactString does', () => {
    expect(
      compactString({
        verbs: ['get', 'list'],
        apiGroups: [''],
        resources: ['pods'],
        resourceNames: ['a'],
      }),
    ).toBe('{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}');
  });
});

describe('checkEscalation', () => {
  const alice = { name: 'alice', groups: ['system:authenticated'] };
  function setup() {
    const store = new Store();
    store.create(rbacKeys.roles, {
      metadata: { namespace: 'ns', name: 'mine' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    });
    store.create(rbacKeys.roleBindings, {
      metadata: { namespace: 'ns', name: 'mine' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'mine' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    return new Authorizer(store);
  }
  const attempt = (authorizer: Authorizer, resource: string, object: Record<string, unknown>) => {
    try {
      checkEscalation({ authorizer, user: alice, resource, namespace: 'ns', object });
      return undefined;
    } catch (error) {
      return (error as StatusError).status;
    }
  };

  it('lets a user write a role with rules it holds, and refuses more with the missing rules', () => {
    const authorizer = setup();
    const held = {
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    };
    expect(attempt(authorizer, 'roles', held)).toBeUndefined();
    const more = {
      metadata: { name: 'r' },
      rules: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }],
    };
    expect(attempt(authorizer, 'roles', more)).toMatchObject({
      code: 403,
      message:
        'roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    });
  });

  it('answers 404 for a binding to a missing role, and lets system:masters write anything', () => {
    const authorizer = setup();
    const binding = {
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gone' },
    };
    expect(attempt(authorizer, 'rolebindings', binding)).toMatchObject({
      code: 404,
      message: 'clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
    expect(() =>
      checkEscalation({
        authorizer,
        user: { name: 'root', groups: ['system:masters'] },
        resource: 'rolebindings',
        namespace: 'ns',
        object: binding,
      }),
    ).not.toThrow();
  });
});
