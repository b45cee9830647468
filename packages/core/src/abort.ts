// Abort helpers: sleep and race on an injected clock, honouring an AbortSignal.
import type { Clock } from './clock.ts';
import { LassoError, TimeoutError } from './errors.ts';

/** Options shared by the abort helpers. */
export interface SignalOptions {
  /** Stops the wait; the promise rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
}

/** The reason of an aborted signal, as an Error (abort reasons can be anything). */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  try {
    if (reason instanceof Error) return reason;
  } catch {
    // `instanceof` throws on a revoked Proxy: such a reason is wrapped like any other non-Error.
  }
  return new LassoError('LASSO_ABORTED', 'operation aborted', { cause: reason });
}

/** True when `error` is the outcome of an abort (DOM AbortError, our LASSO_ABORTED, or a signal reason). */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && error === signal.reason) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'AbortError' || code === 'LASSO_ABORTED' || code === 'ABORT_ERR';
}

/**
 * Resolve after `delayMs` on `clock`; reject with the signal's reason when it aborts first.
 * The timer and the abort listener are both released however the wait ends. On `systemClock` the
 * pending sleep keeps the process alive, as `setTimeout` does.
 */
export function sleep(clock: Clock, delayMs: number, options: SignalOptions = {}): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal as AbortSignal));
    };
    // keepAlive: a script whose only pending work is this sleep must not exit before it ends.
    const timer = clock.schedule(
      delayMs,
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      { keepAlive: true },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Race `promise` against `signal`: reject with the signal's reason when it aborts first. The
 * original promise keeps running (JavaScript cannot cancel it); pass the signal into it as well.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A signal that aborts with a {@link TimeoutError} after `timeoutMs` on `clock` (never
 * `AbortSignal.timeout`, which uses real time). Call `clear()` when done to release the timer.
 */
export function timeoutSignal(
  clock: Clock,
  timeoutMs: number,
  message = `timed out after ${timeoutMs} ms`,
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = clock.schedule(timeoutMs, () =>
    controller.abort(new TimeoutError(message, timeoutMs)),
  );
  return { signal: controller.signal, clear: () => timer.cancel() };
}

/**
 * A signal that aborts when any of `signals` aborts (undefined entries ignored). Unlike
 * `AbortSignal.any`, `dispose()` removes the listeners so long-lived parents do not accumulate them.
 */
export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const cleanups: Array<() => void> = [];
  const dispose = (): void => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  };
  for (const source of present) {
    if (source.aborted) {
      controller.abort(source.reason);
      dispose();
      return { signal: controller.signal, dispose };
    }
    const onAbort = (): void => {
      controller.abort(source.reason);
      dispose();
    };
    source.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => source.removeEventListener('abort', onAbort));
  }
  return { signal: controller.signal, dispose };
}
