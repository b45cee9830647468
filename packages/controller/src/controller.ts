// Controller: one informer event handler feeding a rate-limited workqueue of `namespace/name` keys, drained by
// async workers that call one handler with the key's cached object. Ports rancher/lasso pkg/controller/controller.go.
import {
  CacheNotSyncedError,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  type SharedIndexInformer,
} from '@lasso/cache';
import type { KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  LassoError,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  systemClock,
} from '@lasso/core';
import {
  createRateLimitingQueue,
  defaultLassoRateLimiter,
  type RateLimiter,
  type RateLimitingQueue,
} from '@lasso/workqueue';
import { isConflictError, isIgnoreError, retryAfterDelay } from './errors.ts';

/**
 * Reconciles one key. `object` is the cached object, or `undefined` when it was deleted. Return (or resolve)
 * for success: the key's backoff is reset. Throw (or reject) to have the key retried through the rate
 * limiter; throw `ErrIgnore` to stop without a retry, `retryAfter(ms)` to retry after a fixed delay.
 */
export type Handler<T> = (key: string, object: T | undefined) => void | Promise<void>;

/**
 * Starts the cache a controller reads (lasso's `startCache`): called by every `start`, with the start's
 * signal. It must be idempotent (an informer runs once); the controller then waits for the informer to sync.
 * Pass `undefined` to {@link createController} to have the controller run its informer itself, with the first
 * start's signal: an informer runs once, so such a controller cannot be started again after that signal aborted.
 */
export type StartCacheFunc = (signal: AbortSignal) => void | Promise<void>;

/** A controller: a workqueue of keys fed by one informer and drained by workers (lasso `controller.Controller`). */
export interface Controller<T extends KubeObjectLike> {
  /** The controller's name: the workqueue's `name` label and the logger's `controller` attribute. */
  readonly name: string;
  /** Queue `namespace/name` through the rate limiter: it raises that key's backoff (lasso `Enqueue`). */
  enqueue(namespace: string, name: string): void;
  /** Queue `namespace/name` once `delayMs` has passed. */
  enqueueAfter(namespace: string, name: string, delayMs: number): void;
  /** Queue a key now, without rate limiting (what informer events do). */
  enqueueKey(key: string): void;
  /** The informer whose store the handler reads. */
  informer(): SharedIndexInformer<T>;
  /**
   * Start the cache, wait for it to sync, then run `workers` workers until `signal` aborts. Resolves once
   * the workers run; rejects with a `CacheNotSyncedError` when the signal aborts before the cache synced, or
   * when the informer has stopped (it cannot see changes any more). Idempotent while running; after the
   * signal aborted the controller can be started again with a new signal, provided `startCache` gives it a
   * running informer.
   */
  start(signal: AbortSignal, workers: number): Promise<void>;
  /**
   * Settles once the controller is not running: after an abort, when every in-flight key is done and the
   * last worker returned. Resolves at once when it is not running.
   */
  stopped(): Promise<void>;
  /** True between a successful `start` and the end of the shutdown that follows its signal's abort. */
  isRunning(): boolean;
}

/** Options of {@link createController} (lasso `controller.Options` plus lasso's injected services). */
export interface ControllerOptions {
  /** Per-key retry backoff. Default `defaultLassoRateLimiter()` (5 ms doubling to 30 s, then 120 s after 30 failures). */
  rateLimiter?: RateLimiter<string> | undefined;
  /** Skip informer updates whose resourceVersion did not change (resyncs). Default false. */
  syncOnlyChangedObjects?: boolean | undefined;
  /** Time source of the queue and its delays. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where failures and lifecycle events are logged. */
  logger?: Logger | undefined;
  /** Records the `workqueue_*` metrics of the controller's queue (its `name` label is the controller's name). */
  metrics?: MetricsProvider | undefined;
}

// A key waiting for the next queue, as the queue would hold it: at most one immediate add and one delayed add
// (the earliest deadline wins, as in a delaying queue), so the buffer holds one entry per key however often
// it is enqueued while no queue runs.
interface PendingKey {
  now: boolean;
  /** Monotonic time of the earliest delayed add; undefined = none. */
  notBefore: number | undefined;
}

// One start's worth of state: a new queue and new workers per start, as lasso creates its queue in run().
interface Run {
  readonly signal: AbortSignal;
  readonly queue: RateLimitingQueue<string>;
  /** Set on abort: workers stop taking keys, the ones they hold finish. */
  stopping: boolean;
  // Deadline of every key waiting out a delay or backoff in this queue. A queue drops such keys when it shuts
  // down, so they are carried over to the next start from here.
  readonly waiting: Map<string, number>;
  readonly done: Promise<void>;
}

function keyOf(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function resourceVersionOf(object: unknown): unknown {
  return (object as KubeObjectLike | undefined)?.metadata?.resourceVersion;
}

class ControllerImpl<T extends KubeObjectLike> implements Controller<T> {
  readonly name: string;
  readonly #informer: SharedIndexInformer<T>;
  readonly #startCache: StartCacheFunc;
  readonly #handler: Handler<T>;
  readonly #rateLimiter: RateLimiter<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider;
  // Keys enqueued while no queue exists (before start, or between a stop and the next start); flushed
  // into the next queue. Delays are kept as deadlines so the wait before start counts.
  readonly #pending = new Map<string, PendingKey>();
  // Present from the creation of the queue until every worker of that run returned.
  #run: Run | undefined;
  // Set once the controller ran its own informer (no startCache given).
  #informerRun: Promise<void> | undefined;
  // An in-progress start: concurrent callers share it instead of starting twice.
  #starting: Promise<void> | undefined;

  constructor(
    name: string,
    informer: SharedIndexInformer<T>,
    startCache: StartCacheFunc | undefined,
    handler: Handler<T>,
    options: ControllerOptions,
  ) {
    this.name = name;
    this.#informer = informer;
    this.#startCache = startCache ?? ((signal) => this.#runInformerOnce(signal));
    this.#handler = handler;
    this.#rateLimiter = options.rateLimiter ?? defaultLassoRateLimiter();
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ controller: name });
    this.#metrics = options.metrics ?? noopMetricsProvider;
    const syncOnlyChanged = options.syncOnlyChangedObjects === true;
    informer.addEventHandler(
      {
        onAdd: (object) => this.#enqueueObject(object),
        onUpdate: (oldObject, newObject) => {
          if (syncOnlyChanged && resourceVersionOf(oldObject) === resourceVersionOf(newObject))
            return;
          this.#enqueueObject(newObject);
        },
        onDelete: (object) =>
          this.#enqueueObject(isDeletedFinalStateUnknown(object) ? object.key : object),
      },
      { name: `controller ${name}` },
    );
  }

  enqueue(namespace: string, name: string): void {
    const key = keyOf(namespace, name);
    const run = this.#liveRun();
    if (run !== undefined) this.#addAfter(run, key, this.#rateLimiter.when(key));
    else this.#buffer(key, undefined);
  }

  enqueueAfter(namespace: string, name: string, delayMs: number): void {
    if (typeof delayMs !== 'number' || !(delayMs >= 0)) {
      throw new RangeError(
        `controller ${this.name}: enqueueAfter delayMs must be a number >= 0, got ${String(delayMs)}`,
      );
    }
    const key = keyOf(namespace, name);
    const run = this.#liveRun();
    if (run !== undefined) this.#addAfter(run, key, delayMs);
    else this.#buffer(key, this.#clock.monotonic() + delayMs);
  }

  enqueueKey(key: string): void {
    const run = this.#liveRun();
    if (run !== undefined) run.queue.add(key);
    else this.#buffer(key, undefined);
  }

  informer(): SharedIndexInformer<T> {
    return this.#informer;
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  stopped(): Promise<void> {
    return this.#run?.done ?? Promise.resolve();
  }

  start(signal: AbortSignal, workers: number): Promise<void> {
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
    if (this.#starting !== undefined) return this.#starting;
    const run = this.#run;
    if (run !== undefined && !run.stopping) return Promise.resolve();
    const starting = (async () => {
      // A run still draining after its abort finishes first: one set of workers at a time.
      if (run !== undefined) await run.done;
      await this.#startOnce(signal, workers);
    })().finally(() => {
      this.#starting = undefined;
    });
    this.#starting = starting;
    return starting;
  }

  async #startOnce(signal: AbortSignal, workers: number): Promise<void> {
    await this.#startCache(signal);
    if (this.#informer.isStopped()) {
      // A stopped informer keeps its last store and reports it synced, but sees no change any more: running
      // workers on it would look healthy and reconcile nothing.
      const stopped = new LassoError(
        'LASSO_CONTROLLER_FAILED',
        `informer ${this.#informer.name} has stopped and cannot run again: pass createController a startCache that starts a running informer`,
      );
      throw new CacheNotSyncedError([this.#informer.name], {
        lastErrors: new Map([[this.#informer.name, stopped]]),
      });
    }
    try {
      await this.#informer.whenSynced({ signal });
    } catch (error) {
      throw new CacheNotSyncedError([this.#informer.name], { cause: error });
    }
    if (signal.aborted)
      throw new CacheNotSyncedError([this.#informer.name], { cause: signal.reason });
    const queue = createRateLimitingQueue<string>(this.#rateLimiter, {
      name: this.name,
      clock: this.#clock,
      metrics: this.#metrics,
      logger: this.#logger,
    });
    let finish: () => void = () => {};
    const run: Run = {
      signal,
      queue,
      stopping: false,
      waiting: new Map(),
      done: new Promise<void>((resolve) => {
        finish = resolve;
      }),
    };
    this.#run = run;
    const buffered = this.#pending.size;
    const now = this.#clock.monotonic();
    for (const [key, { now: immediate, notBefore }] of this.#pending) {
      if (immediate) queue.add(key);
      // Through #addAfter, so a key still waiting when this run stops is carried over again.
      if (notBefore !== undefined) this.#addAfter(run, key, Math.max(0, notBefore - now));
    }
    this.#pending.clear();
    const onAbort = (): void => {
      run.stopping = true;
      // Waiting workers wake up; keys still queued are carried over to the next start by the workers.
      queue.shutDown();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const running: Array<Promise<void>> = [];
    for (let index = 0; index < workers; index++) running.push(this.#worker(run));
    this.#safeLog('info', 'controller started', () => ({ workers, buffered }));
    // Workers never reject (#worker catches everything), so this settles exactly when the last one returned.
    void Promise.all(running).then(() => {
      signal.removeEventListener('abort', onAbort);
      for (const [key, notBefore] of run.waiting) this.#buffer(key, notBefore);
      if (this.#run === run) this.#run = undefined;
      finish();
      this.#safeLog('info', 'controller stopped', () => ({}));
    });
  }

  // The default startCache: the informer runs once, with the first start's signal (and stops with it); a later
  // start then finds it stopped and rejects (see #startOnce).
  #runInformerOnce(signal: AbortSignal): void {
    if (this.#informerRun !== undefined) return;
    this.#informerRun = this.#informer.run({ signal }).catch((error: unknown) => {
      this.#logger.error('informer failed', { error: errorMessage(error) });
    });
  }

  // Keep `key` for the next queue: an immediate add (`notBefore` undefined) or a delayed one.
  #buffer(key: string, notBefore: number | undefined): void {
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      this.#pending.set(key, { now: notBefore === undefined, notBefore });
    } else if (notBefore === undefined) {
      pending.now = true;
    } else if (pending.notBefore === undefined || notBefore < pending.notBefore) {
      pending.notBefore = notBefore;
    }
  }

  // The queue of a run that still takes keys; undefined while stopped or stopping (keys are buffered then).
  #liveRun(): Run | undefined {
    const run = this.#run;
    return run === undefined || run.stopping ? undefined : run;
  }

  // addAfter that remembers the deadline (see Run.waiting); the rate-limited path goes through here too,
  // asking the limiter itself, which is what RateLimitingQueue.addRateLimited does.
  #addAfter(run: Run, key: string, delayMs: number): void {
    const notBefore = this.#clock.monotonic() + delayMs;
    const earlier = run.waiting.get(key);
    if (earlier === undefined || notBefore < earlier) run.waiting.set(key, notBefore);
    run.queue.addAfter(key, delayMs);
  }

  #enqueueObject(object: unknown): void {
    let key: string;
    try {
      key = metaNamespaceKeyFunc(object);
    } catch (error) {
      this.#logger.error('dropping informer event without a key', { error: errorMessage(error) });
      return;
    }
    this.enqueueKey(key);
  }

  async #worker(run: Run): Promise<void> {
    for (;;) {
      const next = await run.queue.get();
      if (next.shutdown) return;
      const key = next.item;
      const notBefore = run.waiting.get(key);
      if (notBefore !== undefined && notBefore <= this.#clock.monotonic()) run.waiting.delete(key);
      if (run.stopping) {
        // Not processed in this run: the next start picks it up.
        this.#buffer(key, undefined);
        run.queue.done(key);
        continue;
      }
      try {
        await this.#process(run, key);
      } catch (error) {
        // #process handles every handler outcome; this is a broken rate limiter or logger, and the worker
        // must survive it.
        this.#safeLog('error', 'controller worker failed', () => ({
          key,
          error: errorMessage(error),
        }));
      } finally {
        run.queue.done(key);
      }
    }
  }

  // Logs without ever throwing: `attributes` is built inside the guard, since reading a hostile error can throw.
  #safeLog(
    level: 'debug' | 'info' | 'error',
    message: string,
    attributes: () => Record<string, unknown>,
  ): void {
    try {
      this.#logger[level](message, attributes());
    } catch {
      // A logger that throws cannot be told about it.
    }
  }

  async #process(run: Run, key: string): Promise<void> {
    let error: unknown;
    let failed = false;
    try {
      const object = this.#informer.getStore().getByKey(key);
      await this.#handler(key, object);
    } catch (caught) {
      failed = true;
      error = caught;
    }
    if (!failed || isIgnoreError(error)) {
      run.queue.forget(key);
      return;
    }
    // The key is requeued before anything is logged: a logger that throws must not lose it.
    const delayMs = retryAfterDelay(error);
    if (delayMs !== undefined) {
      this.#addAfter(run, key, delayMs);
      this.#safeLog('debug', 'requeuing after delay', () => ({ key, delayMs }));
      return;
    }
    this.#addAfter(run, key, this.#rateLimiter.when(key));
    if (isConflictError(error)) {
      this.#safeLog('debug', 'conflict, requeuing', () => ({ key, error: errorMessage(error) }));
      return;
    }
    this.#safeLog('error', `error syncing '${key}', requeuing`, () => ({
      key,
      attempt: run.queue.numRequeues(key),
      error: errorMessage(error),
    }));
  }
}

/**
 * Create a controller (lasso `controller.New`): registers ONE event handler on `informer` that enqueues the
 * `namespace/name` key of every added, updated and deleted object (tombstones unwrapped), and on `start`
 * runs `startCache`, waits for the informer to sync and drains the queue with async workers calling
 * `handler(key, cachedObjectOrUndefined)`.
 *
 * @example
 * ```ts
 * const informer = createCache(configMaps, { namespace: 'default' });
 * // startCache undefined: the controller runs its informer itself.
 * const controller = createController('configmaps', informer, undefined, async (key, configMap) => {
 *   if (configMap === undefined) return; // deleted
 *   console.log('reconciling', key, configMap.data);
 * });
 * const stop = new AbortController();
 * await controller.start(stop.signal, 2);
 * ```
 *
 * **Gotchas**: `enqueue` raises the key's backoff (lasso's rule); use `enqueueKey` to queue a key without
 * it. Keys queued before `start` are kept and queued at start. A handler that never settles holds its
 * worker forever, and shutdown waits for it.
 */
export function createController<T extends KubeObjectLike>(
  name: string,
  informer: SharedIndexInformer<T>,
  startCache: StartCacheFunc | undefined,
  handler: Handler<T>,
  options: ControllerOptions = {},
): Controller<T> {
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
  return new ControllerImpl<T>(name, informer, startCache, handler, options);
}
