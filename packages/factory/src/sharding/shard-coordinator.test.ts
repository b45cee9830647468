// The coordinator's release and gain sequences over a fake ring and a recording controller: a release stops
// acting at once, drops and cancels (awaiting the cancelled reconciles) before the informer filter shrinks, and
// acknowledges to the ring only after that; a gain publishes the larger filter and enqueues objects already held.
import type { KubeObjectLike } from '@lasso/client';
import type { HandOffController, KeyPredicate } from '@lasso/controller';
import { drainedResult, isLassoError, type StopResult } from '@lasso/core';
import { fnv1a64Hex } from '@lasso/core/sharding';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { type CoordinatedRing, ShardCoordinator } from './shard-coordinator.ts';

type Change = { gained: readonly number[]; releasing: readonly number[] };

class FakeRing implements CoordinatedRing {
  readonly ring = 'test';
  readonly rangeCount = 4;
  owned: number[] = [];
  fenceController = new AbortController();
  readonly releasedCalls: number[][] = [];
  readonly events: string[];
  #listener: ((change: Change) => void) | undefined;

  constructor(events: string[]) {
    this.events = events;
  }

  get fence(): AbortSignal {
    return this.fenceController.signal;
  }

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
    this.events.push(`released ${ranges.join(',')}`);
    this.releasedCalls.push([...ranges]);
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

/** A uid in range `range` (searching u0, u1, ...). */
function uidIn(range: number, skip = 0): string {
  let found = 0;
  for (let index = 0; ; index++) {
    const uid = `u${index}`;
    if (rangeOf(uid) === range && found++ === skip) return uid;
  }
}

function object(name: string, uid: string, owner?: string): KubeObjectLike {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'ns',
      uid,
      ...(owner !== undefined
        ? {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'X', name: 'o', uid: owner, controller: true },
            ],
          }
        : {}),
    },
  };
}

class RecordingController {
  readonly events: string[];
  readonly enqueued: string[] = [];
  readonly store: KubeObjectLike[] = [];
  queued: string[] = [];
  inFlight: string[] = [];
  cancelGate: Promise<void> = Promise.resolve();
  lastReason: unknown;

  constructor(events: string[]) {
    this.events = events;
  }

  #stateOf(key: string): KubeObjectLike | undefined {
    return this.store.find((object) => `ns/${object.metadata?.name}` === key);
  }

  get handOff(): HandOffController<KubeObjectLike> {
    return {
      dropQueued: (predicate: KeyPredicate<KubeObjectLike>) => {
        const dropped = this.queued.filter((key) => predicate(key, this.#stateOf(key)));
        this.queued = this.queued.filter((key) => !dropped.includes(key));
        this.events.push(`drop ${dropped.join(',')}`);
        return dropped.length;
      },
      cancelReconciles: async (predicate: KeyPredicate<KubeObjectLike>, reason: unknown) => {
        const cancelled = this.inFlight.filter((key) => predicate(key, this.#stateOf(key)));
        this.lastReason = reason;
        this.events.push(`cancel ${cancelled.join(',')}`);
        await this.cancelGate;
        this.events.push('cancelled');
        return cancelled.length;
      },
      enqueueKey: (key: string) => this.enqueued.push(key),
    } as unknown as HandOffController<KubeObjectLike>;
  }
}

function setup(ownerHashedKinds: string[] = []) {
  const events: string[] = [];
  const ring = new FakeRing(events);
  const metrics = createTestMetricsProvider();
  const coordinator = new ShardCoordinator(ring, {
    key: 'object.metadata.uid',
    ownerHashedKinds: new Set(ownerHashedKinds),
    clock: new FakeClock(),
    logger: createTestLogger(),
    metrics,
  });
  const controller = new RecordingController(events);
  const source = coordinator.sourceFor('v1, Kind=ConfigMap');
  source.subscribe(() => events.push(`publish ${coordinator.published.join(',')}`));
  coordinator.attach('v1, Kind=ConfigMap', {
    controller: controller.handOff,
    list: () => controller.store,
  });
  const admit = coordinator.admitFor('v1, Kind=ConfigMap');
  return { events, ring, coordinator, controller, source, admit, metrics };
}

describe('ShardCoordinator', () => {
  it('publishes gained ranges, admits their objects and enqueues the objects already held', async () => {
    const t = setup();
    const a = object('a', uidIn(1));
    const b = object('b', uidIn(2));
    t.controller.store.push(a, b);
    await t.coordinator.start(new AbortController().signal);
    expect(t.source.current().ranges).toEqual([]);
    expect(t.admit('ns/a', a)).toBe(false);
    t.ring.emit({ gained: [1], releasing: [] });
    await t.coordinator.settled();
    const filter = t.source.current();
    expect(filter.generation).toBe(1);
    expect(filter.ranges).toEqual([{ start: 1n << 62n, end: 2n << 62n }]);
    expect(filter.byOwner).toBe(false);
    expect(t.admit('ns/a', a)).toBe(true);
    expect(t.admit('ns/b', b)).toBe(false);
    expect(t.controller.enqueued).toEqual(['ns/a']);
    expect(t.metrics.value('lasso_shard_objects_owned', { kind: 'v1, Kind=ConfigMap' })).toBe(1);
  });

  it('releases in order: stop acting at once, drop, cancel and await, unpublish, then acknowledge', async () => {
    const t = setup();
    const a = object('a', uidIn(1));
    const a2 = object('a2', uidIn(1, 1));
    const b = object('b', uidIn(2));
    t.controller.store.push(a, a2, b);
    await t.coordinator.start(new AbortController().signal);
    t.ring.emit({ gained: [1, 2], releasing: [] });
    await t.coordinator.settled();
    t.events.length = 0;
    t.controller.queued = ['ns/a2', 'ns/b'];
    t.controller.inFlight = ['ns/a', 'ns/b'];
    let openCancel!: () => void;
    t.controller.cancelGate = new Promise((resolve) => {
      openCancel = resolve;
    });
    t.ring.emit({ gained: [], releasing: [1] });
    // Synchronously: no reconcile of range 1 starts any more.
    expect(t.admit('ns/a', a)).toBe(false);
    expect(t.admit('ns/b', b)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.events).toEqual(['drop ns/a2', 'cancel ns/a']);
    expect(t.ring.releasedCalls).toEqual([]);
    // Still held until every cancelled reconcile ended.
    expect(t.source.current().ranges).toEqual([{ start: 1n << 62n, end: 3n << 62n }]);
    openCancel();
    await t.coordinator.settled();
    expect(t.events).toEqual([
      'drop ns/a2',
      'cancel ns/a',
      'cancelled',
      'drop ',
      'publish 2',
      'released 1',
    ]);
    expect(t.source.current().ranges).toEqual([{ start: 2n << 62n, end: 3n << 62n }]);
    expect(isLassoError(t.controller.lastReason, 'LASSO_SHARD_MOVED')).toBe(true);
    expect(t.controller.queued).toEqual(['ns/b']);
  });

  it('keeps a range released and gained back again, acknowledging nothing it still holds', async () => {
    const t = setup();
    await t.coordinator.start(new AbortController().signal);
    t.ring.emit({ gained: [0, 3], releasing: [] });
    t.ring.emit({ gained: [], releasing: [3] });
    t.ring.emit({ gained: [3], releasing: [] });
    await t.coordinator.settled();
    expect(t.coordinator.acting).toEqual([0, 3]);
    expect(t.coordinator.published).toEqual([0, 3]);
    expect(t.ring.releasedCalls).toEqual([[3]]);
  });

  it('hashes a kind by controller owner once an owner handler is registered, refiltering it', async () => {
    const t = setup();
    const ownerUid = uidIn(0);
    const child = object('child', uidIn(1), ownerUid);
    t.controller.store.push(child);
    await t.coordinator.start(new AbortController().signal);
    t.ring.emit({ gained: [1], releasing: [] });
    await t.coordinator.settled();
    expect(t.admit('ns/child', child)).toBe(true);
    t.controller.queued = ['ns/child'];
    t.coordinator.hashByOwner('v1, Kind=ConfigMap');
    await t.coordinator.settled();
    expect(t.source.current().byOwner).toBe(true);
    expect(t.admit('ns/child', child)).toBe(false);
    expect(t.controller.queued).toEqual([]);
    expect(t.ring.releasedCalls).toEqual([]);
  });

  it('hashes the kinds listed in ownerHashedKinds by owner from the start', () => {
    const t = setup(['v1, Kind=ConfigMap']);
    expect(t.source.current().byOwner).toBe(true);
    expect(t.coordinator.kinds().get('v1, Kind=ConfigMap')).toEqual({ byOwner: true });
  });

  it('gives every controller the ring’s current fence', () => {
    const t = setup();
    const first = t.coordinator.fence();
    t.ring.fenceController = new AbortController();
    expect(t.coordinator.fence()).not.toBe(first);
  });
});
