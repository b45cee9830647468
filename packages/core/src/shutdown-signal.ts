// The process signal handler every operator writes: the first SIGINT/SIGTERM aborts a signal (a graceful stop),
// a second one exits at once. Ports controller-runtime pkg/manager/signals (SetupSignalHandler).
import { LassoError } from './errors.ts';
import type { Logger } from './logger.ts';

/** The part of `process` the shutdown signal uses; tests pass an `EventEmitter` with an `exit` spy. */
export interface ShutdownSignalTarget {
  on(event: string, listener: (signal: string) => void): unknown;
  removeListener(event: string, listener: (signal: string) => void): unknown;
  exit(code: number): unknown;
}

/** Options of {@link createShutdownSignal}. */
export interface ShutdownSignalOptions {
  /** Where the OS signals arrive and what exits (default `process`). */
  target?: ShutdownSignalTarget | undefined;
  /** The OS signals that stop the process (default `['SIGINT', 'SIGTERM']`). */
  signals?: readonly string[] | undefined;
  /** Told about each signal received (info for the first, error before exiting); default: none. */
  logger?: Logger | undefined;
}

/** What {@link createShutdownSignal} returns: the signal, and a disposer that removes the listeners. */
export interface ShutdownSignal {
  /** Aborts on the first OS signal, with a `LASSO_ABORTED` {@link LassoError} naming it. */
  readonly signal: AbortSignal;
  /** Remove the listeners (idempotent); the signal stays as it is. */
  dispose(): void;
  /** `dispose()`, for `using`. */
  [Symbol.dispose](): void;
}

/**
 * Listen for SIGINT and SIGTERM (controller-runtime's `SetupSignalHandler`): the first aborts the returned
 * `signal`, so everything started with it stops gracefully; a second exits the process with code 1 at once,
 * for an operator who does not want to wait for the drain.
 *
 * **Gotchas**: while the listeners are installed Node no longer exits on SIGINT/SIGTERM by itself: the
 * process ends when its work has stopped (or at the second signal). Call `dispose()` once the stop is over
 * if the process keeps running. Each call installs its own listeners; create one per process.
 *
 * @example
 * ```ts
 * declare const factory: Lifecycle; // a controller factory, an informer, a leader elector...
 * const shutdown = createShutdownSignal({ logger });
 * await factory.start(shutdown.signal);
 * const result = await factory.stopped();
 * shutdown.dispose();
 * process.exitCode = result.drained ? 0 : 1;
 * ```
 *
 * @throws TypeError when `target` lacks `on`, `removeListener` or `exit`, or `signals` is empty.
 */
export function createShutdownSignal(options: ShutdownSignalOptions = {}): ShutdownSignal {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createShutdownSignal: options must be an object');
  }
  const target = options.target ?? (process as ShutdownSignalTarget);
  if (
    typeof target?.on !== 'function' ||
    typeof target.removeListener !== 'function' ||
    typeof target.exit !== 'function'
  ) {
    throw new TypeError('createShutdownSignal: target must have on, removeListener and exit');
  }
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  if (
    !Array.isArray(signals) ||
    signals.length === 0 ||
    !signals.every((s) => typeof s === 'string')
  ) {
    throw new TypeError('createShutdownSignal: signals must be a non-empty array of signal names');
  }
  const { logger } = options;
  const controller = new AbortController();
  const onSignal = (name: string): void => {
    if (!controller.signal.aborted) {
      logger?.info('shutdown signal received, stopping', { signal: name });
      controller.abort(new LassoError('LASSO_ABORTED', `received ${name}`));
      return;
    }
    logger?.error('second shutdown signal received, exiting', { signal: name });
    target.exit(1);
  };
  for (const name of signals) target.on(name, onSignal);
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    for (const name of signals) target.removeListener(name, onSignal);
  };
  return { signal: controller.signal, dispose, [Symbol.dispose]: dispose };
}
