import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { InactivityTimer } from './inactivity-timer.ts';

function timer(timeoutMs: number) {
  const clock = new FakeClock();
  const expired: number[] = [];
  const deadline = new InactivityTimer({
    clock,
    timeoutMs,
    onExpire: (idle) => expired.push(idle),
  });
  return { clock, expired, deadline };
}

describe('InactivityTimer', () => {
  it('expires once after timeoutMs without activity, with the quiet time', async () => {
    const { clock, expired } = timer(1000);
    await clock.advance(999);
    expect(expired).toEqual([]);
    await clock.advance(1);
    expect(expired).toEqual([1000]);
    await clock.advance(5000);
    expect(expired).toEqual([1000]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('moves the deadline with touch() and keeps one timer', async () => {
    const { clock, expired, deadline } = timer(1000);
    await clock.advance(600);
    deadline.touch();
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(999);
    expect(expired).toEqual([]);
    await clock.advance(601);
    expect(expired).toEqual([1000]);
  });

  it('does not expire between hold() and release(); release counts as activity', async () => {
    const { clock, expired, deadline } = timer(1000);
    deadline.hold();
    await clock.advance(10_000);
    expect(expired).toEqual([]);
    deadline.release();
    await clock.advance(999);
    expect(expired).toEqual([]);
    await clock.advance(1001);
    expect(expired).toHaveLength(1);
  });

  it('cancel() leaves no timer and never expires', async () => {
    const { clock, expired, deadline } = timer(1000);
    deadline.cancel();
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(5000);
    expect(expired).toEqual([]);
  });

  it('runs no timer for a timeout of 0', () => {
    const { clock } = timer(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses a NaN timeout and a missing callback', () => {
    const clock = new FakeClock();
    expect(() => new InactivityTimer({ clock, timeoutMs: Number.NaN, onExpire: () => {} })).toThrow(
      RangeError,
    );
    expect(
      () =>
        new InactivityTimer({ clock, timeoutMs: 1, onExpire: undefined as unknown as () => void }),
    ).toThrow('InactivityTimer: onExpire must be a function');
  });
});
