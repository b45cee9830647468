// drop(predicate): the removal a sharded controller needs when its keys move to another replica.
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createDelayingQueue } from './delaying-queue.ts';
import { workqueueMetricNames } from './metrics.ts';
import { createRateLimitingQueue } from './rate-limiting-queue.ts';
import { createFakeRateLimiter } from './testing/index.ts';
import { createQueue, type WorkQueue } from './work-queue.ts';

async function drainNow(queue: WorkQueue<string>): Promise<string[]> {
  const items: string[] = [];
  while (queue.len() > 0) {
    const next = await queue.get();
    if (next.shutdown) break;
    items.push(next.item);
    queue.done(next.item);
  }
  return items;
}

describe('drop()', () => {
  it('removes the queued items the predicate accepts and keeps the order of the others', async () => {
    const queue = createQueue<string>();
    for (const key of ['a/1', 'b/1', 'a/2', 'b/2']) queue.add(key);
    expect(queue.drop((key) => key.startsWith('a/'))).toBe(2);
    expect(queue.len()).toBe(2);
    expect(await drainNow(queue)).toEqual(['b/1', 'b/2']);
  });

  it('lets a dropped item be added again as a new one', async () => {
    const queue = createQueue<string>();
    queue.add('a/1');
    queue.drop(() => true);
    queue.add('a/1');
    expect(await drainNow(queue)).toEqual(['a/1']);
  });

  it('cancels the pending re-add of an item being processed, which stays handed out', async () => {
    const queue = createQueue<string>();
    queue.add('a/1');
    const next = await queue.get();
    queue.add('a/1'); // dirty while processing
    expect(queue.drop((key) => key === 'a/1')).toBe(1);
    expect(next.shutdown ? undefined : next.item).toBe('a/1');
    queue.done('a/1');
    expect(queue.len()).toBe(0);
    // Processing and clean: nothing to drop.
    queue.add('a/1');
    await queue.get();
    expect(queue.drop(() => true)).toBe(0);
  });

  it('drops the waiting items of a delaying queue with their timer', async () => {
    const clock = new FakeClock();
    const queue = createDelayingQueue<string>({ clock });
    queue.addAfter('a/1', 1_000);
    queue.addAfter('b/1', 2_000);
    queue.addAfter('a/2', 500);
    queue.add('a/3');
    expect(queue.drop((key) => key.startsWith('a/'))).toBe(3);
    await clock.advance(2_000);
    expect(await drainNow(queue)).toEqual(['b/1']);
    expect(queue.drop(() => true)).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    queue.shutDown();
  });

  it('keeps the waiting items ordered by deadline after a drop from the middle of the heap', async () => {
    const clock = new FakeClock();
    const queue = createDelayingQueue<number>({ clock });
    for (let index = 0; index < 40; index++) queue.addAfter(index, 1 + ((index * 7919) % 97));
    expect(queue.drop((item) => item % 3 === 0)).toBe(14);
    const seen: number[] = [];
    for (let ms = 1; ms <= 100; ms++) {
      await clock.advance(1);
      while (queue.len() > 0) {
        const next = await queue.get();
        if (next.shutdown) break;
        seen.push(next.item);
        queue.done(next.item);
      }
    }
    const expected = Array.from({ length: 40 }, (_, index) => index)
      .filter((index) => index % 3 !== 0)
      .sort((a, b) => ((a * 7919) % 97) - ((b * 7919) % 97) || a - b);
    expect(seen).toEqual(expected);
    queue.shutDown();
  });

  it('leaves the queue as it was when the predicate throws', async () => {
    const clock = new FakeClock();
    const queue = createDelayingQueue<string>({ clock });
    queue.add('a/1');
    queue.addAfter('a/2', 10);
    expect(() =>
      queue.drop(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    await clock.advance(10);
    expect(await drainNow(queue)).toEqual(['a/1', 'a/2']);
    queue.shutDown();
  });

  it('lowers workqueue_depth for every dropped item', async () => {
    const metrics = createTestMetricsProvider();
    const clock = new FakeClock();
    const queue = createRateLimitingQueue<string>(createFakeRateLimiter(), {
      name: 'q',
      clock,
      metrics,
    });
    queue.add('a/1');
    queue.add('b/1');
    queue.add('c/1');
    await queue.get(); // a/1 processing
    queue.add('a/1');
    expect(metrics.value(workqueueMetricNames.depth, { name: 'q' })).toBe(3);
    expect(queue.drop((key) => key !== 'c/1')).toBe(2);
    expect(metrics.value(workqueueMetricNames.depth, { name: 'q' })).toBe(1);
    queue.shutDown();
  });
});
