// One "wait for sync" across the informer and both factories: whenSynced({ signal }) resolves once every
// running informer synced, and rejects with a CacheNotSyncedError naming the kinds that had not.
import { CacheNotSyncedError } from '@lasso/cache';
import { isLassoError } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCluster, object } from './__fixtures__/fake-cluster.ts';
import { createSharedCacheFactory } from './shared-cache-factory.ts';
import { createSharedControllerFactory } from './shared-controller-factory.ts';

const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const secretGvk = { group: '', version: 'v1', kind: 'Secret' } as const;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup() {
  const cluster = new FakeCluster();
  cluster.serve(configMapGvk, 'configmaps', true, [object('v1', 'ConfigMap', 'a', 'team-a')]);
  cluster.serve(secretGvk, 'secrets', true, [object('v1', 'Secret', 's', 'vault')]);
  const caches = createSharedCacheFactory(cluster.clientFactory(), {
    clock: new FakeClock(),
    logger: createTestLogger(),
  });
  const stop = new AbortController();
  cleanups.push(() => caches.close());
  cleanups.push(() => stop.abort());
  return { cluster, caches, signal: stop.signal };
}

describe('whenSynced({ signal })', () => {
  it('resolves once every running informer of the cache factory synced', async () => {
    const { caches, signal } = setup();
    await caches.forKind(configMapGvk);
    await caches.forKind(secretGvk);
    await caches.start(signal);
    await expect(caches.whenSynced({ signal })).resolves.toBeUndefined();
    await expect(caches.whenSynced()).resolves.toBeUndefined();
  });

  it('rejects with a CacheNotSyncedError naming the kinds not synced when the signal aborts', async () => {
    const { cluster, caches, signal } = setup();
    const configMaps = await caches.forKind(configMapGvk);
    await caches.forKind(secretGvk);
    cluster.kind(secretGvk).holdLists();
    await caches.start(signal);
    await configMaps.whenSynced({ signal });
    const giveUp = new AbortController();
    const waiting = caches.whenSynced({ signal: giveUp.signal }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const reason = new Error('gave up');
    giveUp.abort(reason);
    const thrown = await waiting;
    expect(thrown).toBeInstanceOf(CacheNotSyncedError);
    expect(isLassoError(thrown) && thrown.code).toBe('LASSO_CACHE_NOT_SYNCED');
    expect((thrown as CacheNotSyncedError).informers).toEqual(['/v1, Kind=Secret']);
    expect((thrown as CacheNotSyncedError).cause).toBe(reason);
  });

  it('rejects a signal that is not an AbortSignal with a TypeError', async () => {
    const { caches } = setup();
    await expect(caches.whenSynced({ signal: {} as AbortSignal })).rejects.toThrow(TypeError);
  });

  it('the controller factory waits on its cache factory', async () => {
    const { caches, signal } = setup();
    const controllers = createSharedControllerFactory(caches, { logger: createTestLogger() });
    cleanups.push(() => controllers.close());
    await caches.forKind(configMapGvk);
    await controllers.start(signal);
    await expect(controllers.whenSynced({ signal })).resolves.toBeUndefined();
  });
});
