// The shard filter of one kind's informer in a sharded controller factory, and how changes of the owned ranges reach
// it when they arrive faster than a list completes (a rolling update, a flapping member).
//
// A filter that gains ranges restarts the informer's list (the new selector must be listed); one that only gives
// ranges up does not (the informer evicts, its open watch checks each event against the new filter). So:
// - a change that only gives ranges up is published at once, always: the release it belongs to is acknowledged to
//   the ring right after, and another member waits for that acknowledgement;
// - a change that gains ranges is published at once when no list of an earlier gain is in flight; while one is,
//   it waits, and once that list completed (the informer says so through `ShardFilterSource.listed`) the latest
//   ranges are published in one change: one more list, however many changes came meanwhile (latest wins). Before,
//   each gain aborted the list in flight and sent it again with the next selector: k changes within a list's
//   duration cost k lists, k - 1 of them abandoned (on the client-side path each reads the whole resource).
// No settle window on top: the first gain of a burst is applied at once, so a hand-off (a crash takeover among
// them) is never delayed by a timer; a later gain waits at most for the list in flight, which it would have had
// to wait for anyway (its restarted list sends everything again). Changes further apart than a list takes cost
// nothing to apply one by one.
//
// Safety does not depend on the filter: the controller's admit check reads the coordinator's acting set, which a
// release empties synchronously. A gain that waits is acted on (admitted) at once, but its objects arrive only with
// the list; a gain released again before it was published is never published.

import type { ShardFilter, ShardFilterSource } from '@lasso/cache';
import type {
  KubeObjectLike,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '@lasso/client';
import type { HandOffController } from '@lasso/controller';
import {
  type Clock,
  type Counter,
  errorMessage,
  type Logger,
  type MetricsProvider,
  type TimerHandle,
} from '@lasso/core';
import { fnv1a64Hex, type ShardKey, shardHashSource } from '@lasso/core/sharding';
import { mergeShardRanges } from './assignment.ts';
import { DeletionWatermark } from './deletion-watermark.ts';
import { formatRangeList } from './held-ranges.ts';

/**
 * How long a gain waits at most for the list in flight: past it, it is published anyway (restarting that list).
 * Only a list that does not complete (a server failing for that long, an informer not running) reaches it.
 */
export const gainWaitBoundMs = 30_000;

/** A kind's controller and the store it reads, as the coordinator sees them. */
export interface CoordinatedController {
  readonly controller: HandOffController<KubeObjectLike>;
  /** The keys and objects the kind's informer holds now. */
  list(): readonly KubeObjectLike[];
  /** One page of the kind's objects in every namespace (a deletion replay's list at a watermark). */
  listAt?(options: ListOptions): Promise<ObjectList<KubeObjectLike>>;
  /** A watch of the kind in every namespace (a deletion replay's watch from a watermark). */
  watchFrom?(options: WatchOptions): AsyncIterable<WatchEvent<KubeObjectLike>>;
}

interface ListedWaiter {
  readonly ranges: ReadonlySet<number>;
  /** The generation a list must have been made with (or later); undefined until the ranges are published. */
  generation: number | undefined;
  readonly resolve: (listed: boolean) => void;
}

/** What a {@link KindShard} reads of its coordinator. */
export interface KindShardHost {
  readonly key: ShardKey;
  readonly rangeCount: number;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: MetricsProvider;
  /** The ranges the informers should hold now (the target of every kind). */
  readonly publishing: ReadonlySet<number>;
  /** Run `step` after the hand-off steps already queued. */
  enqueue(step: () => Promise<void> | void): void;
}

const hashSpaceTop = 2 ** 32;

/** One kind: its filter and the controller acting on it. */
export class KindShard implements ShardFilterSource {
  readonly name: string;
  readonly #host: KindShardHost;
  readonly #listeners = new Set<() => void>();
  #filter: ShardFilter;
  // The ranges in #filter.
  #applied: ReadonlySet<number> = new Set();
  // The generation of the last filter that gained ranges, until a list made with it (or later) completed.
  #listing: number | undefined;
  // Changes that gained ranges while #listing was set, not yet published; since when; the latest target.
  #waiting = 0;
  #waitingFor: ReadonlySet<number> = new Set();
  #waitingSince = 0;
  #bound: TimerHandle | undefined;
  #coalesced: Counter | undefined;
  readonly #listedWaiters = new Set<ListedWaiter>();
  /** The deletion watermark of this kind's controller (see deletion-watermark.ts). */
  readonly watermark = new DeletionWatermark();
  byOwner: boolean;
  controller: CoordinatedController | undefined;

  constructor(name: string, host: KindShardHost, byOwner: boolean) {
    this.name = name;
    this.#host = host;
    this.byOwner = byOwner;
    this.#filter = this.#build(0, this.#applied);
  }

  current(): ShardFilter {
    return this.#filter;
  }

  subscribe(listener: () => void): () => void {
    if (typeof listener !== 'function') {
      throw new TypeError('subscribe: listener must be a function');
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How this kind is hashed. */
  get key(): ShardKey {
    return this.#host.key;
  }

  /**
   * Resolves true once the informer stored a list made with a filter holding every range of `ranges` (at once
   * when they are published and no list is in flight), false when one of them is no longer to be published or
   * `signal` aborts first.
   */
  whenListed(ranges: ReadonlySet<number>, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    const applied = [...ranges].every((range) => this.#applied.has(range));
    if (applied && this.#listing === undefined) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter: ListedWaiter = {
        ranges,
        generation: applied ? this.#listing : undefined,
        resolve: (listed) => {
          this.#listedWaiters.delete(waiter);
          signal.removeEventListener('abort', abort);
          resolve(listed);
        },
      };
      const abort = (): void => waiter.resolve(false);
      signal.addEventListener('abort', abort, { once: true });
      this.#listedWaiters.add(waiter);
    });
  }

  /** The informer stored a list made with the filter of `generation`: gains that waited for it are published. */
  listed(generation: number): void {
    for (const waiter of [...this.#listedWaiters]) {
      if (waiter.generation !== undefined && generation >= waiter.generation) waiter.resolve(true);
    }
    if (this.#listing === undefined || generation < this.#listing) return;
    this.#listing = undefined;
    if (this.#waiting > 0) this.#host.enqueue(() => this.#applyWaiting('listed'));
  }

  /** The range index of `object` under this kind's hashing. */
  rangeOf(object: KubeObjectLike): number {
    const source = shardHashSource(object, this.#host.key, { byOwner: this.byOwner });
    const high = Number.parseInt(fnv1a64Hex(source).slice(0, 8), 16);
    return Math.floor(high / (hashSpaceTop / this.#host.rangeCount));
  }

  /**
   * Bring the filter to the host's ranges (and this kind's hashing): at once when it gives ranges up or changes
   * the hashing, or gains with no list of an earlier gain in flight; otherwise the gain waits (see the top).
   */
  update(): void {
    const target = this.#host.publishing;
    const hashing = this.byOwner !== this.#filter.byOwner;
    const gains = [...target].some((range) => !this.#applied.has(range));
    if (!gains && !hashing) {
      if (target.size !== this.#applied.size) this.#publish(target);
      // What waited was given up again before it was applied (a flapping member): nothing waits any more.
      if (this.#waiting > 0) this.#countCoalesced(this.#endWaiting());
      return;
    }
    if (this.#listing === undefined || hashing) {
      this.#publish(target);
      this.#listing = this.#filter.generation;
      return;
    }
    // Give up at once what is no longer ours; the gain waits for the list in flight.
    const kept = new Set([...this.#applied].filter((range) => target.has(range)));
    if (kept.size !== this.#applied.size) this.#publish(kept);
    // A change counts when it gains something the last waiting one did not (a release meanwhile is no change here).
    const waitingFor = this.#waitingFor;
    this.#waitingFor = new Set(target);
    if (![...target].some((range) => !waitingFor.has(range) && !this.#applied.has(range))) return;
    if (this.#waiting++ > 0) return;
    this.#waitingSince = this.#host.clock.monotonic();
    this.#host.logger.debug('shard ranges gained while a list is in flight: waiting for it', {
      kind: this.name,
    });
    this.#bound = this.#host.clock.schedule(gainWaitBoundMs, () => {
      this.#bound = undefined;
      this.#listing = undefined;
      this.#host.enqueue(() => this.#applyWaiting('bound'));
    });
  }

  /** Stop waiting (the coordinator closed): no timer left behind. */
  close(): void {
    this.#endWaiting();
    for (const waiter of [...this.#listedWaiters]) waiter.resolve(false);
  }

  /** Nothing waits any more: the number of changes that waited. */
  #endWaiting(): number {
    const changes = this.#waiting;
    this.#waiting = 0;
    this.#waitingFor = new Set();
    this.#bound?.cancel();
    this.#bound = undefined;
    return changes;
  }

  #countCoalesced(changes: number): void {
    this.#coalesced ??= this.#host.metrics.counter({
      name: 'lasso_shard_changes_coalesced_total',
      help: 'Changes of the owned shard ranges that waited for a list in flight and were applied together (one list).',
      labels: { kind: this.name },
    });
    this.#coalesced.inc(changes);
  }

  #applyWaiting(why: 'listed' | 'bound'): void {
    if (this.#waiting === 0) return;
    const waitedMs = this.#host.clock.monotonic() - this.#waitingSince;
    const changes = this.#endWaiting();
    const before = this.#applied;
    this.update();
    const gained = [...this.#applied].filter((range) => !before.has(range));
    this.#countCoalesced(changes);
    const attributes = {
      kind: this.name,
      changes,
      gained: formatRangeList(gained),
      waitedMs,
    };
    if (why === 'listed') {
      this.#host.logger.info(
        'applied range changes that waited for the list in flight, in one refilter',
        attributes,
      );
    } else {
      this.#host.logger.warn(
        `applied range changes that waited for the list in flight: no list completed within ${gainWaitBoundMs} ms`,
        attributes,
      );
    }
  }

  #publish(ranges: ReadonlySet<number>): void {
    this.#applied = new Set(ranges);
    this.#filter = this.#build(this.#filter.generation + 1, this.#applied);
    for (const waiter of [...this.#listedWaiters]) {
      if (![...waiter.ranges].every((range) => this.#host.publishing.has(range))) {
        waiter.resolve(false);
      } else if (
        waiter.generation === undefined &&
        [...waiter.ranges].every((range) => this.#applied.has(range))
      ) {
        waiter.generation = this.#filter.generation;
      }
    }
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        this.#host.logger.error('shard filter listener failed', {
          kind: this.name,
          error: errorMessage(error),
        });
      }
    }
  }

  #build(generation: number, ranges: ReadonlySet<number>): ShardFilter {
    return Object.freeze({
      generation,
      ranges: Object.freeze(mergeShardRanges(ranges, this.#host.rangeCount)),
      key: this.#host.key,
      byOwner: this.byOwner,
    });
  }
}
