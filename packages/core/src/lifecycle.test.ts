import { describe, expect, it } from 'vitest';
import { drainedResult, drainWithin } from './lifecycle.ts';
import { FakeClock } from './testing/index.ts';

describe('drainWithin', () => {
  it('is drained when the work settles before the bound, resolved or rejected', async () => {
    const clock = new FakeClock();
    await expect(drainWithin(clock, Promise.resolve(1), 1_000, () => ['x'])).resolves.toEqual(
      drainedResult,
    );
    await expect(
      drainWithin(clock, Promise.reject(new Error('x')), 1_000, () => ['x']),
    ).resolves.toEqual(drainedResult);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('settles undrained with what is pending once the bound passes', async () => {
    const clock = new FakeClock();
    const result = drainWithin(clock, new Promise(() => {}), 30_000, () => [
      'configmaps default/a',
    ]);
    await clock.advance(29_999);
    let settled = false;
    void result.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await clock.advance(1);
    await expect(result).resolves.toEqual({ drained: false, pending: ['configmaps default/a'] });
  });

  it('survives a pending() that throws, and refuses a bad bound', async () => {
    const clock = new FakeClock();
    const result = drainWithin(clock, new Promise(() => {}), 0, () => {
      throw new Error('boom');
    });
    await clock.advance(0);
    await expect(result).resolves.toMatchObject({ drained: false });
    expect(() => drainWithin(clock, Promise.resolve(), -1, () => [])).toThrow(RangeError);
    expect(() => drainWithin(clock, Promise.resolve(), Number.NaN, () => [])).toThrow(RangeError);
  });
});
