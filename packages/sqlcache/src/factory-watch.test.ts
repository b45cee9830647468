// The factory's cacheFor that blocks until synced, a kind's watch fed by its list/watch, and schema tracking
// (a kind whose declared fields change gets its tables rebuilt).
import type { CacheClient } from '@lasso/cache';
import { FakeListerWatcher } from '@lasso/cache/testing';
import { ApiError, type KubeObject } from '@lasso/client';
import { isLassoError, noopLogger } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidQueryError, ResourceVersionTooOldError } from './errors.ts';
import { createSqlCacheFactory } from './factory.ts';
import type { SqlCacheFactory } from './factory-types.ts';
import type { SqlWatchEvent } from './watch-history.ts';

type Obj = KubeObject & { spec?: { replicas?: number; tier?: string } };

function fakeClient(kind: string, objects: Obj[]) {
  const fake = new FakeListerWatcher<Obj>({ objects });
  const client: CacheClient<Obj> = {
    gvr: { group: '', version: 'v1', resource: `${kind.toLowerCase()}s` },
    kind,
    namespaced: true,
    list: (_namespace, options) => fake.list(options ?? {}),
    watch: (_namespace, options) => fake.watch(options ?? {}),
  };
  return { fake, client };
}

const obj = (name: string, replicas: number, tier = 'web'): Obj => ({
  metadata: { namespace: 'ns', name },
  spec: { replicas, tier },
});

/** The next event of `iterator` within 5 s (a missing event fails instead of hanging). */
async function next<T>(iterator: AsyncIterator<SqlWatchEvent<T>>): Promise<SqlWatchEvent<T>> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no watch event within 5 s')), 5_000);
      }),
    ]);
    if (result.done) throw new Error('the watch ended');
    return result.value;
  } finally {
    clearTimeout(timer);
  }
}

let factory: SqlCacheFactory | undefined;
afterEach(async () => {
  await factory?.close();
  factory = undefined;
});

describe('SqlCacheFactory.cacheFor waiting for sync (the default)', () => {
  it('resolves once the first list is stored', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', [obj('a', 1)]);
    const stop = new AbortController();
    await factory.start(stop.signal);
    const cache = await factory.cacheFor(things.client, { signal: AbortSignal.timeout(10_000) });
    expect(cache.hasSynced()).toBe(true);
    expect(cache.store.listKeys()).toEqual(['ns/a']);
    stop.abort();
  });

  it('rejects when the factory is not running, and registers no kind', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', []);
    const refused = await factory.cacheFor(things.client).catch((error: unknown) => error);
    expect(isLassoError(refused, 'LASSO_CONFIG_INVALID')).toBe(true);
    expect((refused as Error).message).toMatch(
      /start the factory first, or pass waitForSync: false/,
    );
    expect(factory.kinds()).toEqual([]);
    // waitForSync: false returns the cache at once, running or not.
    expect(factory.cacheFor(things.client, { waitForSync: false }).hasSynced()).toBe(false);
  });

  it('rejects when the factory stops first, and with the reason of its signal', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', []);
    things.fake.failNextList(new Error('down'), 1_000);
    const stop = new AbortController();
    await factory.start(stop.signal);
    const waiter = new AbortController();
    const bySignal = factory.cacheFor(things.client, { signal: waiter.signal });
    waiter.abort(new Error('gave up'));
    await expect(bySignal).rejects.toThrow('gave up');
    const byStop = factory.cacheFor(things.client);
    stop.abort();
    await expect(byStop).rejects.toThrow(/stopped before v1, Kind=Thing synced/);
    expect(() => factory?.cacheFor(things.client, { waitForSync: 'yes' as never })).toThrow(
      TypeError,
    );
  });
});

describe('SqlCache.watch', () => {
  it('follows the kind from its list resourceVersion, and ends with TooOld when the kind relists', async () => {
    const clock = new FakeClock();
    factory = createSqlCacheFactory({ clock, logger: noopLogger });
    const things = fakeClient('Thing', [obj('a', 1)]);
    const stop = new AbortController();
    await factory.start(stop.signal);
    const cache = await factory.cacheFor(things.client);
    const listed = cache.list({ partitions: [{ passthrough: true }] });
    const events = cache
      .watch({ resourceVersion: listed.resourceVersion, signal: stop.signal })
      [Symbol.asyncIterator]();
    const created = things.fake.create(obj('b', 2));
    const added = await next(events);
    expect(added.type).toBe('ADDED');
    expect(added.object.metadata?.name).toBe('b');
    expect(added.object.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    things.fake.remove('ns/a');
    expect((await next(events)).type).toBe('DELETED');
    const ended = events.next();
    // The server's history expired: the reflector's next watch gets 410 and it relists, which the cache's
    // watchers cannot follow.
    things.fake.failNextWatch(new ApiError({ status: 410, reason: 'Expired' }));
    things.fake.closeWatches();
    const outcome = ended.then(
      () => 'completed',
      (error: unknown) => error,
    );
    // The reflector's relist may wait for its backoff: advance the clock until the watch ended.
    let settled: unknown;
    void outcome.then((value) => {
      settled = value;
    });
    for (let i = 0; i < 50 && settled === undefined; i++) await clock.advance(1_000);
    expect(await outcome).toBeInstanceOf(ResourceVersionTooOldError);
    stop.abort();
  });

  it('watches an informerFor kind alike: the informer writes the store, the watch reads its history', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', [obj('a', 1)]);
    const cache = factory.informerFor(things.client, { resyncMs: 0 });
    const stop = new AbortController();
    await factory.start(stop.signal);
    await cache.whenSynced({ signal: AbortSignal.timeout(5_000) });
    const events = cache
      .watch({
        resourceVersion: cache.list({ partitions: [] }).resourceVersion,
        signal: stop.signal,
      })
      [Symbol.asyncIterator]();
    things.fake.modify(obj('a', 2));
    const modified = await next(events);
    expect(modified.type).toBe('MODIFIED');
    expect(modified.object.spec?.replicas).toBe(2);
    stop.abort();
  });

  it('keeps the history the factory or the kind asks for', async () => {
    factory = createSqlCacheFactory({
      clock: new FakeClock(),
      logger: noopLogger,
      watchHistory: { maxEvents: 2 },
    });
    const things = fakeClient('Thing', []);
    const stop = new AbortController();
    await factory.start(stop.signal);
    const cache = await factory.cacheFor(things.client);
    const from = cache.list({ partitions: [] }).resourceVersion;
    for (const name of ['a', 'b', 'c']) things.fake.create(obj(name, 1));
    await cache.whenResourceVersion(things.fake.resourceVersion(), AbortSignal.timeout(5_000));
    const events = cache.watch({ signal: stop.signal })[Symbol.asyncIterator]();
    things.fake.create(obj('d', 1));
    expect((await next(events)).object.metadata?.name).toBe('d');
    expect(() => cache.watch({ resourceVersion: from })).toThrow(ResourceVersionTooOldError);
    stop.abort();
  });
});

describe('schema tracking', () => {
  it('rebuilds the tables of a kind whose declared fields change, and relists into them', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', [obj('a', 10), obj('b', 9), obj('c', 100)]);
    const stop = new AbortController();
    await factory.start(stop.signal);
    const cache = await factory.cacheFor(things.client, { fields: ['spec.replicas'] });
    const sorted = () =>
      cache
        .list({ partitions: [{ passthrough: true }], sort: [{ field: 'spec.replicas' }] })
        .items.map((o) => o.metadata?.name);
    expect(sorted()).toEqual(['a', 'c', 'b']); // text: 10, 100, 9
    const oldHash = cache.store.schemaHash;
    const watch = cache.watch({ signal: stop.signal })[Symbol.asyncIterator]();

    // The same declaration keeps the tables; a call without fields asks for the cache as it is.
    expect(await factory.cacheFor(things.client, { fields: ['spec.replicas'] })).toBe(cache);
    expect(await factory.cacheFor(things.client)).toBe(cache);
    expect(cache.store.schemaHash).toBe(oldHash);
    expect(things.fake.listCalls).toHaveLength(1);

    // A new type and a new field: new tables, listed again, the same cache object.
    const again = await factory.cacheFor(things.client, {
      fields: [{ path: 'spec.replicas', type: 'integer' }, 'spec.tier'],
    });
    expect(again).toBe(cache);
    expect(cache.store.schemaHash).not.toBe(oldHash);
    expect(things.fake.listCalls).toHaveLength(2);
    expect(cache.store.indexedFields).toContain('spec.tier');
    expect(sorted()).toEqual(['b', 'a', 'c']); // numbers: 9, 10, 100
    expect(
      cache.list({
        partitions: [{ passthrough: true }],
        filters: [[{ field: 'spec.tier', op: '=', values: ['web'] }]],
      }).total,
    ).toBe(3);
    // The watch of the old tables ends with TooOld: its client lists again.
    await expect(watch.next()).rejects.toThrow(/declared fields of v1, Kind=Thing changed/);

    // Back to fewer fields: spec.tier is gone.
    await factory.cacheFor(things.client, { fields: [] });
    expect(() =>
      cache.list({
        partitions: [{ passthrough: true }],
        filters: [[{ field: 'spec.tier', op: '=', values: ['web'] }]],
      }),
    ).toThrow(InvalidQueryError);
    stop.abort();
    await factory.stopped();
  });

  it('stops a kind that is being rebuilt on reset, stopKind and close', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', [obj('a', 1)]);
    const stop = new AbortController();
    await factory.start(stop.signal);
    await factory.cacheFor(things.client, { fields: ['spec.tier'] });
    expect(
      factory
        .cacheFor(things.client, { fields: ['spec.replicas'], waitForSync: false })
        .hasSynced(),
    ).toBe(false);
    await factory.reset();
    expect(factory.kinds()).toEqual([]);
    await factory.cacheFor(things.client, { fields: ['spec.tier'] });
    expect(
      factory
        .cacheFor(things.client, { fields: ['spec.replicas'], waitForSync: false })
        .hasSynced(),
    ).toBe(false);
    await factory.stopKind({ group: '', version: 'v1', kind: 'Thing' });
    await factory.cacheFor(things.client, { fields: ['spec.tier'] });
    expect(
      factory
        .cacheFor(things.client, { fields: ['spec.replicas'], waitForSync: false })
        .hasSynced(),
    ).toBe(false);
    stop.abort();
    expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
    expect(factory.isRunning()).toBe(false);
  });

  it('refuses to change the fields of an informer kind', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const things = fakeClient('Thing', []);
    factory.informerFor(things.client, { fields: ['spec.tier'] });
    expect(() => factory?.informerFor(things.client, { fields: ['spec.replicas'] })).toThrow(
      /kept by an informer and its declared fields cannot change/,
    );
    expect(factory.informerFor(things.client, { fields: ['spec.tier'] }).informer).toBeDefined();
  });
});
