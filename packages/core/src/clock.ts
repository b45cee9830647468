// Clock: the only source of time inside lasso, so tests can advance time instead of sleeping.

/** Options of {@link Clock.schedule}. */
export interface ScheduleOptions {
  /**
   * Keep the process alive while the timer is pending (Node's default for `setTimeout`). Default
   * `false`: housekeeping timers (metric refreshes, resyncs) never hold a process open on their own.
   * Pass `true` for a wait that something awaits, such as `sleep` or a delayed queue item, so
   * a script that only awaits it does not exit early (Node ends a process with nothing ref'd, even
   * with promises pending).
   */
  keepAlive?: boolean | undefined;
}

/** A timer handle returned by {@link Clock.schedule}. */
export interface TimerHandle {
  /** Cancel the timer; a no-op when it already fired or was cancelled. */
  cancel(): void;
}

/**
 * The only source of time inside lasso; tests pass a `FakeClock` from `@lasso/core/testing`.
 *
 * @example
 * ```ts
 * const timer = systemClock.schedule(1_000, () => logger.info('one second later'));
 * timer.cancel();
 * ```
 */
export interface Clock {
  /** Wall-clock epoch ms. May jump: use for timestamps only, never for durations. */
  now(): number;
  /** Monotonic ms from an arbitrary origin: subtract two readings to get elapsed time. */
  monotonic(): number;
  /**
   * Run `callback` once after `delayMs` (negative and NaN mean 0; `Infinity` never fires). The
   * timer does not keep the process alive unless `options.keepAlive` is set.
   */
  schedule(delayMs: number, callback: () => void, options?: ScheduleOptions): TimerHandle;
}

// setTimeout fires at once (with a warning) for delays above 2^31-1 ms, so longer waits re-arm in steps.
const maxTimerDelayMs = 2_147_483_647;

// Decided once: a runtime without `process.hrtime` (a browser bundle) reads `performance.now()` instead.
const hasHrtime = typeof process === 'object' && typeof process?.hrtime === 'function';

/** CLOCK_MONOTONIC in ms; `process.hrtime()` is looked up per call (spies) and, inlined, its array never exists. */
function monotonicMs(): number {
  if (!hasHrtime) return performance.now();
  const time = process.hrtime();
  return (time[0] as number) * 1e3 + (time[1] as number) / 1e6;
}

/**
 * The real clock: `Date.now`, `process.hrtime` (`performance.now` where there is no `process.hrtime`) and
 * `setTimeout`, each looked up at call time so spies on the globals still work.
 *
 * `monotonic()` is CLOCK_MONOTONIC in milliseconds (sub-microsecond resolution) from an arbitrary origin
 * (typically the host's boot, not the process start as for `performance.now()`): subtract two readings, never
 * compare one with `performance.now()`. Read through `process.hrtime()`, it allocates nothing once optimised,
 * unlike `performance.now()`, whose result is boxed on the heap; hot paths (the workqueue's metrics) read it per
 * item.
 *
 * @example
 * ```ts
 * const started = systemClock.monotonic();
 * await sleep(systemClock, 100);
 * logger.info('slept', { ms: systemClock.monotonic() - started });
 * ```
 *
 * Delays longer than setTimeout's 2^31-1 ms limit are honoured (re-armed in steps); an infinite delay never
 * fires.
 *
 * **Gotchas**: timers are `unref`'d unless scheduled with `{ keepAlive: true }`, so a housekeeping timer
 * never keeps a process alive on its own. A pending promise does not hold a Node process either: waits
 * that a caller awaits (`sleep`, delayed queue items) ask for `keepAlive`.
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonic: monotonicMs,
  schedule: (delayMs: number, callback: () => void, options?: ScheduleOptions): TimerHandle => {
    // Infinity stays Infinity, so it re-arms forever and never fires; NaN fires at once, like setTimeout.
    let remainingMs = Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs);
    const keepAlive = options?.keepAlive === true;
    let timer: ReturnType<typeof setTimeout>;
    const arm = (): void => {
      const stepMs = Math.min(remainingMs, maxTimerDelayMs);
      if (remainingMs !== Number.POSITIVE_INFINITY) remainingMs -= stepMs;
      timer = setTimeout(remainingMs > 0 ? arm : callback, stepMs);
      if (!keepAlive) timer.unref?.();
    };
    arm();
    return { cancel: () => clearTimeout(timer) };
  },
});
