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
});
