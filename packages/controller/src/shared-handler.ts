// SharedHandler: the fan-out of one controller to named handlers, run in registration order with each one's
// returned object passed on. Ports rancher/lasso pkg/controller/sharedhandler.go (copy-on-write list in place
// of lasso's spliced slice).
import type { KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  type Counter,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Histogram,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  systemClock,
} from '@lasso/core';
import { HandlerError, type HandlerFailure, isIgnoreError, retryAfter } from './errors.ts';
import { acceptsAll, checkPredicates, type Predicate, type PredicateEvent } from './predicates.ts';
import { LazyReconcileContext, type ReconcileContext } from './reconcile-context.ts';

/**
 * A handler of a shared controller (lasso `SharedControllerHandler`). It gets the key, the object as the
 * previous handler left it (`undefined` once deleted) and the reconcile's {@link ReconcileContext} (its
 * `signal` aborts on stop, leadership loss and the reconcile timeout; pass it to client calls), and may return
 * the object it wrote, which the next handler then receives (only an object with a `metadata.uid`; anything
 * else leaves the input unchanged). A two-argument handler is a handler too.
 */
export type SharedControllerHandler<T> = (
  key: string,
  object: T | undefined,
  context: ReconcileContext,
) => SharedHandlerResult<T> | Promise<SharedHandlerResult<T>>;

/** Options of a handler registration. */
export interface RegisterHandlerOptions<T> {
  /**
   * Informer events must pass every one of these to enqueue their key for this handler (see
   * {@link SharedHandler.accepts} for how the handlers of one controller combine). Never applied to
   * `enqueue*`, retries or the replay to a late handler.
   */
  predicates?: readonly Predicate<T>[] | undefined;
}

/** What a {@link SharedControllerHandler} returns: the object it wrote, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing are plain (async) functions
export type SharedHandlerResult<T> = T | undefined | void;

/** Options of {@link createSharedHandler}. */
export interface SharedHandlerOptions {
  /** The `controller_name` label of the handler metrics (lasso uses the GVR, e.g. `apps/v1, Resource=deployments`). */
  controllerName: string;
  /** Time source of the reconcile-time metric and the recent-deletion guard. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where metric failures are logged. Default `defaultLogger`. */
  logger?: Logger | undefined;
  /** Records `lasso_controller_total_handler_execution` and `lasso_controller_reconcile_time_seconds`. */
  metrics?: MetricsProvider | undefined;
}

/** The named handlers of one controller, run as one controller handler. */
export interface SharedHandler<T> {
  /**
   * Add `handler` under `name` until `signal` aborts (then it is removed; a key being processed keeps the
   * list it started with). A name a live handler already has is accepted, both run, and one warning is logged
   * (lasso accepts it silently). Throws a RangeError when `name` is empty, a TypeError for a missing signal, a
   * handler that is not a function or a predicate that is not one. An already-aborted signal registers nothing.
   */
  register(
    signal: AbortSignal,
    name: string,
    handler: SharedControllerHandler<T>,
    options?: RegisterHandlerOptions<T>,
  ): void;
  /** Names of the live handlers, in run order. */
  names(): string[];
  /**
   * Whether an informer event should enqueue its key: true when at least one live handler's predicates all
   * accept it (a handler registered without predicates accepts every event), or when no handler is live.
   * controller-runtime applies predicates per watch, each watch feeding its own reconciler; here the handlers of
   * a kind share one queue and every handler runs for every key, so a predicate saves work only when every
   * handler of the kind has one that refuses the event.
   */
  accepts(event: PredicateEvent<T>): boolean;
  /**
   * Run every handler for `key` (the controller's handler), passing each `context` (without one, a context whose
   * signal never aborts). Throws a {@link HandlerError} listing the failed handlers after all of them ran, or a
   * `retryAfter` error when `object` is a stale copy of an object the handlers already finalized.
   */
  onChange(key: string, object: T | undefined, context?: ReconcileContext): Promise<void>;
}

/** How long the uid of an object whose last finalizer was removed is remembered (lasso: 1 minute). */
export const recentDeletionMemoryMs = 60_000;
/** When a stale copy of a finalized object is retried (lasso: 10 s). */
export const recentDeletionRetryMs = 10_000;

interface Entry<T> {
  readonly name: string;
  readonly handler: SharedControllerHandler<T>;
  readonly predicates: readonly Predicate<T>[];
  removed: boolean;
  executions: Map<boolean, { count: Counter; time: Histogram }>;
}

function metadataOf(object: unknown): KubeObjectLike['metadata'] {
  return typeof object === 'object' && object !== null
    ? (object as KubeObjectLike).metadata
    : undefined;
}

class SharedHandlerImpl<T extends KubeObjectLike> implements SharedHandler<T> {
  readonly #controllerName: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider;
  // Replaced, never mutated: a run iterates the array it read, so (un)registering during a run is safe.
  #handlers: ReadonlyArray<Entry<T>> = [];
  // uid -> monotonic expiry of objects whose last finalizer a run saw removed. Purged as it is read, so no
  // timer outlives the controller.
  readonly #finalized = new Map<string, number>();

  constructor(options: SharedHandlerOptions) {
    this.#controllerName = options.controllerName;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#metrics = options.metrics ?? noopMetricsProvider;
  }

  register(
    signal: AbortSignal,
    name: string,
    handler: SharedControllerHandler<T>,
    options: RegisterHandlerOptions<T> = {},
  ): void {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError(`registerHandler(${String(name)}): signal must be an AbortSignal`);
    }
    if (typeof name !== 'string') {
      throw new TypeError(`registerHandler: name must be a string, got ${typeof name}`);
    }
    if (name === '') throw new RangeError('registerHandler: name must not be empty');
    if (typeof handler !== 'function') {
      throw new TypeError(`registerHandler(${name}): handler must be a function`);
    }
    const predicates = checkPredicates<T>(options?.predicates, `registerHandler(${name})`);
    if (signal.aborted) {
      this.#logger.debug('handler not registered: its signal is already aborted', {
        handler: name,
      });
      return;
    }
    if (this.#handlers.some((entry) => entry.name === name)) {
      // lasso registers handlers per context (wrangler does it per request scope): both run.
      this.#logger.warn('a handler with this name is already registered; both run', {
        handler: name,
      });
    }
    const entry: Entry<T> = {
      name,
      handler,
      predicates,
      removed: false,
      executions: new Map(),
    };
    this.#handlers = [...this.#handlers, entry];
    signal.addEventListener(
      'abort',
      () => {
        entry.removed = true;
        this.#handlers = this.#handlers.filter((other) => other !== entry);
      },
      { once: true },
    );
  }

  names(): string[] {
    return this.#handlers.map((entry) => entry.name);
  }

  accepts(event: PredicateEvent<T>): boolean {
    const handlers = this.#handlers;
    if (handlers.length === 0) return true;
    return handlers.some((entry) =>
      acceptsAll(entry.predicates, event, (predicate, error) => {
        this.#logger.warn('predicate threw; the event passes', {
          handler: entry.name,
          predicate: predicate.name,
          error: errorMessage(error),
        });
      }),
    );
  }

  async onChange(
    key: string,
    object: T | undefined,
    context: ReconcileContext = new LazyReconcileContext(key, this.#logger),
  ): Promise<void> {
    const uid = metadataOf(object)?.uid;
    if (uid && metadataOf(object)?.deletionTimestamp && this.#wasFinalized(uid)) {
      // The informer still holds a copy from before the last finalizer was removed; running the handlers on
      // it would redo finalization against an object that is gone (lasso PR #160).
      throw retryAfter(recentDeletionRetryMs, `${key} was finalized, waiting for its deletion`);
    }
    const failures: HandlerFailure[] = [];
    let current = object;
    for (const entry of this.#handlers) {
      if (entry.removed) continue;
      const started = this.#clock.monotonic();
      let hasError = false;
      try {
        const result = await entry.handler(key, current, context);
        if (metadataOf(result)?.uid) current = result as T;
      } catch (error) {
        if (!isIgnoreError(error)) {
          hasError = true;
          failures.push({ handler: entry.name, error });
        }
      }
      this.#record(entry, hasError, (this.#clock.monotonic() - started) / 1000);
    }
    const metadata = metadataOf(current);
    if (metadata?.uid && metadata.deletionTimestamp && (metadata.finalizers?.length ?? 0) === 0) {
      this.#finalized.set(metadata.uid, this.#clock.monotonic() + recentDeletionMemoryMs);
    }
    if (failures.length > 0) throw new HandlerError(this.#controllerName, failures);
  }

  #wasFinalized(uid: string): boolean {
    const now = this.#clock.monotonic();
    for (const [known, expiresAt] of this.#finalized) {
      if (expiresAt <= now) this.#finalized.delete(known);
    }
    return this.#finalized.has(uid);
  }

  #record(entry: Entry<T>, hasError: boolean, seconds: number): void {
    try {
      let series = entry.executions.get(hasError);
      if (series === undefined) {
        const labels = {
          controller_name: this.#controllerName,
          handler_name: entry.name,
          has_error: String(hasError),
        };
        series = {
          count: this.#metrics.counter({
            name: 'lasso_controller_total_handler_execution',
            help: 'Total count of handler executions',
            labels,
          }),
          time: this.#metrics.histogram({
            name: 'lasso_controller_reconcile_time_seconds',
            help: 'Histogram of the durations per reconciliation per handler',
            labels,
          }),
        };
        entry.executions.set(hasError, series);
      }
      series.count.inc();
      series.time.observe(seconds);
    } catch (error) {
      // Metrics must never fail a reconcile.
      this.#logger.warn('recording handler metrics failed', { error: errorMessage(error) });
    }
  }
}

/**
 * Create the handler fan-out of one controller (lasso `SharedHandler`): handlers run in registration order,
 * each receiving the object the previous one returned; the remaining handlers still run after one fails,
 * and the failures are aggregated as `handler <name>: <message>`. `ErrIgnore` is not a failure. Every handler
 * of a run gets the run's `ReconcileContext`. A name registered twice runs twice (one warning). After a run
 * in which the object ends with a deletionTimestamp and no finalizers, a stale copy with the same uid is
 * skipped and retried 10 s later, for one minute.
 */
export function createSharedHandler<T extends KubeObjectLike>(
  options: SharedHandlerOptions,
): SharedHandler<T> {
  if (typeof options?.controllerName !== 'string') {
    throw new TypeError('createSharedHandler: options.controllerName must be a string');
  }
  if (options.controllerName === '') {
    throw new RangeError('createSharedHandler: options.controllerName must not be empty');
  }
  return new SharedHandlerImpl<T>(options);
}
