import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createRateLimitingQueue } from '../rate-limiting-queue.ts';
import { createFakeRateLimiter } from './fake-rate-limiter.ts';

describe('createFakeRateLimiter', () => {
  it('records calls, returns its delay and counts requeues until forget', async () => {
    const clock = new FakeClock();
    const limiter = createFakeRateLimiter<string>(100);
    const queue = createRateLimitingQueue(limiter, { clock });
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(2);
    await clock.advance(99);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
    queue.forget('a');
    limiter.delayMs = 0;
    queue.addRateLimited('b');
    expect(limiter.whenCalls).toEqual(['a', 'a', 'b']);
    expect(limiter.forgetCalls).toEqual(['a']);
    expect(queue.numRequeues('a')).toBe(0);
    expect(queue.len()).toBe(2);
    queue.shutDown();
  });
});
