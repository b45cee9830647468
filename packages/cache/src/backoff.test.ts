import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createBackoff } from './backoff.ts';

describe('createBackoff', () => {
  it('doubles from 800 ms and stops growing at 3.2 s without jitter draws', () => {
    const backoff = createBackoff({ clock: new FakeClock(), random: () => 0 });
    const delays = Array.from({ length: 5 }, () => backoff.next());
    expect(delays).toEqual([800, 1600, 3200, 3200, 3200]);
  });

  it('adds up to a quarter of the delay as jitter, so no delay reaches 4 s', () => {
    const backoff = createBackoff({ clock: new FakeClock(), random: () => 0.5 });
    expect(backoff.next()).toBe(900);
    expect(backoff.next()).toBe(1800);
    const largest = createBackoff({ clock: new FakeClock(), random: () => 0.999_999 });
    const delays = Array.from({ length: 6 }, () => largest.next());
    expect(Math.max(...delays)).toBeLessThan(4_000);
  });

  it('follows client-go with maxMs 30 s and jitter 1', () => {
    const backoff = createBackoff({
      clock: new FakeClock(),
      random: () => 0.5,
      maxMs: 30_000,
      jitter: 1,
    });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([1200, 2400, 4800, 9600, 19_200, 38_400, 45_000, 45_000]);
  });

  it('starts again from the initial delay on reset()', () => {
    const backoff = createBackoff({ clock: new FakeClock(), random: () => 0 });
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(800);
  });

  it('starts again from the initial delay after two quiet minutes', async () => {
    const clock = new FakeClock();
    const backoff = createBackoff({ clock, random: () => 0 });
    backoff.next();
    backoff.next();
    await clock.advance(120_000);
    expect(backoff.next()).toBe(3200);
    await clock.advance(120_001);
    expect(backoff.next()).toBe(800);
  });

  it('rejects invalid options with a RangeError naming them', () => {
    expect(() => createBackoff({ initialMs: 0 })).toThrow(/initialMs/);
    expect(() => createBackoff({ jitter: -1 })).toThrow(/jitter/);
  });
});
