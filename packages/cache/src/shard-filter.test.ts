// The sharded informer's data path (issue 32 item 3) against a fake lister-watcher, once as a server that ignores
// shardSelector (client-side filter) and once as one that applies and echoes it (KEP-5866).
import type { KubeObject, ListOptions, ObjectList, WatchEvent, WatchOptions } from '@lasso/client';
import {
  createShardMatcher,
  fnv1a64,
  formatShardSelector,
  parseShardSelector,
  type ShardRange,
  shardHashSource,
} from '@lasso/core/sharding';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown } from './delta-fifo.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import type { ResourceEventHandler } from './processor-listener.ts';
import { Reflector } from './reflector.ts';
import {
  createShardFilterSource,
  type ShardFilterSource,
  shardListerWatcher,
} from './shard-filter.ts';
import { createSharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.ts';
import { createStore } from './store.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

const half = 1n << 63n;
const lower: ShardRange[] = [{ start: 0n, end: half }];
const upper: ShardRange[] = [{ start: half, end: 1n << 64n }];
const everything: ShardRange[] = [{ start: 0n, end: 1n << 64n }];

// Uids on either side of 2^63, found by hashing (deterministic: FNV-1a of fixed strings).
function uids(count: number, wantLower: boolean): string[] {
  const found: string[] = [];
  for (let index = 0; found.length < count; index++) {
    const uid = `uid-${index}`;
    if (fnv1a64(uid) < half === wantLower) found.push(uid);
  }
  return found;
}
const [l1, l2, l3] = uids(3, true) as [string, string, string];
const [u1, u2, u3] = uids(3, false) as [string, string, string];

function cm(name: string, uid: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'ns', name, uid, ...extra },
    data: {},
  };
}

/** The fake as a KEP-5866 server: applies shardSelector on list and watch and echoes it in shardInfo. */
function servingShards(fake: FakeListerWatcher<KubeObject>): ListerWatcher<KubeObject> {
  const matcher = (text: string | undefined) => {
    if (text === undefined) return undefined;
    const selector = parseShardSelector(text);
    const matches = createShardMatcher(selector);
    return {
      canonical: formatShardSelector(selector),
      keep: (object: KubeObject) => matches(shardHashSource(object, selector.key)),
    };
  };
  return {
    async list(options: ListOptions): Promise<ObjectList<KubeObject>> {
      const page = await fake.list(options);
      const applied = matcher(options.shardSelector);
      if (applied === undefined) return page;
      return {
        ...page,
        items: page.items.filter(applied.keep),
        metadata: { ...page.metadata, shardInfo: { selector: applied.canonical } },
      };
    },
    watch(options: WatchOptions): AsyncIterable<WatchEvent<KubeObject>> {
      const applied = matcher(options.shardSelector);
      const source = fake.watch(options);
      if (applied === undefined) return source;
      return {
        async *[Symbol.asyncIterator]() {
          for await (const event of source) {
            if (event.type === 'BOOKMARK' || applied.keep(event.object)) yield event;
          }
        },
      };
    },
  };
}

type Seen = string[];

function recorder(seen: Seen): ResourceEventHandler<KubeObject> {
  return {
    onAdd: (object) => void seen.push(`add:${object.metadata?.name}`),
    onUpdate: (old, object) =>
      void seen.push(
        `update:${object.metadata?.name}:${old.metadata?.resourceVersion}->${object.metadata?.resourceVersion}`,
      ),
    onDelete: (object) =>
      void seen.push(
        object instanceof DeletedFinalStateUnknown
          ? `tombstone:${object.key}`
          : `delete:${(object as KubeObject).metadata?.name}:${(object as KubeObject).metadata?.ownerReferences?.[0]?.uid ?? ''}`,
      ),
  };
}

function setup(
  objects: KubeObject[],
  shard: ShardFilterSource,
  options: {
    server?: 'ignores' | 'serves';
    informer?: SharedIndexInformerOptions<KubeObject>;
    streaming?: boolean;
  } = {},
) {
  const clock = new FakeClock();
  const fake = new FakeListerWatcher<KubeObject>({
    objects,
    streamingLists: options.streaming === true ? 'serve' : 'refuse',
  });
  const listerWatcher = options.server === 'serves' ? servingShards(fake) : fake;
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const informer = createSharedIndexInformer(listerWatcher, {
    name: 'cms',
    gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    clock,
    logger,
    metrics,
    random: () => 0,
    shard,
    ...options.informer,
  });
  const seen: Seen = [];
  informer.addEventHandler(recorder(seen));
  const controller = new AbortController();
  return {
    clock,
    fake,
    logger,
    metrics,
    informer,
    seen,
    settle: () => clock.advance(0),
    keys: () => informer.getStore().listKeys().sort(),
    filtered: () => metrics.value('lasso_shard_objects_filtered_total', { kind: 'ConfigMap' }),
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

const fixtures = () => [cm('l1', l1), cm('l2', l2), cm('u1', u1), cm('u2', u2)];
const lowerSelector = formatShardSelector({ key: 'object.metadata.uid', ranges: lower });

describe.each([
  { server: 'ignores' as const, filteredOnList: 2 },
  { server: 'serves' as const, filteredOnList: 0 },
])('sharded informer, server $server shardSelector', ({ server, filteredOnList }) => {
  it('lists and watches only its ranges, sending the selector on both', async () => {
    const shard = createShardFilterSource({ ranges: lower });
    const t = setup(fixtures(), shard, { server });
    void t.start();
    await t.informer.whenSynced();
    await t.fake.nextWatch();
    await t.settle();
    expect(t.keys()).toEqual(['ns/l1', 'ns/l2']);
    expect(t.seen.sort()).toEqual(['add:l1', 'add:l2']);
    expect(t.fake.listCalls[0]?.shardSelector).toBe(lowerSelector);
    expect(t.fake.watchCalls[0]?.shardSelector).toBe(lowerSelector);
    expect(t.filtered()).toBe(filteredOnList);
    t.seen.length = 0;
    t.fake.create(cm('u3', u3));
    t.fake.create(cm('l3', l3));
    t.fake.modify(cm('u1', u1, { labels: { x: 'y' } }));
    t.fake.remove('ns/u2');
    t.fake.modify(cm('l1', l1, { labels: { x: 'y' } }));
    t.fake.sendBookmarks();
    await t.settle();
    expect(t.seen).toEqual(['add:l3', 'update:l1:2->10']);
    expect(t.keys()).toEqual(['ns/l1', 'ns/l2', 'ns/l3']);
    // The bookmark passed: the cursor is at the server's latest version.
    expect(t.informer.lastSyncResourceVersion()).toBe('10');
    expect(t.filtered()).toBe(server === 'ignores' ? filteredOnList + 3 : 0);
    await t.stop();
  });

  it('on a change: evicts what it no longer owns without an event, relists, and gains as adds', async () => {
    const shard = createShardFilterSource({ ranges: lower });
    const t = setup(fixtures(), shard, { server });
    const evicted: string[][] = [];
    t.informer.onShardEvicted?.((keys) => evicted.push([...keys]));
    void t.start();
    await t.informer.whenSynced();
    await t.fake.nextWatch();
    await t.settle();
    t.seen.length = 0;
    // Move the boundary: keep l1 and l2 (both below 2^63), and gain the whole upper half.
    shard.set(everything);
    await t.fake.nextWatch();
    await t.settle();
    expect(t.informer.hasSynced()).toBe(true);
    expect(t.seen.sort()).toEqual(['add:u1', 'add:u2']);
    expect(evicted).toEqual([]);
    // The relist is not older than what the informer had, with the new selector.
    const relist = t.fake.listCalls.at(-1);
    expect(relist?.resourceVersion).toBe('5');
    expect(relist?.resourceVersionMatch).toBe('NotOlderThan');
    expect(relist?.shardSelector).toBe(
      formatShardSelector({ key: 'object.metadata.uid', ranges: everything }),
    );
    t.seen.length = 0;
    // Shrink to the upper half: l1, l2 leave silently; nothing is listed again (nothing was gained).
    const lists = t.fake.listCalls.length;
    shard.set(upper);
    expect(t.keys()).toEqual(['ns/u1', 'ns/u2']);
    expect(evicted).toEqual([['ns/l1', 'ns/l2']]);
    await t.settle();
    expect(t.seen).toEqual([]);
    expect(t.informer.hasSynced()).toBe(true);
    expect(t.fake.listCalls).toHaveLength(lists);
    expect(t.fake.openWatches()).toHaveLength(1);
    // Objects of the ranges lost produce nothing any more, on the watch still open; those kept are still watched.
    t.fake.modify(cm('l1', l1, { labels: { a: 'b' } }));
    t.fake.remove('ns/l2');
    t.fake.modify(cm('u1', u1, { labels: { a: 'b' } }));
    await t.settle();
    expect(t.seen).toEqual(['update:u1:4->8']);
    // The next watch sends the narrower selector.
    t.fake.closeWatches();
    const next = await t.fake.nextWatch();
    expect(next.options.shardSelector).toBe(
      formatShardSelector({ key: 'object.metadata.uid', ranges: upper }),
    );
    // Gaining the lower half back lists again: what it holds there now (l1; l2 is gone) arrives as an add.
    t.seen.length = 0;
    shard.set(everything);
    await t.fake.nextWatch();
    await t.settle();
    expect(t.seen).toEqual(['add:l1']);
    expect(t.keys()).toEqual(['ns/l1', 'ns/u1', 'ns/u2']);
    await t.stop();
  });
});

describe('sharded informer', () => {
  it('keeps continue tokens of filtered pages (a paged list is not cut short)', async () => {
    const shard = createShardFilterSource({ ranges: lower });
    const objects = [cm('a', u1), cm('b', u2), cm('c', l1), cm('d', u3), cm('e', l2)];
    const t = setup(objects, shard, { informer: { initialList: 'consistent', pageSize: 2 } });
    void t.start();
    await t.informer.whenSynced();
    expect(t.fake.listCalls.map((call) => call.continue)).toEqual([undefined, '6:2', '6:4']);
    // Every page carried the selector of the first.
    expect(new Set(t.fake.listCalls.map((call) => call.shardSelector))).toEqual(
      new Set([lowerSelector]),
    );
    expect(t.keys()).toEqual(['ns/c', 'ns/e']);
    await t.stop();
  });

  it('filters a streaming list: initial events outside the ranges dropped, the end bookmark passes', async () => {
    const shard = createShardFilterSource({ ranges: lower });
    const t = setup(fixtures(), shard, { streaming: true });
    void t.start();
    await t.informer.whenSynced();
    expect(t.fake.streamingCalls[0]?.shardSelector).toBe(lowerSelector);
    expect(t.fake.listCalls).toHaveLength(0);
    expect(t.keys()).toEqual(['ns/l1', 'ns/l2']);
    expect(t.informer.lastSyncResourceVersion()).toBe('5');
    expect(t.filtered()).toBe(2);
    await t.stop();
  });

  it('byOwner: filters client-side only, by the controller owner, and an owner change moves the object', async () => {
    const shard = createShardFilterSource({ ranges: lower, byOwner: true });
    const owner = (uid: string) => ({
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid, controller: true }],
    });
    const objects = [
      cm('child-of-lower', u1, owner(l1)),
      cm('child-of-upper', l2, owner(u2)),
      cm('plain-lower', l3),
    ];
    const t = setup(objects, shard, { server: 'serves' });
    void t.start();
    await t.informer.whenSynced();
    await t.fake.nextWatch();
    await t.settle();
    // Never sent: the server hashes an object's own uid.
    expect(t.fake.listCalls[0]?.shardSelector).toBeUndefined();
    expect(t.fake.watchCalls[0]?.shardSelector).toBeUndefined();
    expect(t.keys()).toEqual(['ns/child-of-lower', 'ns/plain-lower']);
    t.seen.length = 0;
    // Its owner changes to one in the upper half: it leaves as a deletion carrying the old owner.
    t.fake.modify(cm('child-of-lower', u1, owner(u3)));
    // And the other one comes in.
    t.fake.modify(cm('child-of-upper', l2, owner(l1)));
    await t.settle();
    expect(t.seen).toEqual([`delete:child-of-lower:${l1}`, 'add:child-of-upper']);
    expect(t.keys()).toEqual(['ns/child-of-upper', 'ns/plain-lower']);
    await t.stop();
  });

  it('with no range owned makes no request, is synced, and lists once a range is gained', async () => {
    const shard = createShardFilterSource({ ranges: [] });
    const t = setup(fixtures(), shard);
    void t.start();
    await t.informer.whenSynced();
    await t.settle();
    expect(t.fake.listCalls).toHaveLength(0);
    expect(t.fake.watchCalls).toHaveLength(0);
    expect(t.keys()).toEqual([]);
    shard.set(upper);
    await t.fake.nextWatch();
    await t.settle();
    expect(t.seen.sort()).toEqual(['add:u1', 'add:u2']);
    t.seen.length = 0;
    // Losing everything evicts silently and stops asking.
    shard.set([]);
    await t.settle();
    expect(t.keys()).toEqual([]);
    expect(t.fake.openWatches()).toHaveLength(0);
    expect(t.seen).toEqual([]);
    expect(t.informer.hasSynced()).toBe(true);
    await t.stop();
  });

  it('evicts at the start of a run what a change made while stopped no longer owns', async () => {
    const shard = createShardFilterSource({ ranges: everything });
    const t = setup(fixtures(), shard);
    void t.start();
    await t.informer.whenSynced();
    await t.fake.nextWatch();
    await t.settle();
    await t.stop();
    t.seen.length = 0;
    shard.set(lower);
    expect(t.keys()).toHaveLength(4);
    const again = new AbortController();
    await t.informer.start(again.signal);
    expect(t.keys()).toEqual(['ns/l1', 'ns/l2']);
    await t.informer.whenSynced();
    await t.fake.nextWatch();
    await t.settle();
    expect(t.seen).toEqual([]);
    again.abort();
    await t.informer.stopped();
  });

  it('does not restart for a change that selects the same objects', async () => {
    const shard = createShardFilterSource({ ranges: lower });
    const t = setup(fixtures(), shard);
    void t.start();
    await t.fake.nextWatch();
    shard.set([...lower]);
    await t.settle();
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.fake.openWatches()).toHaveLength(1);
    await t.stop();
  });

  it('refuses a bad source or bad ranges, naming the option', () => {
    const fake = new FakeListerWatcher<KubeObject>();
    expect(() => createSharedIndexInformer(fake, { shard: {} as never })).toThrow(TypeError);
    expect(() => new Reflector(fake, createStore(), { shard: 5 as never })).toThrow(/shard/);
    expect(() => createShardFilterSource({ ranges: [{ start: 2n, end: 1n }] })).toThrow(RangeError);
    expect(() =>
      createShardFilterSource({ ranges: [{ start: 0n, end: (1n << 64n) + 1n }] }),
    ).toThrow(RangeError);
  });

  it('keeps the last good filter when the source gives a bad one, loudly', async () => {
    let filter = {
      generation: 1,
      ranges: lower,
      key: 'object.metadata.uid' as const,
      byOwner: false,
    };
    const listeners = new Set<() => void>();
    const shard: ShardFilterSource = {
      current: () => filter,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    };
    const t = setup(fixtures(), shard);
    void t.start();
    await t.fake.nextWatch();
    await t.settle();
    filter = { ...filter, generation: 2, ranges: [{ start: 5n, end: 1n }] };
    for (const listener of listeners) listener();
    await t.settle();
    expect(t.keys()).toEqual(['ns/l1', 'ns/l2']);
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.logger.find('invalid filter').map((entry) => entry.level)).toContain('error');
    await t.stop();
  });

  it('sends touching ranges merged, and filters client-side, loudly, past the 1.36 parser limit', async () => {
    const quarter = 1n << 62n;
    const split = createShardFilterSource({
      ranges: [
        { start: quarter, end: half },
        { start: 0n, end: quarter },
      ],
    });
    const t = setup(fixtures(), split, { server: 'serves' });
    void t.start();
    await t.fake.nextWatch();
    expect(t.fake.listCalls[0]?.shardSelector).toBe(lowerSelector);
    await t.stop();
    // 2,000 separate ranges (every other 2^-12 of the space) pass cel-go's 100,000 code points.
    const step = 1n << 52n;
    const scattered = Array.from({ length: 2_000 }, (_, index) => ({
      start: BigInt(index * 2) * step,
      end: BigInt(index * 2 + 1) * step,
    }));
    expect(
      formatShardSelector({ key: 'object.metadata.uid', ranges: scattered }).length,
    ).toBeGreaterThan(100_000);
    const wide = setup(fixtures(), createShardFilterSource({ ranges: scattered }), {
      server: 'serves',
    });
    void wide.start();
    await wide.fake.nextWatch();
    expect(wide.fake.listCalls[0]?.shardSelector).toBeUndefined();
    expect(wide.fake.watchCalls[0]?.shardSelector).toBeUndefined();
    const matches = createShardMatcher({ key: 'object.metadata.uid', ranges: scattered });
    const expected = fixtures()
      .filter((object) => matches(object.metadata?.uid as string))
      .map((object) => `ns/${object.metadata?.name}`)
      .sort();
    expect(wide.keys()).toEqual(expected);
    expect(wide.filtered()).toBe(4 - expected.length);
    const warned = wide.logger.find('longer than a kube-apiserver accepts');
    expect(warned.map((entry) => entry.level)).toEqual(['warn']);
    await wide.stop();
  });

  it('filters a plain reflector too (no informer), counted under its name', async () => {
    const fake = new FakeListerWatcher<KubeObject>({ objects: fixtures() });
    const store = createStore<KubeObject>();
    const metrics = createTestMetricsProvider();
    const clock = new FakeClock();
    const reflector = new Reflector(fake, store, {
      name: 'r',
      clock,
      metrics,
      random: () => 0,
      shard: createShardFilterSource({ ranges: upper }),
    });
    const controller = new AbortController();
    const run = reflector.run({ signal: controller.signal });
    await fake.nextWatch();
    expect(store.listKeys().sort()).toEqual(['ns/u1', 'ns/u2']);
    expect(metrics.value('lasso_shard_objects_filtered_total', { kind: 'r' })).toBe(2);
    controller.abort();
    await run;
  });

  it('a plain reflector with no range owned is idle: no request, an empty store, then lists on a gain', async () => {
    const fake = new FakeListerWatcher<KubeObject>({ objects: fixtures() });
    const store = createStore<KubeObject>();
    const clock = new FakeClock();
    const shard = createShardFilterSource({ ranges: [] });
    const reflector = new Reflector(fake, store, { name: 'r', clock, random: () => 0, shard });
    const controller = new AbortController();
    const run = reflector.run({ signal: controller.signal });
    await clock.advance(0);
    expect(reflector.state()).toBe('idle');
    expect(fake.listCalls).toHaveLength(0);
    shard.set(lower);
    await fake.nextWatch();
    expect(reflector.state()).toBe('watching');
    expect(store.listKeys().sort()).toEqual(['ns/l1', 'ns/l2']);
    controller.abort();
    await run;
    expect(reflector.state()).toBe('stopped');
  });

  it('trusts a list whose shardInfo echoes the selector; checks one that echoes another', async () => {
    const run = async (echo: string) => {
      const fake = new FakeListerWatcher<KubeObject>({ objects: fixtures() });
      const listerWatcher: ListerWatcher<KubeObject> = {
        async list(options) {
          const page = await fake.list(options);
          return { ...page, metadata: { ...page.metadata, shardInfo: { selector: echo } } };
        },
        watch: (options) => fake.watch(options),
      };
      const store = createStore<KubeObject>();
      const metrics = createTestMetricsProvider();
      const logger = createTestLogger();
      const reflector = new Reflector(listerWatcher, store, {
        name: 'r',
        clock: new FakeClock(),
        random: () => 0,
        metrics,
        logger,
        shard: createShardFilterSource({ ranges: lower }),
      });
      const controller = new AbortController();
      const running = reflector.run({ signal: controller.signal });
      await fake.nextWatch();
      controller.abort();
      await running;
      return {
        keys: store.listKeys().sort(),
        filtered: metrics.value('lasso_shard_objects_filtered_total', { kind: 'r' }),
        mismatch: logger.find('another shard selector').length,
      };
    };
    // Echoed (here in another spelling of the same ranges): trusted as is (this fake did not filter).
    expect(await run(lowerSelector.replace(/, /g, ','))).toEqual({
      keys: ['ns/l1', 'ns/l2', 'ns/u1', 'ns/u2'],
      filtered: 0,
      mismatch: 0,
    });
    // Another selector echoed: every item is checked, and the mismatch is said.
    expect(await run(formatShardSelector({ key: 'object.metadata.uid', ranges: upper }))).toEqual({
      keys: ['ns/l1', 'ns/l2'],
      filtered: 2,
      mismatch: 1,
    });
  });

  it('filters watch batches: events kept in order, bookmarks pass, a wholly filtered batch skipped', async () => {
    const bookmark = { type: 'BOOKMARK' as const, object: { metadata: { resourceVersion: '9' } } };
    const batches: WatchEvent<KubeObject>[][] = [
      [{ type: 'ADDED', object: cm('u1', u1) }, { type: 'ADDED', object: cm('l1', l1) }, bookmark],
      [{ type: 'MODIFIED', object: cm('u2', u2) }],
      [{ type: 'DELETED', object: cm('l2', l2) }],
    ];
    const sent: WatchOptions[] = [];
    const inner: ListerWatcher<KubeObject> = {
      list: async () => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [] }),
      watch: () => ({ async *[Symbol.asyncIterator]() {} }),
      async *watchBatches(options) {
        sent.push(options);
        yield* batches;
      },
    };
    const metrics = createTestMetricsProvider();
    const filtered = () => metrics.counter({ name: 'filtered', help: 'filtered' });
    const wrapped = shardListerWatcher(inner, createShardFilterSource({ ranges: lower }), {
      filtered,
      logger: createTestLogger(),
    });
    const seen: string[][] = [];
    for await (const batch of wrapped.watchBatches?.({ resourceVersion: '1' }) ?? []) {
      seen.push(batch.map((event) => `${event.type}:${event.object.metadata?.name ?? ''}`));
    }
    expect(seen).toEqual([['ADDED:l1', 'BOOKMARK:'], ['DELETED:l2']]);
    expect(sent[0]?.shardSelector).toBe(lowerSelector);
    expect(metrics.value('filtered')).toBe(2);
    // byOwner: a MODIFIED outside the ranges goes on as a DELETED (the object may have moved out).
    const byOwner = shardListerWatcher(
      inner,
      createShardFilterSource({ ranges: lower, byOwner: true }),
      { filtered, logger: createTestLogger() },
    );
    const owned: string[] = [];
    for await (const batch of byOwner.watchBatches?.({ resourceVersion: '1' }) ?? []) {
      for (const event of batch) owned.push(`${event.type}:${event.object.metadata?.name ?? ''}`);
    }
    expect(owned).toEqual(['ADDED:l1', 'BOOKMARK:', 'DELETED:u2', 'DELETED:l2']);
    expect(sent[1]?.shardSelector).toBeUndefined();
  });

  it('a reflector alone relists when ranges are given up: its store has no eviction', async () => {
    const fake = new FakeListerWatcher<KubeObject>({ objects: fixtures() });
    const store = createStore<KubeObject>();
    const shard = createShardFilterSource({ ranges: everything });
    const reflector = new Reflector(fake, store, {
      name: 'r',
      clock: new FakeClock(),
      random: () => 0,
      shard,
    });
    const controller = new AbortController();
    const run = reflector.run({ signal: controller.signal });
    await fake.nextWatch();
    expect(store.listKeys()).toHaveLength(4);
    shard.set(lower);
    await fake.nextWatch();
    expect(fake.listCalls).toHaveLength(2);
    expect(store.listKeys().sort()).toEqual(['ns/l1', 'ns/l2']);
    controller.abort();
    await run;
  });
});
