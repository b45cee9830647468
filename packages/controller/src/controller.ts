// Controller: one informer event handler feeding a rate-limited workqueue of `namespace/name` keys, drained by
// async workers that call one handler with the key's cached object. Ports rancher/lasso pkg/controller/controller.go.
// size: one class whose queue, workers and lifecycle share private state; handler outcomes are in errors.ts.
import {
  CacheNotSyncedError,
  type EventHandlerRegistration,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  type SharedIndexInformer,
} from '@lasso/cache';
import type { KubeObjectLike } from '@lasso/client';
import {
  anySignal,
  type Clock,
  type Counter,
  defaultGracefulShutdownTimeoutMs,
  defaultLogger,
  drainedResult,
  drainWithin,
  errorMessage,
  guardLogger,
  LassoError,
  type Logger,
  noopMetricsProvider,
  type StopResult,
  systemClock,
  TimeoutError,
  type TimerHandle,
  type TrackedMetrics,
  trackMetrics,
} from '@lasso/core';
import {
  createRateLimitingQueue,
  defaultLassoRateLimiter,
  type RateLimiter,
  type RateLimitingQueue,
} from '@lasso/workqueue';
import {
  type ControllerOptions,
  checkControllerOptions,
  type DeletionObserver,
  type EventFilter,
  type FilterableController,
  type GiveUp,
  type Handler,
  type HandOffController,
  type KeyPredicate,
  type StartCacheFunc,
  setEventFilter,
} from './controller-types.ts';
import { isConflictError, isIgnoreError, retryAfterDelay, stackOf } from './errors.ts';
import type { PredicateEvent } from './predicates.ts';
import { QueueTaker, wakeUp } from './queue-taker.ts';
import { LazyReconcileContext } from './reconcile-context.ts';
import { traceHandler } from './reconcile-tracing.ts';
import { isStopCancellation } from './stop-cancellation.ts';
import { isThenable } from './thenable.ts';

// One start's worth of state. The queue outlives it: keys stay queued across runs.
interface Run {
  /** Aborts when the start signal aborts or the controller is closed; in-flight reconciles listen to it. */
  readonly stop: AbortController;
  /** Releases the link from the start signal to `stop`. */
  readonly unlink: () => void;
  /**
   * Set just before `stop` aborts. The workers test this flag, not `stop.signal.aborted`: an aborted AbortSignal
   * has another hidden class than a live one, and reading it in the workers' loop deoptimized the loop (then
   * compiled again) at every stop.
   */
  stopping: boolean;
  /** By worker: the key it is reconciling (undefined when idle) and when it started (monotonic ms). */
  readonly inFlight: Array<string | undefined>;
  readonly startedAt: number[];
  /** By worker: the context of its reconcile and, for a handler that returned a promise, its settling. */
  readonly contexts: Array<LazyReconcileContext | undefined>;
  readonly settling: Array<Promise<void> | undefined>;
  /** With `admit`: the deleted state each key's reconcile in flight started with. */
  readonly deletions: Map<string, unknown>;
  /** Settles when the last worker returned. */
  readonly done: Promise<void>;
  /** Settles with the stop's outcome once the stop finished or its bound passed. */
  readonly result: Promise<StopResult>;
}

function keyOf(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function resourceVersionOf(object: unknown): unknown {
  return (object as KubeObjectLike | undefined)?.metadata?.resourceVersion;
}

class ControllerImpl<T extends KubeObjectLike>
  implements FilterableController<T>, HandOffController<T>
{
  readonly name: string;
  readonly #informer: SharedIndexInformer<T>;
  readonly #startCache: StartCacheFunc;
  readonly #handler: Handler<T>;
  readonly #rateLimiter: RateLimiter<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #reconcileTimeoutMs: number | undefined;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #workers: number;
  readonly #timeouts: Counter | undefined;
  readonly #maxRetries: number;
  readonly #onGiveUp: ((giveUp: GiveUp) => void) | undefined;
  readonly #giveUps: Counter | undefined;
  readonly #tracked: TrackedMetrics | undefined;
  // The one queue, from creation to close(): events and enqueues land here whether or not workers run.
  readonly #queue: RateLimitingQueue<string>;
  readonly #taker: QueueTaker;
  readonly #registration: EventHandlerRegistration;
  readonly #admit: ControllerOptions['admit'];
  readonly #fence: (() => AbortSignal | undefined) | undefined;
  readonly #observer: DeletionObserver | undefined;
  // With `admit`: the last state of each key whose delete event arrived since it was last reconciled, so a key
  // without a cached object is reconciled only when its deletion was seen here (not another replica's object).
  readonly #deleted = new Map<string, T>();
  // Keys whose reconcile cancelReconciles aborted: not requeued when it ends.
  readonly #revoked = new Set<string>();
  // Aborted by close(): stops an informer this controller runs itself.
  readonly #closing = new AbortController();
  #eventFilter: EventFilter<T> | undefined;
  // Present from a successful start until its stop finished (or its bound passed).
  #run: Run | undefined;
  // The last run of the informer the controller runs itself (no startCache given).
  #informerRun: Promise<void> | undefined;
  // An in-progress start: concurrent callers share it instead of starting twice.
  #starting: { readonly signal: AbortSignal; readonly promise: Promise<void> } | undefined;
  #closed: Promise<void> | undefined;

  constructor(
    name: string,
    informer: SharedIndexInformer<T>,
    startCache: StartCacheFunc | undefined,
    handler: Handler<T>,
    options: ControllerOptions,
  ) {
    this.name = name;
    this.#informer = informer;
    this.#startCache = startCache ?? ((signal) => this.#runInformer(signal));
    this.#handler = handler;
    this.#rateLimiter = options.rateLimiter ?? defaultLassoRateLimiter();
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ controller: name });
    this.#reconcileTimeoutMs = options.reconcileTimeoutMs;
    this.#gracefulShutdownTimeoutMs =
      options.gracefulShutdownTimeoutMs ?? defaultGracefulShutdownTimeoutMs;
    this.#workers = options.workers ?? 1;
    // Its series (queue, timeouts, give-ups) are removed on close(): a closed controller is not scraped forever.
    this.#tracked =
      options.metrics === undefined || options.metrics === noopMetricsProvider
        ? undefined
        : trackMetrics(options.metrics);
    const metrics = this.#tracked?.provider ?? noopMetricsProvider;
    this.#timeouts =
      this.#reconcileTimeoutMs === undefined
        ? undefined
        : metrics.counter({
            name: 'lasso_controller_reconcile_timeouts_total',
            help: 'Total number of reconciles whose signal aborted because reconcileTimeoutMs passed',
            labels: { controller_name: name },
          });
    this.#maxRetries = options.maxRetries ?? Number.POSITIVE_INFINITY;
    this.#onGiveUp = options.onGiveUp;
    this.#giveUps =
      this.#maxRetries === Number.POSITIVE_INFINITY
        ? undefined
        : metrics.counter({
            name: 'lasso_controller_give_ups_total',
            help: 'Total number of keys given up after maxRetries failed retries',
            labels: { controller_name: name },
          });
    this.#queue = createRateLimitingQueue<string>(this.#rateLimiter, {
      name,
      clock: this.#clock,
      metrics,
      logger: this.#logger,
    });
    this.#taker = new QueueTaker(this.#queue);
    this.#handler = traceHandler(handler, options.tracerProvider, {
      controller: name,
      kind: informer.name,
      retries: (key) => this.#queue.numRequeues(key),
    });
    this.#admit = options.admit;
    const fence = options.fence;
    this.#fence = fence instanceof AbortSignal ? () => fence : fence;
    const tracking = this.#admit !== undefined;
    this.#observer = tracking ? options.deletionObserver : undefined;
    const syncOnlyChanged = options.syncOnlyChangedObjects === true;
    // The predicate event is built only when a filter may refuse it (a handler has predicates).
    this.#registration = informer.addEventHandler(
      {
        onAdd: (object) => {
          const key = this.#keyOf(object);
          if (key === undefined) return;
          if (tracking) this.#deleted.delete(key);
          this.#observe('add', key, object);
          if (this.#filtering() && !this.#accepts({ type: 'create', object })) return;
          this.#queue.add(key);
        },
        onUpdate: (oldObject, object) => {
          if (syncOnlyChanged && resourceVersionOf(oldObject) === resourceVersionOf(object)) return;
          const key = this.#keyOf(object);
          if (key === undefined) return;
          if (tracking) this.#deleted.delete(key);
          this.#observe('update', key, object);
          if (this.#filtering() && !this.#accepts({ type: 'update', object, oldObject })) return;
          this.#queue.add(key);
        },
        onDelete: (object) => {
          if (isDeletedFinalStateUnknown<T>(object)) {
            const event = {
              type: 'delete',
              object: object.object,
              finalStateUnknown: true,
            } as const;
            if (tracking && object.object !== undefined)
              this.#deleted.set(object.key, object.object);
            this.#observe('delete', object.key, object.object);
            if (this.#filtering() && !this.#accepts(event)) return;
            this.#queue.add(object.key);
            return;
          }
          const key = this.#keyOf(object);
          if (key === undefined) return;
          if (tracking) this.#deleted.set(key, object);
          this.#observe('delete', key, object);
          if (
            this.#filtering() &&
            !this.#accepts({ type: 'delete', object, finalStateUnknown: false })
          ) {
            return;
          }
          this.#queue.add(key);
        },
      },
      { name: `controller ${name}` },
    );
  }

  [setEventFilter](filter: EventFilter<T>): void {
    this.#eventFilter = filter;
  }

  enqueue(namespace: string, name: string): void {
    this.#queue.addRateLimited(keyOf(namespace, name));
  }

  enqueueAfter(namespace: string, name: string, delayMs: number): void {
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs)) {
      throw new RangeError(
        `controller ${this.name}: enqueueAfter delayMs must be a finite number, got ${String(delayMs)}`,
      );
    }
    // A deadline already passed (`deadline - now` < 0) adds at once, as client-go's AddAfter.
    this.#queue.addAfter(keyOf(namespace, name), Math.max(0, delayMs));
  }

  enqueueKey(key: string): void {
    this.#queue.add(key);
  }

  enqueueDeleted(key: string, lastState: T): void {
    if (typeof key !== 'string' || typeof lastState !== 'object' || lastState === null) {
      throw new TypeError(
        `controller ${this.name}: enqueueDeleted takes a key and the object's last state`,
      );
    }
    if (this.#admit !== undefined && this.#informer.getStore().getByKey(key) === undefined) {
      this.#deleted.set(key, lastState);
    }
    this.#queue.add(key);
  }

  // Tell the deletion observer; a throwing one is logged, never breaks the event's delivery.
  #observe(type: 'add' | 'update' | 'delete', key: string, object: T | undefined): void {
    const observer = this.#observer;
    if (observer === undefined) return;
    try {
      observer.event(type, key, object);
    } catch (error) {
      this.#logger.error('deletionObserver.event threw', { key, error: errorMessage(error) });
    }
  }

  #settled(key: string): void {
    const observer = this.#observer;
    if (observer === undefined) return;
    try {
      observer.settled(key);
    } catch (error) {
      this.#logger.error('deletionObserver.settled threw', { key, error: errorMessage(error) });
    }
  }

  informer(): SharedIndexInformer<T> {
    return this.#informer;
  }

  dropQueued(predicate: KeyPredicate<T>): number {
    if (typeof predicate !== 'function') {
      throw new TypeError(`controller ${this.name}: dropQueued predicate must be a function`);
    }
    const dropped = new Set<string>();
    this.#queue.drop((key) => {
      if (this.#taker.isWakeUp(key) || !predicate(key, this.#stateOf(key))) return false;
      dropped.add(key);
      return true;
    });
    for (const key of dropped) {
      this.#queue.forget(key);
      this.#deleted.delete(key);
    }
    if (dropped.size > 0) this.#logger.debug('dropped queued keys', { dropped: dropped.size });
    return dropped.size;
  }

  async cancelReconciles(predicate: KeyPredicate<T>, reason: unknown): Promise<number> {
    if (typeof predicate !== 'function') {
      throw new TypeError(`controller ${this.name}: cancelReconciles predicate must be a function`);
    }
    const run = this.#run;
    if (run === undefined) return 0;
    const waits: Array<Promise<void>> = [];
    const keys: string[] = [];
    run.inFlight.forEach((key, slot) => {
      const settling = run.settling[slot];
      if (key === undefined || settling === undefined) return;
      if (!predicate(key, this.#stateOf(key))) return;
      this.#revoked.add(key);
      keys.push(key);
      waits.push(settling);
      run.contexts[slot]?.abort(reason);
    });
    if (waits.length === 0) return 0;
    this.#logger.info('cancelling reconciles', { keys, reason: errorMessage(reason) });
    // A handler that ignores its signal holds the caller (a hand-off) until it returns: said loudly, once.
    const bound = this.#gracefulShutdownTimeoutMs;
    const warning = Number.isFinite(bound)
      ? this.#clock.schedule(bound, () => {
          const still = run.inFlight.filter((key) => key !== undefined && keys.includes(key));
          if (still.length === 0) return;
          this.#logger.error('cancelled reconciles still running, holding the hand-off', {
            keys: still,
            gracefulShutdownTimeoutMs: bound,
          });
        })
      : undefined;
    try {
      await Promise.all(waits);
    } finally {
      warning?.cancel();
    }
    return waits.length;
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  stopped(): Promise<StopResult> {
    return this.#run?.result ?? Promise.resolve(drainedResult);
  }

  start(signal: AbortSignal, workers: number | undefined = this.#workers): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      return Promise.reject(
        new TypeError(`controller ${this.name}: start needs an AbortSignal, got ${typeof signal}`),
      );
    }
    if (!Number.isInteger(workers) || workers < 1) {
      return Promise.reject(
        new RangeError(
          `controller ${this.name}: workers must be an integer >= 1, got ${String(workers)}`,
        ),
      );
    }
    if (this.#closed !== undefined) return Promise.reject(this.#closedError());
    const pending = this.#starting;
    // Concurrent starts share one, unless its signal already aborted: that one fails, this one follows it.
    if (pending !== undefined && !pending.signal.aborted) return pending.promise;
    if (pending === undefined && this.#run !== undefined && !this.#run.stop.signal.aborted) {
      return Promise.resolve();
    }
    const promise = (async () => {
      await pending?.promise.catch(() => {});
      const run = this.#run;
      if (run !== undefined) {
        if (!run.stop.signal.aborted) return; // started meanwhile, with a live signal
        // A run still stopping finishes (or passes its bound) first: one set of workers at a time.
        await run.result;
      }
      await this.#startOnce(signal, workers);
    })().finally(() => {
      if (this.#starting?.promise === promise) this.#starting = undefined;
    });
    this.#starting = { signal, promise };
    return promise;
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort(new LassoError('LASSO_ABORTED', `controller ${this.name} closed`));
      this.#registration.remove();
      const run = this.#run;
      if (run !== undefined) this.#beginStop(run, this.#closing.signal.reason);
      // Drops the delayed keys with their timer; a later enqueue is a no-op.
      this.#queue.shutDown();
      await run?.result;
      await this.#informerRun;
      this.#tracked?.removeAll();
      this.#logger.debug('controller closed');
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #closedError(): LassoError {
    return new LassoError('LASSO_CONFIG_INVALID', `controller ${this.name} is closed`);
  }

  async #startOnce(signal: AbortSignal, workers: number): Promise<void> {
    if (this.#closed !== undefined) throw this.#closedError();
    await this.#startCache(signal);
    if (!this.#informer.isRunning() && this.#informer.hasSynced()) {
      // A stopped informer keeps its last store and reports it synced, but sees no change any more: running
      // workers on it would look healthy and reconcile nothing. (One stopped before its list is refused by
      // whenSynced below; one never run yet may still be started by a startCache that returned early.)
      const stopped = new LassoError(
        'LASSO_CONTROLLER_FAILED',
        `informer ${this.#informer.name} has stopped: the startCache given to createController did not run it`,
      );
      throw new CacheNotSyncedError([this.#informer.name], {
        lastErrors: new Map([[this.#informer.name, stopped]]),
      });
    }
    // close() ends the wait too.
    const waiting = anySignal([signal, this.#closing.signal]);
    try {
      await this.#informer.whenSynced({ signal: waiting.signal });
    } catch (error) {
      throw new CacheNotSyncedError([this.#informer.name], { cause: error });
    } finally {
      waiting.dispose();
    }
    if (signal.aborted)
      throw new CacheNotSyncedError([this.#informer.name], { cause: signal.reason });
    if (this.#closed !== undefined) throw this.#closedError();
    const stop = new AbortController();
    const onAbort = (): void => this.#beginStop(run, signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let finish: () => void = () => {};
    let settle: (result: Promise<StopResult>) => void = () => {};
    const run: Run = {
      stop,
      unlink: () => signal.removeEventListener('abort', onAbort),
      stopping: false,
      inFlight: new Array<string | undefined>(workers).fill(undefined),
      startedAt: new Array<number>(workers).fill(0),
      contexts: new Array<LazyReconcileContext | undefined>(workers).fill(undefined),
      settling: new Array<Promise<void> | undefined>(workers).fill(undefined),
      deletions: new Map<string, unknown>(),
      done: new Promise<void>((resolve) => {
        finish = resolve;
      }),
      result: new Promise<StopResult>((resolve) => {
        settle = resolve;
      }),
    };
    this.#run = run;
    this.#logger.info('controller started', { workers, queued: this.#queue.len() });
    const running: Array<Promise<void>> = [];
    for (let index = 0; index < workers; index++) running.push(this.#worker(run, index));
    // Workers never reject (#worker catches everything), so this settles exactly when the last one returned.
    void Promise.all(running).then(finish);
    stop.signal.addEventListener(
      'abort',
      () => {
        settle(
          drainWithin(this.#clock, run.done, this.#gracefulShutdownTimeoutMs, () =>
            this.#stillRunning(run),
          ).then((result) => {
            if (this.#run === run) this.#run = undefined;
            this.#logger.info('controller stopped', {
              drained: result.drained,
              queued: this.#queue.len(),
            });
            return result;
          }),
        );
      },
      { once: true },
    );
  }

  // Abort the run's in-flight reconciles with `reason` (the start signal's: a LeadershipLostError reaches the
  // handlers as it is) and stop its workers: idle ones at once, busy ones after the key they hold.
  #beginStop(run: Run, reason: unknown): void {
    run.unlink();
    if (run.stop.signal.aborted) return;
    run.stopping = true;
    run.stop.abort(reason);
    this.#taker.wake();
  }

  // Called once the shutdown bound passed: names (and logs) every reconcile of `run` still running.
  #stillRunning(run: Run): string[] {
    const now = this.#clock.monotonic();
    const pending: string[] = [];
    run.inFlight.forEach((key, slot) => {
      if (key === undefined) return;
      this.#logger.error(`reconcile of '${key}' still running after the graceful shutdown bound`, {
        key,
        runningMs: now - (run.startedAt[slot] as number),
        gracefulShutdownTimeoutMs: this.#gracefulShutdownTimeoutMs,
      });
      pending.push(`${this.name} ${key}`);
    });
    return pending;
  }

  // The default startCache: the informer runs with each start's signal (and stops with it, or with close()). A
  // restart first lets the previous run end: an informer runs once at a time, and relists when it runs again.
  async #runInformer(signal: AbortSignal): Promise<void> {
    await this.#informerRun;
    if (this.#informer.isRunning() || signal.aborted || this.#closing.signal.aborted) return;
    const linked = anySignal([signal, this.#closing.signal]);
    try {
      await this.#informer.start(linked.signal);
    } catch (error) {
      linked.dispose();
      this.#logger.error('informer failed', { error: errorMessage(error), stack: stackOf(error) });
      return;
    }
    // The informer logs a failure of its run itself; stopped() settles once the run has ended.
    this.#informerRun = this.#informer.stopped().then(
      () => linked.dispose(),
      () => linked.dispose(),
    );
  }

  // The informer object's key; undefined (logged) when it has none.
  #keyOf(object: unknown): string | undefined {
    try {
      return metaNamespaceKeyFunc(object);
    } catch (error) {
      this.#logger.error('dropping informer event without a key', { error: errorMessage(error) });
      return undefined;
    }
  }

  // Whether the event filter may refuse an event now: only then is the event object built.
  #filtering(): boolean {
    return this.#eventFilter?.active() === true;
  }

  #accepts(event: PredicateEvent<T>): boolean {
    return (this.#eventFilter as EventFilter<T>).accepts(event);
  }

  async #worker(run: Run, slot: number): Promise<void> {
    for (;;) {
      // QueueTaker.take inlined (one async frame less per key). Undefined once the run stopped (a key handed out
      // meanwhile went back into the queue) or at close.
      if (run.stopping) return;
      const key = this.#taker.accept(await this.#taker.get(), run.stopping);
      if (key === wakeUp) continue;
      if (key === undefined) return;
      run.inFlight[slot] = key;
      run.startedAt[slot] = this.#clock.monotonic();
      try {
        // Awaited only when the handler returned a promise.
        const processing = this.#process(run, key, slot);
        if (processing !== undefined) {
          run.settling[slot] = processing;
          await processing;
        }
      } catch (error) {
        // #process handles every handler outcome; this is a broken rate limiter, and the worker must survive it.
        this.#logger.error('controller worker failed', {
          key,
          error: errorMessage(error),
          stack: stackOf(error),
        });
      } finally {
        run.inFlight[slot] = undefined;
        run.deletions.delete(key);
        run.contexts[slot] = undefined;
        run.settling[slot] = undefined;
        this.#queue.done(key);
      }
    }
  }

  // One reconcile of `key`: synchronous while the handler returns a plain value, a promise when it returns one.
  #process(run: Run, key: string, slot: number): Promise<void> | undefined {
    const object = this.#informer.getStore().getByKey(key) as T | undefined;
    if (this.#admit !== undefined) {
      if (!this.#admitted(key, object)) return undefined;
      const deleted = object === undefined ? this.#deleted.get(key) : undefined;
      if (deleted !== undefined) run.deletions.set(key, deleted);
      else run.deletions.delete(key);
    }
    const context = new LazyReconcileContext(key, this.#logger, run.stop.signal, this.#fence?.());
    run.contexts[slot] = context;
    const timeoutMs = this.#reconcileTimeoutMs;
    const timer =
      timeoutMs === undefined ? undefined : this.#scheduleTimeout(context, key, timeoutMs);
    let result: void | Promise<void>;
    try {
      result = this.#handler(key, object, context);
    } catch (error) {
      timer?.cancel();
      context.finish();
      this.#afterReconcile(run, key, true, error);
      return undefined;
    }
    if (isThenable(result)) return this.#settleAsync(run, key, result, timer, context);
    timer?.cancel();
    context.finish();
    this.#afterReconcile(run, key, false, undefined);
    return undefined;
  }

  async #settleAsync(
    run: Run,
    key: string,
    pending: PromiseLike<void>,
    timer: TimerHandle | undefined,
    context: LazyReconcileContext,
  ): Promise<void> {
    let error: unknown;
    let failed = false;
    try {
      await pending;
    } catch (caught) {
      failed = true;
      error = caught;
    } finally {
      timer?.cancel();
      context.finish();
    }
    this.#afterReconcile(run, key, failed, error);
  }

  #scheduleTimeout(context: LazyReconcileContext, key: string, timeoutMs: number): TimerHandle {
    return this.#clock.schedule(timeoutMs, () => {
      this.#timeouts?.inc();
      this.#logger.warn('reconcile timed out', { key, timeoutMs });
      context.abort(
        new TimeoutError(
          `controller ${this.name}: reconcile of '${key}' timed out after ${timeoutMs} ms`,
          timeoutMs,
        ),
      );
    });
  }

  // Whether `admit` lets this replica reconcile `key` now; a key refused leaves the queue without a retry.
  #admitted(key: string, object: T | undefined): boolean {
    const state = object ?? this.#deleted.get(key);
    let admitted = false;
    if (state !== undefined) {
      try {
        admitted = (this.#admit as NonNullable<ControllerOptions['admit']>)(key, state);
      } catch (error) {
        // A broken admit must not lose the key: retried like a failed reconcile.
        this.#logger.error(`admit of '${key}' failed, requeuing`, {
          key,
          error: errorMessage(error),
          stack: stackOf(error),
        });
        this.#queue.addRateLimited(key);
        return false;
      }
    }
    if (!admitted) {
      this.#queue.forget(key);
      this.#deleted.delete(key);
      this.#logger.debug(`skipping '${key}': not admitted here`, { key });
    }
    return admitted;
  }

  // The cached object of `key`, or the last state its delete event carried (tracked with `admit`).
  #stateOf(key: string): T | undefined {
    return (this.#informer.getStore().getByKey(key) as T | undefined) ?? this.#deleted.get(key);
  }

  // The key leaves the queue before anything is said: a throwing logger or hook cannot bring it back.
  #giveUp(key: string, error: unknown, retries: number): void {
    this.#queue.forget(key);
    if (this.#deleted.delete(key)) this.#settled(key);
    this.#giveUps?.inc();
    this.#logger.error(`giving up on '${key}' after ${retries} retries`, {
      key,
      retries,
      error: errorMessage(error),
      stack: stackOf(error),
    });
    if (this.#onGiveUp === undefined) return;
    try {
      this.#onGiveUp({ controller: this.name, key, error, retries });
    } catch (hookError) {
      this.#logger.error('onGiveUp threw', { key, error: errorMessage(hookError) });
    }
  }

  // Forget the key's backoff after a success (or an ignored error), requeue it after a failure.
  #afterReconcile(run: Run, key: string, failed: boolean, error: unknown): void {
    if (this.#revoked.delete(key)) {
      // Cancelled because the key moved away: its new owner reconciles it; nothing is retried here.
      this.#queue.forget(key);
      this.#deleted.delete(key);
      if (failed) {
        this.#logger.info(`reconcile of '${key}' cancelled: the key moved away`, {
          key,
          error: errorMessage(error),
        });
      }
      return;
    }
    if (!failed || isIgnoreError(error)) {
      this.#queue.forget(key);
      // The deletion this reconcile saw is handled; one seen since stays for the next reconcile.
      const seen = run.deletions.get(key);
      if (seen !== undefined && this.#deleted.get(key) === seen) {
        this.#deleted.delete(key);
        this.#settled(key);
      }
      return;
    }
    if (run.stopping && isStopCancellation(error, run.stop.signal.reason)) {
      // Cut short by the stop (shutdown, leadership lost, close), not failed: queued again for the next run
      // without raising its backoff, and said at info without a stack.
      this.#queue.add(key);
      this.#logger.info(`reconcile of '${key}' cancelled by the stop, requeued`, {
        key,
        reason: errorMessage(run.stop.signal.reason),
      });
      return;
    }
    // The key is requeued before anything is logged: a logger that throws must not lose it.
    const delayMs = retryAfterDelay(error);
    if (delayMs !== undefined) {
      this.#queue.addAfter(key, delayMs);
      this.#logger.debug('requeuing after delay', { key, delayMs });
      return;
    }
    const retries = this.#queue.numRequeues(key);
    if (retries >= this.#maxRetries) {
      this.#giveUp(key, error, retries);
      return;
    }
    this.#queue.addRateLimited(key);
    if (isConflictError(error)) {
      this.#logger.debug('conflict, requeuing', { key, error: errorMessage(error) });
      return;
    }
    this.#logger.error(`error syncing '${key}', requeuing`, {
      key,
      attempt: this.#queue.numRequeues(key),
      error: errorMessage(error),
      stack: stackOf(error),
    });
  }
}

/**
 * Create a controller (lasso `controller.New`): registers ONE event handler on `informer` that enqueues the
 * `namespace/name` key of every added, updated and deleted object (tombstones unwrapped) into the controller's
 * queue, which lives until `close()`; on `start` it runs `startCache`, waits for the informer to sync and drains
 * the queue with async workers calling `handler(key, cachedObjectOrUndefined, context)`.
 *
 * @example
 * ```ts
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * const informer = createCache(configMaps, { namespace: 'default' });
 * // startCache undefined: the controller runs its informer itself.
 * const controller = createController('configmaps', informer, undefined, async (key, configMap, { signal }) => {
 *   if (configMap === undefined) return; // deleted
 *   await configMaps.update('default', configMap, { signal }); // aborted on stop
 * }, { reconcileTimeoutMs: 60_000 });
 * const stop = new AbortController();
 * await controller.start(stop.signal, 2);
 * stop.abort();
 * const { drained, pending } = await controller.stopped(); // within gracefulShutdownTimeoutMs (30 s)
 * await controller.close();
 * ```
 *
 * **Gotchas**: `enqueue` raises the key's backoff (lasso's rule); use `enqueueKey` to queue a key without
 * it. Keys queued before `start`, or between a stop and the next start, wait in the queue. A handler that
 * ignores its signal keeps its worker busy; `stopped()` settles after `gracefulShutdownTimeoutMs` anyway. Delayed
 * keys keep a timer: `close()` a controller you are done with.
 */
export function createController<T extends KubeObjectLike>(
  name: string,
  informer: SharedIndexInformer<T>,
  startCache: StartCacheFunc | undefined,
  handler: Handler<T>,
  options: ControllerOptions = {},
): HandOffController<T> {
  if (typeof name !== 'string') {
    throw new TypeError(`createController: name must be a string, got ${typeof name}`);
  }
  if (name === '') throw new RangeError('createController: name must not be empty');
  if (typeof informer?.addEventHandler !== 'function') {
    throw new TypeError(`createController(${name}): informer must be a SharedIndexInformer`);
  }
  if (startCache !== undefined && typeof startCache !== 'function') {
    throw new TypeError(`createController(${name}): startCache must be a function or undefined`);
  }
  if (typeof handler !== 'function') {
    throw new TypeError(`createController(${name}): handler must be a function`);
  }
  checkControllerOptions(options, name);
  return new ControllerImpl<T>(name, informer, startCache, handler, options);
}
