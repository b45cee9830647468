// Ports the behaviours of client-go util/workqueue/default_rate_limiters_test.go (own tests), with
// every limiter's numbers for attempts 1..40.
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  defaultLassoRateLimiter,
  exponentialFailureRateLimiter,
  fastSlowRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
  withMaxWaitRateLimiter,
} from './rate-limiters.ts';

const attempts = Array.from({ length: 40 }, (_, i) => i + 1);

function delays<T>(limiter: RateLimiter<T>, item: T, count = 40): number[] {
  return Array.from({ length: count }, () => limiter.when(item));
}

describe('exponentialFailureRateLimiter', () => {
  // TestItemExponentialFailureRateLimiter.
  it('doubles from the base delay per failure up to the cap for attempts 1..40', () => {
    const limiter = exponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1_000 });
    expect(delays(limiter, 'one')).toEqual(attempts.map((n) => Math.min(2 ** (n - 1), 1_000)));
    expect(limiter.numRequeues('one')).toBe(40);
  });

  it('tracks items separately and starts over after forget', () => {
    const limiter = exponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1_000 });
    expect(delays(limiter, 'one', 3)).toEqual([1, 2, 4]);
    expect(delays(limiter, 'two', 2)).toEqual([1, 2]);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.numRequeues('two')).toBe(2);
    expect(delays(limiter, 'one', 2)).toEqual([1, 2]);
  });

  // TestItemExponentialFailureRateLimiterOverFlow.
  it('returns the cap instead of overflowing after very many failures', () => {
    const limiter = exponentialFailureRateLimiter<string>({
      baseDelayMs: 5,
      maxDelayMs: 1_000_000,
    });
    const all = delays(limiter, 'x', 2_000);
    expect(all.at(-1)).toBe(1_000_000);
    expect(all.every((d) => Number.isFinite(d) && d <= 1_000_000)).toBe(true);
    const big = exponentialFailureRateLimiter<string>({
      baseDelayMs: 1,
      maxDelayMs: Number.MAX_VALUE,
    });
    expect(delays(big, 'x', 1_100).at(-1)).toBe(Number.MAX_VALUE);
  });

  it('returns 0 for a zero base delay, however many failures', () => {
    const limiter = exponentialFailureRateLimiter<string>({ baseDelayMs: 0, maxDelayMs: 1_000 });
    expect(delays(limiter, 'x', 1_100).every((d) => d === 0)).toBe(true);
  });

  it.for([
    {
      name: 'a negative baseDelayMs',
      options: { baseDelayMs: -1, maxDelayMs: 1 },
      option: 'baseDelayMs',
    },
    {
      name: 'a NaN maxDelayMs',
      options: { baseDelayMs: 1, maxDelayMs: Number.NaN },
      option: 'maxDelayMs',
    },
  ])('throws a RangeError for $name', ({ options, option }) => {
    expect(() => exponentialFailureRateLimiter(options)).toThrow(RangeError);
    expect(() => exponentialFailureRateLimiter(options)).toThrow(option);
  });
});

describe('fastSlowRateLimiter', () => {
  // TestItemFastSlowRateLimiter.
  it('waits the fast delay for maxFastAttempts failures, then the slow one', () => {
    const limiter = fastSlowRateLimiter<string>({
      fastDelayMs: 5,
      slowDelayMs: 10_000,
      maxFastAttempts: 3,
    });
    expect(delays(limiter, 'one')).toEqual(attempts.map((n) => (n <= 3 ? 5 : 10_000)));
    expect(limiter.numRequeues('one')).toBe(40);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });

  it('throws a RangeError naming maxFastAttempts when it is not a whole number', () => {
    expect(() =>
      fastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: 2, maxFastAttempts: 1.5 }),
    ).toThrow(/maxFastAttempts/);
  });
});

describe('bucketRateLimiter', () => {
  it('lets the burst through, then spaces reservations by 1/qps for attempts 1..40', () => {
    const clock = new FakeClock();
    const limiter = bucketRateLimiter<string>({ qps: 10, burst: 5, clock });
    expect(delays(limiter, 'any')).toEqual(attempts.map((n) => Math.max(0, n - 5) * 100));
    expect(limiter.numRequeues('any')).toBe(0);
  });

  it('refills by the clock', async () => {
    const clock = new FakeClock();
    const limiter = bucketRateLimiter<string>({ qps: 10, burst: 2, clock });
    expect(delays(limiter, 'a', 3)).toEqual([0, 0, 100]);
    await clock.advance(100);
    // The debt of one token is paid off; the next reservation waits one interval.
    expect(limiter.when('a')).toBe(100);
    await clock.advance(1_000);
    expect(delays(limiter, 'a', 3)).toEqual([0, 0, 100]);
  });

  it.for([
    { name: 'qps = 0', qps: 0, burst: 1, option: 'qps' },
    { name: 'qps < 0', qps: -1, burst: 1, option: 'qps' },
    { name: 'burst = 0', qps: 1, burst: 0, option: 'burst' },
  ])('throws a RangeError naming the option for $name', ({ qps, burst, option }) => {
    expect(() => bucketRateLimiter({ qps, burst })).toThrow(RangeError);
    expect(() => bucketRateLimiter({ qps, burst })).toThrow(option);
  });
});

describe('maxOfRateLimiter', () => {
  // TestMaxOfRateLimiter.
  it('returns the largest delay and the largest requeue count of its limiters', () => {
    const limiter = maxOfRateLimiter<string>(
      fastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 3_000, maxFastAttempts: 3 }),
      exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1_000 }),
    );
    expect(delays(limiter, 'one')).toEqual(
      attempts.map((n) => Math.max(n <= 3 ? 5 : 3_000, Math.min(2 ** (n - 1), 1_000))),
    );
    expect(limiter.numRequeues('one')).toBe(40);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });

  it('returns 0 with no limiters', () => {
    expect(maxOfRateLimiter<string>().when('x')).toBe(0);
  });
});

describe('withMaxWaitRateLimiter', () => {
  // TestWithMaxWaitRateLimiter.
  it('caps the delay of the wrapped limiter and delegates the rest', () => {
    const limiter = withMaxWaitRateLimiter(
      exponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1_000_000 }),
      60,
    );
    expect(delays(limiter, 'one')).toEqual(attempts.map((n) => Math.min(2 ** (n - 1), 60)));
    expect(limiter.numRequeues('one')).toBe(40);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
  });

  it('throws a RangeError naming maxDelayMs when it is negative', () => {
    expect(() => withMaxWaitRateLimiter(maxOfRateLimiter(), -5)).toThrow(/maxDelayMs/);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('backs one item off exponentially from 5 ms to 1000 s for attempts 1..40', () => {
    const limiter = defaultControllerRateLimiter<string>({ clock: new FakeClock() });
    expect(delays(limiter, 'one')).toEqual(
      attempts.map((n) => Math.min(5 * 2 ** (n - 1), 1_000_000)),
    );
    expect(limiter.numRequeues('one')).toBe(40);
  });

  it('limits all items together to 10 qps after a burst of 100', () => {
    const limiter = defaultControllerRateLimiter<number>({ clock: new FakeClock() });
    const first = Array.from({ length: 140 }, (_, i) => limiter.when(i));
    // 100 distinct items pass with their own first-failure delay; then the bucket spaces them 100 ms apart.
    expect(first.slice(0, 100).every((d) => d === 5)).toBe(true);
    expect(first.slice(100)).toEqual(attempts.map((n) => n * 100));
  });
});

describe('defaultLassoRateLimiter', () => {
  it('waits 5 ms * 2^(n-1) up to 20.48 s, then 30 s until attempt 30, then 120 s', () => {
    const limiter = defaultLassoRateLimiter<string>();
    const expected = attempts.map((n) => (n <= 13 ? 5 * 2 ** (n - 1) : n <= 30 ? 30_000 : 120_000));
    expect(delays(limiter, 'one')).toEqual(expected);
    expect(expected[12]).toBe(20_480);
    expect(limiter.numRequeues('one')).toBe(40);
    limiter.forget('one');
    expect(limiter.when('one')).toBe(5);
  });

  it('has no overall bucket: many items fail at once without waiting on each other', () => {
    const limiter = defaultLassoRateLimiter<number>();
    expect(Array.from({ length: 1_000 }, (_, i) => limiter.when(i)).every((d) => d === 5)).toBe(
      true,
    );
  });
});
