// Sharded informers (issue 32, data path): the filter a sharded replica's informers honour, and the lister-watcher
// that applies it. Contract between the sharding helpers (S1 data path, S2 ring, S3 wiring, S4 soak): the members
// of ShardFilter and ShardFilterSource below are exactly the contract's, plus the optional `listed` (how the
// factory's ring coalesces range changes that arrive faster than a list completes).
//
// How the filter is applied (the informer's half is in shared-informer.ts, the restart in reflector.ts):
// - `!byOwner`: the ranges go to the server as `shardSelector` on every list, watch and streaming list. A list
//   whose `metadata.shardInfo.selector` echoes them is trusted; any other answer (a server before 1.36, the gate
//   off) is filtered here with the identical hash. Watch events carry no shardInfo: they are always checked here
//   (one hash each; on a filtering server every one passes).
// - `byOwner`: nothing is sent (the server can only hash an object's own field); everything is filtered here.
// - Bookmarks (the initial-events-end bookmark included) always pass; a page's `continue` token and
//   `remainingItemCount` are kept, so a filtered page never ends a paged list early.
import type {
  KubeObjectLike,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '@lasso/client';
import { type Counter, errorMessage, type Logger, type MetricsProvider } from '@lasso/core';
import {
  createShardMatcher,
  formatShardSelector,
  parseShardSelector,
  type ShardKey,
  type ShardRange,
  shardHashSource,
} from '@lasso/core/sharding';
import type { ListerWatcher } from './lister-watcher.ts';

/** The ranges a sharded replica owns now, and how objects are hashed into them. */
export interface ShardFilter {
  /** Increases on every change of the owned ranges. */
  readonly generation: number;
  /**
   * The ranges owned now. Empty: the informer holds nothing and makes no request (a KEP-5866 selector cannot
   * express "no range"); it counts as synced, and lists again once a range is gained.
   */
  readonly ranges: readonly ShardRange[];
  /** `'object.metadata.uid'` or `'object.metadata.namespace'`. */
  readonly key: ShardKey;
  /** Hash controlled objects by their controller owner's uid (`shardHashSource`); client-side only. */
  readonly byOwner: boolean;
}

/** Where a sharded informer reads its {@link ShardFilter}: the ring of `@lasso/factory`, or a fixed one. */
export interface ShardFilterSource {
  /** The filter in force now. */
  current(): ShardFilter;
  /** Called after `current()` changed; returns an unsubscribe. */
  subscribe(listener: () => void): () => void;
  /**
   * Optional: told by the informer's reflector each time a list made with the filter of `generation` (or a later
   * one that selects no more) has been stored, and when a filter with no range left it idle. A source that
   * changes ranges faster than lists complete can wait for it before the next change that gains ranges, instead
   * of making the reflector abandon the list in flight (the factory's shard ring does). A throw is logged and
   * ignored.
   */
  listed?(generation: number): void;
}

/** A {@link ShardFilterSource} whose ranges are set by hand (static sharding, tests). */
export interface SettableShardFilterSource extends ShardFilterSource {
  /** Replace the owned ranges (the generation increases) and tell the subscribers. */
  set(ranges: readonly ShardRange[]): void;
}

/**
 * A {@link ShardFilterSource} holding the ranges given, changed with `set`. Throws `RangeError` for a range
 * outside `0 <= start < end <= 2^64` or an unsupported key.
 *
 * @example
 * ```ts
 * import { createCache, createShardFilterSource } from '@lasso/cache';
 *
 * declare const configMaps: Client;
 * // This replica takes the lower half of the uid hash space.
 * const shard = createShardFilterSource({ ranges: [{ start: 0n, end: 1n << 63n }] });
 * const informer = createCache(configMaps, { shard, resyncMs: 0 });
 * // later: hand the lower quarter to another replica
 * shard.set([{ start: 1n << 62n, end: 1n << 63n }]);
 * ```
 */
export function createShardFilterSource(init: {
  ranges: readonly ShardRange[];
  key?: ShardKey | undefined;
  byOwner?: boolean | undefined;
}): SettableShardFilterSource {
  const key = init.key ?? 'object.metadata.uid';
  const byOwner = init.byOwner ?? false;
  const check = (ranges: readonly ShardRange[]): readonly ShardRange[] => {
    if (!Array.isArray(ranges)) throw new TypeError('shard ranges must be an array');
    const copy = ranges.map((range) => ({ start: range.start, end: range.end }));
    // formatShardSelector checks the key and every range (RangeError), and needs one range at least.
    if (copy.length > 0) formatShardSelector({ key, ranges: copy });
    else formatShardSelector({ key, ranges: [{ start: 0n, end: 1n }] });
    return copy;
  };
  let filter: ShardFilter = { generation: 1, ranges: check(init.ranges), key, byOwner };
  const listeners = new Set<() => void>();
  return {
    current: () => filter,
    subscribe(listener) {
      if (typeof listener !== 'function')
        throw new TypeError('subscribe: listener must be a function');
      const entry = (): void => listener();
      listeners.add(entry);
      return () => void listeners.delete(entry);
    },
    set(ranges) {
      filter = { generation: filter.generation + 1, ranges: check(ranges), key, byOwner };
      for (const listener of [...listeners]) listener();
    },
  };
}

/** @internal Throws a TypeError naming `name` when `value` is no {@link ShardFilterSource}. */
export function checkShardFilterSource(value: unknown, name: string): void {
  const source = value as Partial<ShardFilterSource> | null;
  if (
    typeof source !== 'object' ||
    source === null ||
    typeof source.current !== 'function' ||
    typeof source.subscribe !== 'function'
  ) {
    throw new TypeError(`${name} must be a ShardFilterSource ({ current(), subscribe(listener) })`);
  }
}

/** @internal A {@link ShardFilter} compiled for the data path. */
export interface ShardCheck {
  readonly generation: number;
  /** Equal for two filters that select the same objects the same way (a restart is needed only when it changes). */
  readonly signature: string;
  /** No range owned: nothing passes, nothing is requested. */
  readonly empty: boolean;
  /** The `shardSelector` sent to the server; undefined when filtering client-side only (byOwner, empty). */
  readonly selector: string | undefined;
  readonly key: ShardKey;
  readonly byOwner: boolean;
  /** The ranges sorted by start, overlapping and touching ones joined. */
  readonly merged: readonly ShardRange[];
  /** The selector would pass a 1.36 server's parser limit: filtered client-side only (said once, loudly). */
  readonly tooLong?: boolean;
  /** True when the object hashes into an owned range. */
  contains(object: KubeObjectLike): boolean;
}

// kube-apiserver 1.36 refuses a shardSelector over cel-go's 100,000 code points with a 500 on every list
// (parseShardSelector in @lasso/core/sharding pins the same bound): beyond it (about 1,265 separate runs of
// ranges) the informer filters client-side instead of failing forever.
const serverSelectorLimit = 100_000;

/** @internal Compile a filter; throws `RangeError` for an invalid one (checked where it is read). */
export function compileShardFilter(filter: ShardFilter): ShardCheck {
  const { key, byOwner, generation } = filter;
  const ranges = [...filter.ranges];
  if (ranges.length === 0) {
    return {
      generation,
      signature: `${key}|${byOwner}|`,
      empty: true,
      selector: undefined,
      key,
      byOwner,
      merged: [],
      contains: () => false,
    };
  }
  const matches = createShardMatcher({ key, ranges });
  const options = { byOwner };
  const merged: Array<{ start: bigint; end: bigint }> = [];
  for (const range of ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range.start <= last.end) {
      if (range.end > last.end) last.end = range.end;
    } else {
      merged.push({ start: range.start, end: range.end });
    }
  }
  // Sent merged: the shortest selector for the same objects, and one signature for filters that select alike.
  const text = formatShardSelector({ key, ranges: merged });
  const tooLong = text.length > serverSelectorLimit;
  return {
    generation,
    signature: `${key}|${byOwner}|${text}`,
    empty: false,
    selector: byOwner || tooLong ? undefined : text,
    tooLong,
    key,
    byOwner,
    merged,
    contains: (object) => matches(shardHashSource(object, key, options)),
  };
}

/**
 * @internal True when every object `inner` selects is selected by `outer` (same key and byOwner, each range of
 * `inner` inside one of `outer`'s): a change from `outer` to `inner` only loses objects, so what is held for
 * `inner` is complete without a list.
 */
export function shardCovers(outer: ShardCheck, inner: ShardCheck): boolean {
  if (outer.key !== inner.key || outer.byOwner !== inner.byOwner) return false;
  return inner.merged.every((range) =>
    outer.merged.some((around) => around.start <= range.start && range.end <= around.end),
  );
}

/**
 * @internal The compiled current filter of a source, compiled again only when its generation changes. A filter
 * that does not compile (a range outside the hash space) is reported once and the last good one stays in force;
 * the first filter of a source must compile (it throws `RangeError`).
 */
export class ShardView {
  readonly source: ShardFilterSource;
  readonly #onInvalid: ((error: unknown) => void) | undefined;
  #check: ShardCheck | undefined;
  #badGeneration: number | undefined;

  constructor(source: ShardFilterSource, onInvalid?: (error: unknown) => void) {
    this.source = source;
    this.#onInvalid = onInvalid;
  }

  get(): ShardCheck {
    const filter = this.source.current();
    const check = this.#check;
    if (check !== undefined && check.generation === filter.generation) return check;
    if (check !== undefined && this.#badGeneration === filter.generation) return check;
    try {
      const compiled = compileShardFilter(filter);
      this.#check = compiled;
      return compiled;
    } catch (error) {
      if (check === undefined) throw error;
      this.#badGeneration = filter.generation;
      this.#onInvalid?.(error);
      return check;
    }
  }
}

/** @internal The counter of objects dropped client-side, one per kind. */
export function shardFilteredCounter(metrics: MetricsProvider, kind: string): Counter {
  return metrics.counter({
    name: 'lasso_shard_objects_filtered_total',
    help: 'Objects a sharded informer dropped client-side (outside its ranges), from lists and watch events.',
    labels: { kind },
  });
}

/** True when a list's `shardInfo.selector` is the selector sent (same text, or the same key and ranges). */
function echoes(echoed: unknown, sent: string): boolean {
  if (typeof echoed !== 'string' || echoed === '') return false;
  if (echoed === sent) return true;
  try {
    const a = parseShardSelector(echoed);
    const b = parseShardSelector(sent);
    return (
      a.key === b.key &&
      a.ranges.length === b.ranges.length &&
      a.ranges.every(
        (range, index) =>
          range.start === b.ranges[index]?.start && range.end === b.ranges[index]?.end,
      )
    );
  } catch {
    return false;
  }
}

const marker = Symbol('lasso.shardListerWatcher');

/** @internal Options of {@link shardListerWatcher}. */
export interface ShardListerWatcherOptions {
  /** The counter of objects dropped client-side; created only when this call wraps. */
  filtered: () => Counter;
  logger: Logger;
}

/**
 * @internal `inner` with the source's current filter applied to every list page and watch (see the top of this
 * file). A list keeps the filter of its first page for its `continue` pages; a watch sends the selector of the
 * filter when it opens and checks each event against the filter when the event arrives (a change that gains
 * ranges restarts both: the reflector's relist).
 *
 * Watch events of objects outside the ranges are dropped, except with `byOwner`: there an update can move an
 * object out (its controller owner changed), so a MODIFIED outside the ranges is passed on as a DELETED (the
 * DeltaFIFO ignores a deletion of an object it does not hold) and a DELETED is passed on as is.
 */
export function shardListerWatcher<T extends KubeObjectLike>(
  inner: ListerWatcher<T>,
  source: ShardFilterSource,
  options: ShardListerWatcherOptions,
): ListerWatcher<T> {
  // Already filtering by this source (the informer wraps before its reflector would): once is enough.
  if ((inner as { [marker]?: ShardFilterSource })[marker] === source) return inner;
  const view = new ShardView(source);
  // The first filter is checked here, where the informer or reflector is created: bad options throw.
  view.get();
  const filtered = options.filtered();
  const { logger } = options;
  let listCheck: ShardCheck | undefined;
  // Said once per lister-watcher: how the server answered the selector decides the cost of every list.
  let toldClientSide = false;
  let toldMismatch = false;
  let toldTooLong = false;
  const filterEvent = (event: WatchEvent<T>, check: ShardCheck): WatchEvent<T> | undefined => {
    const { type } = event;
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return event;
    if (check.contains(event.object)) return event;
    filtered.inc();
    if (check.byOwner) {
      if (type === 'MODIFIED') return { type: 'DELETED', object: event.object };
      if (type === 'DELETED') return event;
    }
    return undefined;
  };
  const watchOptions = (watch: WatchOptions, check: ShardCheck): WatchOptions =>
    check.selector === undefined ? watch : { ...watch, shardSelector: check.selector };
  const wrapped: ListerWatcher<T> & { [marker]: ShardFilterSource } = {
    [marker]: source,
    async list(listOptions: ListOptions): Promise<ObjectList<T>> {
      let check: ShardCheck;
      if (listOptions.continue === undefined || listCheck === undefined) {
        check = view.get();
        listCheck = check;
      } else {
        check = listCheck;
      }
      if (check.tooLong === true && !toldTooLong) {
        toldTooLong = true;
        logger.warn(
          'the shard selector is longer than a kube-apiserver accepts (100,000 characters): filtering client-side, every list carries all objects',
          { ranges: check.merged.length },
        );
      }
      const sent =
        check.selector === undefined
          ? listOptions
          : { ...listOptions, shardSelector: check.selector };
      const page = await inner.list(sent);
      if (typeof page !== 'object' || page === null || !Array.isArray(page.items)) return page;
      const echoed = (page.metadata as { shardInfo?: { selector?: unknown } } | undefined)
        ?.shardInfo?.selector;
      if (check.selector !== undefined) {
        if (echoes(echoed, check.selector)) return page;
        if (echoed !== undefined && !toldMismatch) {
          toldMismatch = true;
          logger.warn(
            'the server applied another shard selector than the one sent: filtering client-side',
            {
              sent: check.selector,
              applied: typeof echoed === 'string' ? echoed : errorMessage(echoed),
            },
          );
        } else if (!toldClientSide) {
          toldClientSide = true;
          logger.info(
            'the server ignored shardSelector (no metadata.shardInfo; KEP-5866 needs kube-apiserver >= 1.36 with ShardedListAndWatch): filtering client-side',
            { selector: check.selector },
          );
        }
      }
      const items: T[] = [];
      for (const item of page.items) {
        if (check.contains(item)) items.push(item);
        else filtered.inc();
      }
      // The page's metadata is kept whole: its continue token and remainingItemCount go on as the server sent them.
      return { ...page, items };
    },
    // The selector sent is the filter's when the watch opens; each event is checked against the filter in force
    // when it arrives, so ranges given up take effect at once on an open watch (the reflector keeps it open then).
    watch(watch: WatchOptions): AsyncIterable<WatchEvent<T>> {
      return filterSteps(inner.watch(watchOptions(watch, view.get())), (event) =>
        filterEvent(event, view.get()),
      );
    },
    ...(inner.listProgressDeadline === undefined
      ? {}
      : { listProgressDeadline: inner.listProgressDeadline }),
  };
  const batches = inner.watchBatches?.bind(inner);
  if (batches !== undefined) {
    wrapped.watchBatches = (watch: WatchOptions): AsyncIterable<WatchEvent<T>[]> => {
      return filterSteps(batches(watchOptions(watch, view.get())), (batch) => {
        const check = view.get();
        let kept: WatchEvent<T>[] | undefined;
        for (let index = 0; index < batch.length; index++) {
          const event = batch[index] as WatchEvent<T>;
          const result = filterEvent(event, check);
          if (result === event && kept === undefined) continue;
          // First change in this batch: copy what passed before it.
          kept ??= batch.slice(0, index);
          if (result !== undefined) kept.push(result);
        }
        const out = kept ?? batch;
        // A batch is never empty (ListerWatcher.watchBatches): a wholly filtered chunk is skipped.
        return out.length === 0 ? undefined : out;
      });
    };
  }
  return wrapped;
}

/** `source` with each value mapped by `keep`; `undefined` skips it. */
function filterSteps<V>(
  source: AsyncIterable<V>,
  keep: (value: V) => V | undefined,
): AsyncIterable<V> {
  return {
    [Symbol.asyncIterator]() {
      const inner = source[Symbol.asyncIterator]();
      return {
        async next(): Promise<IteratorResult<V>> {
          for (;;) {
            const step = await inner.next();
            if (step.done === true) return step;
            const value = keep(step.value);
            if (value !== undefined) return { done: false, value };
          }
        },
        return: (value?: unknown) =>
          inner.return !== undefined
            ? inner.return(value as V)
            : Promise.resolve({ done: true as const, value: value as V }),
      };
    },
  };
}
