// runUntilShutdown on a fake process (an EventEmitter with an exit spy), fake lifecycle objects and FakeClock:
// no real signal reaches the test process and no real time passes.
import { EventEmitter } from 'node:events';
import {
  drainedResult,
  type Lifecycle,
  type ShutdownSignalTarget,
  type StopResult,
} from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { runUntilShutdown, type ShutdownOutcome, shutdownExitCodes } from './process-shutdown.ts';

function fakeProcess(): EventEmitter & ShutdownSignalTarget & { exits: number[] } {
  const exits: number[] = [];
  return Object.assign(new EventEmitter(), {
    exits,
    exit: (code: number) => {
      exits.push(code);
    },
  });
}

interface FakeLifecycle extends Lifecycle {
  readonly calls: string[];
  /** The signal of the last start. */
  signal(): AbortSignal | undefined;
  /** End the run by itself (e.g. leadership lost). */
  endOnItsOwn(result?: StopResult): void;
}

/**
 * A lifecycle object whose stop settles `stopped()` with `result` once its signal aborts; with `hang`, its
 * stop never settles (a handler that ignores its signal, in an object without a bound of its own).
 */
function fakeLifecycle(
  options: { result?: StopResult; hang?: 'stop' | 'close'; startError?: Error } = {},
): FakeLifecycle {
  const calls: string[] = [];
  let signal: AbortSignal | undefined;
  let end: ((result: StopResult) => void) | undefined;
  let run: Promise<StopResult> | undefined;
  return {
    calls,
    signal: () => signal,
    endOnItsOwn: (result = drainedResult) => end?.(result),
    async start(startSignal) {
      calls.push('start');
      if (options.startError !== undefined) throw options.startError;
      signal = startSignal;
      run = new Promise<StopResult>((resolve) => {
        end = resolve;
        if (options.hang === 'stop') return;
        startSignal.addEventListener('abort', () => resolve(options.result ?? drainedResult), {
          once: true,
        });
      });
    },
    async stopped() {
      calls.push('stopped');
      return run ?? drainedResult;
    },
    isRunning: () => run !== undefined,
    async close() {
      calls.push('close');
      if (options.hang === 'close') await new Promise(() => {});
    },
    [Symbol.asyncDispose]: async () => {},
  };
}

function setup(
  lifecycles: Lifecycle | Lifecycle[],
  options: { cleanup?: () => Promise<void> } = {},
) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const target = fakeProcess();
  let outcome: ShutdownOutcome | undefined;
  const running = runUntilShutdown(lifecycles, {
    gracefulShutdownTimeoutMs: 3_000,
    closeTimeoutMs: 500,
    logger,
    clock,
    process: target,
    ...options,
  }).then((value) => {
    outcome = value;
    return value;
  });
  return { clock, logger, target, running, outcome: () => outcome };
}

describe('runUntilShutdown', () => {
  it('starts, stops at SIGINT, closes, cleans up and exits 0 when the stop drained', async () => {
    const object = fakeLifecycle();
    const cleaned: unknown[] = [];
    const t = setup(object, {
      cleanup: async () => {
        cleaned.push(object.calls.at(-1));
      },
    });
    await t.clock.advance(0);
    expect(object.calls).toContain('start');
    expect(object.signal()?.aborted).toBe(false);
    expect(t.target.listenerCount('SIGINT')).toBe(1);
    expect(t.target.listenerCount('SIGTERM')).toBe(1);
    expect(t.logger.find('running until SIGINT or SIGTERM')).toHaveLength(1);

    t.target.emit('SIGINT', 'SIGINT');
    const outcome = await t.running;
    expect(object.signal()?.aborted).toBe(true);
    expect(String((object.signal()?.reason as Error | undefined)?.message)).toBe('received SIGINT');
    expect(object.calls.slice(-1)).toEqual(['close']);
    expect(cleaned).toEqual(['close']);
    expect(outcome).toMatchObject({ code: 0, cause: 'signal', signal: 'SIGINT', drained: true });
    expect(t.target.exits).toEqual([shutdownExitCodes.drained]);
    expect(t.target.listenerCount('SIGINT')).toBe(0);
    expect(t.target.listenerCount('SIGTERM')).toBe(0);
    expect(t.clock.pendingTimers()).toBe(0);
    expect(t.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('exits with notDrained at the bound when a stop never settles (a handler ignores its signal)', async () => {
    const object = fakeLifecycle({ hang: 'stop' });
    const t = setup(object);
    await t.clock.advance(0);
    t.target.emit('SIGTERM', 'SIGTERM');
    await t.clock.advance(3_499);
    expect(t.target.exits).toEqual([]);
    await t.clock.advance(1);
    expect(t.target.exits).toEqual([shutdownExitCodes.notDrained]);
    const outcome = await t.running;
    expect(outcome).toMatchObject({ code: 3, cause: 'signal', signal: 'SIGTERM', drained: false });
    expect(outcome.pending).toEqual(['stop of lifecycles[0]']);
    const [entry] = t.logger.find('shutdown bound passed');
    expect(entry?.level).toBe('error');
    expect(entry?.attributes).toMatchObject({
      pending: 'stop of lifecycles[0]',
      exitWithinMs: 3_500,
    });
  });

  it('exits with notDrained when a stop reports that it did not drain, naming what ran', async () => {
    const object = fakeLifecycle({ result: { drained: false, pending: ['Icecream ns/a'] } });
    const t = setup(object);
    await t.clock.advance(0);
    t.target.emit('SIGINT', 'SIGINT');
    const outcome = await t.running;
    expect(outcome).toMatchObject({ code: 3, drained: false, pending: ['Icecream ns/a'] });
    expect(object.calls).toContain('close');
    expect(t.logger.find('stop did not drain')[0]?.attributes).toMatchObject({
      pending: 'Icecream ns/a',
    });
  });

  it('exits at the bound when close hangs', async () => {
    const t = setup(fakeLifecycle({ hang: 'close' }));
    await t.clock.advance(0);
    t.target.emit('SIGINT', 'SIGINT');
    await t.clock.advance(3_500);
    expect(t.target.exits).toEqual([3]);
    expect((await t.running).pending).toEqual(['close of lifecycles[0]']);
  });

  it('exits at once, 128 + the signal number, at a second signal', async () => {
    const t = setup(fakeLifecycle({ hang: 'stop' }));
    await t.clock.advance(0);
    t.target.emit('SIGINT', 'SIGINT');
    await t.clock.advance(100);
    t.target.emit('SIGINT', 'SIGINT');
    expect(t.target.exits).toEqual([130]);
    expect(t.logger.find('second shutdown signal received')[0]?.level).toBe('error');
    await t.running;
    // Nothing more: the bound's timer was released, the listeners removed.
    await t.clock.advance(10_000);
    expect(t.target.exits).toEqual([130]);
    expect(t.target.listenerCount('SIGINT')).toBe(0);
  });

  it('stops the started objects and exits 1 when a start fails', async () => {
    const first = fakeLifecycle();
    const second = fakeLifecycle({ startError: new Error('no API server') });
    const third = fakeLifecycle();
    const t = setup([first, second, third]);
    const outcome = await t.running;
    expect(outcome).toMatchObject({ code: 1, cause: 'startFailed', drained: true });
    expect((outcome.error as Error).message).toBe('no API server');
    expect(first.signal()?.aborted).toBe(true);
    expect(third.calls).not.toContain('start');
    for (const object of [first, second, third]) expect(object.calls).toContain('close');
    expect(t.logger.find('start failed')[0]?.attributes).toMatchObject({ error: 'no API server' });
    expect(t.target.exits).toEqual([1]);
  });

  it('treats a start ended by the signal as a requested stop', async () => {
    const clock = new FakeClock();
    const target = fakeProcess();
    const waiting: Lifecycle = {
      ...fakeLifecycle(),
      start: (signal) =>
        new Promise<void>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
    };
    const running = runUntilShutdown(waiting, {
      clock,
      process: target,
      logger: createTestLogger(),
    });
    await clock.advance(0);
    target.emit('SIGINT', 'SIGINT');
    expect(await running).toMatchObject({ code: 0, cause: 'signal' });
  });

  it('stops the rest and exits 1 when an object stops on its own (leadership lost)', async () => {
    const leader = fakeLifecycle();
    const other = fakeLifecycle();
    const t = setup([leader, other]);
    await t.clock.advance(0);
    leader.endOnItsOwn();
    const outcome = await t.running;
    expect(outcome).toMatchObject({ code: 1, cause: 'stoppedOnItsOwn', signal: undefined });
    expect(other.signal()?.aborted).toBe(true);
    expect(t.logger.find('stopped without a shutdown signal')[0]?.level).toBe('error');
    expect(t.target.exits).toEqual([1]);
  });

  it('logs a failing cleanup and exits notDrained', async () => {
    const t = setup(fakeLifecycle(), {
      cleanup: async () => {
        throw new Error('port still bound');
      },
    });
    await t.clock.advance(0);
    t.target.emit('SIGTERM', 'SIGTERM');
    expect(await t.running).toMatchObject({ code: 3, drained: false });
    expect(t.logger.find('cleanup failed')[0]?.attributes).toMatchObject({
      error: 'port still bound',
    });
  });

  it('throws a TypeError or RangeError naming a bad argument', () => {
    const target = fakeProcess();
    expect(() => runUntilShutdown([], { process: target })).toThrow(/lifecycles must not be empty/);
    expect(() => runUntilShutdown({} as never, { process: target })).toThrow(/lifecycles\[0\]/);
    expect(() => runUntilShutdown(fakeLifecycle(), { process: {} as never })).toThrow(/process/);
    expect(() =>
      runUntilShutdown(fakeLifecycle(), { process: target, gracefulShutdownTimeoutMs: -1 }),
    ).toThrow(RangeError);
    expect(() =>
      runUntilShutdown(fakeLifecycle(), { process: target, closeTimeoutMs: Number.NaN }),
    ).toThrow(/closeTimeoutMs/);
    expect(() => runUntilShutdown(fakeLifecycle(), { process: target, signals: [] })).toThrow(
      /signals/,
    );
    expect(target.listenerCount('SIGINT')).toBe(0);
  });
});
