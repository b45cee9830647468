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

  it('fires a zero or negative delay on the next turn', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    systemClock.schedule(-5, () => seen.push(1));
    systemClock.schedule(0, () => seen.push(2));
    vi.advanceTimersByTime(0);
    expect(seen).toEqual([1, 2]);
  });
});
