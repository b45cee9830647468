// The public shapes of a SQL store: its options, its read side and the full store (an Indexer over SQLite).
import type { Indexer, IndexerReader, Indexers, KeyFunc } from '@lasso/cache';
import type { Clock, Logger, MetricsProvider } from '@lasso/core';
import type { ComputedField, FieldSpec } from './column-types.ts';
import type { Encryptor } from './encryption.ts';
import type { ListOptions, ListResult } from './list-options.ts';
import type { GroupVersionKind } from './schema.ts';
import type { SqlWatchEvent, SqlWatchOptions, WatchHistoryOptions } from './watch-history.ts';

/**
 * Options of {@link createSqlStore}.
 *
 * @example
 * ```ts
 * const options: SqlStoreOptions<KubeObject> = {
 *   gvk: { group: 'example.com', version: 'v1', kind: 'Token' },
 *   fields: ['spec.owner'],
 *   indexers: { namespace: (object) => [object.metadata?.namespace ?? ''] },
 *   encrypt: true,
 * };
 * const store = createSqlStore(openSqlDatabase(), options);
 * ```
 */
export interface SqlStoreOptions<T> {
  readonly gvk: GroupVersionKind;
  /** Default true: `metadata.namespace` is an indexed column and the default sort. */
  readonly namespaced?: boolean | undefined;
  /**
   * Extra indexed field paths (`spec.nodeName`, `metadata.annotations[example.com/owner]`, `spec.ports.port`), each
   * a `text` column, or `{ path, type }` for an `integer`, `real` or `timestamp` one (sorted and compared as numbers).
   */
  readonly fields?: readonly FieldSpec[] | undefined;
  /**
   * Computed fields, indexed like the others under their names (lasso's transform-made virtual fields): a function
   * (`text`) or `{ compute, type }`.
   */
  readonly computedFields?: Readonly<Record<string, ComputedField<T>>> | undefined;
  /** Default `metaNamespaceKeyFunc`. */
  readonly keyFunc?: KeyFunc | undefined;
  readonly indexers?: Indexers<T> | undefined;
  /** Encrypt stored objects. Default: true for core `v1 Secret` only. */
  readonly encrypt?: boolean | undefined;
  /** The encryptor of encrypted kinds (share one per database). Default: a new one. */
  readonly encryptor?: Encryptor | undefined;
  /** The bound of the kind's event history, which `watch` replays from: default 1,000 events, no age bound. */
  readonly watchHistory?: WatchHistoryOptions | undefined;
  /** Times the events of the history for its age bound. Default `systemClock`. */
  readonly clock?: Clock | undefined;
  readonly logger?: Logger | undefined;
  readonly metrics?: MetricsProvider | undefined;
}

/**
 * The read side of a {@link SqlStore}: the Indexer readers plus SQL list queries. What a factory's caches hand
 * out.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * const reader: SqlStoreReader<KubeObject> = store;
 * const page = reader.listByOptions({
 *   namespace: 'default',
 *   pageSize: 50,
 *   partitions: [{ namespace: 'default', all: true }],
 * });
 * ```
 */
export interface SqlStoreReader<T> extends IndexerReader<T> {
  readonly gvk: GroupVersionKind;
  /** The objects table (unquoted), for logs. */
  readonly tableName: string;
  /** The canonical paths of the indexed fields, in column order. */
  readonly indexedFields: readonly string[];
  /** A hash of the indexed columns (paths, types) and scope: the factory rebuilds the tables when it changes. */
  readonly schemaHash: string;
  /** A filtered, sorted, paginated, counted, partition-scoped list (see {@link ListOptions}). */
  listByOptions(options?: ListOptions): ListResult<T>;
  /** The newest resourceVersion stored (from `replace` and the objects' own); `''` before any. */
  resourceVersion(): string;
  /**
   * The committed writes after `options.resourceVersion` (a list's; omitted = from now), then every new one, as
   * `ADDED`/`MODIFIED`/`DELETED` events, each object a fresh copy (steve's `Watch`). The iteration completes
   * when `options.signal` aborts or the store is dropped. Throws `ResourceVersionTooOldError` (410) when the
   * resourceVersion is older than the event history (`watchHistory`); the iteration throws it when the watcher
   * falls more than the history's size behind or the kind relists (`replace`): list again, then watch.
   */
  watch(options?: SqlWatchOptions): AsyncIterable<SqlWatchEvent<T>>;
}

/**
 * An {@link Indexer} whose objects live in SQLite, plus SQL list queries. Writes are buffered and committed
 * together at the end of the current task (one transaction per burst, never one per object); every read sees
 * every earlier write. Objects read back are fresh copies. A failed commit is rolled back, logged, kept and
 * retried by the next write or read (which then throws `StorageError` if it fails again).
 *
 * @example
 * ```ts
 * const store: SqlStore<KubeObject> = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * store.add({ metadata: { namespace: 'default', name: 'a' } });
 * console.log(store.getByKey('default/a'), store.listByOptions({ partitions: [{ namespace: 'default', all: true }] }).total);
 * ```
 */
export interface SqlStore<T> extends Indexer<T>, SqlStoreReader<T> {
  /** Commit buffered writes now. */
  flush(): void;
  /** Buffered writes not committed yet. */
  pendingWrites(): number;
  /** Events the watch history holds now (at most `watchHistory.maxEvents`). */
  watchHistorySize(): number;
  /**
   * Drop the tables and end the watches (they complete, or throw `reason` when given); every later call throws
   * `StorageError`.
   */
  drop(reason?: Error): void;
}
