// Tests of the token bucket: golang.org/x/time/rate reservation semantics on a FakeClock.
import { isAbortError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createTokenBucket } from './token-bucket.ts';

describe('createTokenBucket', () => {
  describe('tryTake()', () => {
    it('takes the burst at once, then one token per 1/qps of clock time', async () => {
      const clock = new FakeClock();
      const bucket = createTokenBucket({ qps: 4, burst: 3, clock });
      expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([
        true,
        true,
        true,
        false,
      ]);
      await clock.advance(249);
      expect(bucket.tryTake()).toBe(false);
      await clock.advance(1);
      expect(bucket.tryTake()).toBe(true);
      expect(bucket.tryTake()).toBe(false);
    });

    it('never refills beyond the burst', async () => {
      const clock = new FakeClock();
      const bucket = createTokenBucket({ qps: 100, burst: 2, clock });
      await clock.advance(60_000);
      expect(bucket.tokens()).toBe(2);
    });
  });

  describe('take()', () => {
    it('resolves at once while tokens last, then waits on the clock', async () => {
      const clock = new FakeClock();
      const bucket = createTokenBucket({ qps: 10, burst: 1, clock });
      await bucket.take();
      let second = false;
      let third = false;
      const a = bucket.take().then(() => {
        second = true;
      });
      const b = bucket.take().then(() => {
        third = true;
      });
      await clock.advance(99);
      expect(second).toBe(false);
      await clock.advance(1);
      await a;
      expect(second).toBe(true);
      expect(third).toBe(false);
      await clock.advance(100);
      await b;
      expect(third).toBe(true);
    });

    it('rejects with the signal reason and gives its token back when aborted', async () => {
      const clock = new FakeClock();
      const bucket = createTokenBucket({ qps: 1, burst: 1, clock });
      await bucket.take();
      const controller = new AbortController();
      const waiting = bucket.take({ signal: controller.signal });
      expect(bucket.tokens()).toBe(-1);
      controller.abort();
      await expect(waiting).rejects.toSatisfy((error) => isAbortError(error));
      expect(bucket.tokens()).toBe(0);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('rejects without taking a token for an already aborted signal', async () => {
      const bucket = createTokenBucket({ qps: 1, burst: 1, clock: new FakeClock() });
      await expect(bucket.take({ signal: AbortSignal.abort() })).rejects.toSatisfy((error) =>
        isAbortError(error),
      );
      expect(bucket.tokens()).toBe(1);
    });
  });

  it('returns the wait for each reserved token, going into debt', () => {
    const bucket = createTokenBucket({ qps: 10, burst: 2, clock: new FakeClock() });
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([
      0, 0, 100, 200,
    ]);
  });

  it.for([
    { name: 'qps = 0', qps: 0, burst: 1, option: 'qps' },
    { name: 'qps = Infinity', qps: Number.POSITIVE_INFINITY, burst: 1, option: 'qps' },
    { name: 'burst = 0', qps: 1, burst: 0, option: 'burst' },
    { name: 'burst = 1.5', qps: 1, burst: 1.5, option: 'burst' },
  ])('throws a RangeError naming the option for $name', ({ qps, burst, option }) => {
    expect(() => createTokenBucket({ qps, burst })).toThrow(RangeError);
    expect(() => createTokenBucket({ qps, burst })).toThrow(option);
  });
});
