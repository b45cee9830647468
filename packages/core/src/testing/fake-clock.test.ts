import { describe, expect, it } from 'vitest';
import { sleep } from '../abort.ts';
import { FakeClock } from './fake-clock.ts';

describe('FakeClock', () => {
  it('fires due timers in deadline order and ties in scheduling order', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.schedule(30, () => fired.push('c'));
    clock.schedule(10, () => fired.push('a'));
    clock.schedule(10, () => fired.push('b'));
    clock.schedule(31, () => fired.push('late'));
    await clock.advance(30);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(clock.monotonic()).toBe(30);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('lets promises settle between timers so awaited work runs before the next timer', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const waiter = (async () => {
      await sleep(clock, 5);
      seen.push('woke');
      await Promise.resolve();
      seen.push('continued');
    })();
    clock.schedule(6, () => seen.push('timer at 6'));
    await clock.advance(10);
    await waiter;
    expect(seen).toEqual(['woke', 'continued', 'timer at 6']);
  });

  it('fires timers scheduled by a callback when they fall within the window', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    clock.schedule(5, () => {
      at.push(clock.monotonic());
      clock.schedule(5, () => at.push(clock.monotonic()));
    });
    await clock.advance(10);
    expect(at).toEqual([5, 10]);
  });

  it('does not fire cancelled timers', async () => {
    const clock = new FakeClock();
    let fired = false;
    clock
      .schedule(5, () => {
        fired = true;
      })
      .cancel();
    await clock.advance(10);
    expect(fired).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('moves wall time with monotonic time and lets setTime jump wall time alone', async () => {
    const clock = new FakeClock(1_000);
    await clock.advance(500);
    expect(clock.now()).toBe(1_500);
    clock.setTime(0);
    expect(clock.now()).toBe(0);
    expect(clock.monotonic()).toBe(500);
  });

  it('rejects a negative or non-finite advance', async () => {
    await expect(new FakeClock().advance(-1)).rejects.toThrow(RangeError);
    await expect(new FakeClock().advance(Number.NaN)).rejects.toThrow(RangeError);
    await expect(new FakeClock().advance(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
  });

  it('reads odd delays as systemClock does: NaN and negatives now, Infinity never', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.schedule(Number.POSITIVE_INFINITY, () => fired.push('infinite'));
    clock.schedule(Number.NaN, () => fired.push('nan'));
    clock.schedule(-5, () => fired.push('negative'));
    await clock.advance(0);
    expect(fired).toEqual(['nan', 'negative']);
    await clock.runAll();
    await clock.advance(1e12);
    expect(fired).toEqual(['nan', 'negative']);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.monotonic()).toBe(1e12);
  });

  it('runs every timer, including those a timer schedules, with runAll', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    clock.schedule(100, () => {
      at.push(clock.monotonic());
      clock.schedule(1_000, () => at.push(clock.monotonic()));
    });
    await clock.runAll();
    expect(at).toEqual([100, 1_100]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops runAll when a timer keeps rescheduling itself', async () => {
    const clock = new FakeClock();
    const tick = (): void => {
      clock.schedule(1, tick);
    };
    tick();
    await expect(clock.runAll(50)).rejects.toThrow(/more than 50 timers/);
  });

  it('resolves scheduled() at the next schedule call, or at the next of exactly the delay asked for', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    void clock.scheduled().then(() => seen.push('any'));
    void clock.scheduled(250).then(() => seen.push('250'));
    clock.schedule(100, () => {});
    await Promise.resolve();
    expect(seen).toEqual(['any']);
    clock.schedule(250, () => {});
    await Promise.resolve();
    expect(seen).toEqual(['any', '250']);
    // A waiter is woken once: a later schedule call does not call it again.
    clock.schedule(250, () => {});
    await Promise.resolve();
    expect(seen).toEqual(['any', '250']);
  });

  it('resolves untilPending() once enough timers are pending, at once when they already are', async () => {
    const clock = new FakeClock();
    clock.schedule(10, () => {});
    await clock.untilPending(1);
    let done = false;
    const two = clock.untilPending(3).then(() => {
      done = true;
    });
    clock.schedule(20, () => {});
    await Promise.resolve();
    await Promise.resolve();
    expect(done).toBe(false);
    clock.schedule(30, () => {});
    await two;
    expect(clock.pendingTimers()).toBe(3);
  });
});
