// Rate limiters for the rate-limiting queue; ports client-go util/workqueue/default_rate_limiters.go
// with its exact numbers, plus lasso's default (rancher/lasso pkg/controller/controller.go).
import type { Clock } from '@lasso/core';
import { createTokenBucket, type TokenBucket } from './token-bucket.ts';

/**
 * Decides how long an item waits before it is retried (client-go `TypedRateLimiter`).
 */
export interface RateLimiter<T = unknown> {
  /** Delay in ms before `item` should be processed again; records one more failure for it. */
  when(item: T): number;
  /** Stop tracking `item` (call it when the item succeeded): its backoff starts over. */
  forget(item: T): void;
  /** How many failures `item` has had since it was last forgotten. */
  numRequeues(item: T): number;
}

function requireDelay(option: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`${option} must be a finite number >= 0, got ${value}`);
  }
}

/** Options of {@link exponentialFailureRateLimiter}. */
export interface ExponentialFailureRateLimiterOptions {
  /** Delay after the first failure. */
  baseDelayMs: number;
  /** Cap on the delay. */
  maxDelayMs: number;
}

/**
 * Per-item exponential backoff: `baseDelayMs * 2^failures`, capped at `maxDelayMs`
 * (client-go `NewTypedItemExponentialFailureRateLimiter`). Never overflows: huge exponents give the cap.
 *
 * @throws RangeError when a delay is negative or not finite.
 */
export function exponentialFailureRateLimiter<T = unknown>(
  options: ExponentialFailureRateLimiterOptions,
): RateLimiter<T> {
  const { baseDelayMs, maxDelayMs } = options;
  requireDelay('baseDelayMs', baseDelayMs);
  requireDelay('maxDelayMs', maxDelayMs);
  const failures = new Map<T, number>();
  return {
    when(item) {
      const exponent = failures.get(item) ?? 0;
      failures.set(item, exponent + 1);
      if (baseDelayMs === 0) return 0;
      // 2 ** exponent reaches Infinity past 1023; the comparison then returns the cap.
      const backoff = baseDelayMs * 2 ** exponent;
      return Math.min(backoff, maxDelayMs);
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues(item) {
      return failures.get(item) ?? 0;
    },
  };
}

/** Options of {@link fastSlowRateLimiter}. */
export interface FastSlowRateLimiterOptions {
  /** Delay for the first `maxFastAttempts` failures. */
  fastDelayMs: number;
  /** Delay for every failure after those. */
  slowDelayMs: number;
  /** Number of failures that get `fastDelayMs`. */
  maxFastAttempts: number;
}

/**
 * Per-item two-speed limiter: `fastDelayMs` for the first `maxFastAttempts` failures, then
 * `slowDelayMs` (client-go `NewTypedItemFastSlowRateLimiter`).
 *
 * @throws RangeError when a delay is negative or not finite, or `maxFastAttempts` is not an integer >= 0.
 */
export function fastSlowRateLimiter<T = unknown>(
  options: FastSlowRateLimiterOptions,
): RateLimiter<T> {
  const { fastDelayMs, slowDelayMs, maxFastAttempts } = options;
  requireDelay('fastDelayMs', fastDelayMs);
  requireDelay('slowDelayMs', slowDelayMs);
  if (!Number.isInteger(maxFastAttempts) || maxFastAttempts < 0) {
    throw new RangeError(`maxFastAttempts must be an integer >= 0, got ${maxFastAttempts}`);
  }
  const failures = new Map<T, number>();
  return {
    when(item) {
      const attempts = (failures.get(item) ?? 0) + 1;
      failures.set(item, attempts);
      return attempts <= maxFastAttempts ? fastDelayMs : slowDelayMs;
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues(item) {
      return failures.get(item) ?? 0;
    },
  };
}

/** Options of {@link bucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Overall rate: tokens per second, a finite number > 0. */
  qps: number;
  /** Bucket size, an integer >= 1; the bucket starts full. */
  burst: number;
  /** Time source for refills (default `systemClock`). */
  clock?: Clock | undefined;
}

/**
 * Overall (not per-item) token bucket: `when` reserves a token and returns the ms until it is
 * available (client-go `TypedBucketRateLimiter` over golang.org/x/time/rate). `numRequeues` is
 * always 0 and `forget` does nothing.
 *
 * @throws RangeError when `qps` <= 0 or `burst` < 1.
 */
export function bucketRateLimiter<T = unknown>(options: BucketRateLimiterOptions): RateLimiter<T> {
  const bucket: TokenBucket = createTokenBucket(options);
  return {
    when: () => bucket.reserve(),
    forget: () => {},
    numRequeues: () => 0,
  };
}

/**
 * The largest delay of several limiters; `forget` forgets in all of them and `numRequeues` is the
 * largest count (client-go `NewTypedMaxOfRateLimiter`). Every limiter's `when` is called each time.
 */
export function maxOfRateLimiter<T = unknown>(...limiters: RateLimiter<T>[]): RateLimiter<T> {
  return {
    when(item) {
      let delayMs = 0;
      for (const limiter of limiters) delayMs = Math.max(delayMs, limiter.when(item));
      return delayMs;
    },
    forget(item) {
      for (const limiter of limiters) limiter.forget(item);
    },
    numRequeues(item) {
      let count = 0;
      for (const limiter of limiters) count = Math.max(count, limiter.numRequeues(item));
      return count;
    },
  };
}

/**
 * Caps the delay of `limiter` at `maxDelayMs` (client-go `NewTypedWithMaxWaitRateLimiter`).
 *
 * @throws RangeError when `maxDelayMs` is negative or not finite.
 */
export function withMaxWaitRateLimiter<T = unknown>(
  limiter: RateLimiter<T>,
  maxDelayMs: number,
): RateLimiter<T> {
  requireDelay('maxDelayMs', maxDelayMs);
  return {
    when: (item) => Math.min(limiter.when(item), maxDelayMs),
    forget: (item) => limiter.forget(item),
    numRequeues: (item) => limiter.numRequeues(item),
  };
}

/** Options of the default limiters. */
export interface DefaultRateLimiterOptions {
  /** Time source of the token bucket (default `systemClock`). */
  clock?: Clock | undefined;
}

/**
 * client-go's `DefaultTypedControllerRateLimiter`: the larger of per-item exponential backoff
 * 5 ms .. 1000 s and an overall bucket of 10 qps with burst 100.
 *
 * **Gotchas**: the bucket is shared by all items, so a burst of more than 100 failures delays
 * every later retry; this is what made lasso drop it (see {@link defaultLassoRateLimiter}).
 */
export function defaultControllerRateLimiter<T = unknown>(
  options: DefaultRateLimiterOptions = {},
): RateLimiter<T> {
  return maxOfRateLimiter<T>(
    exponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    bucketRateLimiter<T>({ qps: 10, burst: 100, clock: options.clock }),
  );
}

/**
 * rancher/lasso's default: the larger of fast-slow (1 ms for 30 failures, then 120 s) and
 * exponential 5 ms .. 30 s. Retry n of one item waits 5 ms * 2^(n-1) for n = 1..13 (up to
 * 20.48 s), 30 s for n = 14..30 and 120 s from n = 31 on. No overall bucket.
 */
export function defaultLassoRateLimiter<T = unknown>(): RateLimiter<T> {
  return maxOfRateLimiter<T>(
    fastSlowRateLimiter<T>({ fastDelayMs: 1, slowDelayMs: 120_000, maxFastAttempts: 30 }),
    exponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 30_000 }),
  );
}
