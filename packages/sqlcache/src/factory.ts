// SqlCacheFactory: lasso's informer/factory CacheFactory in the lifecycle shape. One database; per kind either a
// reflector writing straight into a SqlStore (cacheFor: no DeltaFIFO, no handlers; this cache answers queries)
// or a SharedIndexInformer whose indexer is the SqlStore (informerFor: handlers and controllers see its objects);
// kinds warm up in parallel; one kind can be stopped (its tables dropped); reset starts over with a fresh database.
// size: one lifecycle class (start, per-kind stop, reset, close share its private state); its types are in factory-types.ts.
import {
  type CacheClient,
  createClientListerWatcher,
  createSharedIndexInformer,
  defaultCacheResyncMs,
  type Indexers,
  metaNamespaceIndexFunc,
  namespaceIndex,
  Reflector,
  type ReflectorStore,
  type SharedIndexInformer,
} from '@lasso/cache';
import type { KubeObject, KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  defaultGracefulShutdownTimeoutMs,
  defaultLogger,
  drainedResult,
  drainWithin,
  errorMessage,
  guardLogger,
  LassoError,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  type StopResult,
  systemClock,
} from '@lasso/core';
import { openSqlDatabase, type SqlDatabase } from './database.ts';
import { createEncryptor, type Encryptor } from './encryption.ts';
import { ResourceVersionTooOldError } from './errors.ts';
import type {
  SqlCache,
  SqlCacheFactory,
  SqlCacheFactoryOptions,
  SqlCacheForOptions,
  SqlCacheOptions,
  SqlInformerCache,
  SqlInformerOptions,
} from './factory-types.ts';
import { leanTransform, readerOf, stoppableWatches } from './kind-support.ts';
import { type Column, indexedColumns, schemaHashOf } from './row-codec.ts';
import type { GroupVersionKind } from './schema.ts';
import { createSqlStore } from './store.ts';
import type { SqlStore } from './store-api.ts';

/**
 * Create a {@link SqlCacheFactory}. The database is opened on first use.
 *
 * @example
 * ```ts
 * const factory = createSqlCacheFactory({ database: { directory: '/var/cache/lasso' }, encryptAll: false });
 * ```
 */
export function createSqlCacheFactory(options: SqlCacheFactoryOptions = {}): SqlCacheFactory {
  return new Factory(options);
}

interface Kind {
  readonly name: string;
  readonly gvk: GroupVersionKind;
  /** Replaced when the kind's declared fields change (schema tracking); the cache reads it on every call. */
  store: SqlStore<KubeObjectLike>;
  readonly cache: SqlCache<KubeObjectLike>;
  readonly client: CacheClient<KubeObjectLike>;
  options: SqlCacheOptions<KubeObjectLike>;
  /** Tables built for the kind so far: 1, then one more per rebuild. */
  schemaVersion: number;
  /** Set while the kind's tables are rebuilt: the kind starts again once they are. */
  rebuilding: Promise<void> | undefined;
  /** The informer of an `informerFor` kind; undefined for a `cacheFor` kind (a reflector writes the store). */
  readonly informer: SharedIndexInformer<KubeObjectLike> | undefined;
  controller: AbortController | undefined;
  running: Promise<void> | undefined;
  synced: boolean;
  readonly waiters: Set<Waiter>;
}

interface Waiter {
  /** Undefined: waits for the first list. */
  readonly resourceVersion: string | undefined;
  resolve(): void;
  reject(error: unknown): void;
}

const nameOf = (gvk: GroupVersionKind): string =>
  `${gvk.group === '' ? '' : `${gvk.group}/`}${gvk.version}, Kind=${gvk.kind}`;

// `drainTimeoutMs` is deprecated: said once per process, not once per factory.
let warnedDrainTimeoutMs = false;

class Factory implements SqlCacheFactory {
  readonly #options: SqlCacheFactoryOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider;
  readonly #drainTimeoutMs: number;
  readonly #kinds = new Map<string, Kind>();
  #database: SqlDatabase | undefined;
  #encryptor: Encryptor | undefined;
  #run: AbortController | undefined;
  #runs = new Set<Promise<void>>();
  #closed = false;

  constructor(options: SqlCacheFactoryOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ component: 'sqlcache' });
    this.#metrics = options.metrics ?? noopMetricsProvider;
    const option =
      options.gracefulShutdownTimeoutMs !== undefined || options.drainTimeoutMs === undefined
        ? 'gracefulShutdownTimeoutMs'
        : 'drainTimeoutMs';
    if (options.drainTimeoutMs !== undefined && !warnedDrainTimeoutMs) {
      warnedDrainTimeoutMs = true;
      this.#logger.warn(
        'createSqlCacheFactory: drainTimeoutMs is deprecated, use gracefulShutdownTimeoutMs',
        {},
      );
    }
    const drain =
      options.gracefulShutdownTimeoutMs ??
      options.drainTimeoutMs ??
      defaultGracefulShutdownTimeoutMs;
    if (typeof drain !== 'number' || Number.isNaN(drain) || drain < 0) {
      throw new RangeError(`createSqlCacheFactory: ${option} must be >= 0, got ${String(drain)}`);
    }
    this.#drainTimeoutMs = drain;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#closed) {
      throw new LassoError('LASSO_CONFIG_INVALID', 'the SQL cache factory is closed');
    }
    if (this.#run !== undefined || signal.aborted) return;
    const run = new AbortController();
    this.#run = run;
    const onAbort = (): void => run.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    run.signal.addEventListener('abort', () => {
      signal.removeEventListener('abort', onAbort);
      void this.#settle(run);
    });
    for (const kind of this.#kinds.values()) this.#startKind(kind, run.signal);
  }

  stopped(): Promise<StopResult> {
    if (this.#runs.size === 0) return Promise.resolve(drainedResult);
    return drainWithin(this.#clock, Promise.all(this.#runs), this.#drainTimeoutMs, () =>
      [...this.#kinds.values()].filter((kind) => kind.running).map((kind) => kind.name),
    );
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#run?.abort();
    await this.#stopAll(new LassoError('LASSO_CONFIG_INVALID', 'the SQL cache factory closed'));
    this.#database?.close();
    this.#database = undefined;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  cacheFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options?: SqlCacheForOptions<T> & { waitForSync?: true },
  ): Promise<SqlCache<T>>;
  cacheFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options: SqlCacheForOptions<T> & { waitForSync: false },
  ): SqlCache<T>;
  cacheFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options?: SqlCacheForOptions<T>,
  ): SqlCache<T> | Promise<SqlCache<T>>;
  cacheFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options: SqlCacheForOptions<T> = {},
  ): SqlCache<T> | Promise<SqlCache<T>> {
    const { waitForSync = true, signal, ...kindOptions } = options;
    if (typeof waitForSync !== 'boolean') {
      throw new TypeError(`cacheFor: waitForSync must be a boolean, got ${typeof waitForSync}`);
    }
    if (!waitForSync) {
      return this.#kindFor(client, kindOptions, undefined).cache as unknown as SqlCache<T>;
    }
    return this.#cacheForSynced(client, kindOptions, signal);
  }

  /** lasso's `CacheFor`: the cache once its first list is stored, while the factory runs. */
  async #cacheForSynced<T extends KubeObjectLike>(
    client: CacheClient<T>,
    options: SqlCacheOptions<T>,
    signal: AbortSignal | undefined,
  ): Promise<SqlCache<T>> {
    const run = this.#run;
    if (run === undefined || this.#closed) {
      throw new LassoError(
        'LASSO_CONFIG_INVALID',
        `cacheFor waits for the first list of ${client.kind} (waitForSync, the default): start the factory first, or pass waitForSync: false`,
      );
    }
    const kind = this.#kindFor(client, options, undefined);
    // Ends the wait when the factory stops first: the kind would never sync.
    const stopped = new AbortController();
    const onStop = (): void =>
      stopped.abort(
        new LassoError(
          'LASSO_CONFIG_INVALID',
          `the SQL cache factory stopped before ${kind.name} synced`,
        ),
      );
    run.signal.addEventListener('abort', onStop, { once: true });
    const onAbort = (): void => stopped.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    if (run.signal.aborted) onStop();
    try {
      await this.#whenSynced(kind, stopped.signal);
    } finally {
      run.signal.removeEventListener('abort', onStop);
      signal?.removeEventListener('abort', onAbort);
    }
    return kind.cache as unknown as SqlCache<T>;
  }

  informerFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options: SqlInformerOptions<T> = {},
  ): SqlInformerCache<T> {
    const resyncMs = options.resyncMs ?? defaultCacheResyncMs;
    if (typeof resyncMs !== 'number' || !(resyncMs >= 0)) {
      throw new RangeError(
        `informerFor: resyncMs must be >= 0 (0 = never), got ${String(resyncMs)}`,
      );
    }
    const kind = this.#kindFor(client, options, resyncMs);
    if (kind.informer === undefined) {
      throw new LassoError(
        'LASSO_CONFIG_INVALID',
        `${kind.name} is cached without an informer (cacheFor): stopKind it before informerFor`,
      );
    }
    return kind.cache as unknown as SqlInformerCache<T>;
  }

  /** The kind of `client`, created on first use; with an informer when `resyncMs` is given. */
  #kindFor<T extends KubeObjectLike>(
    client: CacheClient<T>,
    options: SqlCacheOptions<T>,
    resyncMs: number | undefined,
  ): Kind {
    if (this.#closed) {
      throw new LassoError('LASSO_CONFIG_INVALID', 'the SQL cache factory is closed');
    }
    const gvk: GroupVersionKind = {
      group: client.gvr.group,
      version: client.gvr.version,
      kind: client.kind,
    };
    const name = nameOf(gvk);
    const existing = this.#kinds.get(name);
    if (existing !== undefined) {
      // informerFor on a cacheFor kind is refused by the caller: nothing to rebuild for it.
      if (resyncMs === undefined || existing.informer !== undefined)
        this.#trackSchema(existing, options);
      return existing;
    }
    const store = this.#createStore(gvk, client, options);
    const kind: Kind = {
      name,
      gvk,
      store: store as unknown as SqlStore<KubeObjectLike>,
      client: client as unknown as CacheClient<KubeObjectLike>,
      options: options as unknown as SqlCacheOptions<KubeObjectLike>,
      schemaVersion: 1,
      rebuilding: undefined,
      informer: undefined,
      controller: undefined,
      running: undefined,
      synced: false,
      waiters: new Set(),
      cache: undefined as never,
    };
    const cache: SqlCache<KubeObjectLike> & { informer?: SharedIndexInformer<KubeObjectLike> } = {
      gvk,
      store: readerOf(() => kind.store),
      list: (listOptions) => kind.store.listByOptions(listOptions),
      watch: (watchOptions) => kind.store.watch(watchOptions),
      hasSynced: () => kind.synced,
      whenSynced: (options?: AbortSignal | { signal?: AbortSignal | undefined }) =>
        this.#whenSynced(kind, options instanceof AbortSignal ? options : options?.signal),
      whenResourceVersion: (resourceVersion, signal) =>
        this.#whenSynced(kind, signal, resourceVersion),
    };
    if (resyncMs !== undefined) {
      const informer = this.#informerOf(kind, resyncMs);
      (kind as { informer: SharedIndexInformer<KubeObjectLike> }).informer = informer;
      cache.informer = informer;
    }
    (kind as { cache: SqlCache<KubeObjectLike> }).cache = Object.freeze(cache);
    this.#kinds.set(name, kind);
    if (this.#run !== undefined) this.#startKind(kind, this.#run.signal);
    return kind;
  }

  #createStore<T extends KubeObjectLike>(
    gvk: GroupVersionKind,
    client: CacheClient<T>,
    options: SqlCacheOptions<T>,
  ): SqlStore<T> {
    this.#database ??= openSqlDatabase({
      ...this.#options.database,
      logger: this.#logger,
      metrics: this.#metrics,
    });
    this.#encryptor ??= createEncryptor();
    const encrypt =
      options.encrypt ??
      (this.#options.encryptAll === true ||
        (gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Secret'));
    const watchHistory = options.watchHistory ?? this.#options.watchHistory;
    return createSqlStore<T>(this.#database, {
      gvk,
      namespaced: client.namespaced,
      ...(options.fields === undefined ? {} : { fields: options.fields }),
      ...(options.computedFields === undefined ? {} : { computedFields: options.computedFields }),
      ...(options.indexers === undefined
        ? {}
        : { indexers: options.indexers as Record<string, (object: T) => string[]> }),
      encrypt,
      encryptor: this.#encryptor,
      ...(watchHistory === undefined ? {} : { watchHistory }),
      clock: this.#clock,
      logger: this.#logger,
      metrics: this.#metrics,
    });
  }

  /**
   * Schema tracking (steve's schematracker): when a later call declares other fields than the kind's tables
   * have, the tables are rebuilt with them: the kind's list/watch stops, its store is dropped (its watches end
   * with TooOld), a new one is created and, while the factory runs, listed again.
   */
  #trackSchema<T extends KubeObjectLike>(kind: Kind, options: SqlCacheOptions<T>): void {
    // A call that declares no fields asks for the cache as it is (`fields: []` declares none).
    if (options.fields === undefined && options.computedFields === undefined) return;
    const hash = schemaHashOf(
      indexedColumns<T>({
        namespaced: kind.client.namespaced,
        fields: options.fields,
        computedFields: options.computedFields,
      }) as readonly Column<unknown>[],
      kind.client.namespaced,
    );
    if (hash === kind.store.schemaHash) return;
    if (kind.informer !== undefined) {
      throw new LassoError(
        'LASSO_CONFIG_INVALID',
        `${kind.name} is kept by an informer and its declared fields cannot change: stopKind it first`,
      );
    }
    const old = kind.store;
    const previous = kind.rebuilding ?? Promise.resolve();
    kind.options = options as unknown as SqlCacheOptions<KubeObjectLike>;
    kind.synced = false;
    kind.controller?.abort();
    const running = kind.running;
    const rebuilding = (async () => {
      await previous;
      await running;
      if (kind.store !== old) return;
      old.drop(
        new ResourceVersionTooOldError(
          old.resourceVersion(),
          '',
          `the declared fields of ${kind.name} changed and its table was rebuilt`,
        ),
      );
      kind.store = this.#createStore(kind.gvk, kind.client, kind.options);
      kind.schemaVersion++;
      this.#logger.info('cache kind rebuilt: its declared fields changed', {
        gvk: kind.name,
        schemaVersion: kind.schemaVersion,
        schemaHash: kind.store.schemaHash,
        previousSchemaHash: old.schemaHash,
      });
    })().finally(() => {
      if (kind.rebuilding === rebuilding) kind.rebuilding = undefined;
      if (this.#run !== undefined && !this.#closed && this.#kinds.get(kind.name) === kind) {
        this.#startKind(kind, this.#run.signal);
      }
    });
    kind.rebuilding = rebuilding;
  }

  /**
   * A SharedIndexInformer over `kind`'s store: its list/watch as the reflector path's, the same transform, and an
   * internal handler that settles `whenResourceVersion` waiters as events are stored.
   */
  #informerOf(kind: Kind, resyncMs: number): SharedIndexInformer<KubeObjectLike> {
    const indexers: Indexers<KubeObjectLike> = {};
    if (kind.client.namespaced && !(namespaceIndex in kind.store.getIndexers())) {
      indexers[namespaceIndex] = metaNamespaceIndexFunc;
    }
    const informer = createSharedIndexInformer<KubeObjectLike>(
      stoppableWatches(this.#listerWatcherOf(kind), () => kind.controller?.signal),
      {
        ...this.#options.reflector,
        name: kind.name,
        indexer: kind.store,
        indexers,
        resyncPeriodMs: resyncMs,
        clock: this.#clock,
        logger: this.#logger,
        metrics: this.#metrics,
      },
    );
    informer.setTransform(leanTransform(kind.options.transform));
    const settle = (): void => {
      if (kind.waiters.size > 0) this.#resolveWaiters(kind);
    };
    informer.addEventHandler(
      { onAdd: settle, onUpdate: settle, onDelete: settle },
      { name: 'sqlcache-waiters', resyncPeriodMs: 0 },
    );
    return informer;
  }

  #listerWatcherOf(kind: Kind) {
    return createClientListerWatcher(kind.client, {
      ...(kind.options.namespace === undefined ? {} : { namespace: kind.options.namespace }),
      ...(kind.options.tweakList === undefined ? {} : { tweakList: kind.options.tweakList }),
      logger: this.#logger,
    });
  }

  async stopKind(gvk: GroupVersionKind): Promise<void> {
    const kind = this.#kinds.get(nameOf(gvk));
    if (kind === undefined) return;
    this.#kinds.delete(kind.name);
    kind.controller?.abort();
    await kind.rebuilding;
    await kind.running;
    this.#rejectWaiters(kind, new LassoError('LASSO_CONFIG_INVALID', `${kind.name} was stopped`));
    kind.store.drop();
    this.#logger.info('cache kind stopped', { gvk: kind.name });
  }

  async reset(): Promise<void> {
    await this.#stopAll(new LassoError('LASSO_CONFIG_INVALID', 'the SQL cache factory was reset'));
    this.#kinds.clear();
    this.#database?.close();
    this.#database = undefined;
    this.#encryptor = undefined;
  }

  kinds(): string[] {
    return [...this.#kinds.keys()];
  }

  #startKind(kind: Kind, signal: AbortSignal): void {
    // An aborted run (the factory stopping while a rebuild ended) starts nothing: its abort event has fired.
    if (kind.running !== undefined || kind.rebuilding !== undefined || signal.aborted) return;
    if (kind.informer?.isRunning() === true) {
      this.#logger.warn('the informer of this kind is run elsewhere; the factory leaves it', {
        gvk: kind.name,
      });
      return;
    }
    const controller = new AbortController();
    kind.controller = controller;
    const onAbort = (): void => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const run =
      kind.informer === undefined
        ? this.#runReflector(kind, controller.signal)
        : this.#runInformer(kind, kind.informer, controller.signal);
    const running = run
      .catch((error: unknown) => {
        this.#logger.error('cache kind stopped on an error', {
          gvk: kind.name,
          error: errorMessage(error),
        });
      })
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        kind.running = undefined;
        kind.controller = undefined;
        // Buffered watch events are committed before the kind counts as stopped.
        try {
          kind.store.flush();
        } catch {
          // Logged by the store; the kind's next list replaces everything anyway.
        }
        this.#runs.delete(running);
      });
    kind.running = running;
    this.#runs.add(running);
  }

  #synced(kind: Kind): void {
    if (!kind.synced) {
      kind.synced = true;
      this.#logger.info('cache kind synced', { gvk: kind.name, objects: kind.store.size() });
    }
    this.#resolveWaiters(kind);
  }

  /** The informer path: the DeltaFIFO and handlers in front of the store; waiters settle from its handler. */
  #runInformer(
    kind: Kind,
    informer: SharedIndexInformer<KubeObjectLike>,
    signal: AbortSignal,
  ): Promise<void> {
    // start runs synchronously up to the run's first wait: whenSynced below sees this run, not the last one.
    const running = informer.start(signal).then(async () => {
      await informer.stopped();
    });
    informer.whenSynced({ signal }).then(
      () => this.#synced(kind),
      () => {},
    );
    return running;
  }

  /** The direct path: the reflector writes into the store, the whole list in one write transaction. */
  #runReflector(kind: Kind, signal: AbortSignal): Promise<void> {
    const prepare = leanTransform(kind.options.transform);
    let checkQueued = false;
    // After the store's own flush (queued first: microtasks run in order), so waiters see committed data.
    const checkWaiters = (): void => {
      if (checkQueued || kind.waiters.size === 0) return;
      checkQueued = true;
      queueMicrotask(() => {
        checkQueued = false;
        this.#resolveWaiters(kind);
      });
    };
    const store: ReflectorStore<KubeObjectLike> = {
      add: (object) => {
        kind.store.add(prepare(object));
        checkWaiters();
      },
      update: (object) => {
        kind.store.update(prepare(object));
        checkWaiters();
      },
      delete: (object) => {
        kind.store.delete(object);
        checkWaiters();
      },
      replace: (list, resourceVersion) => {
        kind.store.replace(list.map(prepare), resourceVersion);
        this.#synced(kind);
      },
    };
    const reflector = new Reflector<KubeObjectLike>(
      stoppableWatches(this.#listerWatcherOf(kind), () => signal),
      store,
      {
        ...this.#options.reflector,
        name: kind.name,
        clock: this.#clock,
        logger: this.#logger,
        metrics: this.#metrics,
      },
    );
    return reflector.run({ signal });
  }

  async #settle(run: AbortController): Promise<void> {
    await Promise.all(this.#runs);
    if (this.#run === run) this.#run = undefined;
  }

  async #stopAll(reason: unknown): Promise<void> {
    const kinds = [...this.#kinds.values()];
    for (const kind of kinds) kind.controller?.abort();
    await Promise.all(kinds.map((kind) => kind.rebuilding));
    // A rebuild that ended meanwhile started its kind again: stop that run too.
    for (const kind of kinds) kind.controller?.abort();
    await Promise.all(kinds.map((kind) => kind.running));
    for (const kind of kinds) this.#rejectWaiters(kind, reason);
  }

  #whenSynced(kind: Kind, signal?: AbortSignal, resourceVersion?: string): Promise<void> {
    if (resourceVersion !== undefined && !/^\d+$/.test(resourceVersion)) {
      return Promise.reject(
        new TypeError(
          `whenResourceVersion: ${JSON.stringify(resourceVersion)} is not a decimal resourceVersion`,
        ),
      );
    }
    if (reached(kind, resourceVersion)) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        kind.waiters.delete(waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        resourceVersion,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      kind.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #resolveWaiters(kind: Kind): void {
    for (const waiter of kind.waiters) {
      let done: boolean;
      try {
        done = reached(kind, waiter.resourceVersion);
      } catch {
        continue;
      }
      if (done) {
        kind.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  #rejectWaiters(kind: Kind, reason: unknown): void {
    for (const waiter of kind.waiters) waiter.reject(reason);
    kind.waiters.clear();
  }
}

/** True when `kind` has synced and, with `resourceVersion`, reflects it or a newer one. */
function reached(kind: Kind, resourceVersion: string | undefined): boolean {
  if (!kind.synced) return false;
  if (resourceVersion === undefined) return true;
  const current = kind.store.resourceVersion();
  return /^\d+$/.test(current) && BigInt(current) >= BigInt(resourceVersion);
}
