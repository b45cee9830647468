// Behaviours of client-go util/retry/util_test.go (TestRetryOnConflict) and wait.Backoff's step rule.
import { ApiError } from '@lasso/client';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  defaultBackoff,
  defaultRetry,
  type RetryBackoff,
  retryOnConflict,
} from './retry-on-conflict.ts';

const conflict = (): ApiError =>
  new ApiError({ status: 409, reason: 'Conflict', message: 'the object has been modified' });

/** An fn that fails with `errors` in turn, then resolves `value`; records the clock at each call. */
function scripted<T>(clock: FakeClock, errors: unknown[], value: T) {
  const calls: number[] = [];
  const fn = async (): Promise<T> => {
    calls.push(clock.monotonic());
    const next = errors.shift();
    if (next !== undefined) throw next;
    return value;
  };
  return { fn, calls };
}

describe('retryOnConflict', () => {
  it('resolves the result of the first successful call without waiting', async () => {
    const clock = new FakeClock();
    const { fn, calls } = scripted(clock, [], 'done');
    await expect(retryOnConflict(fn, { clock })).resolves.toBe('done');
    expect(calls).toEqual([0]);
    expect(clock.pendingTimers()).toBe(0);
  });

  // TestRetryOnConflict: conflicts are retried with defaultRetry's 10 ms steps.
  it('retries conflicts 10 ms apart with the default backoff', async () => {
    const clock = new FakeClock();
    const { fn, calls } = scripted(clock, [conflict(), conflict()], 'done');
    const result = retryOnConflict(fn, { clock, random: () => 0 });
    await clock.advance(9);
    expect(calls).toEqual([0]);
    await clock.advance(20);
    await expect(result).resolves.toBe('done');
    expect(calls).toEqual([0, 10, 20]);
  });

  it('rejects with the last conflict once the steps are used up', async () => {
    const clock = new FakeClock();
    const errors = [conflict(), conflict(), conflict(), conflict(), conflict(), conflict()];
    const last = errors[4];
    const { fn, calls } = scripted(clock, errors, 'never');
    const result = retryOnConflict(fn, { clock, random: () => 0 });
    const settled = result.catch((error: unknown) => error);
    await clock.advance(1_000);
    expect(await settled).toBe(last);
    expect(calls).toEqual([0, 10, 20, 30, 40]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('rethrows an error that is not a conflict at once', async () => {
    const clock = new FakeClock();
    const notFound = new ApiError({ status: 404, reason: 'NotFound' });
    const { fn, calls } = scripted(clock, [conflict(), notFound], 'never');
    const settled = retryOnConflict(fn, { clock, random: () => 0 }).catch(
      (error: unknown) => error,
    );
    await clock.advance(1_000);
    expect(await settled).toBe(notFound);
    expect(calls).toEqual([0, 10]);
  });

  it('rethrows a synchronous throw of fn that is not a conflict', async () => {
    const boom = new TypeError('boom');
    await expect(
      retryOnConflict(
        () => {
          throw boom;
        },
        { clock: new FakeClock() },
      ),
    ).rejects.toBe(boom);
  });

  it.for<{ name: string; backoff: RetryBackoff; random: number; expected: number[] }>([
    {
      name: 'grows the wait by factor (defaultBackoff: 10, 50, 250 ms)',
      backoff: { ...defaultBackoff, jitter: 0 },
      random: 0,
      expected: [0, 10, 60, 310],
    },
    {
      name: 'adds up to jitter times the wait',
      backoff: { steps: 3, durationMs: 100, factor: 1, jitter: 0.5 },
      random: 0.5,
      expected: [0, 125, 250],
    },
    {
      name: 'keeps the wait when factor is 0, as client-go does',
      backoff: { steps: 3, durationMs: 10, factor: 0, jitter: 0 },
      random: 0,
      expected: [0, 10, 20],
    },
    {
      name: 'calls once when steps is 1',
      backoff: { steps: 1, durationMs: 10, factor: 1, jitter: 0 },
      random: 0,
      expected: [0],
    },
  ])('$name', async ({ backoff, random, expected }) => {
    const clock = new FakeClock();
    const errors = Array.from({ length: 10 }, conflict);
    const { fn, calls } = scripted(clock, errors, 'never');
    const settled = retryOnConflict(fn, { clock, backoff, random: () => random }).catch(
      (error: unknown) => error,
    );
    await clock.advance(10_000);
    expect(await settled).toBeInstanceOf(ApiError);
    expect(calls).toEqual(expected);
  });

  it('retries what isRetryable accepts instead of conflicts (retry.OnError)', async () => {
    const clock = new FakeClock();
    const busy = new ApiError({ status: 429, reason: 'TooManyRequests' });
    const { fn, calls } = scripted(clock, [busy, busy], 'done');
    const result = retryOnConflict(fn, {
      clock,
      random: () => 0,
      isRetryable: (error) => error === busy,
    });
    await clock.advance(100);
    await expect(result).resolves.toBe('done');
    expect(calls).toEqual([0, 10, 20]);
    const other = scripted(clock, [conflict()], 'never');
    await expect(
      retryOnConflict(other.fn, { clock, isRetryable: (error) => error === busy }),
    ).rejects.toBeInstanceOf(ApiError);
  });

  it('treats a throwing isRetryable as not retryable and rethrows the error of fn', async () => {
    const clock = new FakeClock();
    const error = conflict();
    const { fn, calls } = scripted(clock, [error], 'never');
    const hostile = (): boolean => {
      throw new Error('predicate broke');
    };
    await expect(retryOnConflict(fn, { clock, isRetryable: hostile })).rejects.toBe(error);
    expect(calls).toEqual([0]);
  });

  it('rejects with the signal reason when aborted during a wait and calls fn no more', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const { fn, calls } = scripted(clock, [conflict(), conflict()], 'never');
    const settled = retryOnConflict(fn, { clock, signal: controller.signal }).catch(
      (error: unknown) => error,
    );
    await clock.advance(5);
    const reason = new Error('shutting down');
    controller.abort(reason);
    expect(await settled).toBe(reason);
    await clock.advance(1_000);
    expect(calls).toEqual([0]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('does not call fn when the signal is already aborted', async () => {
    const clock = new FakeClock();
    const { fn, calls } = scripted(clock, [], 'never');
    const reason = new Error('gone');
    await expect(retryOnConflict(fn, { clock, signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(calls).toEqual([]);
  });

  it('exports client-go defaults', () => {
    expect(defaultRetry).toEqual({ steps: 5, durationMs: 10, factor: 1, jitter: 0.1 });
    expect(defaultBackoff).toEqual({ steps: 4, durationMs: 10, factor: 5, jitter: 0.1 });
    expect(Object.isFrozen(defaultRetry)).toBe(true);
  });

  it.for([
    {
      name: 'steps 0',
      backoff: { steps: 0, durationMs: 10, factor: 1, jitter: 0 },
      match: /steps/,
    },
    {
      name: 'steps 1.5',
      backoff: { steps: 1.5, durationMs: 10, factor: 1, jitter: 0 },
      match: /steps/,
    },
    {
      name: 'negative durationMs',
      backoff: { steps: 2, durationMs: -1, factor: 1, jitter: 0 },
      match: /durationMs/,
    },
    {
      name: 'NaN factor',
      backoff: { steps: 2, durationMs: 1, factor: Number.NaN, jitter: 0 },
      match: /factor/,
    },
    {
      name: 'negative jitter',
      backoff: { steps: 2, durationMs: 1, factor: 1, jitter: -1 },
      match: /jitter/,
    },
  ])('throws a RangeError naming the field for a backoff with $name', ({ backoff, match }) => {
    expect(() => retryOnConflict(() => 'x', { backoff })).toThrow(RangeError);
    expect(() => retryOnConflict(() => 'x', { backoff })).toThrow(match);
  });

  it('throws a TypeError for a missing fn or a non-function isRetryable', () => {
    expect(() => retryOnConflict(undefined as never)).toThrow(TypeError);
    expect(() => retryOnConflict(() => 1, { isRetryable: 5 as never })).toThrow(/isRetryable/);
  });
});
