// The event history of one kind and the watches reading it (steve's ListOptionIndexer event log and Watch): the
// committed writes of the store, newest last, bounded by count and optionally by age; a watch from a
// resourceVersion replays what followed it, then follows new events, and ends on its AbortSignal.
import type { Clock, Counter, Gauge } from '@lasso/core';
import { InvalidQueryError, ResourceVersionTooOldError } from './errors.ts';

/** Events kept per kind unless `maxEvents` says otherwise: steve's `GCKeepCount` default. */
export const defaultWatchHistoryEvents = 1_000;

/**
 * The type of a watch event of the SQL cache: the store's writes (`add`, `update`, `delete`) as committed.
 *
 * @example
 * ```ts
 * const type: SqlWatchEventType = 'MODIFIED';
 * ```
 */
export type SqlWatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * One event of a watch of the SQL cache; `object` is a fresh copy (the deleted object for `DELETED`). Shaped as
 * `@lasso/client`'s `WatchEvent`.
 *
 * @example
 * ```ts
 * const event: SqlWatchEvent<KubeObject> = { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '7' } } };
 * ```
 */
export interface SqlWatchEvent<T> {
  readonly type: SqlWatchEventType;
  readonly object: T;
}

/**
 * Options of a watch of the SQL cache (`SqlStore.watch`, `SqlCache.watch`).
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * const page = store.listByOptions({ partitions: [{ passthrough: true }] });
 * const options: SqlWatchOptions = { resourceVersion: page.resourceVersion, signal: AbortSignal.timeout(60_000) };
 * for await (const event of store.watch(options)) console.log(event.type, event.object.metadata?.name);
 * ```
 */
export interface SqlWatchOptions {
  /**
   * Send the events after this resourceVersion (a list's, or the last event's seen), then new ones. Omitted, `''`
   * or `'0'`: only events committed after the call (steve). Older than the history keeps: the call throws
   * `ResourceVersionTooOldError`.
   */
  readonly resourceVersion?: string | undefined;
  /** Ends the watch: the iteration completes (no error) once it aborts. */
  readonly signal?: AbortSignal | undefined;
  /** Only objects of this namespace (`''`/`'*'`/omitted: every namespace). */
  readonly namespace?: string | undefined;
}

/**
 * How long a kind's event history is (steve's garbage collection of its event log).
 *
 * @example
 * ```ts
 * const history: WatchHistoryOptions = { maxEvents: 5_000, maxAgeMs: 15 * 60_000 };
 * ```
 */
export interface WatchHistoryOptions {
  /** Events kept per kind; the oldest is forgotten when one more arrives. Default 1,000 (steve's); at least 1. */
  readonly maxEvents?: number | undefined;
  /**
   * Events older than this are forgotten, at the next write or watch of the kind. Default: none (count only).
   */
  readonly maxAgeMs?: number | undefined;
}

interface Entry {
  readonly type: SqlWatchEventType;
  readonly resourceVersion: string;
  readonly namespace: string;
  /** The object as JSON: each watcher parses its own copy. */
  readonly json: string;
  /** clock.now() when committed, for the age bound. */
  readonly at: number;
}

/** @internal A write to record: its type, object and the object's JSON (reused from the row when the row is plain). */
export interface HistoryWrite {
  readonly type: SqlWatchEventType;
  readonly object: unknown;
  readonly json: string;
}

/** @internal Throws a RangeError naming the option unless `options` are valid; returns them with defaults. */
export function checkWatchHistoryOptions(
  options: WatchHistoryOptions | undefined,
  owner: string,
): { maxEvents: number; maxAgeMs: number } {
  const maxEvents = options?.maxEvents ?? defaultWatchHistoryEvents;
  // At least one: a watcher reads each event from the history, live ones too.
  if (!Number.isSafeInteger(maxEvents) || maxEvents < 1) {
    throw new RangeError(
      `${owner}: watchHistory.maxEvents must be an integer >= 1, got ${String(maxEvents)}`,
    );
  }
  const maxAgeMs = options?.maxAgeMs ?? Number.POSITIVE_INFINITY;
  if (typeof maxAgeMs !== 'number' || !(maxAgeMs > 0)) {
    throw new RangeError(`${owner}: watchHistory.maxAgeMs must be > 0, got ${String(maxAgeMs)}`);
  }
  return { maxEvents, maxAgeMs };
}

/** @internal The event history of one kind. */
export class WatchHistory<T> {
  readonly #maxEvents: number;
  readonly #maxAgeMs: number;
  readonly #clock: Clock;
  /** A ring of `#maxEvents` slots; the entry of sequence number `s` is at `s % #maxEvents`. */
  readonly #ring: (Entry | undefined)[];
  /** Sequence number of the oldest entry kept; `#end` is the next one's. */
  #start = 0;
  #end = 0;
  /** Bumped by `reset`: a watch of an older epoch has missed the relist and ends with TooOld. */
  #epoch = 0;
  /**
   * The newest resourceVersion forgotten: a watch from an older one cannot be served. `''` while nothing was
   * (the history then holds every event since the store was created).
   */
  #floor = '';
  #closed = false;
  #closeReason: Error | undefined;
  #wake: (() => void)[] = [];
  readonly #tooOld: Counter | undefined;
  readonly #size: Gauge | undefined;

  constructor(options: {
    maxEvents: number;
    maxAgeMs: number;
    clock: Clock;
    /** Counts the watches answered or ended with TooOld. */
    tooOld?: Counter;
    /** Holds the number of events kept. */
    size?: Gauge;
  }) {
    this.#maxEvents = options.maxEvents;
    this.#maxAgeMs = options.maxAgeMs;
    this.#clock = options.clock;
    this.#ring = new Array(options.maxEvents);
    this.#tooOld = options.tooOld;
    this.#size = options.size;
  }

  /** Events kept now. */
  size(): number {
    return this.#end - this.#start;
  }

  /** Record committed writes, in commit order, and wake the watchers. */
  append(writes: readonly HistoryWrite[]): void {
    if (this.#closed || writes.length === 0) return;
    const at = this.#clock.now();
    for (const write of writes) {
      const metadata = (
        write.object as { metadata?: { resourceVersion?: unknown; namespace?: unknown } }
      )?.metadata;
      const resourceVersion =
        typeof metadata?.resourceVersion === 'string' ? metadata.resourceVersion : '';
      if (this.#end - this.#start === this.#maxEvents) this.#forgetOldest();
      this.#ring[this.#end % this.#maxEvents] = {
        type: write.type,
        resourceVersion,
        namespace: typeof metadata?.namespace === 'string' ? metadata.namespace : '',
        json: write.json,
        at,
      };
      this.#end++;
    }
    this.#collect();
    this.#size?.set(this.size());
    this.#notify();
  }

  /** A relist replaced every object: the history starts over at `resourceVersion`; open watches end with TooOld. */
  reset(resourceVersion: string): void {
    this.#ring.fill(undefined);
    this.#start = this.#end;
    this.#epoch++;
    this.#floor = resourceVersion === '' ? this.#floor : newest(this.#floor, resourceVersion);
    this.#size?.set(0);
    this.#notify();
  }

  /** The store was dropped: open watches complete, or throw `reason` when given. */
  close(reason?: Error): void {
    this.#closed = true;
    this.#closeReason = reason;
    this.#ring.fill(undefined);
    this.#start = this.#end;
    this.#size?.set(0);
    this.#notify();
  }

  /**
   * A watch (see {@link SqlWatchOptions}). Throws `ResourceVersionTooOldError` at once when `resourceVersion` is
   * older than the history, `InvalidQueryError` when it is not a decimal resourceVersion.
   */
  watch(options: SqlWatchOptions = {}): AsyncIterable<SqlWatchEvent<T>> {
    const from = options.resourceVersion ?? '';
    if (typeof from !== 'string' || (from !== '' && !/^\d+$/.test(from))) {
      throw new InvalidQueryError(
        `watch: resourceVersion ${JSON.stringify(from)} is not a decimal resourceVersion`,
      );
    }
    const namespace = options.namespace ?? '';
    if (typeof namespace !== 'string')
      throw new InvalidQueryError('watch: namespace must be a string');
    this.#collect();
    let next = this.#end;
    if (from !== '' && from !== '0') {
      if (this.#floor !== '' && isOlder(from, this.#floor)) {
        this.#tooOld?.inc();
        throw new ResourceVersionTooOldError(
          from,
          this.#floor,
          `the event history starts after ${this.#floor}`,
        );
      }
      // Events are in commit order, which is resourceVersion order within one watch of the server.
      while (next > this.#start && isOlder(from, this.#entry(next - 1).resourceVersion)) next--;
    }
    const epoch = this.#epoch;
    const signal = options.signal;
    let reached = from;
    let finished = false;
    const history = this;
    return {
      [Symbol.asyncIterator]: (): AsyncIterator<SqlWatchEvent<T>> => ({
        async next(): Promise<IteratorResult<SqlWatchEvent<T>>> {
          for (;;) {
            if (finished || signal?.aborted) return { done: true, value: undefined };
            if (history.#closed) {
              finished = true;
              if (history.#closeReason !== undefined) throw history.#closeReason;
              return { done: true, value: undefined };
            }
            if (history.#epoch !== epoch) {
              history.#tooOld?.inc();
              throw new ResourceVersionTooOldError(
                reached,
                history.#floor,
                'the kind was relisted',
              );
            }
            if (next < history.#start) {
              history.#tooOld?.inc();
              throw new ResourceVersionTooOldError(
                reached,
                history.#floor,
                `the watcher fell more than ${history.#maxEvents} events behind`,
              );
            }
            if (next < history.#end) {
              const entry = history.#entry(next++);
              if (entry.resourceVersion !== '') reached = entry.resourceVersion;
              if (namespace !== '' && namespace !== '*' && entry.namespace !== namespace) continue;
              return {
                done: false,
                value: { type: entry.type, object: JSON.parse(entry.json) as T },
              };
            }
            await history.#changed(signal);
          }
        },
        async return(): Promise<IteratorResult<SqlWatchEvent<T>>> {
          finished = true;
          return { done: true, value: undefined };
        },
      }),
    };
  }

  #entry(sequence: number): Entry {
    return this.#ring[sequence % this.#maxEvents] as Entry;
  }

  #forgetOldest(): void {
    const entry = this.#entry(this.#start);
    if (entry.resourceVersion !== '') this.#floor = newest(this.#floor, entry.resourceVersion);
    this.#ring[this.#start % this.#maxEvents] = undefined;
    this.#start++;
  }

  /** The age bound: forget entries older than `maxAgeMs`. */
  #collect(): void {
    if (this.#maxAgeMs === Number.POSITIVE_INFINITY) return;
    const oldest = this.#clock.now() - this.#maxAgeMs;
    while (this.#start < this.#end && this.#entry(this.#start).at < oldest) this.#forgetOldest();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }

  /** Resolves at the next append, reset or close, or when `signal` aborts. */
  #changed(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const onAbort = (): void => {
        this.#wake = this.#wake.filter((wake) => wake !== done);
        resolve();
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#wake.push(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** True when decimal `a` is older than `b` (a non-decimal `b` is never newer). */
function isOlder(a: string, b: string): boolean {
  if (!/^\d+$/.test(b)) return false;
  return a.length !== b.length ? a.length < b.length : a < b;
}

function newest(a: string, b: string): string {
  if (a === '' || !/^\d+$/.test(a)) return b;
  if (!/^\d+$/.test(b)) return a;
  return isOlder(a, b) ? b : a;
}
