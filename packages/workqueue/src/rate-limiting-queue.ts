// RateLimitingQueue: a delaying queue that asks a rate limiter how long to wait; ports client-go
// util/workqueue/rate_limiting_queue.go.
import { type DelayingQueue, DelayingQueueImpl } from './delaying-queue.ts';
import type { RateLimiter } from './rate-limiters.ts';
import type { QueueOptions } from './work-queue.ts';

/** A {@link DelayingQueue} with per-item retry backoff (client-go `TypedRateLimitingInterface`). */
export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  /** Add `item` once the rate limiter says it may be retried; counts one more failure for it. */
  addRateLimited(item: T): void;
  /** Reset `item`'s backoff; call it when the item succeeded ("remember to call forget!"). */
  forget(item: T): void;
  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number;
}

class RateLimitingQueueImpl<T> extends DelayingQueueImpl<T> implements RateLimitingQueue<T> {
  readonly #rateLimiter: RateLimiter<T>;

  constructor(rateLimiter: RateLimiter<T>, options?: QueueOptions) {
    if (typeof rateLimiter?.when !== 'function') {
      throw new TypeError(
        'createRateLimitingQueue: rateLimiter must implement when/forget/numRequeues',
      );
    }
    super(options);
    this.#rateLimiter = rateLimiter;
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.#rateLimiter.when(item));
  }

  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }
}

/**
 * Create a rate-limiting queue: client-go's `workqueue.NewTypedRateLimitingQueueWithConfig`.
 *
 * @example
 * ```ts
 * const reconcile = async (key: string): Promise<void> => console.log('reconciling', key);
 * const queue = createRateLimitingQueue<string>(defaultLassoRateLimiter(), { name: 'pods' });
 * const next = await queue.get();
 * if (!next.shutdown) {
 *   try {
 *     await reconcile(next.item);
 *     queue.forget(next.item);
 *   } catch {
 *     queue.addRateLimited(next.item);
 *   } finally {
 *     queue.done(next.item);
 *   }
 * }
 * ```
 *
 * **Gotchas**: `addRateLimited` asks the limiter even after shutdown (the item is then dropped), as
 * client-go does; a limiter returning a delay <= 0 adds the item at once, and one returning NaN
 * or `Infinity` makes it throw a RangeError.
 */
export function createRateLimitingQueue<T>(
  rateLimiter: RateLimiter<T>,
  options?: QueueOptions,
): RateLimitingQueue<T> {
  return new RateLimitingQueueImpl<T>(rateLimiter, options);
}
