// SqlCacheFactory: lasso's informer/factory CacheFactory in the lifecycle shape. One database; per kind a
// reflector writing straight into a SqlStore (no DeltaFIFO, no handlers: this cache answers queries); kinds
// warm up in parallel; one kind can be stopped (its tables dropped); reset starts over with a fresh database.
import {
  type CacheClient,
  createClientListerWatcher,
  dropManagedFields,
  type ListerWatcher,
  Reflector,
  type ReflectorOptions,
  type ReflectorStore,
  type TweakListOptionsFunc,
} from '@lasso/cache';
import type { KubeObject, KubeObjectLike, WatchEvent } from '@lasso/client';
import {
  anySignal,
  type Clock,
  defaultLogger,
  drainedResult,
  drainWithin,
  errorMessage,
  guardLogger,
  LassoError,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  type StopResult,
  systemClock,
} from '@lasso/core';
import { openSqlDatabase, type SqlDatabase, type SqlDatabaseOptions } from './database.ts';
import { createEncryptor, type Encryptor } from './encryption.ts';
import type { FieldValue } from './fields.ts';
import type { ListOptions, ListResult } from './list-options.ts';
import type { GroupVersionKind } from './schema.ts';
import { createSqlStore, type SqlStore, type SqlStoreReader } from './store.ts';

/**
 * Options of {@link createSqlCacheFactory}.
 *
 * @example
 * ```ts
 * const options: SqlCacheFactoryOptions = { encryptAll: true, drainTimeoutMs: 10_000, database: { directory: '/var/cache/lasso' } };
 * const factory = createSqlCacheFactory(options);
 * ```
 */
export interface SqlCacheFactoryOptions {
  /** Where and how the database file is made (folder, busy bound, WAL limit, driver). */
  database?: Omit<SqlDatabaseOptions, 'logger' | 'metrics'>;
  /** Encrypt every kind, not only Secrets (lasso's `CATTLE_ENCRYPT_CACHE_ALL`). Default false. */
  encryptAll?: boolean;
  /** How long `stopped()` waits for the reflectors to end. Default 30 s. */
  drainTimeoutMs?: number;
  /** Passed to every reflector (page size, backoff, watch timeouts, random). */
  reflector?: Omit<ReflectorOptions, 'name' | 'clock' | 'logger' | 'metrics' | 'watchErrorHandler'>;
  clock?: Clock;
  logger?: Logger;
  metrics?: MetricsProvider;
}

/**
 * Options of {@link SqlCacheFactory.cacheFor}.
 *
 * @example
 * ```ts
 * const options: SqlCacheOptions<KubeObject> = {
 *   fields: ['spec.nodeName', 'metadata.labels[app.kubernetes.io/name]'],
 *   computedFields: { 'status.ready': (pod) => JSON.stringify(pod.status ?? {}).includes('"Ready"') },
 *   namespace: 'team-a',
 * };
 * ```
 */
export interface SqlCacheOptions<T> {
  /** Extra indexed field paths, filterable and sortable in `list`. */
  fields?: readonly string[];
  /** Computed indexed fields. */
  computedFields?: Readonly<Record<string, (object: T) => FieldValue>>;
  /** Index functions of the Indexer contract. */
  indexers?: Record<string, (object: T) => readonly string[]>;
  /** Applied to each object before it is stored. Default: drop `metadata.managedFields`. */
  transform?: (object: T) => T;
  /** Encrypt this kind (default: Secrets, or every kind with `encryptAll`). */
  encrypt?: boolean;
  /** List and watch one namespace only. */
  namespace?: string;
  /** Applied to every list and watch request (label/field selectors). */
  tweakList?: TweakListOptionsFunc;
}

/**
 * The cache of one kind.
 *
 * @example
 * ```ts
 * const factory = createSqlCacheFactory();
 * await factory.start(signal);
 * const configMapClient = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * const configMaps = factory.cacheFor(configMapClient, { fields: ['data.mode'] });
 * await configMaps.whenSynced(AbortSignal.timeout(60_000));
 * const page = configMaps.list({ pageSize: 100, sort: [{ field: 'metadata.name' }] });
 * ```
 */
export interface SqlCache<T> {
  readonly gvk: GroupVersionKind;
  /** The store's read side: Indexer readers and `listByOptions`. */
  readonly store: SqlStoreReader<T>;
  /** `store.listByOptions(options)`. */
  list(options?: ListOptions): ListResult<T>;
  /** True once the first list is stored. */
  hasSynced(): boolean;
  /** Resolves once the first list is stored; rejects when `signal` aborts or the kind is stopped or reset. */
  whenSynced(signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once the cache reflects `resourceVersion` (a decimal one, such as a write's answer) or a newer
   * one: read-your-writes for a server in front of the cache. Rejects like {@link SqlCache.whenSynced}.
   */
  whenResourceVersion(resourceVersion: string, signal?: AbortSignal): Promise<void>;
}

/**
 * Caches per kind over one SQLite database, in the lifecycle shape: `start(signal)` runs every kind's
 * list/watch, aborting stops them (the data stays until `close`, `stopKind` or `reset`), a later `start` relists
 * each kind into its tables.
 *
 * @example
 * ```ts
 * await using factory = createSqlCacheFactory();
 * const controller = new AbortController();
 * await factory.start(controller.signal);
 * const secrets = factory.cacheFor(clientFor(rest, { apiVersion: 'v1', kind: 'Secret' })); // encrypted at rest
 * await secrets.whenSynced(AbortSignal.timeout(60_000));
 * ```
 */
export interface SqlCacheFactory extends Lifecycle {
  /**
   * The cache of `client`'s kind, created on the first call (the same cache on later calls; their options are
   * ignored). While the factory runs its list/watch starts at once, beside the other kinds'.
   */
  cacheFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options?: SqlCacheOptions<T>,
  ): SqlCache<T>;
  /** Stop one kind's list/watch and drop its tables; a later `cacheFor` starts it afresh. */
  stopKind(gvk: GroupVersionKind): Promise<void>;
  /** Stop every kind, delete the database and start over with none (lasso's `Reset`). */
  reset(): Promise<void>;
  /** The kinds cached, as `group/version, Kind=Kind` names. */
  kinds(): string[];
}

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
  readonly store: SqlStore<KubeObjectLike>;
  readonly cache: SqlCache<KubeObjectLike>;
  readonly client: CacheClient<KubeObjectLike>;
  readonly options: SqlCacheOptions<KubeObjectLike>;
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
    const drain = options.drainTimeoutMs ?? 30_000;
    if (typeof drain !== 'number' || Number.isNaN(drain) || drain < 0) {
      throw new RangeError(
        `createSqlCacheFactory: drainTimeoutMs must be >= 0, got ${String(drain)}`,
      );
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
    options: SqlCacheOptions<T> = {},
  ): SqlCache<T> {
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
    if (existing !== undefined) return existing.cache as unknown as SqlCache<T>;
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
    const store = createSqlStore<T>(this.#database, {
      gvk,
      namespaced: client.namespaced,
      ...(options.fields === undefined ? {} : { fields: options.fields }),
      ...(options.computedFields === undefined ? {} : { computedFields: options.computedFields }),
      ...(options.indexers === undefined
        ? {}
        : { indexers: options.indexers as Record<string, (object: T) => string[]> }),
      encrypt,
      encryptor: this.#encryptor,
      logger: this.#logger,
      metrics: this.#metrics,
    });
    const kind: Kind = {
      name,
      gvk,
      store: store as unknown as SqlStore<KubeObjectLike>,
      client: client as unknown as CacheClient<KubeObjectLike>,
      options: options as unknown as SqlCacheOptions<KubeObjectLike>,
      controller: undefined,
      running: undefined,
      synced: false,
      waiters: new Set(),
      cache: undefined as never,
    };
    (kind as { cache: SqlCache<KubeObjectLike> }).cache = {
      gvk,
      store: readerOf(kind.store),
      list: (listOptions) => kind.store.listByOptions(listOptions),
      hasSynced: () => kind.synced,
      whenSynced: (signal) => this.#whenSynced(kind, signal),
      whenResourceVersion: (resourceVersion, signal) =>
        this.#whenSynced(kind, signal, resourceVersion),
    };
    this.#kinds.set(name, kind);
    if (this.#run !== undefined) this.#startKind(kind, this.#run.signal);
    return kind.cache as unknown as SqlCache<T>;
  }

  async stopKind(gvk: GroupVersionKind): Promise<void> {
    const kind = this.#kinds.get(nameOf(gvk));
    if (kind === undefined) return;
    this.#kinds.delete(kind.name);
    kind.controller?.abort();
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
    if (kind.running !== undefined) return;
    const controller = new AbortController();
    kind.controller = controller;
    const onAbort = (): void => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const transform = kind.options.transform;
    const prepare = (object: KubeObjectLike): KubeObjectLike => {
      const lean = dropManagedFields(object);
      return transform === undefined ? lean : transform(lean);
    };
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
        // The whole list in one write transaction.
        kind.store.replace(list.map(prepare), resourceVersion);
        if (!kind.synced) {
          kind.synced = true;
          this.#logger.info('cache kind synced', { gvk: kind.name, objects: list.length });
        }
        this.#resolveWaiters(kind);
      },
    };
    const listerWatcher = createClientListerWatcher(kind.client, {
      ...(kind.options.namespace === undefined ? {} : { namespace: kind.options.namespace }),
      ...(kind.options.tweakList === undefined ? {} : { tweakList: kind.options.tweakList }),
      logger: this.#logger,
    });
    const reflector = new Reflector<KubeObjectLike>(
      stoppableWatches(listerWatcher, controller.signal),
      store,
      {
        ...this.#options.reflector,
        name: kind.name,
        clock: this.#clock,
        logger: this.#logger,
        metrics: this.#metrics,
      },
    );
    const running = reflector
      .run({ signal: controller.signal })
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

  async #settle(run: AbortController): Promise<void> {
    await Promise.all(this.#runs);
    if (this.#run === run) this.#run = undefined;
  }

  async #stopAll(reason: unknown): Promise<void> {
    const kinds = [...this.#kinds.values()];
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

/**
 * `listerWatcher` whose watches also end when `stop` aborts. The reflector links its own watch signal to the
 * run signal only once the watch has started, so an abort landing between the end of a list and the start of
 * the watch would leave the watch open until its inactivity deadline (minutes).
 */
function stoppableWatches<T extends KubeObjectLike>(
  listerWatcher: ListerWatcher<T>,
  stop: AbortSignal,
): ListerWatcher<T> {
  return {
    list: (options) => listerWatcher.list(options),
    watch: (options) => ({
      [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => {
        const combined = anySignal([options.signal, stop]);
        const iterator = listerWatcher
          .watch({ ...options, signal: combined.signal })
          [Symbol.asyncIterator]();
        return {
          next: async () => {
            try {
              const result = await iterator.next();
              if (result.done) combined.dispose();
              return result;
            } catch (error) {
              combined.dispose();
              throw error;
            }
          },
          return: async (value?: unknown) => {
            combined.dispose();
            return (await iterator.return?.(value)) ?? { done: true, value: undefined };
          },
        };
      },
    }),
  };
}

/** A frozen read-only view of a store. */
function readerOf<T>(store: SqlStore<T>): SqlStoreReader<T> {
  return Object.freeze({
    gvk: store.gvk,
    tableName: store.tableName,
    indexedFields: store.indexedFields,
    get: (object: T) => store.get(object),
    getByKey: (key: string) => store.getByKey(key),
    list: () => store.list(),
    listKeys: () => store.listKeys(),
    size: () => store.size(),
    index: (indexName: string, object: T) => store.index(indexName, object),
    indexKeys: (indexName: string, value: string) => store.indexKeys(indexName, value),
    listIndexFuncValues: (indexName: string) => store.listIndexFuncValues(indexName),
    byIndex: (indexName: string, value: string) => store.byIndex(indexName, value),
    getIndexers: () => store.getIndexers(),
    listByOptions: (options?: ListOptions) => store.listByOptions(options),
    resourceVersion: () => store.resourceVersion(),
  });
}
