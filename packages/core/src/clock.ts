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

/**
 * The real clock: `Date.now`, `performance.now` and `setTimeout`, each looked up at call time so
 * spies on the globals still work.
 *
 * Delays longer than setTimeout's 2^31-1 ms limit are honoured (re-armed in steps); an infinite delay never
 * fires.
 *
 * **Gotchas**: timers are `unref`'d unless scheduled with `{ keepAlive: true }`, so a housekeeping timer
 * never keeps a process alive on its own. A pending promise does not hold a Node process either: waits
 * that a caller awaits (`sleep`, delayed queue items) ask for `keepAlive`.
 */
// setTimeout fires at once (with a warning) for delays above 2^31-1 ms, so longer waits re-arm in steps.
const maxTimerDelayMs = 2_147_483_647;

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonic: () => performance.now(),
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
