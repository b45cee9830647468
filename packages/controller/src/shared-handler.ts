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
import type { EventFilter } from './controller-types.ts';
import { HandlerError, type HandlerFailure, isIgnoreError, retryAfter } from './errors.ts';
import {
  acceptsAll,
  checkPredicates,
  hostEventPredicatesOf,
  type Predicate,
  type PredicateEvent,
} from './predicates.ts';
import { LazyReconcileContext, type ReconcileContext } from './reconcile-context.ts';
import { isThenable } from './thenable.ts';

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

// What a run carries from handler to handler.
interface RunState<T> {
  current: T | undefined;
  failures: HandlerFailure[] | undefined;
}

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
  // True when `accepts` can refuse an event: there is a live handler and every live one has predicates.
  #filtering = false;
  // False with the no-op provider: the handler metrics then cost no clock read and no series lookup per run.
  readonly #timed: boolean;
  // uid -> monotonic expiry of objects whose last finalizer a run saw removed. Purged as it is read, so no
  // timer outlives the controller.
  readonly #finalized = new Map<string, number>();

  constructor(options: SharedHandlerOptions) {
    this.#controllerName = options.controllerName;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#metrics = options.metrics ?? noopMetricsProvider;
    this.#timed = this.#metrics !== noopMetricsProvider;
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
    // A handler's own event predicates (an owner-enqueue handler's) come first, then the registration's.
    const predicates = [
      ...hostEventPredicatesOf<T>(handler),
      ...checkPredicates<T>(options?.predicates, `registerHandler(${name})`),
    ];
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
    this.#setHandlers([...this.#handlers, entry]);
    signal.addEventListener(
      'abort',
      () => {
        entry.removed = true;
        this.#setHandlers(this.#handlers.filter((other) => other !== entry));
      },
      { once: true },
    );
  }

  #setHandlers(handlers: ReadonlyArray<Entry<T>>): void {
    this.#handlers = handlers;
    this.#filtering = handlers.length > 0 && handlers.every((entry) => entry.predicates.length > 0);
  }

  /** @internal See {@link EventFilter.active}. */
  filtering(): boolean {
    return this.#filtering;
  }

  names(): string[] {
    return this.#handlers.map((entry) => entry.name);
  }

  accepts(event: PredicateEvent<T>): boolean {
    if (!this.#filtering) return true;
    const handlers = this.#handlers;
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
    await this.run(key, object, context);
  }

  /**
   * @internal {@link SharedHandler.onChange} without a promise while every handler returns a plain value: runs
   * the handlers synchronously up to the first that returns a thenable, then the rest asynchronously (the
   * returned promise). Throws (or rejects) as `onChange` rejects.
   */
  run(key: string, object: T | undefined, context: ReconcileContext): Promise<void> | undefined {
    const uid = metadataOf(object)?.uid;
    if (uid && metadataOf(object)?.deletionTimestamp && this.#wasFinalized(uid)) {
      // The informer still holds a copy from before the last finalizer was removed; running the handlers on
      // it would redo finalization against an object that is gone (lasso PR #160).
      throw retryAfter(recentDeletionRetryMs, `${key} was finalized, waiting for its deletion`);
    }
    const handlers = this.#handlers;
    const state: RunState<T> = { current: object, failures: undefined };
    for (let index = 0; index < handlers.length; index++) {
      const entry = handlers[index] as Entry<T>;
      if (entry.removed) continue;
      const started = this.#timed ? this.#clock.monotonic() : 0;
      let result: SharedHandlerResult<T> | Promise<SharedHandlerResult<T>>;
      try {
        result = entry.handler(key, state.current, context);
      } catch (error) {
        this.#settled(entry, state, started, undefined, error, true);
        continue;
      }
      if (isThenable(result)) {
        return this.#runAsync(key, context, handlers, index, result, started, state);
      }
      this.#settled(entry, state, started, result, undefined, false);
    }
    this.#finish(state);
    return undefined;
  }

  // The rest of a run once handlers[index] returned `pending` (started at `started`).
  async #runAsync(
    key: string,
    context: ReconcileContext,
    handlers: ReadonlyArray<Entry<T>>,
    index: number,
    pending: PromiseLike<SharedHandlerResult<T>>,
    started: number,
    state: RunState<T>,
  ): Promise<void> {
    const first = handlers[index] as Entry<T>;
    try {
      this.#settled(first, state, started, await pending, undefined, false);
    } catch (error) {
      this.#settled(first, state, started, undefined, error, true);
    }
    for (let next = index + 1; next < handlers.length; next++) {
      const entry = handlers[next] as Entry<T>;
      if (entry.removed) continue;
      const begun = this.#timed ? this.#clock.monotonic() : 0;
      try {
        const result = await entry.handler(key, state.current, context);
        this.#settled(entry, state, begun, result, undefined, false);
      } catch (error) {
        this.#settled(entry, state, begun, undefined, error, true);
      }
    }
    this.#finish(state);
  }

  // One handler's outcome: pass its returned object on, note its failure, record its metrics.
  #settled(
    entry: Entry<T>,
    state: RunState<T>,
    started: number,
    result: SharedHandlerResult<T>,
    error: unknown,
    threw: boolean,
  ): void {
    let failed = threw;
    let failure = error;
    if (!threw) {
      try {
        if (metadataOf(result)?.uid) state.current = result as T;
      } catch (caught) {
        // A result whose metadata cannot be read fails its handler, as it did inside the handler's try.
        failed = true;
        failure = caught;
      }
    }
    let hasError = false;
    if (failed && !isIgnoreError(failure)) {
      hasError = true;
      state.failures ??= [];
      state.failures.push({ handler: entry.name, error: failure });
    }
    if (this.#timed) this.#record(entry, hasError, (this.#clock.monotonic() - started) / 1000);
  }

  // After the last handler: remember a finalized object, throw the aggregated failures.
  #finish(state: RunState<T>): void {
    const metadata = metadataOf(state.current);
    if (metadata?.uid && metadata.deletionTimestamp && (metadata.finalizers?.length ?? 0) === 0) {
      this.#finalized.set(metadata.uid, this.#clock.monotonic() + recentDeletionMemoryMs);
    }
    if (state.failures !== undefined) throw new HandlerError(this.#controllerName, state.failures);
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
 * @internal Run `handler` for `key` as {@link SharedHandler.onChange} does, without a promise while its handlers
 * return plain values (this package's handler; any other one through `onChange`).
 */
export function runSharedHandler<T extends KubeObjectLike>(
  handler: SharedHandler<T>,
  key: string,
  object: T | undefined,
  context: ReconcileContext,
): Promise<void> | undefined {
  return handler instanceof SharedHandlerImpl
    ? handler.run(key, object, context)
    : handler.onChange(key, object, context);
}

/** @internal The informer event filter of `handler`'s predicates. */
export function eventFilterOf<T extends KubeObjectLike>(handler: SharedHandler<T>): EventFilter<T> {
  if (handler instanceof SharedHandlerImpl) {
    const impl = handler as SharedHandlerImpl<T>;
    return { active: () => impl.filtering(), accepts: (event) => impl.accepts(event) };
  }
  return { active: () => true, accepts: (event) => handler.accepts(event) };
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
