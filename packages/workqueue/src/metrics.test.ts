// Ports the behaviours of client-go util/workqueue/metrics_test.go (TestMetrics, TestMetricShutdown).
import type { MetricsProvider } from '@lasso/core';
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { createDelayingQueue } from './delaying-queue.ts';
import { workqueueMetricNames as n } from './metrics.ts';
import { exponentialFailureRateLimiter } from './rate-limiters.ts';
import { createRateLimitingQueue } from './rate-limiting-queue.ts';
import { createQueue } from './work-queue.ts';

const labels = { name: 'test' };

describe('workqueue metrics', () => {
  it('registers the seven workqueue_* series with the queue name as label', () => {
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ name: 'test', metrics, clock: new FakeClock() });
    expect(metrics.names()).toEqual([
      'workqueue_adds_total',
      'workqueue_depth',
      'workqueue_longest_running_processor_seconds',
      'workqueue_queue_duration_seconds',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds',
      'workqueue_work_duration_seconds',
    ]);
    queue.shutDown();
  });

  // TestMetrics.
  it('records adds, depth, queue and work durations and unfinished work on the clock', async () => {
    const clock = new FakeClock();
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ name: 'test', metrics, clock });

    queue.add('foo');
    expect(metrics.value(n.adds, labels)).toBe(1);
    expect(metrics.value(n.depth, labels)).toBe(1);

    await clock.advance(50);
    const first = await queue.get();
    if (first.shutdown) throw new Error('unexpected shutdown');
    expect(metrics.observations(n.queueDuration, labels)).toEqual([0.05]);
    expect(metrics.value(n.depth, labels)).toBe(0);

    // Re-adds while processing are de-duplicated: one more add, one more depth.
    for (let i = 0; i < 5; i++) queue.add('foo');
    expect(metrics.value(n.adds, labels)).toBe(2);
    expect(metrics.value(n.depth, labels)).toBe(1);

    await clock.advance(25);
    queue.done(first.item);
    expect(metrics.observations(n.workDuration, labels)).toEqual([0.025]);
    expect(metrics.value(n.depth, labels)).toBe(1);

    const second = await queue.get();
    if (second.shutdown) throw new Error('unexpected shutdown');
    // Queued since the re-add at t=50, handed out at t=75.
    expect(metrics.observations(n.queueDuration, labels)).toEqual([0.05, 0.025]);

    // The gauges refresh every 500 ms of the clock (first at t=500).
    await clock.advance(424);
    expect(metrics.value(n.unfinishedWork, labels)).toBe(0);
    await clock.advance(1);
    expect(metrics.value(n.unfinishedWork, labels)).toBe(0.425);
    expect(metrics.value(n.longestRunningProcessor, labels)).toBe(0.425);

    queue.done(second.item);
    expect(metrics.observations(n.workDuration, labels)).toEqual([0.025, 0.425]);
    await clock.advance(500);
    expect(metrics.value(n.unfinishedWork, labels)).toBe(0);
    queue.shutDown();
  });

  it("keeps each item's timestamps apart across many items, slot reuse and growth", async () => {
    const clock = new FakeClock();
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ name: 'test', metrics, clock });
    const at = (ms: number): Promise<void> => clock.advance(ms - clock.monotonic());
    const expectedQueue: number[] = [];
    const expectedWork: number[] = [];
    // 100 items (more than the 64 slots a queue starts with), each added at t = i.
    for (let i = 0; i < 100; i++) {
      await at(i);
      queue.add(`a${i}`);
    }
    // Handed out in order at t = 200 + 2i: queued 200 + i ms each.
    for (let i = 0; i < 100; i++) {
      await at(200 + 2 * i);
      expect(await queue.get()).toEqual({ item: `a${i}`, shutdown: false });
      expectedQueue.push((200 + 2 * i - i) / 1000);
    }
    expect(metrics.observations(n.queueDuration, labels)).toEqual(expectedQueue);
    // Done in reverse order at t = 498 - i; the gauges (refreshed at t = 500) see none left.
    for (let i = 99; i >= 0; i--) {
      await at(498 - i);
      queue.done(`a${i}`);
      expectedWork.push((498 - i - (200 + 2 * i)) / 1000);
    }
    expect(metrics.observations(n.workDuration, labels)).toEqual(expectedWork);
    await at(500);
    expect(metrics.value(n.unfinishedWork, labels)).toBe(0);
    expect(metrics.value(n.longestRunningProcessor, labels)).toBe(0);
    // New items reuse the freed slots: none inherits an old item's times.
    queue.add('b0');
    queue.add('a7');
    await at(510);
    await queue.get();
    await at(530);
    await queue.get();
    expect(metrics.observations(n.queueDuration, labels).slice(100)).toEqual([0.01, 0.03]);
    await at(1_000);
    expect(metrics.value(n.unfinishedWork, labels)).toBe(0.49 + 0.47);
    expect(metrics.value(n.longestRunningProcessor, labels)).toBe(0.49);
    queue.done('a7');
    queue.done('b0');
    expect(metrics.observations(n.workDuration, labels).slice(100)).toEqual([0.47, 0.49]);
    expect(metrics.value(n.depth, labels)).toBe(0);
    expect(metrics.value(n.adds, labels)).toBe(102);
    queue.shutDown();
  });

  it('reads the clock at each done and reuses a fresh reading for adds and hand-outs; asks the provider for its series only at creation', async () => {
    const clock = new FakeClock();
    const reads = vi.spyOn(clock, 'monotonic');
    const provider = createTestMetricsProvider();
    const asked = { counter: 0, gauge: 0, histogram: 0 };
    const metrics: MetricsProvider = {
      counter: (options) => {
        asked.counter++;
        return provider.counter(options);
      },
      gauge: (options) => {
        asked.gauge++;
        return provider.gauge(options);
      },
      histogram: (options) => {
        asked.histogram++;
        return provider.histogram(options);
      },
    };
    const queue = createQueue<string>({ name: 'test', metrics, clock });
    expect(asked).toEqual({ counter: 2, gauge: 3, histogram: 2 });
    reads.mockClear();
    for (let i = 0; i < 10; i++) {
      queue.add(`key-${i}`);
      queue.add(`key-${i}`); // de-duplicated: no transition, no read
    }
    // One reading serves the first add and the next coarseClockMaxUses adds and hand-outs at the same instant.
    expect(reads).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i++) await queue.get();
    expect(reads).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 10; i++) queue.done(`key-${i}`);
    expect(reads).toHaveBeenCalledTimes(12);
    expect(asked).toEqual({ counter: 2, gauge: 3, histogram: 2 });
    queue.shutDown();

    const unmetered = createQueue<string>({ clock });
    reads.mockClear();
    unmetered.add('a');
    await unmetered.get();
    unmetered.done('a');
    expect(reads).not.toHaveBeenCalled();
  });

  it('shares the reading of an add or done with a direct hand-off to a waiting worker', async () => {
    const clock = new FakeClock();
    const reads = vi.spyOn(clock, 'monotonic');
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ name: 'test', metrics, clock });
    reads.mockClear();
    // A worker waits in get(); `afterMs` later, `transition` (an add or a done) hands 'a' straight to it, reading
    // the clock once for both.
    const handOffAfter = async (afterMs: number, transition: () => void): Promise<void> => {
      const waiting = queue.get();
      await clock.advance(afterMs);
      const readsBefore = reads.mock.calls.length;
      transition();
      expect(reads.mock.calls.length - readsBefore).toBe(1);
      expect(await waiting).toEqual({ item: 'a', shutdown: false });
    };
    // The add at t=10 hands 'a' to the waiting worker: no time in the queue.
    await handOffAfter(10, () => queue.add('a'));
    expect(metrics.observations(n.queueDuration, labels)).toEqual([0]);
    expect(metrics.value(n.depth, labels)).toBe(0);
    // Re-added at t=30 while processed, done at t=100 while another worker waits: the done's reading ends
    // both its work (90 ms) and its second wait in the queue (70 ms).
    await clock.advance(20);
    queue.add('a');
    expect(reads).toHaveBeenCalledTimes(2);
    await handOffAfter(70, () => queue.done('a'));
    expect(metrics.observations(n.workDuration, labels)).toEqual([0.09]);
    expect(metrics.observations(n.queueDuration, labels)).toEqual([0, 0.07]);
    expect(metrics.value(n.depth, labels)).toBe(0);
    // The second processing started at t=100.
    await clock.advance(400);
    expect(metrics.value(n.longestRunningProcessor, labels)).toBe(0.4);
    await clock.advance(5);
    queue.done('a');
    expect(metrics.observations(n.workDuration, labels)).toEqual([0.09, 0.405]);
    queue.shutDown();
  });

  it('reads the system clock through process.hrtime at the add and the done (the hand-out reuses a fresh reading)', async () => {
    // [seconds, nanoseconds] of CLOCK_MONOTONIC at the add and the done; the hand-out, less than
    // coarseClockPeriodMs after the add, reuses the add's reading.
    const readings: Array<[number, number]> = [
      [5, 0],
      [6, 25_000_000],
    ];
    const hrtime = vi
      .spyOn(process, 'hrtime')
      .mockImplementation((() => readings.shift() ?? [0, 0]) as typeof process.hrtime);
    try {
      const metrics = createTestMetricsProvider();
      const queue = createQueue<string>({ name: 'test', metrics }); // systemClock
      queue.add('a');
      expect(await queue.get()).toEqual({ item: 'a', shutdown: false });
      queue.done('a');
      expect(hrtime).toHaveBeenCalledTimes(2);
      expect(metrics.observations(n.queueDuration, labels)).toEqual([0]);
      expect(metrics.observations(n.workDuration, labels)).toEqual([1.025]);
      queue.shutDown();
    } finally {
      hrtime.mockRestore();
    }
  });

  it('sums unfinished work and reports the longest running item', async () => {
    const clock = new FakeClock();
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ name: 'test', metrics, clock });
    queue.add('a');
    await queue.get();
    await clock.advance(200);
    queue.add('b');
    await queue.get();
    await clock.advance(300);
    expect(metrics.value(n.unfinishedWork, labels)).toBe(0.8);
    expect(metrics.value(n.longestRunningProcessor, labels)).toBe(0.5);
    queue.shutDown();
  });

  it('counts a retry for every addAfter and addRateLimited', async () => {
    const clock = new FakeClock();
    const metrics = createTestMetricsProvider();
    const delaying = createDelayingQueue<string>({ name: 'test', metrics, clock });
    delaying.addAfter('a', 0);
    delaying.addAfter('b', 10);
    expect(metrics.value(n.retries, labels)).toBe(2);
    delaying.shutDown();
    const limited = createRateLimitingQueue(
      exponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 10 }),
      { name: 'limited', metrics, clock },
    );
    limited.addRateLimited('a');
    expect(metrics.value(n.retries, { name: 'limited' })).toBe(1);
    limited.shutDown();
  });

  it('refreshes the gauges on a timer that does not keep the process alive', () => {
    const clock = new FakeClock();
    const queue = createQueue<string>({
      name: 'test',
      metrics: createTestMetricsProvider(),
      clock,
    });
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.pendingTimers({ keepAlive: false })).toBe(1);
    queue.shutDown();
  });

  it('computes the two gauges at each scrape when the provider has a scrape hook, with no timer', async () => {
    const clock = new FakeClock();
    const inner = createTestMetricsProvider();
    const collectors = new Set<() => void>();
    const scrape = (): void => {
      for (const collect of collectors) collect();
    };
    const metrics: MetricsProvider = {
      counter: (options) => inner.counter(options),
      gauge: (options) => inner.gauge(options),
      histogram: (options) => inner.histogram(options),
      onCollect: (collect) => {
        collectors.add(collect);
        return () => collectors.delete(collect);
      },
    };
    const queue = createQueue<string>({ name: 'test', metrics, clock });
    expect(clock.pendingTimers()).toBe(0);
    expect(collectors.size).toBe(1);
    queue.add('a');
    queue.add('b');
    await queue.get();
    await clock.advance(100);
    await queue.get();
    await clock.advance(30);
    // Nothing is refreshed between scrapes...
    expect(inner.value(n.unfinishedWork, labels)).toBe(0);
    // ...and a scrape sees the slots as they are now: 'a' for 130 ms, 'b' for 30 ms.
    scrape();
    expect(inner.value(n.unfinishedWork, labels)).toBeCloseTo(0.16, 12);
    expect(inner.value(n.longestRunningProcessor, labels)).toBe(0.13);
    queue.done('a');
    await clock.advance(20);
    scrape();
    expect(inner.value(n.unfinishedWork, labels)).toBe(0.05);
    expect(inner.value(n.longestRunningProcessor, labels)).toBe(0.05);
    // Shutdown unregisters the hook: no callback outlives the queue.
    queue.shutDown();
    expect(collectors.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  // TestMetricShutdown.
  it('stops its refresh timer on shutdown and arms none without metrics', async () => {
    const clock = new FakeClock();
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ name: 'test', metrics, clock });
    expect(clock.pendingTimers()).toBe(1);
    queue.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(1_000);
    expect(clock.pendingTimers()).toBe(0);

    const drained = createQueue<string>({ name: 'drained', metrics, clock });
    await drained.shutDownWithDrain();
    expect(clock.pendingTimers()).toBe(0);

    createQueue<string>({ name: 'silent', clock });
    expect(clock.pendingTimers()).toBe(0);
  });
});
