import type { CacheClient } from '@lasso/cache';
import { FakeListerWatcher } from '@lasso/cache/testing';
import type { KubeObject } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqlCacheFactory } from './factory.ts';
import type { SqlCacheFactory } from './factory-types.ts';

type Obj = KubeObject & { data?: Record<string, string> };

function fakeClient(
  kind: string,
  objects: Obj[],
  group = '',
): { client: CacheClient<Obj>; fake: FakeListerWatcher<Obj> } {
  const fake = new FakeListerWatcher<Obj>({ objects });
  return {
    fake,
    client: {
      gvr: { group, version: 'v1', resource: `${kind.toLowerCase()}s` },
      kind,
      namespaced: true,
      list: (_namespace, options) => fake.list(options ?? {}),
      watch: (_namespace, options) => fake.watch(options ?? {}),
    },
  };
}

const cm = (namespace: string, name: string, data: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, managedFields: [{ manager: 'x' }] as never },
  data,
});

/** Resolves once `predicate` holds after a watch event; bounded by the number of event turns. */
async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !predicate(); i++)
    await new Promise((resolve) => setImmediate(resolve));
  expect(predicate()).toBe(true);
}

let factory: SqlCacheFactory | undefined;
afterEach(async () => {
  await factory?.close();
  factory = undefined;
});

describe('createSqlCacheFactory', () => {
  it('warms up several kinds in parallel and follows their watches', async () => {
    const clock = new FakeClock();
    factory = createSqlCacheFactory({ clock, logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x', { k: 'v' }), cm('b', 'y')]);
    const secrets = fakeClient('Secret', [cm('a', 's', { password: 'c2VjcmV0' })]);
    const controller = new AbortController();
    await factory.start(controller.signal);
    expect(factory.isRunning()).toBe(true);
    // Blocking (the default): both kinds list at once, each call resolves once its kind is synced.
    const [cmCache, secretCache] = await Promise.all([
      factory.cacheFor(configMaps.client, { fields: ['data.k'] }),
      factory.cacheFor(secrets.client),
    ]);
    expect(await factory.cacheFor(configMaps.client, { fields: ['data.k'] })).toBe(cmCache);
    expect(cmCache.hasSynced()).toBe(true);
    expect(factory.kinds()).toEqual(['v1, Kind=ConfigMap', 'v1, Kind=Secret']);
    const listed = cmCache.list({
      partitions: [{ passthrough: true }],
      filters: [[{ field: 'data.k', op: '=', values: ['v'] }]],
    });
    expect(listed.items.map((o) => o.metadata?.name)).toEqual(['x']);
    // managedFields are dropped before storing.
    expect(listed.items[0]?.metadata?.managedFields).toBeUndefined();
    expect(secretCache.store.getByKey('a/s')?.data).toEqual({ password: 'c2VjcmV0' });

    await configMaps.fake.nextWatch();
    configMaps.fake.create(cm('c', 'z', { k: 'v' }));
    configMaps.fake.remove('a/x');
    await until(() => cmCache.store.getByKey('a/x') === undefined && cmCache.store.size() === 2);
    expect(
      cmCache
        .list({
          partitions: [{ passthrough: true }],
          filters: [[{ field: 'data.k', op: '=', values: ['v'] }]],
        })
        .items.map((o) => o.metadata?.name),
    ).toEqual(['z']);
    expect(cmCache.list().resourceVersion).toBe(configMaps.fake.resourceVersion());

    controller.abort();
    expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
    expect(factory.isRunning()).toBe(false);
    // The data stays readable while stopped.
    expect(cmCache.store.size()).toBe(2);
  });

  it('starts again after a stop and relists into the same tables', async () => {
    const clock = new FakeClock();
    factory = createSqlCacheFactory({ clock, logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    const cache = factory.cacheFor(configMaps.client, { waitForSync: false });
    const first = new AbortController();
    await factory.start(first.signal);
    await cache.whenSynced();
    first.abort();
    await factory.stopped();
    configMaps.fake.create(cm('a', 'y'));
    const second = new AbortController();
    await factory.start(second.signal);
    await until(() => cache.store.size() === 2);
    expect(configMaps.fake.listCalls).toHaveLength(2);
    second.abort();
    await factory.stopped();
  });

  it('stops one kind and drops its tables, leaving the others', async () => {
    const clock = new FakeClock();
    factory = createSqlCacheFactory({ clock, logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    const widgets = fakeClient('Widget', [cm('a', 'w')], 'example.com');
    const controller = new AbortController();
    await factory.start(controller.signal);
    const [cmCache, widgetCache] = await Promise.all([
      factory.cacheFor(configMaps.client),
      factory.cacheFor(widgets.client),
    ]);
    await factory.stopKind({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(factory.kinds()).toEqual(['v1, Kind=ConfigMap']);
    expect(() => widgetCache.store.size()).toThrow(/dropped/);
    expect(cmCache.store.size()).toBe(1);
    // A later cacheFor starts the kind afresh.
    const again = await factory.cacheFor(widgets.client);
    expect(again.store.listKeys()).toEqual(['a/w']);
    controller.abort();
    await factory.stopped();
  });

  it('resets: every kind stopped, waiters rejected, a fresh database for the next caches', async () => {
    const clock = new FakeClock();
    factory = createSqlCacheFactory({ clock, logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    configMaps.fake.failNextList(new Error('not yet'), 100);
    const controller = new AbortController();
    await factory.start(controller.signal);
    const cache = factory.cacheFor(configMaps.client, { waitForSync: false });
    const waiting = cache.whenSynced();
    await factory.reset();
    await expect(waiting).rejects.toThrow(/reset/);
    expect(factory.kinds()).toEqual([]);
    const fresh = fakeClient('ConfigMap', [cm('b', 'y')]);
    const next = await factory.cacheFor(fresh.client);
    expect(next.store.listKeys()).toEqual(['b/y']);
    controller.abort();
    await factory.stopped();
  });

  it('rejects whenSynced on abort of its signal and refuses use after close', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', []);
    const cache = factory.cacheFor(configMaps.client, { waitForSync: false });
    const signal = AbortSignal.abort(new Error('gave up'));
    await expect(cache.whenSynced(signal)).rejects.toThrow('gave up');
    const waiter = new AbortController();
    const waiting = cache.whenSynced(waiter.signal);
    waiter.abort(new Error('later'));
    await expect(waiting).rejects.toThrow('later');
    await factory.close();
    await factory.close();
    await expect(factory.start(new AbortController().signal)).rejects.toThrow(/closed/);
    expect(() => factory?.cacheFor(configMaps.client, { waitForSync: false })).toThrow(/closed/);
    await expect(factory.cacheFor(configMaps.client)).rejects.toThrow(/start the factory first/);
  });

  it('is stopped and drained before any start', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    expect(factory.isRunning()).toBe(false);
    expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
    // An already aborted signal starts nothing.
    await factory.start(AbortSignal.abort());
    expect(factory.isRunning()).toBe(false);
  });

  it('refuses a bad drainTimeoutMs', () => {
    expect(() => createSqlCacheFactory({ drainTimeoutMs: -1 })).toThrow(RangeError);
  });

  it('refuses a bad gracefulShutdownTimeoutMs, naming it', () => {
    expect(() => createSqlCacheFactory({ gracefulShutdownTimeoutMs: -1 })).toThrow(
      /gracefulShutdownTimeoutMs must be >= 0/,
    );
  });

  it('whenSynced takes { signal }, and the signal alone (deprecated)', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    const stop = new AbortController();
    await factory.start(stop.signal);
    const cache = factory.cacheFor(configMaps.client, { waitForSync: false });
    await cache.whenSynced({ signal: stop.signal });
    await cache.whenSynced(stop.signal);
    await expect(cache.whenSynced({ signal: AbortSignal.abort(new Error('never')) })).resolves.toBe(
      undefined,
    );
    stop.abort();
  });
});
