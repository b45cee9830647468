// SharedIndexInformer: one list/watch feeding an indexer and any number of event handlers.
// Ports client-go tools/cache shared_informer.go and controller.go (processDeltas).
// size: over 500 lines because it is one class whose state (indexer, listeners, runs, sync waiters, resync) is private
// to it, with its public interface's TSDoc; its parts are in their own files: the reflector and its watch session,
// the DeltaFIFO, each handler's ProcessorListener (processor-listener.ts), the staleness tracker.
import type { KubeObject, KubeObjectLike } from '@lasso/client';
import {
  abortReason,
  anySignal,
  type Clock,
  defaultLogger,
  drainedResult,
  errorMessage,
  guardLogger,
  LassoError,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  type StopResult,
  systemClock,
  type TimerHandle,
} from '@lasso/core';
import { createCompactTransform } from './compact.ts';
import {
  DeltaFIFO,
  isDeletedFinalStateUnknown,
  type PoppedDeltas,
  type TransformFunc,
} from './delta-fifo.ts';
import { CacheNotSyncedError, type WatchError } from './errors.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import {
  type EventHandlerOptions,
  type EventHandlerRegistration,
  type Notification,
  ProcessorListener,
  type ResourceEventHandler,
} from './processor-listener.ts';
import { Reflector, type ReflectorStore } from './reflector.ts';
import type { ReflectorOptions, WatchErrorHandler } from './reflector-options.ts';
import { ShardView, shardFilteredCounter, shardListerWatcher } from './shard-filter.ts';
import { type CacheGroupVersionKind, StalenessTracker } from './staleness.ts';
import {
  checkedIndexer,
  createIndexer,
  type Indexer,
  type IndexerReader,
  type Indexers,
  indexerView,
  type KeyFunc,
  metaNamespaceKeyFunc,
  type StoreReader,
} from './store.ts';

/**
 * An informer shared by several handlers: one list/watch, one indexer, one buffer and loop per handler.
 * Created by {@link createSharedIndexInformer} or `createCache`. A `@lasso/core` {@link Lifecycle}:
 * `start(signal)`, `stopped()`, `isRunning()`, `close()`, and `whenSynced({ signal })` to wait for its list.
 */
export interface SharedIndexInformer<T extends KubeObjectLike = KubeObject> extends Lifecycle {
  /** Name in logs, metrics and errors (usually the GVK). */
  readonly name: string;
  /**
   * Add a handler; allowed before, during and after a run. A handler added once the informer has stored
   * objects first gets a synthetic `onAdd` for every one of them (delivered from the next run when it is
   * stopped).
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    options?: EventHandlerOptions,
  ): EventHandlerRegistration;
  /** Read-only view of the store. */
  getStore(): StoreReader<T>;
  /** Read-only view of the indexer. */
  getIndexer(): IndexerReader<T>;
  /** Add index functions; after start, objects already stored are indexed at once. */
  addIndexers(indexers: Indexers<T>): void;
  /**
   * Replace the transform applied before objects are stored (default: drop `metadata.managedFields`). Before
   * `run` only. A transform that throws fails the list (retried after backoff) or the watch event (reported
   * with phase `event`, then a relist): the object is never stored untransformed.
   */
  setTransform(transform: TransformFunc<T>): void;
  /** Receive every list/watch failure (they are also logged and counted). */
  setWatchErrorHandler(handler: WatchErrorHandler): void;
  /**
   * List, watch and deliver until `signal` aborts. Resolves once the watch is released and every handler loop
   * has ended (an in-flight handler call is awaited). Rejects only when called while a run is in progress.
   * An informer whose run ended can run again: it relists, and the new list replaces the store (objects
   * gone meanwhile are delivered as deletions, changed ones as updates); notifications a handler had not
   * received when the run ended are delivered by the next run.
   *
   * @deprecated The older dialect of the lifecycle shape: use `start(signal)` then `stopped()`. It still works.
   */
  run(options: { signal: AbortSignal }): Promise<void>;
  /**
   * The lifecycle shape of `run`: start a run with `signal` and resolve at once (not once synced: see
   * {@link whenSynced}). Idempotent while running (the running signal stays in charge); after a stop, starts
   * again. A run's failure is logged.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Settles once the current run has ended (at once, drained, when not running). */
  stopped(): Promise<StopResult>;
  /** True from the start of a run until it has ended. */
  isRunning(): boolean;
  /**
   * Stop the current run (if any) and refuse further runs; resolves once the run has ended. The informer owns
   * no client (the lister-watcher's client belongs to its creator), so nothing else is released. Idempotent.
   */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * True once the list of the current run (or, once stopped, of the last run) has been stored and delivered
   * to the handlers' buffers. A restarted informer is not synced again until its relist.
   */
  hasSynced(): boolean;
  /** Resolves when {@link hasSynced} turns true; rejects with the signal's reason, or when the informer stops first. */
  whenSynced(options?: { signal?: AbortSignal }): Promise<void>;
  /** The resourceVersion of the last list or watch event. */
  lastSyncResourceVersion(): string;
  /**
   * True once a run has ended and no other has started.
   *
   * @deprecated Use `isRunning()` (the lifecycle shape: false before the first run too); it still works.
   */
  isStopped(): boolean;
  /**
   * The last list or watch failure since the last successful list (undefined when there is none): what
   * `waitForCacheSync`'s `CacheNotSyncedError` names for an informer that did not sync. Optional: an informer
   * from elsewhere may not know it.
   */
  lastWatchError?(): WatchError | undefined;
  /**
   * Be told the keys of the objects a change of the `shard` filter evicted from the store (they left without any
   * handler seeing a deletion). Called synchronously, in the change, before the list with the new ranges starts;
   * returns an unsubscribe. Present on informers of `createSharedIndexInformer` and `createCache`.
   */
  onShardEvicted?(listener: (keys: readonly string[]) => void): () => void;
}

/** Options of {@link createSharedIndexInformer}: the reflector's plus the informer's own. */
export interface SharedIndexInformerOptions<T> extends Omit<ReflectorOptions, 'watchable'> {
  /**
   * Whether the resource can be watched (default true). A function is asked at the start of every run, so whoever
   * learns it later (the cache factory, from discovery's verbs) can mark an informer created earlier as list-only:
   * `false` lists every `pollIntervalMs` instead of watching, as the reflector's `watchable: false` does.
   */
  watchable?: boolean | (() => boolean) | undefined;
  /** Default resync period of handlers; 0 = never (the default). */
  resyncPeriodMs?: number | undefined;
  /** Initial index functions (added to `indexer` through `addIndexers` when one is given). */
  indexers?: Indexers<T> | undefined;
  /**
   * The indexer the informer stores objects in. Default: a new in-memory one (`createIndexer` with `keyFunc`
   * and `indexers`). A given one must key objects as `keyFunc` does, should be empty when the informer first
   * runs and be written by this informer only (readers use {@link SharedIndexInformer.getIndexer}). It may
   * return copies rather than the stored objects (a SQLite-backed store does): the informer never relies on the
   * identity of what it reads back.
   */
  indexer?: Indexer<T> | undefined;
  /** Default {@link metaNamespaceKeyFunc}. */
  keyFunc?: KeyFunc | undefined;
  /**
   * The kind this informer caches: when set, its store size is recorded as lasso's
   * `lasso_controller_total_cached_object{group,version,kind}` (`createCache` sets it from the client).
   */
  gvk?: CacheGroupVersionKind | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsProvider | undefined;
}

/**
 * Create a {@link SharedIndexInformer} over a lister-watcher. Nothing is requested before `run`.
 *
 * Guarantees (client-go): the store converges to the server's state; each handler sees, per object, a
 * subsequence of its states ending with the latest one; a handler added late gets synthetic adds; a slow or
 * throwing handler delays or breaks nobody else (each has an unbounded buffer and its own loop); relists
 * deliver unchanged objects only to handlers whose resync is due (no spurious updates).
 *
 * @example
 * ```ts
 * declare const listerWatcher: ListerWatcher<KubeObject>;
 * const informer = createSharedIndexInformer(listerWatcher, { name: 'v1, Kind=ConfigMap' });
 * informer.addEventHandler({ onAdd: (cm) => logger.info('added', { name: cm.metadata?.name }) });
 * const stop = new AbortController();
 * await informer.start(stop.signal);
 * await informer.whenSynced();
 * stop.abort();
 * await informer.stopped(); // and informer.start(newSignal) runs it again (relist)
 * ```
 */
export function createSharedIndexInformer<T extends KubeObjectLike = KubeObject>(
  listerWatcher: ListerWatcher<T>,
  options: SharedIndexInformerOptions<T> = {},
): SharedIndexInformer<T> {
  return new SharedInformer<T>(listerWatcher, options);
}

type PutByKey<T> = (key: string, object: T) => void;

class SharedInformer<T extends KubeObjectLike> implements SharedIndexInformer<T> {
  readonly name: string;
  readonly #listerWatcher: ListerWatcher<T>;
  readonly #options: SharedIndexInformerOptions<T>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #handlerErrors: MetricsProvider;
  readonly #indexer: Indexer<T>;
  // The read-only view getStore/getIndexer hand out: built once (controllers ask for it per key).
  readonly #indexerView: IndexerReader<T>;
  readonly #keyFunc: KeyFunc;
  readonly #putByKey: PutByKey<T> | undefined;
  readonly #defaultResyncMs: number;
  #transform: TransformFunc<T> = createCompactTransform<T>();
  #watchErrorHandler: WatchErrorHandler | undefined;
  // Cleared by a successful list: an informer that syncs no longer has a reason not to.
  #lastError: WatchError | undefined;
  readonly #listeners = new Set<ProcessorListener<T>>();
  // #listeners as an array, rebuilt when a handler is added or removed: the per-notification loop.
  #listenerList: ProcessorListener<T>[] = [];
  readonly #removed = new Set<ProcessorListener<T>>();
  // Listeners whose resync was due at the last resync check: updates with an unchanged resourceVersion go
  // only to them (client-go's syncingListeners).
  #syncingListeners = new Set<ProcessorListener<T>>();
  #fifo: DeltaFIFO<T> | undefined;
  #reflector: Reflector<T> | undefined;
  #resyncTimer: TimerHandle | undefined;
  // Set by the first run: the indexer may hold objects from then on, and the transform is fixed.
  #started = false;
  #stopped = false;
  // The run in progress (from its first line to the end of its cleanup).
  #running: Promise<void> | undefined;
  readonly #closer = new AbortController();
  #handlerCount = 0;
  #syncWaiters = new Set<{ resolve(): void; reject(error: unknown): void }>();
  readonly #staleness: StalenessTracker;
  // The `shard` option: what the store may hold; evictions are told to these listeners.
  readonly #shard: ShardView | undefined;
  readonly #evictionListeners = new Set<(keys: readonly string[]) => void>();

  constructor(listerWatcher: ListerWatcher<T>, options: SharedIndexInformerOptions<T>) {
    this.name = options.name ?? 'informer';
    const { watchable } = options;
    if (
      watchable !== undefined &&
      typeof watchable !== 'boolean' &&
      typeof watchable !== 'function'
    ) {
      throw new TypeError(
        `informer ${this.name}: watchable must be a boolean or a function, got ${typeof watchable}`,
      );
    }
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ informer: this.name });
    this.#handlerErrors = options.metrics ?? noopMetricsProvider;
    if (options.shard !== undefined) {
      // The reflector checks the source too; filtered here so the counter carries the kind.
      this.#listerWatcher = shardListerWatcher(listerWatcher, options.shard, {
        filtered: () => shardFilteredCounter(this.#handlerErrors, options.gvk?.kind ?? this.name),
        logger: this.#logger,
      });
      this.#shard = new ShardView(options.shard, (error) =>
        this.#logger.error('the shard filter source gave an invalid filter: keeping the last one', {
          error: errorMessage(error),
        }),
      );
    } else {
      this.#listerWatcher = listerWatcher;
    }
    this.#keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;
    if (options.indexer === undefined) {
      const indexer = createIndexer<T>({
        keyFunc: this.#keyFunc,
        indexers: options.indexers ?? {},
      });
      this.#indexer = indexer;
      // Its own indexer keys objects with the FIFO's key function: store under the key the FIFO computed.
      this.#putByKey = indexer.putByKey?.bind(indexer);
    } else {
      this.#indexer = checkedIndexer(options.indexer);
      if (options.indexers !== undefined) this.#indexer.addIndexers(options.indexers);
    }
    this.#indexerView = indexerView(this.#indexer);
    this.#defaultResyncMs = resyncPeriod(options.resyncPeriodMs ?? 0, 'resyncPeriodMs');
    this.#watchErrorHandler = options.watchErrorHandler;
    this.#staleness = new StalenessTracker({
      owner: this,
      name: this.name,
      clock: this.#clock,
      metrics: this.#handlerErrors,
      gvk: options.gvk,
      resourceVersion: () => this.lastSyncResourceVersion(),
      size: () => this.#indexer.size(),
    });
  }

  addEventHandler(
    handler: ResourceEventHandler<T>,
    options: EventHandlerOptions = {},
  ): EventHandlerRegistration {
    if (typeof handler !== 'object' || handler === null) {
      throw new TypeError(
        'addEventHandler: handler must be an object with onAdd/onUpdate/onDelete',
      );
    }
    const period = resyncPeriod(options.resyncPeriodMs ?? this.#defaultResyncMs, 'resyncPeriodMs');
    const name = options.name ?? `handler-${++this.#handlerCount}`;
    const errors = this.#handlerErrors.counter({
      name: 'lasso_informer_handler_errors_total',
      help: 'Errors thrown or rejected by informer event handlers.',
      labels: { name: this.name, handler: name },
    });
    const listener = new ProcessorListener<T>(
      handler,
      name,
      period,
      this.#logger.child({ handler: name }),
      errors,
    );
    this.#listeners.add(listener);
    this.#listenerList = [...this.#listeners];
    if (this.#started) {
      // Synthetic adds for what is already stored; objects still queued arrive as normal adds later. A stopped
      // informer keeps them for its next run, whose relist then brings them up to date.
      for (const object of this.#indexer.list())
        listener.add({ type: 'add', object, initial: true });
    }
    if (this.#running !== undefined && !this.#stopped) {
      listener.start();
      if (period > 0) {
        listener.nextResyncAt = this.#clock.monotonic() + period;
        this.#scheduleResync();
      }
    }
    return {
      hasSynced: () => this.hasSynced() && listener.pendingInitial === 0,
      remove: () => {
        if (this.#listeners.delete(listener)) this.#removed.add(listener);
        this.#listenerList = [...this.#listeners];
        this.#syncingListeners.delete(listener);
        listener.stop();
        const forget = (): void => void this.#removed.delete(listener);
        void listener.done().then(forget, forget);
      },
    };
  }

  getStore(): StoreReader<T> {
    return this.getIndexer();
  }

  getIndexer(): IndexerReader<T> {
    return this.#indexerView;
  }

  addIndexers(indexers: Indexers<T>): void {
    this.#indexer.addIndexers(indexers);
  }

  setTransform(transform: TransformFunc<T>): void {
    if (typeof transform !== 'function')
      throw new TypeError('setTransform: transform must be a function');
    if (this.#started) {
      throw new LassoError('LASSO_CONFIG_INVALID', `informer ${this.name} has already started`);
    }
    this.#transform = transform;
  }

  setWatchErrorHandler(handler: WatchErrorHandler): void {
    this.#watchErrorHandler = handler;
  }

  hasSynced(): boolean {
    return this.#fifo?.hasSynced() ?? false;
  }

  whenSynced(options: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    if (this.hasSynced()) return Promise.resolve();
    if (this.#stopped) return Promise.reject(this.#notSynced());
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#syncWaiters.delete(waiter);
        reject(abortReason(signal as AbortSignal));
      };
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      this.#syncWaiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  lastWatchError(): WatchError | undefined {
    return this.#lastError;
  }

  onShardEvicted(listener: (keys: readonly string[]) => void): () => void {
    if (typeof listener !== 'function')
      throw new TypeError('onShardEvicted: listener must be a function');
    const entry = (keys: readonly string[]): void => listener(keys);
    this.#evictionListeners.add(entry);
    return () => void this.#evictionListeners.delete(entry);
  }

  /**
   * Remove from the store, silently, every object outside the shard filter's ranges: no handler sees a deletion
   * (the object still exists; another replica owns it now). Runs in the filter's change notification, before the
   * reflector lists with the new ranges, and at the start of a run (the filter may have changed while stopped).
   */
  #evictOutOfRange(): void {
    const shard = this.#shard;
    if (shard === undefined || !this.#started) return;
    const check = shard.get();
    const keys: string[] = [];
    for (const object of this.#indexer.list()) {
      if (check.contains(object)) continue;
      keys.push(this.#keyFunc(object));
      this.#indexer.delete(object);
    }
    if (keys.length === 0) return;
    this.#logger.info('shard ranges changed: objects no longer owned left the store', {
      evicted: keys.length,
      generation: check.generation,
    });
    for (const listener of [...this.#evictionListeners]) {
      try {
        listener(keys);
      } catch (error) {
        this.#logger.error('shard eviction listener threw', { error: errorMessage(error) });
      }
    }
  }

  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? '';
  }

  isStopped(): boolean {
    return this.#stopped;
  }

  isRunning(): boolean {
    return this.#running !== undefined;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError(
        `informer ${this.name}: start needs an AbortSignal, got ${typeof signal}`,
      );
    }
    if (this.#closer.signal.aborted) throw this.#closedError();
    if (this.#running !== undefined || signal.aborted) return;
    void this.run({ signal }).catch((error: unknown) => {
      this.#logger.error('informer failed', { error: errorMessage(error), stack: stackOf(error) });
    });
  }

  async close(): Promise<void> {
    this.#closer.abort(this.#closedError());
    await this.#running?.catch(() => {});
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #closedError(): LassoError {
    return new LassoError('LASSO_CONFIG_INVALID', `informer ${this.name} is closed`);
  }

  async stopped(): Promise<StopResult> {
    await this.#running?.catch(() => {});
    return drainedResult;
  }

  run(options: { signal: AbortSignal }): Promise<void> {
    const signal = options?.signal;
    if (!(signal instanceof AbortSignal)) {
      return Promise.reject(
        new TypeError(`informer ${this.name}: run needs { signal: AbortSignal }`),
      );
    }
    if (this.#closer.signal.aborted) return Promise.reject(this.#closedError());
    if (this.#running !== undefined) {
      return Promise.reject(
        new LassoError('LASSO_CONFIG_INVALID', `informer ${this.name} is already running`),
      );
    }
    // close() ends the run as its caller's signal would.
    const combined = anySignal([signal, this.#closer.signal]);
    const running = this.#runOnce(combined.signal).finally(() => {
      combined.dispose();
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  async #runOnce(signal: AbortSignal): Promise<void> {
    this.#started = true;
    this.#stopped = false;
    const fifo = new DeltaFIFO<T>({
      keyFunc: this.#keyFunc,
      knownObjects: this.#indexer,
      transform: this.#transform,
    });
    this.#fifo = fifo;
    const store: ReflectorStore<T> = {
      add: (object) => fifo.add(object),
      update: (object) => fifo.update(object),
      delete: (object) => fifo.delete(object),
      // Lists are transformed by the reflector as they arrive (a 100,000-object list never holds its raw objects
      // beside their copies); watch events by the FIFO.
      transform: this.#transform,
      replace: (list, resourceVersion) => {
        fifo.replace(list, resourceVersion, { transformed: true });
        this.#lastError = undefined;
        this.#checkSynced();
      },
    };
    const { watchable } = this.#options;
    const reflectorOptions: ReflectorOptions = {
      ...this.#options,
      watchable: typeof watchable === 'function' ? watchable() : (watchable ?? true),
      name: this.name,
      metrics: this.#staleness.reflectorMetrics(),
      // The reflector guards the call: a throwing handler is logged, never propagated.
      watchErrorHandler: (error) => {
        this.#lastError = error;
        this.#watchErrorHandler?.(error);
      },
    };
    const reflector = new Reflector<T>(this.#listerWatcher, store, reflectorOptions);
    this.#reflector = reflector;
    // Before the reflector subscribes: each change evicts before the reflector's new list can land.
    this.#evictOutOfRange();
    const unsubscribeShard = this.#shard?.source.subscribe(() => this.#evictOutOfRange());
    const now = this.#clock.monotonic();
    for (const listener of this.#listeners) {
      if (listener.resyncPeriodMs > 0) listener.nextResyncAt = now + listener.resyncPeriodMs;
      listener.start();
    }
    this.#scheduleResync();
    const processing = this.#processLoop(fifo, signal);
    try {
      await reflector.run({ signal });
    } finally {
      unsubscribeShard?.();
      fifo.close();
      await processing;
      this.#resyncTimer?.cancel();
      this.#resyncTimer = undefined;
      // Removed handlers too: one of them may still be inside a callback. Registered ones pause, keeping what
      // they have not received yet for the next run.
      for (const listener of this.#listeners) listener.pause();
      for (const listener of this.#removed) listener.stop();
      const listeners = [...this.#listeners, ...this.#removed];
      await Promise.all(listeners.map((listener) => listener.done()));
      this.#stopped = true;
      const waiters = [...this.#syncWaiters];
      this.#syncWaiters.clear();
      for (const waiter of waiters) waiter.reject(this.#notSynced());
    }
  }

  async #processLoop(fifo: DeltaFIFO<T>, signal: AbortSignal): Promise<void> {
    // An abort closes the FIFO, which ends a waiting pop: one listener for the loop instead of one added and
    // removed by every pop that finds the FIFO empty (most of them, as each event is processed on arrival). The loop
    // tests `stop.aborted`, set by that listener, not `signal.aborted`: an aborted AbortSignal has another hidden
    // class than a live one, and reading it in the loop deoptimized the loop at every stop (V8 then compiled it
    // again in the next run).
    const stop = { aborted: signal.aborted };
    const onAbort = (): void => {
      stop.aborted = true;
      fifo.close();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.#drain(fifo, stop);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #drain(fifo: DeltaFIFO<T>, stop: { readonly aborted: boolean }): Promise<void> {
    for (;;) {
      // Aborted: listeners stop; what is still queued is dropped with the informer.
      if (stop.aborted) return;
      let popped = await fifo.pop();
      if (popped === undefined || stop.aborted) return;
      // Drain what is ready without a promise turn per key.
      while (popped !== undefined) {
        try {
          this.#processDeltas(popped);
        } catch (error) {
          this.#logger.error('processing deltas failed', {
            key: popped.key,
            error: errorMessage(error),
          });
        }
        // An abort closes the FIFO (the listener above): a field read per key first.
        if (fifo.isClosed() && stop.aborted) return;
        popped = fifo.tryPop();
      }
      this.#staleness.stored();
      this.#checkSynced();
    }
  }

  #processDeltas(popped: PoppedDeltas<T>): void {
    const shard = this.#shard?.get();
    for (const delta of popped.deltas) {
      if (shard !== undefined && !this.#owned(shard, delta.object, popped.key)) continue;
      if (delta.type === 'Deleted') {
        const stored = this.#indexer.getByKey(popped.key);
        // The deleted object as the watch gave it (client-go), so an indexer that records resourceVersions sees
        // the deletion's; a tombstone is not an object of T: the stored state stands for it.
        if (stored !== undefined) {
          this.#indexer.delete(isDeletedFinalStateUnknown(delta.object) ? stored : delta.object);
        }
        this.#distribute({ type: 'delete', object: delta.object }, false);
        continue;
      }
      const object = delta.object as T;
      const old = this.#indexer.getByKey(popped.key);
      if (old !== undefined) {
        // A Sync delta carries what the indexer held when the resync queued it, and nothing has changed the key
        // since (a resync skips keys with pending deltas; later ones queue behind it): writing it back is a
        // no-op for the in-memory indexer and a rewrite of every object for a store that serialises them.
        if (delta.type !== 'Sync') {
          if (this.#putByKey !== undefined) this.#putByKey(popped.key, object);
          else this.#indexer.update(object);
        }
        // A resync, or a relist of an unchanged object, is a sync: it goes only to handlers whose resync is
        // due. Watch events never are, even when the resourceVersion is absent or repeated (client-go).
        const isSync =
          delta.type === 'Sync' ||
          (delta.type === 'Replaced' && resourceVersionOf(old) === resourceVersionOf(object));
        this.#distribute({ type: 'update', oldObject: old, newObject: object }, isSync);
      } else {
        if (this.#putByKey !== undefined) this.#putByKey(popped.key, object);
        else this.#indexer.add(object);
        this.#distribute({ type: 'add', object, initial: popped.isInInitialList }, false);
      }
    }
  }

  /**
   * With a shard filter: whether a delta of an object outside the ranges is processed. Such a delta is from before
   * a change of the ranges (its object was evicted: dropped, no event), or its object moved out by an update (its
   * controller owner changed, `byOwner`): the object the store holds leaves as a deletion, delivered with the state
   * held (the old owner's), so the owner's handlers hear of it; the replica owning it now sees an add.
   */
  #owned(shard: ReturnType<ShardView['get']>, object: unknown, key: string): boolean {
    const current = isDeletedFinalStateUnknown<T>(object) ? object.object : (object as T);
    if (shard.contains(current)) return true;
    const stored = this.#indexer.getByKey(key);
    if (stored === undefined) return false;
    this.#indexer.delete(stored);
    this.#distribute({ type: 'delete', object: stored }, false);
    return false;
  }

  #distribute(notification: Notification<T>, sync: boolean): void {
    if (sync) {
      for (const listener of this.#syncingListeners) listener.add(notification);
      return;
    }
    const listeners = this.#listenerList;
    for (let index = 0; index < listeners.length; index++)
      (listeners[index] as ProcessorListener<T>).add(notification);
  }

  #notSynced(): CacheNotSyncedError {
    const lastErrors = new Map<string, WatchError>();
    if (this.#lastError !== undefined) lastErrors.set(this.name, this.#lastError);
    return new CacheNotSyncedError([this.name], { lastErrors });
  }

  #checkSynced(): void {
    if (this.#syncWaiters.size === 0 || !this.hasSynced()) return;
    const waiters = [...this.#syncWaiters];
    this.#syncWaiters.clear();
    for (const waiter of waiters) waiter.resolve();
  }

  #scheduleResync(): void {
    if (!this.#started || this.#stopped) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const listener of this.#listeners) {
      if (listener.resyncPeriodMs > 0) earliest = Math.min(earliest, listener.nextResyncAt);
    }
    this.#resyncTimer?.cancel();
    this.#resyncTimer = undefined;
    if (earliest === Number.POSITIVE_INFINITY) return;
    this.#resyncTimer = this.#clock.schedule(earliest - this.#clock.monotonic(), () => {
      this.#resyncTimer = undefined;
      const now = this.#clock.monotonic();
      const due = new Set<ProcessorListener<T>>();
      for (const listener of this.#listeners) {
        if (listener.resyncPeriodMs > 0 && listener.nextResyncAt <= now) {
          due.add(listener);
          listener.nextResyncAt = now + listener.resyncPeriodMs;
        }
      }
      this.#syncingListeners = due;
      if (due.size > 0) this.#fifo?.resync();
      this.#scheduleResync();
    });
  }
}

function resourceVersionOf(object: unknown): string | undefined {
  return (object as KubeObject | undefined)?.metadata?.resourceVersion;
}

function resyncPeriod(value: number, name: string): number {
  if (!(value >= 0) || Number.isNaN(value)) {
    throw new RangeError(`${name} must be >= 0 ms (0 = never), got ${value}`);
  }
  return value === Number.POSITIVE_INFINITY ? 0 : value;
}

// The stack of a thrown value for error logs, never throwing (a hostile value's getter may).
function stackOf(error: unknown): string | undefined {
  try {
    return error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined;
  } catch {
    return undefined;
  }
}
