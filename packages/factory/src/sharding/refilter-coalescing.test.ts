// Range changes that arrive faster than a list completes (issue 32, a rolling update or a flapping member): a
// sharded informer over a lister-watcher whose lists the test completes by hand, driven by the coordinator from a
// fake ring. Each gain used to restart the list in flight (abandoned, sent again with the next selector); now the
// gains that arrive while a refilter's list is in flight wait for it and are applied together (latest wins), and
// releases are applied and acknowledged at once, list or no list.

import { createSharedIndexInformer, type ListerWatcher } from '@lasso/cache';
import { FakeListerWatcher } from '@lasso/cache/testing';
import type { KubeObject, KubeObjectLike, ListOptions, ObjectList } from '@lasso/client';
import type { HandOffController } from '@lasso/controller';
import { drainedResult, type StopResult } from '@lasso/core';
import { fnv1a64Hex, parseShardSelector } from '@lasso/core/sharding';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { gainWaitBoundMs } from './kind-shard.ts';
import { type CoordinatedRing, ShardCoordinator } from './shard-coordinator.ts';

type Change = { gained: readonly number[]; releasing: readonly number[] };

class FakeRing implements CoordinatedRing {
  readonly ring = 'test';
  readonly rangeCount = 4;
  readonly fence = new AbortController().signal;
  owned: number[] = [];
  readonly acks: number[][] = [];
  #listener: ((change: Change) => void) | undefined;

  subscribe(listener: (change: Change) => void): () => void {
    this.#listener = listener;
    return () => {
      this.#listener = undefined;
    };
  }

  emit(change: Change): void {
    this.owned = [
      ...this.owned.filter((range) => !change.releasing.includes(range)),
      ...change.gained,
    ].sort((a, b) => a - b);
    this.#listener?.(change);
  }

  async released(ranges: readonly number[]): Promise<void> {
    this.acks.push([...ranges]);
  }

  async start(): Promise<void> {}

  stopped(): Promise<StopResult> {
    return Promise.resolve(drainedResult);
  }

  async close(): Promise<void> {}
}

/** The range (of 4) a uid hashes to: the top two bits of its FNV-1a hash. */
function rangeOf(uid: string): number {
  return Number.parseInt(fnv1a64Hex(uid).slice(0, 1), 16) >> 2;
}

/** Two objects in each of the 4 ranges. */
function objects(): KubeObject[] {
  const found: KubeObject[] = [];
  const perRange = [0, 0, 0, 0];
  for (let index = 0; found.length < 8; index++) {
    const uid = `uid-${index}`;
    const range = rangeOf(uid);
    if (perRange[range]! >= 2) continue;
    perRange[range]!++;
    found.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'ns', name: `r${range}-${perRange[range]}`, uid },
    });
  }
  return found;
}

/** One list request: the ranges its selector asked for; completed by the test, or aborted by the reflector. */
interface ListCall {
  readonly ranges: number[];
  aborted: boolean;
  complete(): void;
}

/** The range indexes (of 4) a selector's ranges cover. */
function rangesOf(selector: string | undefined): number[] {
  if (selector === undefined) return [];
  const quarter = 1n << 62n;
  const covered: number[] = [];
  for (const range of parseShardSelector(selector).ranges) {
    for (let index = 0; index < 4; index++) {
      if (range.start <= BigInt(index) * quarter && BigInt(index + 1) * quarter <= range.end) {
        covered.push(index);
      }
    }
  }
  return covered;
}

/** A KEP-5866 server whose every list waits until the test completes it. */
function gatedServer(fake: FakeListerWatcher<KubeObject>) {
  const calls: ListCall[] = [];
  const listerWatcher: ListerWatcher<KubeObject> = {
    async list(options: ListOptions): Promise<ObjectList<KubeObject>> {
      let complete!: () => void;
      const gate = new Promise<void>((resolve) => {
        complete = resolve;
      });
      const call: ListCall = { ranges: rangesOf(options.shardSelector), aborted: false, complete };
      calls.push(call);
      await new Promise<void>((resolve, reject) => {
        options.signal?.addEventListener(
          'abort',
          () => {
            call.aborted = true;
            reject(options.signal?.reason);
          },
          { once: true },
        );
        void gate.then(resolve);
      });
      const page = await fake.list(options);
      const selector = options.shardSelector;
      if (selector === undefined) return page;
      const wanted = new Set(call.ranges);
      return {
        ...page,
        items: page.items.filter((item) => wanted.has(rangeOf(item.metadata?.uid as string))),
        metadata: { ...page.metadata, shardInfo: { selector } },
      };
    },
    watch: (options) => fake.watch(options),
  };
  return { calls, listerWatcher };
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function setup() {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const ring = new FakeRing();
  const coordinator = new ShardCoordinator(ring, {
    key: 'object.metadata.uid',
    ownerHashedKinds: new Set(),
    clock,
    logger,
    metrics,
  });
  const kind = 'v1, Kind=ConfigMap';
  const fake = new FakeListerWatcher<KubeObject>({ objects: objects() });
  const server = gatedServer(fake);
  const informer = createSharedIndexInformer(server.listerWatcher, {
    name: 'cms',
    gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    clock,
    logger,
    metrics,
    random: () => 0,
    initialList: 'consistent',
    shard: coordinator.sourceFor(kind),
  });
  const enqueued: string[] = [];
  const handOff = {
    dropQueued: () => 0,
    cancelReconciles: async () => 0,
    enqueueKey: (key: string) => void enqueued.push(key),
  } as unknown as HandOffController<KubeObjectLike>;
  coordinator.attach(kind, { controller: handOff, list: () => informer.getStore().list() });
  const admit = coordinator.admitFor(kind);
  const stop = new AbortController();
  await coordinator.start(stop.signal);
  await informer.start(stop.signal);
  stops.push(async () => {
    stop.abort();
    for (const call of server.calls) call.complete();
    await informer.stopped();
  });
  await informer.whenSynced();
  /** Let the reflector and the coordinator's chain run to their next wait. */
  const settle = async (): Promise<void> => {
    for (let turn = 0; turn < 5; turn++) {
      await coordinator.settled();
      await clock.advance(0);
    }
  };
  const held = (): number[] =>
    [
      ...new Set(
        informer
          .getStore()
          .list()
          .map((o) => rangeOf(o.metadata?.uid as string)),
      ),
    ].sort();
  const admits = (range: number): boolean =>
    admit('ns/x', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'x',
        namespace: 'ns',
        uid: objects().find((o) => rangeOf(o.metadata?.uid as string) === range)?.metadata
          ?.uid as string,
      },
    });
  return {
    clock,
    logger,
    metrics,
    ring,
    coordinator,
    calls: server.calls,
    held,
    admits,
    enqueued,
    settle,
  };
}

describe('range changes faster than a list completes', () => {
  it('applies the gains that arrive while a list is in flight together once it completes: no list abandoned', async () => {
    const t = await setup();
    // A rolling update: three ranges arrive one after the other, each before the list of the last completes.
    t.ring.emit({ gained: [0], releasing: [] });
    await t.settle();
    expect(t.calls.map((call) => call.ranges)).toEqual([[0]]);
    t.ring.emit({ gained: [1], releasing: [] });
    await t.settle();
    t.ring.emit({ gained: [2], releasing: [] });
    await t.settle();
    // The first list is still the only one, and still in flight.
    expect(t.calls.map((call) => call.ranges)).toEqual([[0]]);
    expect(t.calls[0]?.aborted).toBe(false);
    t.calls[0]?.complete();
    await t.settle();
    // One more list, for everything gained meanwhile.
    expect(t.calls.map((call) => call.ranges)).toEqual([[0], [0, 1, 2]]);
    t.calls[1]?.complete();
    await t.settle();
    expect(t.calls).toHaveLength(2);
    expect(t.calls.filter((call) => call.aborted)).toEqual([]);
    expect(t.held()).toEqual([0, 1, 2]);
    expect(
      t.metrics.value('lasso_shard_changes_coalesced_total', { kind: 'v1, Kind=ConfigMap' }),
    ).toBe(2);
    expect(
      t.logger.entries.filter((entry) =>
        entry.message.startsWith('applied range changes that waited'),
      ),
    ).toHaveLength(1);
  });

  it('releases at once while a list is in flight, and never publishes a gain released before it was applied', async () => {
    const t = await setup();
    t.ring.emit({ gained: [0, 3], releasing: [] });
    await t.settle();
    t.calls[0]?.complete();
    await t.settle();
    expect(t.held()).toEqual([0, 3]);
    t.ring.emit({ gained: [1], releasing: [] });
    await t.settle();
    expect(t.calls.map((call) => call.ranges)).toEqual([
      [0, 3],
      [0, 1, 3],
    ]);
    // Gained while that list is in flight, then released again before it completed (a member that flapped).
    t.ring.emit({ gained: [2], releasing: [] });
    await t.settle();
    t.ring.emit({ gained: [], releasing: [2, 3] });
    await t.settle();
    // Acknowledged without waiting for the list; range 3's objects left the store.
    expect(t.ring.acks).toEqual([[2, 3]]);
    expect(t.held()).toEqual([0]);
    expect(t.admits(2)).toBe(false);
    expect(t.admits(3)).toBe(false);
    t.calls[1]?.complete();
    await t.settle();
    // Nothing left to apply: range 2 was never published, and no third list was sent.
    expect(t.calls).toHaveLength(2);
    expect(t.calls.filter((call) => call.aborted)).toEqual([]);
    expect(t.held()).toEqual([0, 1]);
    expect(t.admits(2)).toBe(false);
    expect(
      t.metrics.value('lasso_shard_changes_coalesced_total', { kind: 'v1, Kind=ConfigMap' }),
    ).toBe(1);
  });

  it('does not wait past its bound for a list that does not complete: the waiting gain is applied, loudly', async () => {
    const t = await setup();
    t.ring.emit({ gained: [0], releasing: [] });
    await t.settle();
    t.ring.emit({ gained: [1], releasing: [] });
    await t.settle();
    await t.clock.advance(gainWaitBoundMs - 1);
    await t.settle();
    expect(t.calls).toHaveLength(1);
    await t.clock.advance(1);
    await t.settle();
    expect(t.calls.map((call) => call.ranges)).toEqual([[0], [0, 1]]);
    expect(t.calls[0]?.aborted).toBe(true);
    expect(
      t.logger.entries.filter(
        (entry) => entry.level === 'warn' && entry.message.includes('no list completed within'),
      ),
    ).toHaveLength(1);
    t.calls[1]?.complete();
    await t.settle();
    expect(t.held()).toEqual([0, 1]);
  });

  it('a range gained back while its list is in flight is applied once the list completes', async () => {
    const t = await setup();
    t.ring.emit({ gained: [0, 1], releasing: [] });
    await t.settle();
    t.ring.emit({ gained: [], releasing: [1] });
    await t.settle();
    expect(t.ring.acks).toEqual([[1]]);
    t.ring.emit({ gained: [1], releasing: [] });
    await t.settle();
    expect(t.calls.map((call) => call.ranges)).toEqual([[0, 1]]);
    t.calls[0]?.complete();
    await t.settle();
    expect(t.calls.map((call) => call.ranges)).toEqual([
      [0, 1],
      [0, 1],
    ]);
    t.calls[1]?.complete();
    await t.settle();
    expect(t.held()).toEqual([0, 1]);
    expect(t.admits(1)).toBe(true);
    expect(t.enqueued).toEqual([]);
  });
});
