// A SharedIndexInformer over a given Indexer (the `indexer` option), in particular one that returns copies rather
// than the stored objects, as a SQLite-backed store does: the informer must not rely on the identity of what it
// reads back (old/new of updates, resync, relist tombstones, synthetic adds of a late handler).
import { ApiError, type KubeObject } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCache } from './cache.ts';
import { DeletedFinalStateUnknown } from './delta-fifo.ts';
import type { ResourceEventHandler } from './processor-listener.ts';
import { createSharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.ts';
import { createIndexer, type Indexer, type Indexers, namespaceIndex } from './store.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data };
}

/** The in-memory indexer wrapped so that every read returns deep copies, and every write is counted. */
function copyingIndexer(indexers: Indexers<KubeObject> = {}): {
  indexer: Indexer<KubeObject>;
  writes: string[];
} {
  const inner = createIndexer<KubeObject>({ indexers });
  const writes: string[] = [];
  const copy = <V>(value: V): V => (value === undefined ? value : structuredClone(value));
  const indexer: Indexer<KubeObject> = {
    add: (object) => {
      writes.push(`add:${object.metadata?.name}`);
      inner.add(copy(object));
    },
    update: (object) => {
      writes.push(`update:${object.metadata?.name}`);
      inner.update(copy(object));
    },
    delete: (object) => {
      writes.push(`delete:${object.metadata?.name}:${object.metadata?.resourceVersion}`);
      inner.delete(object);
    },
    replace: (list, resourceVersion) => {
      writes.push('replace');
      inner.replace(list.map(copy), resourceVersion);
    },
    resync: () => inner.resync(),
    get: (object) => copy(inner.get(object)),
    getByKey: (key) => copy(inner.getByKey(key)),
    list: () => inner.list().map(copy),
    listKeys: () => inner.listKeys(),
    size: () => inner.size(),
    index: (name, object) => inner.index(name, object).map(copy),
    indexKeys: (name, value) => inner.indexKeys(name, value),
    listIndexFuncValues: (name) => inner.listIndexFuncValues(name),
    byIndex: (name, value) => inner.byIndex(name, value).map(copy),
    getIndexers: () => inner.getIndexers(),
    addIndexers: (added) => inner.addIndexers(added),
  };
  return { indexer, writes };
}

type Seen = string[];

function recorder(seen: Seen): ResourceEventHandler<KubeObject> {
  return {
    onAdd: (object, initial) =>
      void seen.push(`add:${object.metadata?.name}${initial ? ':initial' : ''}`),
    onUpdate: (old, object) =>
      void seen.push(
        `update:${object.metadata?.name}:${old.metadata?.resourceVersion}->${object.metadata?.resourceVersion}:${JSON.stringify(old.data)}->${JSON.stringify(object.data)}`,
      ),
    onDelete: (object) =>
      void seen.push(
        object instanceof DeletedFinalStateUnknown
          ? `tombstone:${object.key}:${object.object.metadata?.resourceVersion}`
          : `delete:${(object as KubeObject).metadata?.name}`,
      ),
  };
}

function setup(
  names: string[] = [],
  options: SharedIndexInformerOptions<KubeObject> = {},
  store = copyingIndexer(),
) {
  const clock = new FakeClock();
  const fake = new FakeListerWatcher({ objects: names.map((name) => cm(name)) });
  const informer = createSharedIndexInformer(fake, {
    name: 'cms',
    clock,
    logger: createTestLogger(),
    random: () => 0,
    indexer: store.indexer,
    ...options,
  });
  const controller = new AbortController();
  return {
    clock,
    fake,
    informer,
    writes: store.writes,
    indexer: store.indexer,
    settle: () => clock.advance(0),
    /** Starts a run; settles once it has ended. */
    start: async () => {
      await informer.start(controller.signal);
      await informer.stopped();
    },
    stop: async () => {
      controller.abort();
      await informer.stopped();
    },
  };
}

describe('SharedIndexInformer over a given indexer', () => {
  it('stores in the given indexer and reads through it', async () => {
    const t = setup(['a', 'b']);
    void t.start();
    await t.informer.whenSynced();
    expect(t.indexer.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(t.informer.getIndexer().getByKey('ns/a')?.metadata?.name).toBe('a');
    expect(t.writes.sort()).toEqual(['add:a', 'add:b']);
    await t.stop();
  });

  it('delivers update(old, new) with the old state when the store returns copies', async () => {
    const t = setup(['a']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    t.fake.modify(cm('a', { x: '1' }));
    t.fake.modify(cm('a', { x: '2' }));
    t.fake.create(cm('b'));
    t.fake.remove('ns/b');
    await t.settle();
    expect(seen).toEqual([
      'add:a:initial',
      'update:a:2->3:{}->{"x":"1"}',
      'update:a:3->4:{"x":"1"}->{"x":"2"}',
      'add:b',
      'delete:b',
    ]);
    expect(t.indexer.getByKey('ns/a')?.data).toEqual({ x: '2' });
    // The indexer is given the deleted object of the watch event (its resourceVersion is the deletion's).
    expect(t.writes.at(-1)).toBe('delete:b:6');
    await t.stop();
  });

  it('tells unchanged objects of a relist apart by resourceVersion, and tombstones missed deletions', async () => {
    const t = setup(['a', 'b', 'c']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    (await t.fake.nextWatch()).fail(new ApiError({ status: 410, reason: 'Gone' }));
    t.fake.modify(cm('b', { x: '1' }));
    t.fake.remove('ns/c');
    await t.clock.advance(800);
    await t.fake.nextWatch();
    await t.settle();
    expect(t.fake.listCalls).toHaveLength(2);
    // a is unchanged (same resourceVersion in two different copies): no update to a handler without a resync.
    expect(seen.slice(3)).toEqual(['update:b:3->5:{}->{"x":"1"}', 'tombstone:ns/c:4']);
    expect(t.indexer.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    // A tombstone is not an object: the indexer is given the state it stored.
    expect(t.writes.at(-1)).toBe('delete:c:4');
    await t.stop();
  });

  it('resyncs from the store without writing the objects back', async () => {
    const t = setup(['a', 'b'], { resyncPeriodMs: 1_000 });
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    const writes = t.writes.length;
    await t.clock.advance(2_000);
    expect(seen.filter((entry) => entry.startsWith('update')).sort()).toEqual([
      'update:a:2->2:{}->{}',
      'update:a:2->2:{}->{}',
      'update:b:3->3:{}->{}',
      'update:b:3->3:{}->{}',
    ]);
    expect(t.writes.length).toBe(writes);
    // A watched change is still written.
    t.fake.modify(cm('a', { x: '1' }));
    await t.settle();
    expect(t.writes.slice(writes)).toEqual(['update:a']);
    await t.stop();
  });

  it('gives a handler added after start synthetic adds from the store', async () => {
    const t = setup(['a', 'b']);
    void t.start();
    await t.informer.whenSynced();
    const seen: Seen = [];
    const registration = t.informer.addEventHandler(recorder(seen));
    await t.settle();
    expect(seen.sort()).toEqual(['add:a:initial', 'add:b:initial']);
    expect(registration.hasSynced()).toBe(true);
    await t.stop();
  });

  it('relists into the same store after a restart, delivering what changed meanwhile', async () => {
    const t = setup(['a', 'b']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    await t.stop();
    t.fake.modify(cm('a', { x: '1' }));
    t.fake.remove('ns/b');
    const again = new AbortController();
    await t.informer.start(again.signal);
    await t.informer.whenSynced();
    await t.settle();
    expect(seen.slice(2)).toEqual(['update:a:2->4:{}->{"x":"1"}', 'tombstone:ns/b:3']);
    again.abort();
    await t.informer.stopped();
  });

  it('applies `indexers` to the given indexer through addIndexers', async () => {
    const store = copyingIndexer({ byData: (object) => Object.keys(object.data ?? {}) });
    const t = setup(
      ['a'],
      { indexers: { byName: (object) => [object.metadata?.name ?? ''] } },
      store,
    );
    expect(Object.keys(t.indexer.getIndexers()).sort()).toEqual(['byData', 'byName']);
    void t.start();
    await t.informer.whenSynced();
    expect(t.informer.getIndexer().indexKeys('byName', 'a')).toEqual(['ns/a']);
    t.informer.addIndexers({ late: () => ['x'] });
    expect(t.indexer.indexKeys('late', 'x')).toEqual(['ns/a']);
    await t.stop();
    // A name the given indexer has already is the caller's clash, as with addIndexers.
    expect(() =>
      createSharedIndexInformer(new FakeListerWatcher(), {
        indexer: copyingIndexer({ byName: () => [] }).indexer,
        indexers: { byName: () => [] },
      }),
    ).toThrow(/indexer "byName" already exists/);
  });

  it('refuses an indexer option that is not an Indexer, naming the option', () => {
    const lw = new FakeListerWatcher();
    expect(() =>
      createSharedIndexInformer(lw, { indexer: null as unknown as Indexer<KubeObject> }),
    ).toThrow(new TypeError('indexer must be an Indexer, got null'));
    const { indexer } = copyingIndexer();
    const partial = { ...indexer, addIndexers: undefined } as unknown as Indexer<KubeObject>;
    expect(() => createSharedIndexInformer(lw, { indexer: partial })).toThrow(
      new TypeError('indexer must be an Indexer: it has no addIndexers()'),
    );
  });

  it('createCache passes the indexer through and adds the namespace index only when it has none', () => {
    const fake = new FakeListerWatcher<KubeObject>();
    const client = {
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      list: () => fake.list({}),
      watch: () => fake.watch({}),
    };
    const plain = copyingIndexer();
    createCache(client, { indexer: plain.indexer });
    expect(Object.keys(plain.indexer.getIndexers())).toEqual([namespaceIndex]);
    const own = copyingIndexer({ [namespaceIndex]: () => ['mine'] });
    const informer = createCache(client, { indexer: own.indexer });
    expect(Object.keys(own.indexer.getIndexers())).toEqual([namespaceIndex]);
    expect(informer.getIndexer().getIndexers()[namespaceIndex]?.(cm('a'))).toEqual(['mine']);
  });

  it('converges to the server state under any interleaving of writes and faults', async () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd');
    const step = fc.oneof(
      fc.record({
        kind: fc.constantFrom('create' as const, 'modify' as const, 'remove' as const),
        name,
      }),
      fc.record({
        kind: fc.constantFrom(
          'closeWatches' as const,
          'fail410' as const,
          'expireHistory' as const,
        ),
      }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 5_000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        const t = setup(['a', 'b'], { resyncPeriodMs: 2_000 });
        const seen = new Map<string, string | undefined>();
        t.informer.addEventHandler({
          onAdd: (object) => void seen.set(`ns/${object.metadata?.name}`, JSON.stringify(object)),
          onUpdate: (old, object) => {
            // The old object is the state this handler saw last, even though every read is a fresh copy.
            expect(JSON.stringify(old)).toBe(seen.get(`ns/${old.metadata?.name}`));
            seen.set(`ns/${object.metadata?.name}`, JSON.stringify(object));
          },
          onDelete: (object) =>
            void seen.delete(
              object instanceof DeletedFinalStateUnknown
                ? object.key
                : `ns/${(object as KubeObject).metadata?.name}`,
            ),
        });
        void t.start();
        let version = 0;
        for (const action of steps) {
          const exists = t.fake
            .objects()
            .some((object) => 'name' in action && object.metadata?.name === action.name);
          if (action.kind === 'create' && !exists) t.fake.create(cm(action.name));
          if (action.kind === 'modify' && exists)
            t.fake.modify(cm(action.name, { v: String(++version) }));
          if (action.kind === 'remove' && exists) t.fake.remove(`ns/${action.name}`);
          if (action.kind === 'closeWatches') t.fake.closeWatches();
          if (action.kind === 'fail410')
            for (const watch of t.fake.openWatches()) watch.fail(new ApiError({ status: 410 }));
          if (action.kind === 'expireHistory') t.fake.expireHistory();
          if (action.kind === 'wait') await t.clock.advance(action.ms);
        }
        await t.clock.advance(61_000);
        const server = new Map(
          t.fake.objects().map((object) => [`ns/${object.metadata?.name}`, JSON.stringify(object)]),
        );
        const stored = new Map(
          t.indexer.list().map((object) => [`ns/${object.metadata?.name}`, JSON.stringify(object)]),
        );
        expect(stored).toEqual(server);
        expect(seen).toEqual(server);
        await t.stop();
      }),
      { numRuns: 30, seed: 33_801 },
    );
  });
});
