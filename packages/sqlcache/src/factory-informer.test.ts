// informerFor: a kind kept by a SharedIndexInformer whose indexer is the kind's SqlStore.
import {
  type CacheClient,
  DeletedFinalStateUnknown,
  namespaceIndex,
  type ResourceEventHandler,
} from '@lasso/cache';
import { FakeListerWatcher } from '@lasso/cache/testing';
import type { KubeObject } from '@lasso/client';
import { isLassoError, noopLogger } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqlCacheFactory } from './factory.ts';
import type { SqlCacheFactory } from './factory-types.ts';

type Obj = KubeObject & { data?: Record<string, string> };

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

const cm = (namespace: string, name: string, data: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, managedFields: [{ manager: 'x' }] as never },
  data,
});

/** Records `add:ns/name`, `update:ns/name:oldData->newData`, `delete:ns/name`, `tombstone:key`. */
function recorder(seen: string[]): ResourceEventHandler<Obj> {
  const key = (object: Obj) => `${object.metadata?.namespace}/${object.metadata?.name}`;
  return {
    onAdd: (object) => void seen.push(`add:${key(object)}`),
    onUpdate: (old, object) =>
      void seen.push(
        `update:${key(object)}:${JSON.stringify(old.data)}->${JSON.stringify(object.data)}`,
      ),
    onDelete: (object) =>
      void seen.push(
        object instanceof DeletedFinalStateUnknown
          ? `tombstone:${object.key}`
          : `delete:${key(object as Obj)}`,
      ),
  };
}

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

describe('SqlCacheFactory.informerFor', () => {
  it('runs a SharedIndexInformer over the SqlStore: handlers see the list and the watch, list() queries it', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x', { k: 'v' }), cm('b', 'y')]);
    const cache = factory.informerFor(configMaps.client, {
      fields: ['data.k'],
      transform: (object) => ({
        ...object,
        metadata: { ...object.metadata, annotations: { t: '1' } },
      }),
    });
    const seen: string[] = [];
    cache.informer.addEventHandler(recorder(seen));
    const run = new AbortController();
    await factory.start(run.signal);
    await cache.whenSynced();
    expect(cache.hasSynced()).toBe(true);
    expect(cache.informer.hasSynced()).toBe(true);
    await until(() => seen.length === 2);
    expect(seen).toEqual(['add:a/x', 'add:b/y']);

    await configMaps.fake.nextWatch();
    configMaps.fake.modify(cm('a', 'x', { k: 'w' }));
    configMaps.fake.create(cm('c', 'z', { k: 'w' }));
    configMaps.fake.remove('b/y');
    await until(() => seen.length === 5);
    expect(seen.slice(2)).toEqual(['update:a/x:{"k":"v"}->{"k":"w"}', 'add:c/z', 'delete:b/y']);

    // The informer's indexer is the kind's SQL store: the same rows through either door.
    const page = cache.list({
      partitions: [{ passthrough: true }],
      filters: [[{ field: 'data.k', op: '=', values: ['w'] }]],
    });
    expect(page.items.map((object) => object.metadata?.name)).toEqual(['x', 'z']);
    expect(cache.informer.getIndexer().listKeys().sort()).toEqual(['a/x', 'c/z']);
    expect(cache.store.listKeys().sort()).toEqual(['a/x', 'c/z']);
    const stored = cache.informer.getStore().getByKey('a/x');
    expect(stored?.metadata?.managedFields).toBeUndefined();
    expect(stored?.metadata?.annotations).toEqual({ t: '1' });
    // Reads are copies: changing one changes nothing stored.
    (stored as Obj).data = { k: 'changed' };
    expect(cache.informer.getStore().getByKey('a/x')?.data).toEqual({ k: 'w' });
    // A namespaced kind's informer gets the namespace index, kept in SQL.
    expect(cache.informer.getIndexer().indexKeys(namespaceIndex, 'c')).toEqual(['c/z']);
    run.abort();
    expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
    expect(cache.informer.isRunning()).toBe(false);
  });

  it('settles whenResourceVersion as events are stored, deletions included', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    const cache = factory.informerFor(configMaps.client);
    const run = new AbortController();
    await factory.start(run.signal);
    await cache.whenSynced();
    await configMaps.fake.nextWatch();
    configMaps.fake.create(cm('a', 'y'));
    const created = configMaps.fake.resourceVersion();
    await cache.whenResourceVersion(created, AbortSignal.timeout(10_000));
    expect(cache.store.getByKey('a/y')).toBeDefined();
    configMaps.fake.remove('a/x');
    const deleted = configMaps.fake.resourceVersion();
    await cache.whenResourceVersion(deleted, AbortSignal.timeout(10_000));
    expect(cache.store.getByKey('a/x')).toBeUndefined();
    expect(cache.list().resourceVersion).toBe(deleted);
    run.abort();
    await factory.stopped();
  });

  it('relists into the same tables after a restart: handlers get what changed meanwhile', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x'), cm('a', 'y')]);
    const cache = factory.informerFor(configMaps.client, { resyncMs: 0 });
    const seen: string[] = [];
    cache.informer.addEventHandler(recorder(seen));
    const first = new AbortController();
    await factory.start(first.signal);
    await cache.whenSynced();
    await until(() => seen.length === 2);
    first.abort();
    await factory.stopped();
    configMaps.fake.modify(cm('a', 'x', { k: 'v' }));
    configMaps.fake.remove('a/y');
    const second = new AbortController();
    await factory.start(second.signal);
    await until(() => seen.length === 4);
    expect(seen.slice(2)).toEqual(['update:a/x:{}->{"k":"v"}', 'tombstone:a/y']);
    expect(cache.store.listKeys()).toEqual(['a/x']);
    second.abort();
    await factory.stopped();
  });

  it('is one cache per kind whichever method asks; refuses informerFor on a cacheFor kind and a bad resyncMs', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', []);
    const secrets = fakeClient('Secret', []);
    const cache = factory.informerFor(configMaps.client);
    expect(factory.informerFor(configMaps.client)).toBe(cache);
    expect(factory.cacheFor(configMaps.client, { waitForSync: false })).toBe(cache);
    expect(factory.cacheFor(secrets.client, { waitForSync: false }).hasSynced()).toBe(false);
    let refused: unknown;
    try {
      factory.informerFor(secrets.client);
    } catch (error) {
      refused = error;
    }
    expect(isLassoError(refused, 'LASSO_CONFIG_INVALID')).toBe(true);
    expect((refused as Error).message).toBe(
      'v1, Kind=Secret is cached without an informer (cacheFor): stopKind it before informerFor',
    );
    expect(() => factory?.informerFor(configMaps.client, { resyncMs: -1 })).toThrow(
      new RangeError('informerFor: resyncMs must be >= 0 (0 = never), got -1'),
    );
    // After stopKind the kind can come back with an informer.
    await factory.stopKind({ group: '', version: 'v1', kind: 'Secret' });
    expect(factory.informerFor(secrets.client).informer).toBeDefined();
  });

  it('stops one informer kind with stopKind (tables dropped) and leaves a stopped informer behind', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    const cache = factory.informerFor(configMaps.client);
    const run = new AbortController();
    await factory.start(run.signal);
    await cache.whenSynced();
    expect(cache.informer.isRunning()).toBe(true);
    await factory.stopKind({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(cache.informer.isRunning()).toBe(false);
    expect(() => cache.store.size()).toThrow(/dropped/);
    expect(factory.kinds()).toEqual([]);
    run.abort();
    await factory.stopped();
  });

  it('leaves an informer that something else already runs, and runs it on a later start', async () => {
    factory = createSqlCacheFactory({ clock: new FakeClock(), logger: noopLogger });
    const configMaps = fakeClient('ConfigMap', [cm('a', 'x')]);
    const cache = factory.informerFor(configMaps.client);
    const elsewhere = new AbortController();
    await cache.informer.start(elsewhere.signal);
    const run = new AbortController();
    await factory.start(run.signal);
    await cache.informer.whenSynced();
    expect(cache.store.listKeys()).toEqual(['a/x']);
    elsewhere.abort();
    await cache.informer.stopped();
    run.abort();
    expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
    const again = new AbortController();
    await factory.start(again.signal);
    expect(cache.informer.isRunning()).toBe(true);
    again.abort();
    await factory.stopped();
  });
});
