// WorkQueue: a fair, deduplicating work queue; ports client-go util/workqueue/queue.go (the queue
// slice plus the dirty and processing sets) to a single-threaded, promise-based form.
import {
  abortReason,
  type Clock,
  defaultLogger,
  guardLogger,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  systemClock,
} from '@lasso/core';
import { QueueMetrics } from './metrics.ts';

/** What {@link WorkQueue.get} resolves to: the next item, or `shutdown: true` once nothing is left. */
export type GetResult<T> = { item: T; shutdown: false } | { shutdown: true };

/** Options shared by every queue constructor (client-go's `TypedQueueConfig`). */
export interface QueueOptions {
  /**
   * Queue name, used as the `name` label of the `workqueue_*` metrics. Metrics are recorded only
   * when both `name` and `metrics` are given (client-go records nothing for an unnamed queue).
   */
  name?: string | undefined;
  /** Time source for delays, rate limits and metrics (default `systemClock`). */
  clock?: Clock | undefined;
  /** Provider of the seven `workqueue_*` metrics (default: record nothing). */
  metrics?: MetricsProvider | undefined;
  /** Logger for queue lifecycle events (default: `defaultLogger`, warnings and errors to stderr). */
  logger?: Logger | undefined;
}

/** Options of {@link WorkQueue.shutDownWithDrain}. */
export interface DrainOptions {
  /** Stops waiting: the promise rejects with `signal.reason`; the queue stays shut down. */
  signal?: AbortSignal | undefined;
}

/**
 * A work queue (client-go `TypedInterface`).
 *
 * - Fair: items are handed out in the order they were added.
 * - Stingy: an item added many times before it is handed out is handed out once.
 * - An item is never handed to two workers at once: an item added while it is being processed is
 *   handed out again only after {@link WorkQueue.done}.
 * - Shut down: `add` becomes a no-op; `get` still hands out the items already queued, then resolves
 *   `{ shutdown: true }`, and every worker waiting in `get` wakes up.
 */
export interface WorkQueue<T> {
  /** Mark `item` as needing processing. A no-op while it is already queued, or after shutdown. */
  add(item: T): void;
  /**
   * Wait for the next item and mark it as being processed; call {@link WorkQueue.done} when
   * finished with it. Resolves `{ shutdown: true }` once the queue is shut down and empty.
   */
  get(): Promise<GetResult<T>>;
  /** Mark `item` as processed; if it was added meanwhile, queue it again. A no-op for an item not being processed. */
  done(item: T): void;
  /** Number of items waiting to be handed out (not counting those being processed). */
  len(): number;
  /** Stop accepting items and wake every waiting worker; does not wait for items being processed. */
  shutDown(): void;
  /**
   * Shut down like {@link WorkQueue.shutDown}, then resolve once every handed-out item is `done`.
   * Workers must keep calling `done`, or this never resolves: bound it with `signal`. A later
   * `shutDown()` stops the wait (resolving it), as in client-go.
   */
  shutDownWithDrain(options?: DrainOptions): Promise<void>;
  /** True once `shutDown` or `shutDownWithDrain` was called. */
  shuttingDown(): boolean;
}

// Per-item state bits: one Map lookup per operation instead of client-go's two sets.
const DIRTY = 1;
const PROCESSING = 2;

const shutdownResult: GetResult<never> = Object.freeze({ shutdown: true });

type Waiter<T> = (result: GetResult<T>) => void;

/** The plain queue; the delaying and rate-limiting queues extend it. */
export class WorkQueueImpl<T> implements WorkQueue<T> {
  protected readonly clock: Clock;
  protected readonly logger: Logger;
  /** Present only for a named queue with a metrics provider. */
  protected readonly metrics: QueueMetrics<T> | undefined;

  // Items waiting to be handed out: always DIRTY and never PROCESSING. `#head` makes pops O(1).
  #items: Array<T | undefined> = [];
  #head = 0;
  // DIRTY: needs processing; PROCESSING: handed out and not yet done. No entry = neither.
  readonly #state = new Map<T, number>();
  #processingCount = 0;
  // Workers blocked in get(); non-empty only while #items is empty.
  #waiters: Array<Waiter<T>> = [];
  #shuttingDown = false;
  #drainWaiters: Array<() => void> = [];

  constructor(options: QueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.logger = guardLogger(options.logger ?? defaultLogger);
    const { name, metrics } = options;
    if (metrics !== undefined && metrics !== noopMetricsProvider) {
      if (name !== undefined && name !== '') {
        this.metrics = new QueueMetrics<T>(metrics, name, this.clock);
      } else {
        this.logger.warn('workqueue metrics disabled: the queue has no name');
      }
    }
  }

  add(item: T): void {
    if (this.#shuttingDown) return;
    const state = this.#state.get(item);
    if (state === undefined) {
      this.#state.set(item, DIRTY);
      this.metrics?.add(item);
      this.#enqueue(item);
      return;
    }
    if ((state & DIRTY) !== 0) return;
    // Being processed: remember it is dirty; done() queues it again.
    this.#state.set(item, state | DIRTY);
    this.metrics?.add(item);
  }

  get(): Promise<GetResult<T>> {
    // Fast path: no executor, no waiter bookkeeping when an item is ready now.
    if (this.#head < this.#items.length) return Promise.resolve(this.#handOut(this.#pop()));
    if (this.#shuttingDown) return Promise.resolve(shutdownResult);
    return new Promise<GetResult<T>>((resolve) => {
      this.#waiters.push(resolve);
    });
  }

  done(item: T): void {
    const state = this.#state.get(item);
    if (state === undefined || (state & PROCESSING) === 0) return;
    this.metrics?.done(item);
    this.#processingCount--;
    if ((state & DIRTY) !== 0) {
      this.#state.set(item, DIRTY);
      this.#enqueue(item);
    } else {
      this.#state.delete(item);
    }
    if (this.#processingCount === 0 && this.#drainWaiters.length > 0) this.#releaseDrainWaiters();
  }

  len(): number {
    return this.#items.length - this.#head;
  }

  shutDown(): void {
    this.#beginShutdown();
    // client-go: ShutDown sets drain=false, which ends a ShutDownWithDrain wait.
    this.#releaseDrainWaiters();
  }

  shutDownWithDrain(options: DrainOptions = {}): Promise<void> {
    this.#beginShutdown();
    if (this.#processingCount === 0) return Promise.resolve();
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#drainWaiters = this.#drainWaiters.filter((waiter) => waiter !== release);
        reject(abortReason(signal as AbortSignal));
      };
      const release = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#drainWaiters.push(release);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Called once, on the first shutDown/shutDownWithDrain; subclasses release their timers here. */
  protected onShutDown(): void {
    this.metrics?.stop();
  }

  #beginShutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.logger.debug('workqueue shutting down', {
      queued: this.len(),
      processing: this.#processingCount,
    });
    this.onShutDown();
    // Waiters exist only while nothing is queued, so every one of them gets `shutdown`.
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter(shutdownResult);
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const release of waiters) release();
  }

  /** Queue a DIRTY, not-processing item, or hand it straight to a waiting worker. */
  #enqueue(item: T): void {
    if (this.#waiters.length > 0) {
      const waiter = this.#waiters.shift() as Waiter<T>;
      waiter(this.#handOut(item));
      return;
    }
    this.#items.push(item);
  }

  #pop(): T {
    const items = this.#items;
    const item = items[this.#head] as T;
    items[this.#head] = undefined;
    this.#head++;
    if (this.#head === items.length) {
      items.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= items.length) {
      this.#items = items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  #handOut(item: T): GetResult<T> {
    this.#state.set(item, PROCESSING);
    this.#processingCount++;
    this.metrics?.get(item);
    return { item, shutdown: false };
  }
}

/**
 * Create a work queue: client-go's `workqueue.NewTypedWithConfig`.
 *
 * @example
 * ```ts
 * const queue = createQueue<string>({ name: 'pods' });
 * queue.add('default/web');
 * for (;;) {
 *   const next = await queue.get();
 *   if (next.shutdown) break;
 *   try {
 *     await reconcile(next.item);
 *   } finally {
 *     queue.done(next.item);
 *   }
 * }
 * ```
 *
 * **Gotchas**: items are compared with `Map` key equality (SameValueZero), so use strings or other
 * primitives as keys, not freshly built objects. `get()` after shutdown still hands out the items
 * already queued (client-go does the same), so workers drain the backlog before they see `shutdown`.
 */
export function createQueue<T>(options?: QueueOptions): WorkQueue<T> {
  return new WorkQueueImpl<T>(options);
}
