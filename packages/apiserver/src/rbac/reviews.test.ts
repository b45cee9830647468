import { describe, expect, it } from 'vitest';
import type { StatusError } from '../apimachinery/status.ts';
import { Store } from '../storage/store.ts';
import { Authorizer } from './authorizer.ts';
import { answerReview } from './reviews.ts';
import { rbacKeys } from './rule-resolver.ts';

function setup() {
  const store = new Store();
  store.create(rbacKeys.clusterRoles, {
    metadata: { name: 'reader' },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  });
  store.create(rbacKeys.roleBindings, {
    metadata: { namespace: 'ns', name: 'read' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  return new Authorizer(store);
}

const alice = { name: 'alice', groups: ['system:authenticated'] };

function failureOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    return (error as StatusError).status;
  }
  throw new Error('no failure');
}

describe('answerReview', () => {
  it('answers a SelfSubjectAccessReview about the caller', () => {
    const authorizer = setup();
    const spec = { resourceAttributes: { namespace: 'ns', verb: 'get', resource: 'pods' } };
    expect(
      answerReview({
        resource: 'selfsubjectaccessreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec },
        caller: alice,
        namespace: '',
        authorizer,
      }),
    ).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec,
      status: {
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "read/ns" of ClusterRole "reader" to User "alice"',
      },
    });
  });

  it('answers a SubjectAccessReview about the user and groups of its spec, not the caller', () => {
    const authorizer = setup();
    const review = (user: string) =>
      answerReview({
        resource: 'subjectaccessreviews',
        body: {
          spec: { user, resourceAttributes: { namespace: 'ns', verb: 'get', resource: 'pods' } },
        },
        caller: { name: 'admin', groups: ['system:masters'] },
        namespace: '',
        authorizer,
      }).status;
    expect(review('alice')).toMatchObject({ allowed: true });
    expect(review('bob')).toEqual({ allowed: false });
  });

  it('lists rules for a SelfSubjectRulesReview and needs its namespace', () => {
    const authorizer = setup();
    const answer = answerReview({
      resource: 'selfsubjectrulesreviews',
      body: { spec: { namespace: 'ns' } },
      caller: alice,
      namespace: '',
      authorizer,
    });
    expect(answer).toEqual({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
        nonResourceRules: [],
        incomplete: false,
      },
    });
    const missing = failureOf(() =>
      answerReview({
        resource: 'selfsubjectrulesreviews',
        body: {},
        caller: alice,
        namespace: '',
        authorizer,
      }),
    );
    expect(missing).toMatchObject({ code: 400, message: 'no namespace on request' });
  });

  it('refuses invalid specs with kube causes', () => {
    const authorizer = setup();
    const both = failureOf(() =>
      answerReview({
        resource: 'selfsubjectaccessreviews',
        body: {
          spec: {
            resourceAttributes: { verb: 'get' },
            nonResourceAttributes: { path: '/x', verb: 'get' },
          },
        },
        caller: alice,
        namespace: '',
        authorizer,
      }),
    );
    expect(both).toMatchObject({
      code: 422,
      message:
        '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
      details: { group: 'authorization.k8s.io' },
    });
    expect(both.details).not.toHaveProperty('kind');
    const local = failureOf(() =>
      answerReview({
        resource: 'localsubjectaccessreviews',
        body: { spec: { user: 'u', nonResourceAttributes: { path: '/x', verb: 'get' } } },
        caller: alice,
        namespace: 'ns',
        authorizer,
      }),
    );
    expect(local.message).toBe(
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request',
    );
  });
});
