// Retry a read-modify-write while it loses optimistic-concurrency races. Ports client-go util/retry
// (RetryOnConflict, OnError, DefaultRetry, DefaultBackoff) on wait.ExponentialBackoff's step rule.
import { isConflict } from '@lasso/client';
import { abortReason, type Clock, sleep, systemClock } from '@lasso/core';

/** How often and how long {@link retryOnConflict} waits (client-go's `wait.Backoff`, without `Cap`). */
export interface RetryBackoff {
  /** Calls of `fn` at most, the first included (>= 1). */
  readonly steps: number;
  /** Wait before the second call, in ms (>= 0). */
  readonly durationMs: number;
  /** Each further wait is the previous one times `factor` (>= 0; 0 and 1 keep it constant). */
  readonly factor: number;
  /** A wait `d` becomes `d + random() * jitter * d` (>= 0). */
  readonly jitter: number;
}

/**
 * client-go's `DefaultRetry`: 5 calls, 10 ms apart (+ up to 10 % jitter). The default of
 * {@link retryOnConflict}: for conflicts with other writers of the same object, which resolve quickly.
 */
export const defaultRetry: RetryBackoff = Object.freeze({
  steps: 5,
  durationMs: 10,
  factor: 1,
  jitter: 0.1,
});

/**
 * client-go's `DefaultBackoff`: 4 calls, waits of 10, 50, 250 ms (+ up to 10 % jitter). For errors that
 * need the system to settle, e.g. with `isRetryable` matching something other than a conflict.
 */
export const defaultBackoff: RetryBackoff = Object.freeze({
  steps: 4,
  durationMs: 10,
  factor: 5,
  jitter: 0.1,
});

/** Options of {@link retryOnConflict}. */
export interface RetryOnConflictOptions {
  /** Attempts and waits (default {@link defaultRetry}). */
  backoff?: RetryBackoff | undefined;
  /** Which errors to retry (default `isConflict` from `@lasso/client`: a 409 Conflict). */
  isRetryable?: ((error: unknown) => boolean) | undefined;
  /** Stops waiting between attempts: the promise rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Time source for the waits (default `systemClock`). */
  clock?: Clock | undefined;
  /** Source of randomness in [0, 1) for the jitter (default `Math.random`). */
  random?: (() => number) | undefined;
}

function checkBackoff(backoff: RetryBackoff): void {
  if (typeof backoff !== 'object' || backoff === null) {
    throw new TypeError('retryOnConflict: backoff must be an object');
  }
  const { steps, durationMs, factor, jitter } = backoff;
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1) {
    throw new RangeError(
      `retryOnConflict: backoff.steps must be an integer >= 1, got ${String(steps)}`,
    );
  }
  const atLeastZero: Array<[string, unknown]> = [
    ['durationMs', durationMs],
    ['factor', factor],
    ['jitter', jitter],
  ];
  for (const [name, value] of atLeastZero) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `retryOnConflict: backoff.${name} must be a finite number >= 0, got ${String(value)}`,
      );
    }
  }
}

/**
 * Call `fn` and, while it fails with a conflict, call it again after a backoff (client-go's
 * `RetryOnConflict`; with `isRetryable`, its `OnError`). Resolves what `fn` resolves; rejects at once
 * with an error that is not retryable, and with the last error once `backoff.steps` calls have failed.
 * `fn` must read the object afresh on every call: retrying a write of a stale copy conflicts again.
 * Bad options throw (TypeError, or RangeError naming the backoff field) before `fn` is called.
 *
 * **Gotchas**: a throwing `isRetryable` counts as "not retryable" (the error of `fn` is rethrown). An
 * abort during a wait rejects with `signal.reason`; `fn` itself is not interrupted, so pass the signal
 * into it too.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * declare const configMaps: Client<ConfigMap>;
 * await retryOnConflict(async () => {
 *   const cm = await configMaps.get('default', 'settings', { signal });
 *   cm.data = { ...cm.data, mode: 'on' };
 *   await configMaps.update('default', cm, { signal });
 * }, { signal });
 * ```
 */
export function retryOnConflict<T>(
  fn: () => T | Promise<T>,
  options: RetryOnConflictOptions = {},
): Promise<T> {
  if (typeof fn !== 'function') throw new TypeError('retryOnConflict: fn must be a function');
  const backoff = options.backoff ?? defaultRetry;
  checkBackoff(backoff);
  const isRetryable = options.isRetryable ?? isConflict;
  if (typeof isRetryable !== 'function') {
    throw new TypeError('retryOnConflict: isRetryable must be a function');
  }
  const random = options.random ?? Math.random;
  if (typeof random !== 'function')
    throw new TypeError('retryOnConflict: random must be a function');
  return retry(
    fn,
    { ...backoff },
    isRetryable,
    options.clock ?? systemClock,
    random,
    options.signal,
  );
}

async function retry<T>(
  fn: () => T | Promise<T>,
  backoff: RetryBackoff,
  isRetryable: (error: unknown) => boolean,
  clock: Clock,
  random: () => number,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (signal?.aborted) throw abortReason(signal);
  let waitMs = backoff.durationMs;
  for (let call = 1; ; call++) {
    try {
      return await fn();
    } catch (error) {
      if (call >= backoff.steps || !retryable(isRetryable, error)) throw error;
    }
    let delayMs = waitMs;
    // client-go: a factor of 0 means "no growth", not "no wait".
    if (backoff.factor !== 0) waitMs *= backoff.factor;
    if (backoff.jitter > 0) delayMs += random() * backoff.jitter * delayMs;
    await sleep(clock, delayMs, { signal });
  }
}

function retryable(isRetryable: (error: unknown) => boolean, error: unknown): boolean {
  try {
    return isRetryable(error) === true;
  } catch {
    return false;
  }
}
