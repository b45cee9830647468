// The end of an operator's process: the first SIGINT/SIGTERM stops the given lifecycle objects, their stop is
// awaited within a bound, and the process exits with a code that says how the stop went. `stopped()` settling
// within its bound is not enough: a handler that ignores its signal keeps Node's event loop alive for as long as
// it likes, so the exit has to be explicit. Ports controller-runtime's manager signal handling (the first signal
// cancels the manager's context, a second exits at once, and `main` exits when `Start` returns).
import { constants } from 'node:os';
import {
  type Clock,
  defaultGracefulShutdownTimeoutMs,
  defaultLogger,
  errorMessage,
  guardLogger,
  LassoError,
  type Lifecycle,
  type Logger,
  type ShutdownSignalTarget,
  type StopResult,
  systemClock,
  type TimerHandle,
} from '@lasso/core';

/**
 * The exit codes of {@link runUntilShutdown}. A second signal exits with `128 + ` the signal's number (130 for
 * SIGINT, 143 for SIGTERM), as a shell reports a process killed by that signal.
 */
export const shutdownExitCodes = Object.freeze({
  /** Stopped by a signal; every stop, close and the cleanup finished within the bounds. */
  drained: 0,
  /** A start failed, or a lifecycle object stopped without a signal (e.g. leadership lost). */
  failed: 1,
  /** Stopped by a signal, but something still ran when the bound passed: the process exits anyway. */
  notDrained: 3,
} as const);

/** Why the run of {@link runUntilShutdown} ended. */
export type ShutdownCause = 'signal' | 'startFailed' | 'stoppedOnItsOwn';

/** What {@link runUntilShutdown} did, passed to `exit` as its code and resolved with (when `exit` returns). */
export interface ShutdownOutcome {
  /** The exit code given to `process.exit` (see {@link shutdownExitCodes}). */
  readonly code: number;
  readonly cause: ShutdownCause;
  /** The OS signal that began the stop, when one did. */
  readonly signal: string | undefined;
  /** False when a stop did not drain, or the bound passed before every stop, close and cleanup finished. */
  readonly drained: boolean;
  /** What was still running: the objects' own pending work, and the steps the bound cut short. */
  readonly pending: readonly string[];
  /** The start failure, when `cause` is `startFailed`. */
  readonly error?: unknown;
}

/** Options of {@link runUntilShutdown}. */
export interface RunUntilShutdownOptions {
  /**
   * How long the stop of the lifecycle objects may take from the first signal (default 30 000, the
   * controllers' default). Give the objects the same `gracefulShutdownTimeoutMs`: they then report what was
   * still running when it passed.
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * How much longer `close()` of every object and `cleanup` may take (default 2 000). The process exits at
   * most `gracefulShutdownTimeoutMs + closeTimeoutMs` after the first signal, whatever still runs; keep the
   * sum below the Pod's `terminationGracePeriodSeconds` (30 s by default), after which the kubelet kills it.
   */
  closeTimeoutMs?: number | undefined;
  /** Default `defaultLogger`. Every step is logged at info, every failure and a cut-short stop at error. */
  logger?: Logger | undefined;
  /** Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where the OS signals arrive and what exits (default `process`); tests pass an `EventEmitter` with a spy. */
  process?: ShutdownSignalTarget | undefined;
  /** The OS signals that stop the run (default `['SIGINT', 'SIGTERM']`). */
  signals?: readonly string[] | undefined;
  /** Runs after every object was closed, within the close bound: close servers, flush logs. */
  cleanup?: ((outcome: Omit<ShutdownOutcome, 'code'>) => void | Promise<void>) | undefined;
}

const defaultCloseTimeoutMs = 2_000;

function checkBound(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || !Number.isFinite(value)) {
    throw new RangeError(
      `runUntilShutdown: ${name} must be a finite number >= 0, got ${String(value)}`,
    );
  }
  return value;
}

function checkLifecycles(lifecycles: unknown): readonly Lifecycle[] {
  const list = Array.isArray(lifecycles) ? [...(lifecycles as unknown[])] : [lifecycles];
  if (list.length === 0) throw new TypeError('runUntilShutdown: lifecycles must not be empty');
  list.forEach((item, index) => {
    const object = item as Partial<Lifecycle> | null | undefined;
    if (
      typeof object?.start !== 'function' ||
      typeof object.stopped !== 'function' ||
      typeof object.close !== 'function'
    ) {
      throw new TypeError(
        `runUntilShutdown: lifecycles[${index}] must have start, stopped and close methods`,
      );
    }
  });
  return list as Lifecycle[];
}

function checkTarget(target: unknown): ShutdownSignalTarget {
  const candidate = target as Partial<ShutdownSignalTarget> | null | undefined;
  if (
    typeof candidate?.on !== 'function' ||
    typeof candidate.removeListener !== 'function' ||
    typeof candidate.exit !== 'function'
  ) {
    throw new TypeError('runUntilShutdown: process must have on, removeListener and exit');
  }
  return candidate as ShutdownSignalTarget;
}

/** 128 + the signal's number, as a shell reports a process killed by it; 1 for an unknown name. */
function forcedExitCode(signal: string): number {
  const number = (constants.signals as Record<string, number | undefined>)[signal];
  return number === undefined ? shutdownExitCodes.failed : 128 + number;
}

/**
 * Run lifecycle objects until the process is told to stop, then stop them, close them and exit, within a bound.
 *
 * 1. Installs listeners for SIGINT and SIGTERM, then starts each object in order with one signal (a start
 *    that fails stops the ones already started: exit code 1).
 * 2. Waits for the first OS signal, or for an object to stop on its own (leadership lost: exit code 1, as
 *    controller-runtime's manager returns an error and its process exits).
 * 3. Aborts the signal, awaits every `stopped()`, then `close()` of each object, then `cleanup`.
 * 4. Calls `process.exit` with 0 when all that finished and every stop drained; with 3 when a stop did not
 *    drain, or `gracefulShutdownTimeoutMs + closeTimeoutMs` passed first (a handler that ignores its signal,
 *    a close that hangs): the process ends at the bound instead of whenever that work ends. A second signal
 *    exits at once (130 after SIGINT, 143 after SIGTERM).
 *
 * The returned promise resolves with the outcome after `exit` returned (only a fake `exit` returns).
 *
 * **Gotchas**: the listeners are installed when this is called: a signal during the setup before it ends the
 * process as Node does by default (nothing has started yet). Each call installs its own listeners; run one
 * per process. Everything after the call in the caller's code runs only with a fake `exit`: put final cleanup
 * in `cleanup`.
 *
 * @example
 * ```ts
 * declare const factory: Lifecycle; // a controller factory, an informer, a leader elector...
 * declare const server: { close(): Promise<void> }; // e.g. a metrics endpoint
 * await runUntilShutdown(factory, {
 *   gracefulShutdownTimeoutMs: 25_000, // the factory's own bound
 *   logger,
 *   cleanup: () => server.close(),
 * });
 * ```
 *
 * @throws TypeError when `lifecycles` is empty or holds something without `start`, `stopped` and `close`, or
 *   `process` lacks `on`, `removeListener` or `exit`; RangeError for a bad bound.
 */
export function runUntilShutdown(
  lifecycles: Lifecycle | readonly Lifecycle[],
  options: RunUntilShutdownOptions = {},
): Promise<ShutdownOutcome> {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('runUntilShutdown: options must be an object');
  }
  const list = checkLifecycles(lifecycles);
  const drainMs = checkBound(
    'gracefulShutdownTimeoutMs',
    options.gracefulShutdownTimeoutMs,
    defaultGracefulShutdownTimeoutMs,
  );
  const closeMs = checkBound('closeTimeoutMs', options.closeTimeoutMs, defaultCloseTimeoutMs);
  const target = checkTarget(options.process ?? process);
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  if (
    !Array.isArray(signals) ||
    signals.length === 0 ||
    !signals.every((name) => typeof name === 'string')
  ) {
    throw new TypeError('runUntilShutdown: signals must be a non-empty array of signal names');
  }
  if (options.cleanup !== undefined && typeof options.cleanup !== 'function') {
    throw new TypeError('runUntilShutdown: cleanup must be a function');
  }
  const logger = guardLogger(options.logger ?? defaultLogger);
  const clock = options.clock ?? systemClock;
  return new ShutdownRun(list, {
    drainMs,
    closeMs,
    target,
    signals,
    logger,
    clock,
    cleanup: options.cleanup,
  }).run();
}

interface RunSettings {
  readonly drainMs: number;
  readonly closeMs: number;
  readonly target: ShutdownSignalTarget;
  readonly signals: readonly string[];
  readonly logger: Logger;
  readonly clock: Clock;
  readonly cleanup: RunUntilShutdownOptions['cleanup'];
}

class ShutdownRun {
  readonly #list: readonly Lifecycle[];
  readonly #settings: RunSettings;
  readonly #stop = new AbortController();
  /** The steps of the stop still running, named for the log when the bound cuts them short. */
  readonly #inProgress = new Set<string>();
  #cause: ShutdownCause = 'signal';
  #signal: string | undefined;
  #error: unknown;
  #deadline: TimerHandle | undefined;
  #finished = false;
  #resolve: (outcome: ShutdownOutcome) => void = () => {};

  constructor(list: readonly Lifecycle[], settings: RunSettings) {
    this.#list = list;
    this.#settings = settings;
  }

  run(): Promise<ShutdownOutcome> {
    const outcome = new Promise<ShutdownOutcome>((resolve) => {
      this.#resolve = resolve;
    });
    for (const name of this.#settings.signals) this.#settings.target.on(name, this.#onSignal);
    void this.#main();
    return outcome;
  }

  readonly #onSignal = (name: string): void => {
    const { logger, drainMs, closeMs } = this.#settings;
    if (this.#finished) return;
    if (!this.#stop.signal.aborted) {
      this.#signal = name;
      logger.info('shutdown signal received, stopping', {
        signal: name,
        gracefulShutdownTimeoutMs: drainMs,
        exitWithinMs: drainMs + closeMs,
      });
      this.#beginStop(new LassoError('LASSO_ABORTED', `received ${name}`));
      return;
    }
    const code = forcedExitCode(name);
    logger.error('second shutdown signal received, exiting without waiting for the stop', {
      signal: name,
      code,
      pending: [...this.#inProgress].join(', '),
    });
    this.#finish(code, false, [...this.#inProgress]);
  };

  /** Abort the objects' signal and start the clock of the bound, whatever ends up hanging. */
  #beginStop(reason: unknown): void {
    if (this.#stop.signal.aborted) return;
    const { clock, drainMs, closeMs } = this.#settings;
    // keepAlive: this timer is what ends a process whose remaining work ignores its signal.
    this.#deadline = clock.schedule(drainMs + closeMs, () => this.#onDeadline(), {
      keepAlive: true,
    });
    this.#stop.abort(reason);
  }

  #onDeadline(): void {
    const pending = [...this.#inProgress];
    this.#settings.logger.error('shutdown bound passed, exiting with work still running', {
      exitWithinMs: this.#settings.drainMs + this.#settings.closeMs,
      pending: pending.join(', '),
      code: shutdownExitCodes.notDrained,
    });
    this.#finish(this.#exitCode(false), false, pending);
  }

  #exitCode(drained: boolean): number {
    if (this.#cause !== 'signal') return shutdownExitCodes.failed;
    return drained ? shutdownExitCodes.drained : shutdownExitCodes.notDrained;
  }

  async #main(): Promise<void> {
    const { logger } = this.#settings;
    const stop = this.#stop.signal;
    for (const [index, object] of this.#list.entries()) {
      if (stop.aborted) break;
      const step = `start of lifecycles[${index}]`;
      this.#inProgress.add(step);
      try {
        await object.start(stop);
      } catch (error) {
        if (stop.aborted) {
          logger.info('start ended by the shutdown', { index, reason: errorMessage(error) });
        } else {
          this.#cause = 'startFailed';
          this.#error = error;
          logger.error('start failed, stopping and exiting', { index, error: errorMessage(error) });
          this.#beginStop(error);
        }
      } finally {
        this.#inProgress.delete(step);
      }
    }
    if (!stop.aborted) {
      logger.info('running until SIGINT or SIGTERM', {
        signals: this.#settings.signals.join(', '),
      });
      await this.#untilStopBegins();
    }
    const result = await this.#stopAll();
    this.#finish(this.#exitCode(result.drained), result.drained, result.pending);
  }

  /** Resolves when the stop begins: a signal, or an object whose run ended by itself. */
  #untilStopBegins(): Promise<void> {
    const stop = this.#stop.signal;
    return new Promise<void>((resolve) => {
      stop.addEventListener('abort', () => resolve(), { once: true });
      this.#list.forEach((object, index) => {
        const onItsOwn = (): void => {
          if (stop.aborted) return;
          this.#cause = 'stoppedOnItsOwn';
          this.#settings.logger.error(
            'a lifecycle object stopped without a shutdown signal, stopping the rest and exiting',
            { index },
          );
          this.#beginStop(
            new LassoError('LASSO_ABORTED', `lifecycles[${index}] stopped without a signal`),
          );
        };
        // stopped() never rejects by contract; one that does ended the run all the same.
        object.stopped().then(onItsOwn, onItsOwn);
      });
    });
  }

  /** Every `stopped()`, then every `close()`, then `cleanup`; failures logged, never thrown. */
  async #stopAll(): Promise<StopResult> {
    const { logger, cleanup } = this.#settings;
    const results = await Promise.all(
      this.#list.map((object, index) =>
        this.#step(`stop of lifecycles[${index}]`, () => object.stopped()),
      ),
    );
    const pending: string[] = [];
    let drained = true;
    for (const result of results) {
      if (!result.ok) {
        drained = false;
        continue;
      }
      if (!result.value.drained) drained = false;
      pending.push(...result.value.pending);
    }
    if (drained) logger.info('stopped: every stop drained');
    else logger.error('stop did not drain', { pending: pending.join(', ') });
    for (const [index, object] of this.#list.entries()) {
      if (!(await this.#step(`close of lifecycles[${index}]`, () => object.close())).ok) {
        drained = false;
      }
    }
    if (cleanup !== undefined) {
      const outcome = {
        cause: this.#cause,
        signal: this.#signal,
        drained,
        pending,
        ...(this.#cause === 'startFailed' ? { error: this.#error } : {}),
      };
      if (!(await this.#step('cleanup', async () => cleanup(outcome))).ok) drained = false;
    }
    return { drained, pending };
  }

  /** Run one step of the stop, named in the log while it runs; a failure is logged, not thrown. */
  async #step<T>(
    name: string,
    run: () => Promise<T>,
  ): Promise<{ readonly ok: true; readonly value: T } | { readonly ok: false }> {
    this.#inProgress.add(name);
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      this.#settings.logger.error(`${name} failed`, { error: errorMessage(error) });
      return { ok: false };
    } finally {
      this.#inProgress.delete(name);
    }
  }

  #finish(code: number, drained: boolean, pending: readonly string[]): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#deadline?.cancel();
    const { target, signals, logger } = this.#settings;
    for (const name of signals) target.removeListener(name, this.#onSignal);
    const outcome: ShutdownOutcome = Object.freeze({
      code,
      cause: this.#cause,
      signal: this.#signal,
      drained,
      pending: Object.freeze([...pending]),
      ...(this.#cause === 'startFailed' ? { error: this.#error } : {}),
    });
    logger.info('exiting', { code, cause: this.#cause, drained });
    try {
      target.exit(code);
    } finally {
      this.#resolve(outcome);
    }
  }
}
