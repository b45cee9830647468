// The metered queue's coarse clock: adds and hand-outs reuse a fresh reading (at most coarseClockPeriodMs old, at
// most coarseClockMaxUses times), done always reads the clock; the error bound the README states.
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { coarseClockMaxUses, coarseClockPeriodMs, workqueueMetricNames as n } from './metrics.ts';
import { createQueue } from './work-queue.ts';

const labels = { name: 'test' };

function setup() {
  const clock = new FakeClock();
  const metrics = createTestMetricsProvider();
  const queue = createQueue<string>({ name: 'test', metrics, clock });
  const reads = vi.spyOn(clock, 'monotonic');
  return { clock, metrics, queue, reads };
}

describe('workqueue metrics coarse clock', () => {
  it('reuses a reading for adds within coarseClockPeriodMs, then reads again', async () => {
    const { clock, metrics, queue, reads } = setup();
    expect(coarseClockPeriodMs).toBe(1);
    queue.add('a'); // t=0: read
    await clock.advance(0.5);
    queue.add('b'); // t=0.5: reuses t=0
    expect(reads).toHaveBeenCalledTimes(1);
    await clock.advance(0.5);
    queue.add('c'); // t=1: stale, read
    expect(reads).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 3; i++) await queue.get(); // t=1: reuse the reading of t=1
    expect(reads).toHaveBeenCalledTimes(2);
    // b waited 0.5 ms and is recorded as 1 ms: the error stays under coarseClockPeriodMs.
    expect(metrics.observations(n.queueDuration, labels)).toEqual([0.001, 0.001, 0]);
    queue.shutDown();
  });

  it(`reads again after ${coarseClockMaxUses} reuses at one instant (a blocked event loop runs no timer)`, () => {
    const { queue, reads } = setup();
    for (let i = 0; i <= coarseClockMaxUses; i++) queue.add(`key-${i}`);
    expect(reads).toHaveBeenCalledTimes(1);
    queue.add('one-more');
    expect(reads).toHaveBeenCalledTimes(2);
    queue.shutDown();
  });

  it('reads the clock at every done, so work durations are measured to the reading', async () => {
    const { clock, metrics, queue, reads } = setup();
    queue.add('a');
    queue.add('b');
    await queue.get();
    await queue.get();
    await clock.advance(0.25);
    queue.done('a');
    await clock.advance(0.25);
    queue.done('b');
    expect(reads).toHaveBeenCalledTimes(3);
    expect(metrics.observations(n.workDuration, labels)).toEqual([0.00025, 0.0005]);
    queue.shutDown();
  });

  it('keeps no timer once the queue is idle, and none after shutdown', async () => {
    const { clock, queue } = setup();
    const baseline = clock.pendingTimers();
    queue.add('a');
    expect(clock.pendingTimers()).toBe(baseline + 1);
    const item = await queue.get();
    if (item.shutdown) throw new Error('unexpected shutdown');
    queue.done(item.item);
    await clock.advance(coarseClockPeriodMs);
    expect(clock.pendingTimers()).toBe(baseline);
    queue.add('b');
    queue.shutDown();
    // The unfinished-work refresh and the stale timer are both cancelled.
    expect(clock.pendingTimers()).toBe(0);
  });
});
