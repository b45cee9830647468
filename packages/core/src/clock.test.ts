import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.ts';

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('re-arms delays beyond the setTimeout limit instead of firing at once', () => {
    vi.useFakeTimers();
    let fired = false;
    systemClock.schedule(2 ** 31 + 1_000, () => {
      fired = true;
    });
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).toBe(false);
    vi.advanceTimersByTime(1_001);
    expect(fired).toBe(true);
  });

  it('cancels a re-armed long timer', () => {
    vi.useFakeTimers();
    let fired = false;
    const timer = systemClock.schedule(2 ** 31 + 1_000, () => {
      fired = true;
    });
    vi.advanceTimersByTime(2 ** 31);
    timer.cancel();
    vi.advanceTimersByTime(10_000);
    expect(fired).toBe(false);
  });

  it('unrefs a timer unless it is scheduled with keepAlive', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const housekeeping = systemClock.schedule(10_000, () => {});
    const awaited = systemClock.schedule(10_000, () => {}, { keepAlive: true });
    const [first, second] = spy.mock.results.map((result) => result.value as NodeJS.Timeout);
    housekeeping.cancel();
    awaited.cancel();
    expect(first?.hasRef()).toBe(false);
    expect(second?.hasRef()).toBe(true);
  });

  it("keeps a long keepAlive timer ref'd across its re-armed steps", () => {
    vi.useFakeTimers();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const timer = systemClock.schedule(2 ** 31 + 1_000, () => {}, { keepAlive: true });
    vi.advanceTimersByTime(2 ** 31);
    const steps = spy.mock.results.map((result) => result.value as NodeJS.Timeout);
    timer.cancel();
    expect(steps).toHaveLength(2);
    expect(steps.every((step) => step.hasRef())).toBe(true);
  });

  it('never fires an infinite delay and fires NaN or -Infinity on the next turn', () => {
    vi.useFakeTimers();
    const seen: string[] = [];
    const never = systemClock.schedule(Number.POSITIVE_INFINITY, () => seen.push('infinite'));
    systemClock.schedule(Number.NaN, () => seen.push('nan'));
    systemClock.schedule(Number.NEGATIVE_INFINITY, () => seen.push('-infinite'));
    vi.advanceTimersByTime(0);
    expect(seen).toEqual(['nan', '-infinite']);
    vi.advanceTimersByTime(4 * 2 ** 31);
    expect(seen).toEqual(['nan', '-infinite']);
    never.cancel();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fires a zero or negative delay on the next turn', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    systemClock.schedule(-5, () => seen.push(1));
    systemClock.schedule(0, () => seen.push(2));
    vi.advanceTimersByTime(0);
    expect(seen).toEqual([1, 2]);
  });

  it('reads monotonic() from process.hrtime at call time, in milliseconds', () => {
    // [seconds, nanoseconds] of CLOCK_MONOTONIC.
    const readings: Array<[number, number]> = [
      [7, 500_000_000],
      [9, 250_000],
    ];
    const hrtime = vi
      .spyOn(process, 'hrtime')
      .mockImplementation((() => readings.shift() ?? [0, 0]) as typeof process.hrtime);
    try {
      expect(systemClock.monotonic()).toBe(7_500);
      expect(systemClock.monotonic()).toBe(9_000.25);
      expect(hrtime).toHaveBeenCalledTimes(2);
    } finally {
      hrtime.mockRestore();
    }
  });

  it('measures the same elapsed time as performance.now() and never goes back', () => {
    const startedAt = systemClock.monotonic();
    const perfStartedAt = performance.now();
    let last = startedAt;
    for (let i = 0; i < 1_000; i++) {
      const now = systemClock.monotonic();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    const perfElapsed = performance.now() - perfStartedAt;
    const elapsed = systemClock.monotonic() - startedAt;
    // One clock (CLOCK_MONOTONIC): the span between the outer readings holds the inner one (to rounding), and
    // exceeds it only by the few statements in between (a generous bound: a loaded machine may preempt them).
    expect(elapsed).toBeGreaterThanOrEqual(perfElapsed - 1e-3);
    expect(elapsed - perfElapsed).toBeLessThan(1_000);
  });

  it('falls back to performance.now() where process.hrtime does not exist', async () => {
    const hrtime = process.hrtime;
    vi.resetModules();
    Reflect.deleteProperty(process, 'hrtime');
    try {
      const { systemClock: fallback } = await import('./clock.ts');
      const now = vi.spyOn(performance, 'now').mockReturnValue(1_234.5);
      try {
        expect(fallback.monotonic()).toBe(1_234.5);
        expect(now).toHaveBeenCalledTimes(1);
      } finally {
        now.mockRestore();
      }
    } finally {
      process.hrtime = hrtime;
    }
  });
});
