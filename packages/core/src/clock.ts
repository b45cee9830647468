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
 * **Gotchas**: timers are `unref`'d, so a pending lasso timer never keeps a process alive on its own;
 * whatever waits on it (a worker, an informer run) holds the process through its own I/O or promise.
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonic: () => performance.now(),
  schedule: (delayMs: number, callback: () => void): TimerHandle => {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
});
