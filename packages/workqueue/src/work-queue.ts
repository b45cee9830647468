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
  /**
   * Remove every waiting item `predicate` accepts (client-go has no such call): queued items leave the queue,
   * an item being processed loses a pending re-add (its `done` does not queue it again), and a delaying queue's
   * waiting items are dropped with their deadline. Items being processed stay handed out. Returns how many
   * items left the queue or lost a re-add. `predicate` must not call back into the queue.
   *
   * @example
   * ```ts
   * const queue = createQueue<string>();
   * queue.add('team-a/web');
   * queue.add('team-b/web');
   * queue.drop((key) => key.startsWith('team-a/')); // 1; only team-b/web is handed out
   * ```
   */
  drop(predicate: (item: T) => boolean): number;
}

// Per-item state bits (client-go's dirty and processing sets, in one number per item).
const DIRTY = 1;
const PROCESSING = 2;

const shutdownResult: GetResult<never> = Object.freeze({ shutdown: true });

type Waiter<T> = (result: GetResult<T>) => void;

/**
 * The plain queue; the delaying and rate-limiting queues extend it.
 *
 * Each item known to the queue (dirty, processing or both) holds a slot: a small integer the queue
 * recycles, indexing the state bits here and the timestamps of {@link QueueMetrics}. The one `Map`
 * (item -> slot) is written when an item arrives and when it leaves; a hand-out touches arrays only.
 */
export class WorkQueueImpl<T> implements WorkQueue<T> {
  protected readonly clock: Clock;
  protected readonly logger: Logger;
  /** Present only for a named queue with a metrics provider. */
  protected readonly metrics: QueueMetrics | undefined;

  // Slots of the items waiting to be handed out: always DIRTY and never PROCESSING. `#head` makes pops O(1).
  #queue: number[] = [];
  #head = 0;
  // Item -> slot, for every item that is DIRTY, PROCESSING or both. No entry = neither.
  readonly #slots = new Map<T, number>();
  // By slot: the item and its state bits; a free slot holds `undefined` and 0.
  readonly #slotItems: Array<T | undefined> = [];
  readonly #slotStates: number[] = [];
  // Free slots, reused last-freed first so the arrays stay as small as the most items ever held at once.
  readonly #freeSlots: number[] = [];
  #processingCount = 0;
  // Workers blocked in get(); non-empty only while #queue is empty.
  #waiters: Array<Waiter<T>> = [];
  #shuttingDown = false;
  #drainWaiters: Array<() => void> = [];

  constructor(options: QueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.logger = guardLogger(options.logger ?? defaultLogger);
    const { name, metrics } = options;
    if (metrics !== undefined && metrics !== noopMetricsProvider) {
      if (name !== undefined && name !== '') {
        this.metrics = new QueueMetrics(metrics, name, this.clock);
      } else {
        this.logger.warn('workqueue metrics disabled: the queue has no name');
      }
    }
  }

  add(item: T): void {
    if (this.#shuttingDown) return;
    const slot = this.#slots.get(item);
    if (slot === undefined) {
      const fresh = this.#allocate(item);
      this.metrics?.added(fresh);
      this.#enqueue(fresh);
      return;
    }
    const state = this.#slotStates[slot] as number;
    if ((state & DIRTY) !== 0) return;
    // Being processed: remember it is dirty; done() queues it again.
    this.#slotStates[slot] = state | DIRTY;
    this.metrics?.added(slot);
  }

  get(): Promise<GetResult<T>> {
    // Fast path: no executor, no waiter bookkeeping when an item is ready now.
    if (this.#head < this.#queue.length) return Promise.resolve(this.#handOut(this.#pop(), false));
    if (this.#shuttingDown) return Promise.resolve(shutdownResult);
    return new Promise<GetResult<T>>((resolve) => {
      this.#waiters.push(resolve);
    });
  }

  done(item: T): void {
    const slot = this.#slots.get(item);
    if (slot === undefined) return;
    const state = this.#slotStates[slot] as number;
    if ((state & PROCESSING) === 0) return;
    this.metrics?.done(slot);
    this.#processingCount--;
    if ((state & DIRTY) !== 0) {
      this.#slotStates[slot] = DIRTY;
      this.#enqueue(slot);
    } else {
      this.#release(item, slot);
    }
    if (this.#processingCount === 0 && this.#drainWaiters.length > 0) this.#releaseDrainWaiters();
  }

  len(): number {
    return this.#queue.length - this.#head;
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

  drop(predicate: (item: T) => boolean): number {
    // Every item is judged before anything changes: a predicate that throws leaves the queue as it was.
    const queued = this.#queue.slice(this.#head);
    const dropQueued = queued.map((slot) => predicate(this.#slotItems[slot] as T));
    const reAdds: number[] = [];
    for (const slot of this.#slots.values()) {
      if (
        this.#slotStates[slot] === (DIRTY | PROCESSING) &&
        predicate(this.#slotItems[slot] as T)
      ) {
        reAdds.push(slot);
      }
    }
    const kept: number[] = [];
    queued.forEach((slot, index) => {
      if (dropQueued[index] !== true) {
        kept.push(slot);
        return;
      }
      this.metrics?.dropped();
      this.#release(this.#slotItems[slot] as T, slot);
    });
    this.#queue = kept;
    this.#head = 0;
    // Being processed with a pending re-add: done() would queue them again.
    for (const slot of reAdds) {
      this.#slotStates[slot] = PROCESSING;
      this.metrics?.dropped();
    }
    return queued.length - kept.length + reAdds.length;
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

  /** Give `item` a slot, marked DIRTY. */
  #allocate(item: T): number {
    const slot =
      this.#freeSlots.length > 0 ? (this.#freeSlots.pop() as number) : this.#slotItems.length;
    this.#slotItems[slot] = item;
    this.#slotStates[slot] = DIRTY;
    this.#slots.set(item, slot);
    return slot;
  }

  /** Forget `item`: it is neither dirty nor processing any more. */
  #release(item: T, slot: number): void {
    this.#slots.delete(item);
    this.#slotItems[slot] = undefined;
    this.#slotStates[slot] = 0;
    this.#freeSlots.push(slot);
  }

  /**
   * Queue a DIRTY, not-processing slot, or hand its item straight to a waiting worker. Called only right after
   * the transition that made it DIRTY and not processing (an add, a done), whose clock reading the metrics reuse
   * for a direct hand-off: no code runs in between.
   */
  #enqueue(slot: number): void {
    if (this.#waiters.length > 0) {
      const waiter = this.#waiters.shift() as Waiter<T>;
      waiter(this.#handOut(slot, true));
      return;
    }
    this.#queue.push(slot);
  }

  #pop(): number {
    const queue = this.#queue;
    const slot = queue[this.#head] as number;
    this.#head++;
    if (this.#head === queue.length) {
      queue.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
    return slot;
  }

  /** `sameInstant`: handed off within the add or done that queued it (see `#enqueue`). */
  #handOut(slot: number, sameInstant: boolean): GetResult<T> {
    this.#slotStates[slot] = PROCESSING;
    this.#processingCount++;
    this.metrics?.handedOut(slot, sameInstant);
    return { item: this.#slotItems[slot] as T, shutdown: false };
  }
}

/**
 * Create a work queue: client-go's `workqueue.NewTypedWithConfig`.
 *
 * @example
 * ```ts
 * const reconcile = async (key: string): Promise<void> => console.log('reconciling', key);
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
