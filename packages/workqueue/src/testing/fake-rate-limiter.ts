// A RateLimiter for tests: a fixed delay, with every call recorded so tests can assert on retries.
import type { RateLimiter } from '../rate-limiters.ts';

/** A {@link RateLimiter} that records its calls; see {@link createFakeRateLimiter}. */
export interface FakeRateLimiter<T = unknown> extends RateLimiter<T> {
  /** Delay `when` returns; tests may change it at any time. */
  delayMs: number;
  /** Every item passed to `when`, oldest first. */
  readonly whenCalls: T[];
  /** Every item passed to `forget`, oldest first. */
  readonly forgetCalls: T[];
}

/**
 * Create a rate limiter that always waits `delayMs` (default 0) and records `when`/`forget` calls;
 * `numRequeues` counts `when` calls since the item was last forgotten.
 *
 * @example
 * ```ts
 * const limiter = createFakeRateLimiter<string>(100);
 * const queue = createRateLimitingQueue(limiter, { clock });
 * // ... run a failing handler ...
 * expect(limiter.whenCalls).toEqual(['default/web']);
 * ```
 */
export function createFakeRateLimiter<T = unknown>(delayMs = 0): FakeRateLimiter<T> {
  const counts = new Map<T, number>();
  const limiter: FakeRateLimiter<T> = {
    delayMs,
    whenCalls: [],
    forgetCalls: [],
    when(item) {
      limiter.whenCalls.push(item);
      counts.set(item, (counts.get(item) ?? 0) + 1);
      return limiter.delayMs;
    },
    forget(item) {
      limiter.forgetCalls.push(item);
      counts.delete(item);
    },
    numRequeues: (item) => counts.get(item) ?? 0,
  };
  return limiter;
}
