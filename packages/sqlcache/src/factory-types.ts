// The public types of the SQL cache factory: its options, a kind's cache (with or without an informer) and the
// factory's interface. The implementation is factory.ts.
import type {
  CacheClient,
  ReflectorOptions,
  SharedIndexInformer,
  TweakListOptionsFunc,
} from '@lasso/cache';
import type { KubeObject, KubeObjectLike } from '@lasso/client';
import type { Clock, Lifecycle, Logger, MetricsProvider } from '@lasso/core';
import type { ComputedField, FieldSpec } from './column-types.ts';
import type { SqlDatabaseOptions } from './database.ts';
import type { ListOptions, ListResult } from './list-options.ts';
import type { GroupVersionKind } from './schema.ts';
import type { SqlStoreReader } from './store-api.ts';
import type { SqlWatchEvent, SqlWatchOptions, WatchHistoryOptions } from './watch-history.ts';

/**
 * Options of {@link createSqlCacheFactory}.
 *
 * @example
 * ```ts
 * const options: SqlCacheFactoryOptions = { encryptAll: true, gracefulShutdownTimeoutMs: 10_000, database: { directory: '/var/cache/lasso' } };
 * const factory = createSqlCacheFactory(options);
 * ```
 */
export interface SqlCacheFactoryOptions {
  /** Where and how the database file is made (folder, busy bound, WAL limit, driver). */
  database?: Omit<SqlDatabaseOptions, 'logger' | 'metrics'> | undefined;
  /** Encrypt every kind, not only Secrets (lasso's `CATTLE_ENCRYPT_CACHE_ALL`). Default false. */
  encryptAll?: boolean | undefined;
  /**
   * How long `stopped()` waits for the reflectors to end: lasso's one name for the drain bound. Default
   * `defaultGracefulShutdownTimeoutMs` from `@lasso/core` (30 s).
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * @deprecated Use `gracefulShutdownTimeoutMs`; this alias still works (a warning is logged once) and loses
   * to `gracefulShutdownTimeoutMs` when both are set.
   */
  drainTimeoutMs?: number | undefined;
  /** Default event history of every kind's watch (a kind's own `watchHistory` wins): 1,000 events, no age bound. */
  watchHistory?: WatchHistoryOptions | undefined;
  /** Passed to every reflector (page size, backoff, watch timeouts, random). */
  reflector?:
    | Omit<ReflectorOptions, 'name' | 'clock' | 'logger' | 'metrics' | 'watchErrorHandler'>
    | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsProvider | undefined;
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
  /** Extra indexed field paths, filterable and sortable in `list`: a path (`text`) or `{ path, type }`. */
  fields?: readonly FieldSpec[] | undefined;
  /** Computed indexed fields: a function (`text`) or `{ compute, type }`. */
  computedFields?: Readonly<Record<string, ComputedField<T>>> | undefined;
  /** Index functions of the Indexer contract. */
  indexers?: Record<string, (object: T) => readonly string[]> | undefined;
  /** Applied to each object before it is stored. Default: drop `metadata.managedFields`. */
  transform?: ((object: T) => T) | undefined;
  /** Encrypt this kind (default: Secrets, or every kind with `encryptAll`). */
  encrypt?: boolean | undefined;
  /** List and watch one namespace only. */
  namespace?: string | undefined;
  /** Applied to every list and watch request (label/field selectors). */
  tweakList?: TweakListOptionsFunc | undefined;
  /** This kind's event history for `watch` (default: the factory's `watchHistory`). */
  watchHistory?: WatchHistoryOptions | undefined;
}

/**
 * Options of {@link SqlCacheFactory.cacheFor}: a kind's options plus whether the call waits for its first list.
 *
 * @example
 * ```ts
 * const blocking: SqlCacheForOptions<KubeObject> = { fields: ['data.mode'], signal: AbortSignal.timeout(60_000) };
 * const atOnce: SqlCacheForOptions<KubeObject> & { waitForSync: false } = { waitForSync: false };
 * ```
 */
export interface SqlCacheForOptions<T> extends SqlCacheOptions<T> {
  /**
   * Default true (lasso's and steve's `CacheFor`): `cacheFor` returns a promise of the cache, resolved once the
   * kind's first list is stored; it rejects when the factory is not running, stops first, or `signal` aborts.
   * `false`: the cache at once (wait with `whenSynced`).
   */
  waitForSync?: boolean | undefined;
  /** Bounds the wait of a blocking `cacheFor`. */
  signal?: AbortSignal | undefined;
}

/**
 * The cache of one kind.
 *
 * @example
 * ```ts
 * const factory = createSqlCacheFactory();
 * await factory.start(signal);
 * const configMapClient = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * const configMaps = await factory.cacheFor(configMapClient, {
 *   fields: ['data.mode'],
 *   signal: AbortSignal.timeout(60_000),
 * });
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
  /**
   * Resolves once the first list is stored; rejects when `signal` aborts or the kind is stopped or reset. The
   * informer's and the factories' `whenSynced({ signal })`.
   */
  whenSynced(options?: { signal?: AbortSignal | undefined } | undefined): Promise<void>;
  /**
   * `whenSynced({ signal })` with the signal as the argument.
   *
   * @deprecated Pass `{ signal }`, the one signature of "wait for sync" across lasso; this form still works.
   */
  whenSynced(signal: AbortSignal): Promise<void>;
  /**
   * Resolves once the cache reflects `resourceVersion` (a decimal one, such as a write's answer) or a newer
   * one: read-your-writes for a server in front of the cache. Rejects like {@link SqlCache.whenSynced}.
   */
  whenResourceVersion(resourceVersion: string, signal?: AbortSignal): Promise<void>;
  /**
   * The kind's committed writes after `options.resourceVersion` (a list's), then new ones; see
   * {@link SqlStoreReader.watch}. Ends with `ResourceVersionTooOldError` (410) when the kind relists, its
   * declared fields change, or the watcher falls behind the history; completes when `options.signal` aborts.
   */
  watch(options?: SqlWatchOptions): AsyncIterable<SqlWatchEvent<T>>;
}

/**
 * Options of {@link SqlCacheFactory.informerFor}: a cache's options plus the informer's.
 *
 * @example
 * ```ts
 * const options: SqlInformerOptions<KubeObject> = { fields: ['data.mode'], resyncMs: 0, namespace: 'team-a' };
 * ```
 */
export interface SqlInformerOptions<T> extends SqlCacheOptions<T> {
  /** Default resync period of the informer's handlers; `0` = never. Default 10 hours (lasso's, as `createCache`). */
  resyncMs?: number | undefined;
}

/**
 * The cache of one kind kept by a SharedIndexInformer whose indexer is the kind's SqlStore (see
 * {@link SqlCacheFactory.informerFor}).
 *
 * @example
 * ```ts
 * const factory = createSqlCacheFactory();
 * const configMaps = factory.informerFor(clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' }));
 * configMaps.informer.addEventHandler({ onAdd: (cm) => console.log('added', cm.metadata?.name) });
 * await factory.start(signal);
 * await configMaps.whenSynced({ signal: AbortSignal.timeout(60_000) });
 * console.log(configMaps.list({ pageSize: 10 }).total);
 * ```
 */
export interface SqlInformerCache<T extends KubeObjectLike = KubeObject> extends SqlCache<T> {
  /**
   * The informer: add handlers, give it to `createController`. Its store and indexer read the SqlStore (fresh
   * copies). It is run by the factory: do not also run it elsewhere.
   */
  readonly informer: SharedIndexInformer<T>;
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
 * const secrets = await factory.cacheFor(clientFor(rest, { apiVersion: 'v1', kind: 'Secret' }), {
 *   signal: AbortSignal.timeout(60_000),
 * }); // synced; encrypted at rest
 * ```
 */
export interface SqlCacheFactory extends Lifecycle {
  /**
   * The cache of `client`'s kind, created on the first call (the same cache on later calls). While the factory
   * runs its list/watch starts at once, beside the other kinds'. By default (as lasso's `CacheFor`) the call waits
   * until the kind's first list is stored: it returns a promise, rejected with a `LassoError`
   * (`LASSO_CONFIG_INVALID`) when the factory is not running or stops before, or with the reason of
   * `options.signal`. With `waitForSync: false` it returns the cache at once.
   *
   * A later call that declares fields (`fields` or `computedFields` given; `fields: []` declares none) other than
   * the kind's (paths, types) rebuilds
   * its tables (schema tracking): the kind's list/watch restarts into new tables, its watches end with
   * `ResourceVersionTooOldError`, and the same cache object answers with the new columns once relisted. Other
   * options of later calls are ignored. An `informerFor` kind's fields cannot change (`LASSO_CONFIG_INVALID`).
   */
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
  /**
   * The cache of `client`'s kind kept by a SharedIndexInformer whose indexer is the kind's SqlStore: a DeltaFIFO
   * and event handlers in front of the same tables, so handlers and a controller from `@lasso/controller`'s
   * `createController` (give it `(signal) => factory.start(signal)` as its startCache) see the kind's objects, read
   * back from SQLite as fresh copies, while `list` answers SQL queries. Created on the first call; the same cache on
   * later calls, of `cacheFor` too (their options are ignored). The factory runs the informer with the other
   * kinds. A namespaced kind's informer gets the `namespace` index. Throws a `LassoError`
   * (`LASSO_CONFIG_INVALID`) when `cacheFor` created the kind without an informer: `stopKind` it first.
   */
  informerFor<T extends KubeObjectLike = KubeObject>(
    client: CacheClient<T>,
    options?: SqlInformerOptions<T>,
  ): SqlInformerCache<T>;
  /**
   * Stop one kind's list/watch and drop its tables; a later `cacheFor` or `informerFor` starts it afresh (a kind's
   * informer cannot be used after this: stop the controllers using it first).
   */
  stopKind(gvk: GroupVersionKind): Promise<void>;
  /** Stop every kind, delete the database and start over with none (lasso's `Reset`). */
  reset(): Promise<void>;
  /** The kinds cached, as `group/version, Kind=Kind` names. */
  kinds(): string[];
}
