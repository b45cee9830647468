// Ports the behaviours of client-go util/workqueue/rate_limiting_queue_test.go (own tests, not copies).
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { exponentialFailureRateLimiter, type RateLimiter } from './rate-limiters.ts';
import { createRateLimitingQueue } from './rate-limiting-queue.ts';

describe('createRateLimitingQueue', () => {
  // TestRateLimitingQueue.
  it('delays each retry by the limiter and resets the backoff on forget', async () => {
    const clock = new FakeClock();
    const limiter = exponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1_000 });
    const queue = createRateLimitingQueue(limiter, { clock });

    queue.addRateLimited('one');
    expect(clock.nextTimerAt()).toBe(1);
    queue.addRateLimited('one');
    // The earlier deadline (1 ms) wins; the failure count still went up.
    expect(clock.nextTimerAt()).toBe(1);
    expect(queue.numRequeues('one')).toBe(2);

    queue.addRateLimited('two');
    expect(queue.numRequeues('two')).toBe(1);
    await clock.advance(1);
    expect(queue.len()).toBe(2);

    queue.addRateLimited('one');
    expect(queue.numRequeues('one')).toBe(3);
    expect(clock.nextTimerAt()).toBe(1 + 4);

    queue.forget('one');
    expect(queue.numRequeues('one')).toBe(0);
    queue.addRateLimited('one');
    expect(queue.numRequeues('one')).toBe(1);
    queue.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('drops a rate-limited add after shutdown', async () => {
    const clock = new FakeClock();
    const queue = createRateLimitingQueue(
      exponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 10 }),
      { clock },
    );
    queue.shutDown();
    queue.addRateLimited('one');
    await clock.advance(100);
    expect(queue.len()).toBe(0);
  });

  it('adds at once when the limiter returns a delay <= 0', () => {
    const eager: RateLimiter<string> = { when: () => -1, forget: () => {}, numRequeues: () => 0 };
    const queue = createRateLimitingQueue(eager, { clock: new FakeClock() });
    queue.addRateLimited('x');
    expect(queue.len()).toBe(1);
    queue.shutDown();
  });

  it('throws a RangeError when the limiter returns NaN', () => {
    const broken: RateLimiter<string> = {
      when: () => Number.NaN,
      forget: () => {},
      numRequeues: () => 0,
    };
    const queue = createRateLimitingQueue(broken, { clock: new FakeClock() });
    expect(() => queue.addRateLimited('x')).toThrow(RangeError);
  });

  it('throws a TypeError without a rate limiter', () => {
    expect(() => createRateLimitingQueue(undefined as unknown as RateLimiter<string>)).toThrow(
      TypeError,
    );
  });
});
