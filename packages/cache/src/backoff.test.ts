import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createBackoff } from './backoff.ts';

describe('createBackoff', () => {
  it('doubles from 800 ms and stops growing at 30 s without jitter draws', () => {
    const backoff = createBackoff({ clock: new FakeClock(), random: () => 0 });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  it('adds up to one full delay of jitter', () => {
    const backoff = createBackoff({ clock: new FakeClock(), random: () => 0.5 });
    expect(backoff.next()).toBe(1200);
    expect(backoff.next()).toBe(2400);
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
