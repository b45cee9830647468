// Conformance: a deleted namespace is emptied and goes, as kube-controller-manager's namespace
// controller does it. The API server's part (Terminating, the `kubernetes` finalizer, refusing new
// content) runs everywhere; the controller's part runs on a real cluster and on the built-in server
// with `controllers.namespaceLifecycle`, not with KUBEBUILDER_ASSETS (no kube-controller-manager there,
// as in controller-runtime's envtest).

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, crd, unique, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const withoutControllerManager =
  (process.env.LASSO_TEST_KUBECONFIG ?? '') === '' && (process.env.KUBEBUILDER_ASSETS ?? '') !== '';

/** A real namespace controller re-reads discovery before it deletes: allow it a while. */
const namespaceTimeoutMs = 60_000;

const gizmos = crd({ group: 'nsdeletion.lasso.dev', plural: 'gizmos', kind: 'Gizmo' });

let env: Environment;

beforeAll(async () => {
  env = await startEnvironment({
    crds: [gizmos],
    controllers: { garbageCollector: true, namespaceLifecycle: true },
  });
});

afterAll(async () => {
  await env?.stop();
});

async function createNamespace(name: string): Promise<any> {
  const created = await call(env, 'POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  expect(created.status).toBe(201);
  return created.body;
}

describe('namespace deletion (API server)', () => {
  it('turns a deleted namespace Terminating with the kubernetes finalizer and refuses new content', async () => {
    const name = unique('terminating');
    await createNamespace(name);
    const held = await call(env, 'POST', `/api/v1/namespaces/${name}/configmaps`, {
      body: { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    expect(held.status).toBe(201);
    const deleted = await call(env, 'DELETE', `/api/v1/namespaces/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.status.phase).toBe('Terminating');
    expect(deleted.body.spec.finalizers).toEqual(['kubernetes']);
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    // The namespace storage sets no grace period (unlike a graceful delete).
    expect(deleted.body.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    const refused = await call(env, 'POST', `/api/v1/namespaces/${name}/configmaps`, {
      body: configMap('late'),
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ reason: 'Forbidden', code: 403 });
    expect(refused.body.message).toBe(
      `configmaps "late" is forbidden: unable to create new content in namespace ${name} because it is being terminated`,
    );
    await call(env, 'PATCH', `/api/v1/namespaces/${name}/configmaps/held`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
  });
});

describe.skipIf(withoutControllerManager)(
  'namespace controller (skipped with KUBEBUILDER_ASSETS: kube-apiserver runs there without kube-controller-manager, as in controller-runtime envtest)',
  // A real controller-manager takes seconds (its informers, the namespace controller's discovery).
  { timeout: 2 * namespaceTimeoutMs + 10_000 },
  () => {
    it('deletes every object in a deleted namespace, custom resources included, then the namespace', async () => {
      const name = unique('emptied');
      const namespace = await createNamespace(name);
      const base = `/api/v1/namespaces/${name}`;
      expect(
        (await call(env, 'POST', `${base}/configmaps`, { body: configMap('cm') })).status,
      ).toBe(201);
      const gizmo = await call(
        env,
        'POST',
        `/apis/nsdeletion.lasso.dev/v1/namespaces/${name}/gizmos`,
        {
          body: { apiVersion: 'nsdeletion.lasso.dev/v1', kind: 'Gizmo', metadata: { name: 'g' } },
        },
      );
      expect(gizmo.status).toBe(201);
      const stream = await watch(
        env,
        `/api/v1/namespaces?watch=1&fieldSelector=metadata.name=${name}&resourceVersion=${namespace.metadata.resourceVersion}`,
      );
      try {
        expect((await call(env, 'DELETE', `/api/v1/namespaces/${name}`)).status).toBe(200);
        await stream.until((event) => event.type === 'DELETED', namespaceTimeoutMs);
      } finally {
        stream.close();
      }
      const left = await call(env, 'GET', `/apis/nsdeletion.lasso.dev/v1/gizmos`);
      expect(left.body.items.filter((item: any) => item.metadata.namespace === name)).toEqual([]);
      expect((await call(env, 'GET', `${base}/configmaps`)).body.items).toEqual([]);
    });

    it('waits for content with finalizers, reporting it in its conditions, and goes once it is released', async () => {
      const name = unique('waiting');
      const namespace = await createNamespace(name);
      const held = `/api/v1/namespaces/${name}/configmaps/held`;
      const created = await call(env, 'POST', `/api/v1/namespaces/${name}/configmaps`, {
        body: {
          ...configMap('held'),
          metadata: { name: 'held', finalizers: ['example.com/hold'] },
        },
      });
      expect(created.status).toBe(201);
      const stream = await watch(
        env,
        `/api/v1/namespaces?watch=1&fieldSelector=metadata.name=${name}&resourceVersion=${namespace.metadata.resourceVersion}`,
      );
      try {
        await call(env, 'DELETE', `/api/v1/namespaces/${name}`);
        const seen = await stream.until(
          (event) =>
            (event.object.status?.conditions ?? []).some(
              (condition: any) =>
                condition.type === 'NamespaceFinalizersRemaining' && condition.status === 'True',
            ),
          namespaceTimeoutMs,
        );
        const conditions = seen.at(-1)!.object.status.conditions;
        expect(conditions).toContainEqual(
          expect.objectContaining({
            type: 'NamespaceFinalizersRemaining',
            status: 'True',
            reason: 'SomeFinalizersRemain',
            message:
              'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
          }),
        );
        expect(conditions).toContainEqual(
          expect.objectContaining({
            type: 'NamespaceContentRemaining',
            status: 'True',
            reason: 'SomeResourcesRemain',
            message: 'Some resources are remaining: configmaps. has 1 resource instances',
          }),
        );
        const live = await call(env, 'GET', held);
        expect(live.body.metadata.deletionTimestamp).toBeDefined();
        await call(env, 'PATCH', held, {
          body: { metadata: { finalizers: null } },
          contentType: 'application/merge-patch+json',
        });
        await stream.until((event) => event.type === 'DELETED', namespaceTimeoutMs);
      } finally {
        stream.close();
      }
    });
  },
);
