// Clock: the only source of time inside lasso, so tests can advance time instead of sleeping.

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
  /** Run `callback` once after `delayMs` (clamped to >= 0). */
  schedule(delayMs: number, callback: () => void): TimerHandle;
}

/**
 * The real clock: `Date.now`, `performance.now` and `setTimeout`, each looked up at call time so
 * spies on the globals still work.
 *
 * Delays longer than setTimeout's 2^31-1 ms limit are honoured (re-armed in steps); an infinite delay never
 * fires.
 *
 * **Gotchas**: timers are `unref`'d, so a pending lasso timer never keeps a process alive on its own;
 * whatever waits on it (a worker, an informer run) holds the process through its own I/O or promise.
 */
// setTimeout fires at once (with a warning) for delays above 2^31-1 ms, so longer waits re-arm in steps.
const maxTimerDelayMs = 2_147_483_647;

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonic: () => performance.now(),
  schedule: (delayMs: number, callback: () => void): TimerHandle => {
    let remainingMs = Math.max(0, Number.isFinite(delayMs) ? delayMs : maxTimerDelayMs);
    let timer: ReturnType<typeof setTimeout>;
    const arm = (): void => {
      const stepMs = Math.min(remainingMs, maxTimerDelayMs);
      remainingMs -= stepMs;
      timer = setTimeout(remainingMs > 0 ? arm : callback, stepMs);
      timer.unref?.();
    };
    arm();
    return { cancel: () => clearTimeout(timer) };
  },
});
