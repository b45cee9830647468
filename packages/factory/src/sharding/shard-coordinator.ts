// The sharded controller factory's side of the hand-off (issue 32): per kind, the shard filter its informer
// holds and the admit check its controller runs; on every change of the ring, the release or gain sequence that
// keeps "a range is acted on by at most one replica at any time".

import { setMaxListeners } from 'node:events';

import type { ShardFilterSource } from '@lasso/cache';
import type { KubeObjectLike } from '@lasso/client';
import {
  anySignal,
  type Clock,
  defaultLogger,
  errorMessage,
  type Gauge,
  guardLogger,
  LassoError,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  type StopResult,
  timeoutSignal,
} from '@lasso/core';
import type { ShardKey } from '@lasso/core/sharding';
import {
  previousWatermarks,
  type ReplayHost,
  ReplayMetrics,
  replayDeletions,
} from './deletion-replay.ts';
import { formatRangeList } from './held-ranges.ts';
import {
  type CoordinatedController,
  gainWaitBoundMs,
  KindShard,
  type KindShardHost,
} from './kind-shard.ts';
import { watermarkFor } from './watermark-annotation.ts';

export type { CoordinatedController } from './kind-shard.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /**
     * A reconcile was cancelled because its object's shard range moved to another replica of the ring: the
     * abort reason of its `context.signal` (a {@link ShardMovedError}). The new owner reconciles the key.
     */
    LASSO_SHARD_MOVED: ShardMovedError;
  }
}

/**
 * The abort reason of a reconcile cancelled by a hand-off (code `LASSO_SHARD_MOVED`): its key is not retried
 * here, the replica that owns it now reconciles it.
 *
 * @example
 * ```ts
 * import { isLassoError } from '@lasso/core';
 *
 * const handler = async (_key: string, _object: unknown, { signal }: { signal: AbortSignal }) => {
 *   await new Promise((resolve) => setTimeout(resolve, 1_000));
 *   if (isLassoError(signal.reason, 'LASSO_SHARD_MOVED')) return; // another replica has it now
 * };
 * ```
 */
export class ShardMovedError extends LassoError {
  /** The range indexes that moved away. */
  readonly ranges: readonly number[];
  constructor(ring: string, ranges: readonly number[]) {
    super(
      'LASSO_SHARD_MOVED',
      `shard ring ${ring}: ${ranges.length} range(s) moved to another replica; reconcile cancelled`,
    );
    this.ranges = ranges;
  }
}

/** What the coordinator needs of a shard ring (`ShardRing` of ./ring-api.ts). */
export interface CoordinatedRing {
  readonly ring: string;
  readonly rangeCount: number;
  readonly owned: readonly number[];
  readonly fence: AbortSignal;
  subscribe(listener: (change: CoordinatedChange) => void): () => void;
  /** Where each write of the member's Lease reads the deletion watermarks it publishes. */
  setWatermarkSource?(source: () => ReadonlyMap<string, string>): void;
  released(ranges: readonly number[]): Promise<void>;
  start(signal: AbortSignal): Promise<void>;
  stopped(): Promise<StopResult>;
  close(): Promise<void>;
}

/** A change of the ring as the coordinator reads it (`ShardRingChange` of ./ring-api.ts). */
export interface CoordinatedChange {
  readonly gained: readonly number[];
  readonly releasing: readonly number[];
  readonly previous?: ReadonlyMap<number, string | undefined> | undefined;
}

/** Options of {@link ShardCoordinator}. */
export interface ShardCoordinatorOptions {
  readonly key: ShardKey;
  /** Kinds ({@link gvkKey}) hashed by their controller owner from the start. */
  readonly ownerHashedKinds: ReadonlySet<string>;
  readonly clock: Clock;
  readonly logger?: Logger | undefined;
  readonly metrics?: MetricsProvider | undefined;
}

/**
 * Ties a shard ring to the controllers of one factory. Ranges are `acting` (reconciles may start: a controller's
 * admit says yes) and `published` (the informers hold their objects). A release first stops acting
 * (synchronously, as the ring announces it), then drops queued keys, cancels and awaits in-flight reconciles,
 * then unpublishes (the informers evict without delete events) and only then acknowledges to the ring. A gain
 * acts and publishes (the informers relist; new objects arrive as adds, objects still held are enqueued).
 */
export class ShardCoordinator {
  readonly key: ShardKey;
  readonly rangeCount: number;
  readonly logger: Logger;
  readonly #ring: CoordinatedRing;
  readonly #ownerHashedKinds: ReadonlySet<string>;
  readonly #kinds = new Map<string, KindShard>();
  readonly #acting = new Set<number>();
  readonly #published = new Set<number>();
  readonly #metrics: MetricsProvider;
  readonly #gauges = new Map<string, Gauge>();
  readonly #host: KindShardHost;
  // Ring changes are applied one at a time, in order.
  #chain: Promise<void> = Promise.resolve();
  #unsubscribe: (() => void) | undefined;
  #stopCollecting: (() => void) | undefined;
  readonly #clock: Clock;
  readonly #replayMetrics: ReplayMetrics;
  readonly #replayHost: ReplayHost;
  // Deletion replays under way (they wait for lists, outside the chain of hand-off steps); aborted by close().
  readonly #replays = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();
  // The signal every replay of the current fence follows (one listener on the fence and on #closing, not one per
  // replay: many replays may run at once after a burst of gains).
  #replayScope: { readonly fence: AbortSignal; readonly stop: AbortController } | undefined;

  constructor(ring: CoordinatedRing, options: ShardCoordinatorOptions) {
    this.#ring = ring;
    this.key = options.key;
    this.rangeCount = ring.rangeCount;
    this.#ownerHashedKinds = options.ownerHashedKinds;
    this.logger = guardLogger(options.logger ?? defaultLogger).child({ shardRing: ring.ring });
    this.#metrics = options.metrics ?? noopMetricsProvider;
    if (typeof this.#metrics.onCollect === 'function') {
      this.#stopCollecting = this.#metrics.onCollect(() => this.#countObjects());
    }
    this.#host = {
      key: this.key,
      rangeCount: this.rangeCount,
      logger: this.logger,
      clock: options.clock,
      metrics: this.#metrics,
      publishing: this.#published,
      enqueue: (step) => this.#enqueue(async () => step()),
    };
    this.#clock = options.clock;
    this.#replayMetrics = new ReplayMetrics(this.#metrics);
    this.#replayHost = {
      rangeCount: this.rangeCount,
      logger: this.logger,
      metrics: this.#metrics,
      acting: (range) => this.#acting.has(range),
    };
    ring.setWatermarkSource?.(() => this.watermarks());
  }

  /**
   * The deletion watermark of each kind whose controller is attached and has one (published in the member's
   * Lease at each write): every deletion its controller received up to it was settled here.
   */
  watermarks(): Map<string, string> {
    const out = new Map<string, string>();
    for (const shard of this.#kinds.values()) {
      if (shard.controller === undefined) continue;
      const watermark = shard.watermark.current();
      if (watermark !== undefined) out.set(shard.name, watermark);
      const byVersion = new Map<string, number[]>();
      for (const [range, version] of shard.watermark.inherited()) {
        byVersion.set(version, [...(byVersion.get(version) ?? []), range]);
      }
      for (const [version, ranges] of byVersion) {
        out.set(`${shard.name}@${formatRangeList(ranges)}`, version);
      }
    }
    return out;
  }

  /** The deletion observer of `kind`'s controller (its watermark). */
  deletionObserverFor(kind: string): KindShard['watermark'] {
    return this.#kind(kind).watermark;
  }

  /**
   * The ranges published to the informers, ascending: each kind's filter follows at once, or, for a gain that
   * came while that informer's list of an earlier gain is in flight, once the list completed (kind-shard.ts).
   */
  get published(): number[] {
    return [...this.#published].sort((a, b) => a - b);
  }

  /** The ranges reconciles may start on, ascending. */
  get acting(): number[] {
    return [...this.#acting].sort((a, b) => a - b);
  }

  get ring(): CoordinatedRing {
    return this.#ring;
  }

  /** The filter of `kind`'s informer (created on first use). */
  sourceFor(kind: string): ShardFilterSource {
    return this.#kind(kind);
  }

  /** The filter of `kind` when a controller of the factory was made for it; undefined for other kinds. */
  existingSource(kind: string): ShardFilterSource | undefined {
    return this.#kinds.get(kind);
  }

  /** Attach the controller of `kind`; returns its admit check. */
  attach(kind: string, controller: CoordinatedController): void {
    this.#kind(kind).controller = controller;
  }

  /** The admit option of `kind`'s controller: its object's range is acted on here now. */
  admitFor(kind: string): (key: string, object: KubeObjectLike) => boolean {
    const shard = this.#kind(kind);
    return (_key, object) => this.#acting.has(shard.rangeOf(object));
  }

  /** The fence option of every controller: the ring's current fence. */
  fence(): AbortSignal {
    return this.#ring.fence;
  }

  /**
   * Hash `kind` by its objects' controller owner from now on (an owner handler registered on it). Objects that
   * leave this replica's share with the change are released as in a hand-off; the informer is refiltered.
   */
  hashByOwner(kind: string): void {
    const shard = this.#kind(kind);
    if (shard.byOwner || this.key !== 'object.metadata.uid') return;
    shard.byOwner = true;
    this.logger.info('kind hashed by its controller owner from now on', { kind });
    this.#enqueue(async () => {
      await this.#stopActing(shard, (object) => !this.#acting.has(shard.rangeOf(object)), []);
      shard.update();
      this.#enqueueHeld(shard, new Set(this.#acting));
    });
  }

  /** Subscribe to the ring and start it with `signal` (the factory run's). */
  async start(signal: AbortSignal): Promise<void> {
    this.#unsubscribe ??= this.#ring.subscribe((change) => this.#onChange(change));
    await this.#ring.start(signal);
  }

  /** Settles once the ring stopped (after its last release was acknowledged) and every change was applied. */
  async stopped(): Promise<StopResult> {
    const result = await this.#ring.stopped();
    await this.#chain;
    return result;
  }

  async close(): Promise<void> {
    await this.#ring.close();
    await this.#chain;
    this.#closing.abort();
    await Promise.all([...this.#replays]);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#stopCollecting?.();
    this.#stopCollecting = undefined;
    for (const shard of this.#kinds.values()) shard.close();
  }

  /** Objects held per kind that fall in an acting range. */
  objectsOwned(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const shard of this.#kinds.values()) {
      const objects = shard.controller?.list() ?? [];
      let count = 0;
      for (const object of objects) if (this.#acting.has(shard.rangeOf(object))) count++;
      counts.set(shard.name, count);
    }
    return counts;
  }

  /** Per kind: whether it is hashed by controller owner (filtered client-side only). */
  kinds(): Map<string, { byOwner: boolean }> {
    return new Map([...this.#kinds].map(([name, shard]) => [name, { byOwner: shard.byOwner }]));
  }

  /** Resolves once every change announced so far was applied. */
  settled(): Promise<void> {
    return this.#chain;
  }

  #kind(kind: string): KindShard {
    let shard = this.#kinds.get(kind);
    if (shard === undefined) {
      const byOwner = this.key === 'object.metadata.uid' && this.#ownerHashedKinds.has(kind);
      shard = new KindShard(kind, this.#host, byOwner);
      this.#kinds.set(kind, shard);
    }
    return shard;
  }

  #onChange(change: CoordinatedChange): void {
    const releasing = [...change.releasing];
    const gained = [...change.gained];
    // Stop acting at once: no reconcile of a releasing range starts after the ring said so.
    for (const range of releasing) this.#acting.delete(range);
    if (releasing.length > 0) this.#enqueue(() => this.#release(releasing));
    if (gained.length > 0) {
      const previous = change.previous;
      // Published from now on (the ring published it with the claim): no write between the gain and the replay
      // names a later watermark for these ranges.
      const replays = previous === undefined ? [] : this.#inheritAll(previous);
      this.#enqueue(async () => {
        this.#gain(gained);
        this.#replay(replays);
      });
    }
  }

  // Per kind and watermark, the gained ranges to replay (previous holders' annotations decoded, unreadable ones
  // logged), each inherited at once.
  #inheritAll(
    previous: ReadonlyMap<number, string | undefined>,
  ): Array<{ readonly shard: KindShard; readonly ranges: number[]; readonly watermark: string }> {
    const replays: Array<{ shard: KindShard; ranges: number[]; watermark: string }> = [];
    for (const { ranges: all, watermarks } of previousWatermarks(previous, this.logger)) {
      for (const shard of this.#kinds.values()) {
        if (shard.controller === undefined) continue;
        const byWatermark = new Map<string, number[]>();
        for (const range of all) {
          const watermark = watermarkFor(watermarks, shard.name, range);
          if (watermark !== undefined) {
            byWatermark.set(watermark, [...(byWatermark.get(watermark) ?? []), range]);
          }
        }
        for (const [watermark, ranges] of byWatermark) {
          shard.watermark.inherit(ranges, watermark);
          replays.push({ shard, ranges, watermark });
        }
      }
    }
    return replays;
  }

  // Replay the deletions of gained ranges since their previous holder's watermark (deletion-replay.ts), once the
  // kind's informer listed them; under the ring's fence (a fenced member acts on nothing).
  #replay(
    replays: ReadonlyArray<{
      readonly shard: KindShard;
      readonly ranges: number[];
      readonly watermark: string;
    }>,
  ): void {
    if (replays.length === 0) return;
    const scope = this.#replaySignal();
    for (const { shard, ranges: gained, watermark } of replays) {
      const ranges = gained.filter((range) => this.#acting.has(range));
      if (ranges.length === 0) continue;
      const bound = timeoutSignal(this.#clock, 2 * gainWaitBoundMs);
      const signal = anySignal([scope, bound.signal]);
      const replay = replayDeletions(
        this.#replayHost,
        shard,
        ranges,
        watermark,
        signal.signal,
        this.#replayMetrics,
        // Registered before the keys are queued: a reconcile may settle one at once.
        (keys) =>
          shard.watermark.replayed(
            ranges.filter((range) => this.#acting.has(range)),
            keys,
          ),
      ).then(
        ({ keys }) => {
          if (keys === undefined) {
            shard.watermark.replayed(
              ranges.filter((range) => this.#acting.has(range)),
              undefined,
            );
          }
        },
        () => undefined,
      );
      const tracked = replay.finally(() => {
        signal.dispose();
        bound.clear();
        this.#replays.delete(tracked);
      });
      this.#replays.add(tracked);
    }
  }

  #replaySignal(): AbortSignal {
    const fence = this.#ring.fence;
    const current = this.#replayScope;
    if (current !== undefined && current.fence === fence) return current.stop.signal;
    const stop = new AbortController();
    // Each replay adds a listener or two (its bound, its wait for the list, its watch) while it runs.
    setMaxListeners(1_000, stop.signal);
    const closing = this.#closing.signal;
    const end = (): void => {
      fence.removeEventListener('abort', end);
      closing.removeEventListener('abort', end);
      stop.abort(fence.aborted ? fence.reason : closing.reason);
    };
    if (fence.aborted || closing.aborted) end();
    else {
      fence.addEventListener('abort', end, { once: true });
      closing.addEventListener('abort', end, { once: true });
    }
    this.#replayScope = { fence, stop };
    return stop.signal;
  }

  #enqueue(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(step).catch((error: unknown) => {
      this.logger.error('shard hand-off step failed', { error: errorMessage(error) });
    });
  }

  async #release(ranges: number[]): Promise<void> {
    const moving = new Set(ranges.filter((range) => !this.#acting.has(range)));
    if (moving.size > 0) {
      const reason = new ShardMovedError(this.#ring.ring, [...moving]);
      await Promise.all(
        [...this.#kinds.values()].map((shard) =>
          this.#stopActing(
            shard,
            (object) => moving.has(shard.rangeOf(object)),
            [...moving],
            reason,
          ),
        ),
      );
      for (const range of moving) this.#published.delete(range);
      for (const shard of this.#kinds.values()) {
        shard.watermark.hold();
        shard.update();
      }
      this.logger.info('released shard ranges', { ranges: [...moving] });
      this.#countObjects();
    }
    // Ranges gained back meanwhile stay ours; the ring ignores them.
    await this.#ring.released(ranges);
    // The acknowledgement carried a watermark from before the deletions of these ranges left unsettled here (their
    // keys were dropped): their new owner replays from it. Later writes need not hold back for them.
    if (moving.size > 0) {
      for (const shard of this.#kinds.values()) {
        shard.watermark.forget(
          (state) => moving.has(shard.rangeOf(state)) && !this.#acting.has(shard.rangeOf(state)),
          [...moving].filter((range) => !this.#acting.has(range)),
        );
        shard.watermark.release();
      }
    }
  }

  // Drop the queued keys and cancel (and await) the reconciles of `shard` whose object `leaving` selects.
  async #stopActing(
    shard: KindShard,
    leaving: (object: KubeObjectLike) => boolean,
    ranges: readonly number[],
    reason: unknown = new ShardMovedError(this.#ring.ring, ranges),
  ): Promise<void> {
    const controller = shard.controller?.controller;
    if (controller === undefined) return;
    const predicate = (_key: string, object: KubeObjectLike | undefined): boolean =>
      object !== undefined && leaving(object);
    const dropped = controller.dropQueued(predicate);
    const cancelled = await controller.cancelReconciles(predicate, reason);
    // A key re-added by an event during a cancelled reconcile is queued again by its done(): dropped too.
    const late = controller.dropQueued(predicate);
    if (dropped + cancelled + late > 0) {
      this.logger.info('stopped acting on keys that moved away', {
        kind: shard.name,
        dropped: dropped + late,
        cancelled,
      });
    }
  }

  #gain(ranges: number[]): void {
    const fresh = new Set<number>();
    for (const range of ranges) {
      if (!this.#ring.owned.includes(range)) continue; // released again since
      this.#acting.add(range);
      if (!this.#published.has(range)) fresh.add(range);
      this.#published.add(range);
    }
    for (const shard of this.#kinds.values()) {
      shard.update();
      this.#enqueueHeld(shard, new Set(ranges.filter((range) => this.#acting.has(range))));
    }
    this.logger.info('acting on gained shard ranges', { ranges, fresh: fresh.size });
    this.#countObjects();
  }

  // Objects already held in `ranges` produce no informer event: each is reconciled once now.
  #enqueueHeld(shard: KindShard, ranges: ReadonlySet<number>): void {
    const controlled = shard.controller;
    if (controlled === undefined || ranges.size === 0) return;
    for (const object of controlled.list()) {
      if (!ranges.has(shard.rangeOf(object))) continue;
      const metadata = object.metadata;
      const name = metadata?.name;
      if (typeof name !== 'string') continue;
      const namespace = metadata?.namespace;
      controlled.controller.enqueueKey(namespace ? `${namespace}/${name}` : name);
    }
  }

  #countObjects(): void {
    for (const [kind, count] of this.objectsOwned()) {
      let gauge = this.#gauges.get(kind);
      if (gauge === undefined) {
        gauge = this.#metrics.gauge({
          name: 'lasso_shard_objects_owned',
          help: 'Objects of a kind this replica holds in the shard ranges it acts on.',
          labels: { kind },
        });
        this.#gauges.set(kind, gauge);
      }
      gauge.set(count);
    }
  }
}
