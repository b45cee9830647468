// DelayingQueue: a work queue that can add an item after a delay; ports client-go
// util/workqueue/delaying_queue.go (a min-heap of deadlines, earliest deadline wins for a repeated item).
import type { TimerHandle } from '@lasso/core';
import { DeadlineHeap, type HeapEntry } from './internal/heap.ts';
import { type QueueOptions, type WorkQueue, WorkQueueImpl } from './work-queue.ts';

/** A {@link WorkQueue} that can also add an item once a delay has passed (client-go `TypedDelayingInterface`). */
export interface DelayingQueue<T> extends WorkQueue<T> {
  /**
   * Add `item` after `delayMs` of the queue's clock; a delay <= 0 adds it now, as client-go's
   * `AddAfter` does (so `deadline - now` works once a deadline has passed). If the item is already
   * waiting, the earlier of the two deadlines wins. A no-op after shutdown; waiting items are
   * dropped by shutdown. Counts one `workqueue_retries_total`. While an item waits, the queue's
   * timer keeps the process alive (shut the queue down to let it exit).
   *
   * @throws RangeError when `delayMs` is not a finite number (NaN, `Infinity`, a string, ...).
   */
  addAfter(item: T, delayMs: number): void;
}

// setTimeout fires at once for delays above 2^31-1 ms, so long waits are re-armed in steps.
const maxTimerDelayMs = 2 ** 31 - 1;

/** The delaying queue; the rate-limiting queue extends it. */
export class DelayingQueueImpl<T> extends WorkQueueImpl<T> implements DelayingQueue<T> {
  readonly #heap = new DeadlineHeap<T>();
  // The waiting entry of each item, so a repeated addAfter moves the deadline instead of adding.
  readonly #waiting = new Map<T, HeapEntry<T>>();
  #seq = 0;
  // One timer, armed for the nearest deadline (client-go: one for the heap head, not one per item).
  #timer: TimerHandle | undefined;
  #timerAt = 0;

  addAfter(item: T, delayMs: number): void {
    if (!Number.isFinite(delayMs)) {
      throw new RangeError(`addAfter: delayMs must be a finite number, got ${String(delayMs)}`);
    }
    if (this.shuttingDown()) return;
    this.metrics?.retry();
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.monotonic() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing !== undefined) {
      if (readyAt >= existing.readyAt) return;
      existing.readyAt = readyAt;
      this.#heap.update(existing);
    } else {
      const entry: HeapEntry<T> = { item, readyAt, seq: this.#seq++, index: -1 };
      this.#waiting.set(item, entry);
      this.#heap.push(entry);
    }
    this.#arm();
  }

  override drop(predicate: (item: T) => boolean): number {
    // The waiting items first: a predicate that throws there leaves both parts as they were.
    const before = this.#heap.size;
    this.#heap.removeWhere((entry) => predicate(entry.item));
    const waited = before - this.#heap.size;
    if (waited > 0) {
      for (const [item, entry] of [...this.#waiting]) {
        if (entry.index < 0) this.#waiting.delete(item);
      }
      this.#arm();
    }
    return waited + super.drop(predicate);
  }

  protected override onShutDown(): void {
    super.onShutDown();
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#heap.clear();
    this.#waiting.clear();
  }

  /** Make sure the one timer is due at the heap head's deadline. */
  #arm(): void {
    const head = this.#heap.peek();
    if (head === undefined) {
      this.#timer?.cancel();
      this.#timer = undefined;
      return;
    }
    if (this.#timer !== undefined && this.#timerAt <= head.readyAt) return;
    this.#timer?.cancel();
    const delayMs = Math.min(Math.max(0, head.readyAt - this.clock.monotonic()), maxTimerDelayMs);
    this.#timerAt = this.clock.monotonic() + delayMs;
    // keepAlive: like a goroutine in client-go, a pending delayed item keeps the program running, so a
    // worker awaiting get() in a plain script is not cut off by Node exiting with only promises left.
    this.#timer = this.clock.schedule(delayMs, () => this.#fire(), { keepAlive: true });
  }

  #fire(): void {
    this.#timer = undefined;
    const now = this.clock.monotonic();
    for (;;) {
      const head = this.#heap.peek();
      if (head === undefined || head.readyAt > now) break;
      this.#heap.pop();
      this.#waiting.delete(head.item);
      this.add(head.item);
    }
    this.#arm();
  }
}

/**
 * Create a delaying queue: client-go's `workqueue.NewTypedDelayingQueueWithConfig`.
 *
 * @example
 * ```ts
 * const queue = createDelayingQueue<string>({ clock });
 * queue.addAfter('default/web', 5_000); // handed out by get() in 5 s
 * queue.addAfter('default/web', 1_000); // ... no: in 1 s, the earlier deadline wins
 * ```
 */
export function createDelayingQueue<T>(options?: QueueOptions): DelayingQueue<T> {
  return new DelayingQueueImpl<T>(options);
}
