// Backoff for the reflector's retries: exponential with jitter, reset after a quiet period.
// Ports client-go wait.NewExponentialBackoffManager as reflector.go configures it (800 ms, x2, reset after 2 min), with
// a lower cap and jitter (3.2 s, +0..25 %) so that an informer is back within seconds once its server is (issue 19).
import { type Clock, systemClock } from '@lasso/core';

/** Options of {@link createBackoff}. */
export interface BackoffOptions {
  /** First delay. Default 800 ms. */
  initialMs?: number | undefined;
  /** Cap of the un-jittered delay. Default 3.2 s (client-go: 30 s). */
  maxMs?: number | undefined;
  /** When this long has passed since the previous `next()`, start again from `initialMs`. Default 2 min. */
  resetAfterMs?: number | undefined;
  /** Growth per step. Default 2. */
  factor?: number | undefined;
  /** A delay `d` becomes `d + random() * jitter * d`. Default 0.25 (client-go: 1). */
  jitter?: number | undefined;
  clock?: Clock | undefined;
  /** Source of randomness in [0, 1). Default `Math.random`. */
  random?: (() => number) | undefined;
}

/** An exponential backoff: each `next()` returns the delay to wait before the next attempt. */
export interface Backoff {
  /** The next delay in ms (jittered), and grow the base for the call after. */
  next(): number;
  /** Start again from the initial delay. */
  reset(): void;
}

/**
 * Create the reflector's backoff. Delays before jitter: 800, 1600, 3200, 3200, ... ms (capped at 3.2 s); with
 * the default jitter of 0.25 each delay `d` is drawn from [d, 1.25d), so no delay exceeds 4 s. The sequence
 * restarts from 800 ms when the previous `next()` was more than 2 minutes ago, or on `reset()` (the reflector
 * resets it after a healthy watch).
 *
 * @example
 * ```ts
 * const backoff = createBackoff({ maxMs: 30_000, jitter: 1 }); // client-go's reflector backoff
 * const delayMs = backoff.next(); // 800..1600 ms
 * backoff.reset();
 * ```
 */
export function createBackoff(options: BackoffOptions = {}): Backoff {
  const initialMs = positive(options.initialMs ?? 800, 'initialMs');
  const maxMs = positive(options.maxMs ?? 3_200, 'maxMs');
  const resetAfterMs = positive(options.resetAfterMs ?? 120_000, 'resetAfterMs');
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 0.25;
  if (!(factor >= 1)) throw new RangeError(`createBackoff: factor must be >= 1, got ${factor}`);
  if (!(jitter >= 0)) throw new RangeError(`createBackoff: jitter must be >= 0, got ${jitter}`);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  let base = Math.min(initialMs, maxMs);
  let last: number | undefined;
  return {
    next() {
      const now = clock.monotonic();
      if (last !== undefined && now - last > resetAfterMs) base = Math.min(initialMs, maxMs);
      last = now;
      const delay = base;
      base = Math.min(base * factor, maxMs);
      return jitter > 0 ? delay + random() * jitter * delay : delay;
    },
    reset() {
      base = Math.min(initialMs, maxMs);
      last = undefined;
    },
  };
}

function positive(value: number, name: string): number {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`createBackoff: ${name} must be a positive number of ms, got ${value}`);
  }
  return value;
}
