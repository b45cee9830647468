// The one lifecycle shape of every long-lived lasso object (informer, cache factory, controller, shared controller,
// controller factory, leader elector, event recorder, API server, dynamic controller, SQL cache factory, webhook
// server, operator: tooling/lifecycle's type test checks each), and the bounded drain they share.
import type { Clock } from './clock.ts';

/**
 * How a stop ended: what a long-lived object's {@link Lifecycle.stopped} promise settles with.
 *
 * `drained` is false when the graceful-shutdown bound passed before everything the object started had stopped;
 * `pending` then names what was still running (a controller's in-flight keys as `kind namespace/name`, an
 * informer's name), so the caller can log it. Work left running is not killed (JavaScript cannot), but its
 * signals have aborted.
 */
export interface StopResult {
  /** True when everything the object started had stopped within the bound. */
  readonly drained: boolean;
  /** What was still running when the bound passed; empty when drained. */
  readonly pending: readonly string[];
}

/**
 * The default drain bound of every long-lived lasso object (`gracefulShutdownTimeoutMs`): 30 s, as
 * controller-runtime's manager. One constant, so the controller, the factories, the leader elector, the SQL cache
 * and the other objects cannot drift apart.
 *
 * @example
 * ```ts
 * const bound = process.env.SHUTDOWN_MS ? Number(process.env.SHUTDOWN_MS) : defaultGracefulShutdownTimeoutMs;
 * ```
 */
export const defaultGracefulShutdownTimeoutMs = 30_000;

/** The {@link StopResult} of a stop that drained (or of an object that was not running). */
export const drainedResult: StopResult = Object.freeze({
  drained: true,
  pending: Object.freeze([]),
});

/**
 * The lifecycle shape every long-lived lasso object has:
 *
 * - **start** with an `AbortSignal` (the start method's first argument; a controller also takes its
 *   optional worker count, lasso's `start(signal, workers?)`); aborting the signal begins the stop;
 * - **stopped()** settles once everything the object started has stopped, with a {@link StopResult} that says
 *   whether the drain finished within its bound; it resolves at once (drained) when the object is not running;
 * - **restartable**: after a stop, `start` with a new signal runs it again, without building a new object;
 * - **close()** stops it if running and releases what it created (clients, transports, timers, sockets, child
 *   processes); a closed object cannot start again. `Symbol.asyncDispose` is `close`, for `await using`.
 *
 * @example
 * ```ts
 * async function runFor(object: Lifecycle, ms: number): Promise<StopResult> {
 *   const stop = new AbortController();
 *   await object.start(stop.signal);
 *   setTimeout(() => stop.abort(), ms);
 *   const result = await object.stopped();
 *   await object.close();
 *   return result;
 * }
 * ```
 */
export interface Lifecycle {
  /** Start; aborting `signal` stops. Idempotent while running. */
  start(signal: AbortSignal): Promise<void>;
  /** Settles once everything started has stopped (at once when not running). */
  stopped(): Promise<StopResult>;
  /** True from a successful start until the stop that follows its signal's abort has finished. */
  isRunning(): boolean;
  /** Stop (when running) and release everything the object created. Idempotent. */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Wait for `work` to settle, at most `timeoutMs` on `clock`: a drained {@link StopResult} when it settled in
 * time (whether it resolved or rejected: a stop never fails), otherwise `drained: false` with `pending()` read at
 * the moment the bound passed. The timer is released either way; `Infinity` waits without a bound.
 *
 * @example
 * ```ts
 * const result = await drainWithin(systemClock, Promise.resolve(), 30_000, () => []);
 * if (!result.drained) console.error('still running', result.pending);
 * ```
 */
export function drainWithin(
  clock: Clock,
  work: Promise<unknown>,
  timeoutMs: number,
  pending: () => readonly string[],
): Promise<StopResult> {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new RangeError(`drainWithin: timeoutMs must be a number >= 0, got ${String(timeoutMs)}`);
  }
  const settled = work.then(
    () => drainedResult,
    () => drainedResult,
  );
  if (timeoutMs === Number.POSITIVE_INFINITY) return settled;
  return new Promise<StopResult>((resolve) => {
    // keepAlive: a process whose only remaining work is this bounded wait must still reach its end.
    const timer = clock.schedule(
      timeoutMs,
      () => {
        let names: readonly string[];
        try {
          names = [...pending()];
        } catch {
          names = ['(pending work could not be listed)'];
        }
        resolve(Object.freeze({ drained: false, pending: Object.freeze(names) }));
      },
      { keepAlive: true },
    );
    void settled.then((result) => {
      timer.cancel();
      resolve(result);
    });
  });
}
