// Conformance: ownerReferences as a cluster follows them. The API server's part (the finalizers a
// propagation policy sets, each kind's default) runs everywhere; the garbage collector's part needs
// kube-controller-manager: a real cluster runs it, the built-in server runs its own when asked
// (`controllers.garbageCollector`), and KUBEBUILDER_ASSETS starts none (as controller-runtime's envtest).

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, unique, type WatchStream, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The environment startEnvironment picks has no kube-controller-manager (real binaries alone). */
const withoutControllerManager =
  (process.env.LASSO_TEST_KUBECONFIG ?? '') === '' && (process.env.KUBEBUILDER_ASSETS ?? '') !== '';

/** How long a real garbage collector may take (it follows its own informers). */
const gcTimeoutMs = 30_000;

let env: Environment;
let cms: string;
let secrets: string;

beforeAll(async () => {
  env = await startEnvironment({
    namespace: true,
    controllers: { garbageCollector: true, namespaceLifecycle: true },
  });
  cms = `/api/v1/namespaces/${env.namespace}/configmaps`;
  secrets = `/api/v1/namespaces/${env.namespace}/secrets`;
});

afterAll(async () => {
  await env?.stop();
});

interface Owner {
  name: string;
  uid: string;
  resourceVersion: string;
  ref(blockOwnerDeletion?: boolean): Record<string, unknown>;
}

async function createOwner(name: string): Promise<Owner> {
  const created = await call(env, 'POST', cms, { body: configMap(name) });
  expect(created.status).toBe(201);
  const { uid, resourceVersion } = created.body.metadata;
  return {
    name,
    uid,
    resourceVersion,
    ref: (block) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name,
      uid,
      ...(block === undefined ? {} : { blockOwnerDeletion: block }),
    }),
  };
}

async function createDependent(
  name: string,
  ownerReferences: unknown[],
  finalizers?: string[],
): Promise<any> {
  const metadata = { name, ownerReferences, ...(finalizers === undefined ? {} : { finalizers }) };
  const created = await call(env, 'POST', secrets, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata },
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** A watch of `path` from `resourceVersion`, closed after the test. */
async function watchFrom(path: string, resourceVersion: string): Promise<WatchStream> {
  const stream = await watch(env, `${path}?watch=1&resourceVersion=${resourceVersion}`);
  expect(stream.status).toBe(200);
  return stream;
}

const deletedNamed = (name: string) => (event: { type: string; object: any }) =>
  event.type === 'DELETED' && event.object.metadata.name === name;

async function waitDeleted(stream: WatchStream, names: string[]): Promise<void> {
  const pending = new Set(names);
  await stream.until((event) => {
    if (event.type === 'DELETED') pending.delete(event.object.metadata.name);
    return pending.size === 0;
  }, gcTimeoutMs);
}

describe('deletion propagation (API server)', () => {
  it('marks an owner deleted with Foreground with deletionTimestamp and the foregroundDeletion finalizer', async () => {
    const owner = await createOwner(unique('fg-mark'));
    // A finalizer of its own keeps it in every environment, whatever runs.
    await call(env, 'PATCH', `${cms}/${owner.name}`, {
      body: { metadata: { finalizers: ['example.com/hold'] } },
      contentType: 'application/merge-patch+json',
    });
    const deleted = await call(env, 'DELETE', `${cms}/${owner.name}`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    expect(deleted.body.metadata.finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    await call(env, 'PATCH', `${cms}/${owner.name}`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
  });

  it('orphans by default for a batch/v1 Job deleted without a policy (its DefaultGarbageCollectionPolicy)', async () => {
    const jobs = `/apis/batch/v1/namespaces/${env.namespace}/jobs`;
    const name = unique('job');
    const created = await call(env, 'POST', jobs, {
      body: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, finalizers: ['example.com/hold'] },
        spec: {
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
          },
        },
      },
    });
    expect(created.status).toBe(201);
    const deleted = await call(env, 'DELETE', `${jobs}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
    await call(env, 'PATCH', `${jobs}/${name}`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
  });

  it('deletes an apps/v1 Deployment without a policy at once (Background, no finalizer)', async () => {
    const deployments = `/apis/apps/v1/namespaces/${env.namespace}/deployments`;
    const name = unique('deploy');
    const labels = { app: name };
    const created = await call(env, 'POST', deployments, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'main', image: 'busybox' }] },
          },
        },
      },
    });
    expect(created.status).toBe(201);
    expect((await call(env, 'DELETE', `${deployments}/${name}`)).status).toBe(200);
    expect((await call(env, 'GET', `${deployments}/${name}`)).status).toBe(404);
  });
});

describe.skipIf(withoutControllerManager)(
  'garbage collector (skipped with KUBEBUILDER_ASSETS: kube-apiserver runs there without kube-controller-manager, as in controller-runtime envtest)',
  // A real controller-manager takes seconds (its informers, the namespace controller's discovery).
  { timeout: 2 * gcTimeoutMs + 10_000 },
  () => {
    it('deletes the dependents of a deleted owner (Background), after the DELETE answered', async () => {
      const owner = await createOwner(unique('owner'));
      const a = await createDependent(unique('dep'), [owner.ref()]);
      const b = await createDependent(unique('dep'), [owner.ref()]);
      const stream = await watchFrom(secrets, a.metadata.resourceVersion);
      try {
        const deleted = await call(env, 'DELETE', `${cms}/${owner.name}`);
        expect(deleted.status).toBe(200);
        await waitDeleted(stream, [a.metadata.name, b.metadata.name]);
      } finally {
        stream.close();
      }
    });

    it('counts an owner with another uid, or one that does not exist, as absent', async () => {
      const first = await createOwner(unique('recreated'));
      await call(env, 'DELETE', `${cms}/${first.name}`);
      const second = await createOwner(first.name);
      const stale = await createDependent(unique('stale'), [first.ref()]);
      const never = await createDependent(unique('never'), [
        { apiVersion: 'v1', kind: 'ConfigMap', name: unique('missing'), uid: crypto.randomUUID() },
      ]);
      const kept = await createDependent(unique('kept'), [second.ref()]);
      const stream = await watchFrom(secrets, stale.metadata.resourceVersion);
      try {
        await waitDeleted(stream, [stale.metadata.name, never.metadata.name]);
      } finally {
        stream.close();
      }
      expect((await call(env, 'GET', `${secrets}/${kept.metadata.name}`)).status).toBe(200);
    });

    it('removes a gone owner from a dependent that has another owner left', async () => {
      const first = await createOwner(unique('first'));
      const second = await createOwner(unique('second'));
      const shared = await createDependent(unique('shared'), [first.ref(), second.ref()]);
      const stream = await watchFrom(secrets, shared.metadata.resourceVersion);
      try {
        await call(env, 'DELETE', `${cms}/${first.name}`);
        const seen = await stream.until(
          (event) =>
            event.object.metadata.name === shared.metadata.name &&
            event.object.metadata.ownerReferences?.length === 1,
          gcTimeoutMs,
        );
        const last = seen.at(-1)!;
        expect(last.type).toBe('MODIFIED');
        expect(last.object.metadata.ownerReferences[0].uid).toBe(second.uid);
      } finally {
        stream.close();
      }
    });

    it('deletes in foreground: dependents first, a blockOwnerDeletion one holds the owner until it is gone', async () => {
      const owner = await createOwner(unique('fg'));
      const blocker = await createDependent(
        unique('blocker'),
        [owner.ref(true)],
        ['example.com/hold'],
      );
      const free = await createDependent(unique('free'), [owner.ref(false)]);
      const secretsStream = await watchFrom(secrets, free.metadata.resourceVersion);
      const ownerStream = await watchFrom(cms, owner.resourceVersion);
      try {
        const deleted = await call(env, 'DELETE', `${cms}/${owner.name}`, {
          body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
        });
        expect(deleted.status).toBe(200);
        expect(deleted.body.metadata.finalizers).toEqual(['foregroundDeletion']);
        // The free dependent goes; the blocker is marked deleted and waits for its own finalizer.
        const pending = new Set([free.metadata.name, blocker.metadata.name]);
        await secretsStream.until((event) => {
          const { name, deletionTimestamp } = event.object.metadata;
          if (name === free.metadata.name && event.type === 'DELETED') pending.delete(name);
          if (name === blocker.metadata.name && deletionTimestamp !== undefined)
            pending.delete(name);
          return pending.size === 0;
        }, gcTimeoutMs);
        const held = await call(env, 'GET', `${cms}/${owner.name}`);
        expect(held.status).toBe(200);
        expect(held.body.metadata.finalizers).toEqual(['foregroundDeletion']);
        await call(env, 'PATCH', `${secrets}/${blocker.metadata.name}`, {
          body: { metadata: { finalizers: null } },
          contentType: 'application/merge-patch+json',
        });
        await ownerStream.until(deletedNamed(owner.name), gcTimeoutMs);
      } finally {
        secretsStream.close();
        ownerStream.close();
      }
    });

    it('orphans: removes the owner reference from its dependents, then the orphan finalizer, and the owner goes', async () => {
      const owner = await createOwner(unique('orphaner'));
      const dependent = await createDependent(unique('orphan'), [owner.ref(true)]);
      const stream = await watchFrom(cms, owner.resourceVersion);
      try {
        const deleted = await call(env, 'DELETE', `${cms}/${owner.name}`, {
          body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' },
        });
        expect(deleted.body.metadata.finalizers).toEqual(['orphan']);
        await stream.until(deletedNamed(owner.name), gcTimeoutMs);
      } finally {
        stream.close();
      }
      const live = await call(env, 'GET', `${secrets}/${dependent.metadata.name}`);
      expect(live.status).toBe(200);
      expect(live.body.metadata.ownerReferences).toBeUndefined();
    });

    it('follows a cluster-scoped owner of a namespaced dependent', async () => {
      const classes = '/apis/scheduling.k8s.io/v1/priorityclasses';
      const name = unique('owner-class');
      const created = await call(env, 'POST', classes, {
        body: {
          apiVersion: 'scheduling.k8s.io/v1',
          kind: 'PriorityClass',
          metadata: { name },
          value: 7,
        },
      });
      expect(created.status).toBe(201);
      const dependent = await createDependent(unique('class-owned'), [
        {
          apiVersion: 'scheduling.k8s.io/v1',
          kind: 'PriorityClass',
          name,
          uid: created.body.metadata.uid,
        },
      ]);
      const stream = await watchFrom(secrets, dependent.metadata.resourceVersion);
      try {
        await call(env, 'DELETE', `${classes}/${name}`);
        await stream.until(deletedNamed(dependent.metadata.name), gcTimeoutMs);
      } finally {
        stream.close();
      }
    });
  },
);
