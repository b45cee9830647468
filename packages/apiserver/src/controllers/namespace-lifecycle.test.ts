import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './__fixtures__/harness.ts';

let harness: Harness;

afterEach(() => {
  harness?.manager.stop();
  // Nothing the controllers did failed.
  expect(harness?.warnings).toEqual([]);
});

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    ],
  },
};

function seed(namespace: string): void {
  expect(harness.send('POST', '/api/v1/namespaces', { metadata: { name: namespace } }).code).toBe(
    201,
  );
  const base = `/api/v1/namespaces/${namespace}`;
  expect(harness.send('POST', `${base}/configmaps`, { metadata: { name: 'cm' } }).code).toBe(201);
  expect(harness.send('POST', `${base}/secrets`, { metadata: { name: 's' } }).code).toBe(201);
}

const namespace = (name: string) => harness.send('GET', `/api/v1/namespaces/${name}`);

describe('namespace lifecycle controller', () => {
  it('deletes the content of a deleted namespace (custom resources too), then the namespace', async () => {
    harness = startHarness({ namespaceLifecycle: true });
    expect(
      harness.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd).code,
    ).toBe(201);
    seed('doomed');
    const gizmos = '/apis/example.com/v1/namespaces/doomed/gizmos';
    expect(
      harness.send('POST', gizmos, {
        apiVersion: 'example.com/v1',
        kind: 'Gizmo',
        metadata: { name: 'g' },
      }).code,
    ).toBe(201);
    seed('bystander');
    const deleted = harness.send('DELETE', '/api/v1/namespaces/doomed');
    expect(deleted.body.status.phase).toBe('Terminating');
    expect(deleted.body.spec.finalizers).toEqual(['kubernetes']);
    // Creating in a terminating namespace is refused, as kube-apiserver refuses it.
    const refused = harness.send('POST', '/api/v1/namespaces/doomed/configmaps', {
      metadata: { name: 'late' },
    });
    expect(refused.code).toBe(403);
    expect(refused.body.message).toContain('because it is being terminated');
    await harness.settled();
    expect(namespace('doomed').code).toBe(404);
    expect(harness.send('GET', gizmos).body.items).toEqual([]);
    expect(harness.send('GET', '/api/v1/namespaces/doomed/configmaps').body.items).toEqual([]);
    expect(harness.send('GET', '/api/v1/namespaces/bystander/configmaps/cm').code).toBe(200);
  });

  it('waits for objects with finalizers, saying so in its conditions, then finalizes', async () => {
    harness = startHarness({ namespaceLifecycle: true });
    seed('held');
    const held = '/api/v1/namespaces/held/configmaps/cm';
    const heldSecret = '/api/v1/namespaces/held/secrets/s';
    const hold = { metadata: { finalizers: ['example.com/hold'] } };
    const release = { metadata: { finalizers: null } };
    harness.send('PATCH', held, hold, 'application/merge-patch+json');
    harness.send('PATCH', heldSecret, hold, 'application/merge-patch+json');
    harness.send('DELETE', '/api/v1/namespaces/held');
    await harness.settled();
    const conditions = () =>
      Object.fromEntries(
        namespace('held').body.status.conditions.map((c: any) => [c.type, c]),
      ) as Record<string, any>;
    expect(namespace('held').body.status.phase).toBe('Terminating');
    expect(conditions().NamespaceContentRemaining).toEqual({
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message:
        'Some resources are remaining: configmaps. has 1 resource instances, secrets. has 1 resource instances',
      lastTransitionTime: '2030-01-02T03:04:05Z',
    });
    expect(conditions().NamespaceFinalizersRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message:
        'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances',
    });
    expect(conditions().NamespaceDeletionDiscoveryFailure).toMatchObject({
      status: 'False',
      reason: 'ResourcesDiscovered',
      message: 'All resources successfully discovered',
    });
    // A new message with the same status keeps the condition's lastTransitionTime, as kube's updater does.
    await harness.clock.advance(5_000);
    harness.send('PATCH', heldSecret, release, 'application/merge-patch+json');
    await harness.settled();
    expect(conditions().NamespaceContentRemaining).toMatchObject({
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
      lastTransitionTime: '2030-01-02T03:04:05Z',
    });
    expect(harness.send('GET', heldSecret).code).toBe(404);
    harness.send('PATCH', held, release, 'application/merge-patch+json');
    await harness.settled();
    expect(namespace('held').code).toBe(404);
  });

  it('leaves the namespace Terminating when off (the default) and removes only its own finalizer', async () => {
    harness = startHarness({});
    seed('kept');
    harness.send('DELETE', '/api/v1/namespaces/kept');
    await harness.settled();
    expect(namespace('kept').body.status.phase).toBe('Terminating');
    expect(harness.send('GET', '/api/v1/namespaces/kept/configmaps/cm').code).toBe(200);
    harness.manager.stop();
    harness = startHarness({ namespaceLifecycle: true });
    expect(
      harness.send('POST', '/api/v1/namespaces', {
        metadata: { name: 'other-finalizer' },
        spec: { finalizers: ['kubernetes', 'example.com/x'] },
      }).code,
    ).toBe(201);
    harness.send('DELETE', '/api/v1/namespaces/other-finalizer');
    await harness.settled();
    expect(namespace('other-finalizer').body.spec.finalizers).toEqual(['example.com/x']);
  });

  it('with the garbage collector: dependents in other namespaces of a cluster-scoped owner go too', async () => {
    harness = startHarness({ namespaceLifecycle: true, garbageCollector: true });
    seed('owner');
    seed('elsewhere');
    const owner = namespace('owner').body;
    harness.send('POST', '/api/v1/namespaces/elsewhere/configmaps', {
      metadata: {
        name: 'owned-by-namespace',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Namespace', name: 'owner', uid: owner.metadata.uid },
        ],
      },
    });
    harness.send('DELETE', '/api/v1/namespaces/owner');
    await harness.settled();
    expect(namespace('owner').code).toBe(404);
    expect(
      harness.send('GET', '/api/v1/namespaces/elsewhere/configmaps/owned-by-namespace').code,
    ).toBe(404);
    expect(harness.send('GET', '/api/v1/namespaces/elsewhere/configmaps/cm').code).toBe(200);
  });
});
