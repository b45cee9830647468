// Ports the behaviours of client-go util/workqueue/delaying_queue_test.go (own tests, not copies).
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDelayingQueue, type DelayingQueue } from './delaying-queue.ts';
import { workqueueMetricNames } from './metrics.ts';

async function drainNow<T>(queue: DelayingQueue<T>): Promise<T[]> {
  const items: T[] = [];
  while (queue.len() > 0) {
    const next = await queue.get();
    if (next.shutdown) break;
    items.push(next.item);
    queue.done(next.item);
  }
  return items;
}

describe('createDelayingQueue', () => {
  describe('addAfter()', () => {
    // TestSimpleQueue.
    it('adds an item only once its delay has passed', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 50);
      expect(queue.len()).toBe(0);
      await clock.advance(49);
      expect(queue.len()).toBe(0);
      await clock.advance(1);
      expect(queue.len()).toBe(1);
      expect(await drainNow(queue)).toEqual(['foo']);
      expect(clock.pendingTimers()).toBe(0);
      queue.shutDown();
    });

    it('adds at once for a zero delay', () => {
      const queue = createDelayingQueue<string>({ clock: new FakeClock() });
      queue.addAfter('now', 0);
      expect(queue.len()).toBe(1);
    });

    // TestDeduping: the earliest deadline wins.
    it('keeps the earlier deadline when an item is added again with a later one', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 50);
      queue.addAfter('foo', 70);
      await clock.advance(50);
      expect(queue.len()).toBe(1);
      expect(await drainNow(queue)).toEqual(['foo']);
      await clock.advance(30);
      expect(queue.len()).toBe(0);
    });

    it('moves the deadline up when an item is added again with an earlier one', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 70);
      queue.addAfter('foo', 50);
      await clock.advance(50);
      expect(queue.len()).toBe(1);
      expect(await drainNow(queue)).toEqual(['foo']);
      await clock.advance(30);
      expect(queue.len()).toBe(0);
    });

    // TestAddTwoFireEarly.
    it('releases items in deadline order, whatever the order they were added in', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 1_000);
      queue.addAfter('bar', 50);
      await clock.advance(60);
      expect(await drainNow(queue)).toEqual(['bar']);
      queue.addAfter('foo', 20);
      await clock.advance(20);
      expect(await drainNow(queue)).toEqual(['foo']);
      expect(clock.pendingTimers()).toBe(0);
    });

    // TestCopyShifting.
    it('hands out items that fall due together in deadline order', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 30);
      queue.addAfter('bar', 20);
      queue.addAfter('zap', 10);
      await clock.advance(60);
      expect(await drainNow(queue)).toEqual(['zap', 'bar', 'foo']);
    });

    it('arms one timer for the nearest deadline, not one per item', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<number>({ clock });
      for (let i = 0; i < 100; i++) queue.addAfter(i, 1_000 - i);
      expect(clock.pendingTimers()).toBe(1);
      expect(clock.nextTimerAt()).toBe(901);
      await clock.advance(950);
      expect(queue.len()).toBe(50);
      expect(clock.pendingTimers()).toBe(1);
      queue.shutDown();
    });

    it('cancels its timer and drops waiting items on shutdown', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 50);
      queue.shutDown();
      expect(clock.pendingTimers()).toBe(0);
      queue.addAfter('bar', 10);
      await clock.advance(100);
      expect(queue.len()).toBe(0);
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    it('cancels its timer on shutDownWithDrain too', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 50);
      await queue.shutDownWithDrain();
      expect(clock.pendingTimers()).toBe(0);
    });

    it('wakes a worker waiting in get when a delayed item falls due', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      const next = queue.get();
      queue.addAfter('foo', 10);
      await clock.advance(10);
      await expect(next).resolves.toEqual({ item: 'foo', shutdown: false });
    });

    it('asks the clock to keep the process alive while an item waits', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 10);
      expect(clock.pendingTimers({ keepAlive: true })).toBe(1);
      await clock.advance(10);
      expect(queue.len()).toBe(1);
      queue.shutDown();
    });

    it('re-arms in steps for delays longer than a timer can hold', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      const sixtyDaysMs = 60 * 24 * 3_600_000;
      queue.addAfter('later', sixtyDaysMs);
      expect(clock.nextTimerAt()).toBe(2 ** 31 - 1);
      await clock.advance(sixtyDaysMs - 1);
      expect(queue.len()).toBe(0);
      await clock.advance(1);
      expect(queue.len()).toBe(1);
    });

    // client-go AddAfter: `if duration <= 0 { q.Add(item); return }`, which is what `deadline - now`
    // gives once a deadline has passed.
    it.for([
      { name: '-5 ms', delayMs: -5 },
      { name: '-0', delayMs: -0 },
      { name: 'a deadline long past', delayMs: -Number.MAX_VALUE },
    ])('adds at once for a delay <= 0 ($name), counting one retry', async ({ delayMs }) => {
      const clock = new FakeClock();
      const metrics = createTestMetricsProvider();
      const queue = createDelayingQueue<string>({ clock, name: 'test', metrics });
      queue.addAfter('late', delayMs);
      expect(queue.len()).toBe(1);
      expect(clock.pendingTimers({ keepAlive: true })).toBe(0);
      expect(metrics.value(workqueueMetricNames.retries, { name: 'test' })).toBe(1);
      expect(await drainNow(queue)).toEqual(['late']);
      queue.shutDown();
    });

    it('adds a waiting item at once for a delay <= 0; its old deadline then adds it again only if it was done', async () => {
      const clock = new FakeClock();
      const queue = createDelayingQueue<string>({ clock });
      queue.addAfter('foo', 50);
      queue.addAfter('foo', -1);
      expect(queue.len()).toBe(1);
      await clock.advance(50);
      // Still queued (dirty), so the deadline's add is de-duplicated, as in client-go.
      expect(await drainNow(queue)).toEqual(['foo']);
      expect(clock.pendingTimers()).toBe(0);
      queue.shutDown();
    });

    it('does nothing for a delay <= 0 after shutdown', () => {
      const queue = createDelayingQueue<string>({ clock: new FakeClock() });
      queue.shutDown();
      queue.addAfter('late', -1);
      expect(queue.len()).toBe(0);
    });

    // client-go's Duration is an int64 and cannot be NaN or infinite; an infinite wait is refused
    // rather than kept forever (it would hold the process open through its keep-alive timer).
    it.for([
      { name: 'NaN', delayMs: Number.NaN },
      { name: 'an infinite delay', delayMs: Number.POSITIVE_INFINITY },
      { name: 'a negative infinite delay', delayMs: Number.NEGATIVE_INFINITY },
      { name: 'a numeric string', delayMs: '5' as unknown as number },
      { name: 'undefined', delayMs: undefined as unknown as number },
      { name: 'null', delayMs: null as unknown as number },
      { name: 'a bigint', delayMs: 5n as unknown as number },
    ])('throws a RangeError naming delayMs for $name, and adds nothing', ({ delayMs }) => {
      const queue = createDelayingQueue<string>({ clock: new FakeClock() });
      expect(() => queue.addAfter('x', delayMs)).toThrow(RangeError);
      expect(() => queue.addAfter('x', delayMs)).toThrow(/delayMs/);
      expect(queue.len()).toBe(0);
    });
  });

  it('releases every item at its earliest deadline (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 100 })), {
          minLength: 1,
          maxLength: 40,
        }),
        async (adds) => {
          const clock = new FakeClock();
          const queue = createDelayingQueue<number>({ clock });
          const earliest = new Map<number, number>();
          for (const [item, delayMs] of adds) {
            queue.addAfter(item, delayMs);
            earliest.set(item, Math.min(earliest.get(item) ?? Number.POSITIVE_INFINITY, delayMs));
          }
          const releasedAt = new Map<number, number>();
          for (let t = 1; t <= 100; t++) {
            await clock.advance(1);
            for (const item of await drainNow(queue)) releasedAt.set(item, t);
          }
          expect(releasedAt).toEqual(earliest);
          expect(clock.pendingTimers()).toBe(0);
          queue.shutDown();
        },
      ),
      { numRuns: 30, seed: 7 },
    );
  });
});
