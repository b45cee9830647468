// SqlStore: @lasso/cache's Indexer contract over SQLite tables (lasso's pkg/cache/sql/store, informer/indexer.go
// and informer/listoption_indexer.go), plus list queries in SQL.
import { type Indexers, type IndexFunc, type KeyFunc, metaNamespaceKeyFunc } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import {
  type Counter,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Logger,
  noopMetricsProvider,
  systemClock,
} from '@lasso/core';
import { BulkInsert } from './bulk-insert.ts';
import type { ColumnType } from './column-types.ts';
import type { SqlDatabase } from './database.ts';
import type { SqlValue } from './driver.ts';
import { createEncryptor } from './encryption.ts';
import { ResourceVersionTooNewError, StorageError } from './errors.ts';
import type { ListOptions, ListResult } from './list-options.ts';
import { compileListQuery, encodeContinue, type QuerySchema } from './query.ts';
import { type Column, indexedColumns, type Row, RowCodec, schemaHashOf } from './row-codec.ts';
import {
  createTablesSql,
  dropTablesSql,
  type GroupVersionKind,
  type SecondaryIndex,
  secondaryIndexes,
  type TableNames,
  tableNamesOf,
} from './schema.ts';
import type { SqlStore, SqlStoreOptions } from './store-api.ts';
import { prepareWriteStatements, type StoreSql, storeSql, writeRow } from './store-sql.ts';
import {
  checkWatchHistoryOptions,
  type HistoryWrite,
  type SqlWatchEvent,
  type SqlWatchEventType,
  type SqlWatchOptions,
  WatchHistory,
} from './watch-history.ts';

/** From this many objects, `replace` drops the secondary indexes and builds them again after its inserts. */
const bulkIndexThreshold = 1_000;

type Pending<T> =
  | { readonly object: T; readonly row: Row }
  | { readonly object: undefined; readonly row?: undefined };

/**
 * Create the tables of `options.gvk` in `database` and return its store. Throws a TypeError when the kind's
 * tables exist already or a field path is malformed.
 *
 * @example
 * ```ts
 * const database = openSqlDatabase();
 * const store = createSqlStore(database, {
 *   gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
 *   fields: ['metadata.labels[app.kubernetes.io/name]', 'data.mode'],
 * });
 * store.add({ metadata: { namespace: 'default', name: 'a' }, data: { mode: 'on' } });
 * const page = store.listByOptions({
 *   filters: [[{ field: 'data.mode', op: '=', values: ['on'] }]],
 *   partitions: [{ namespace: 'default', all: true }],
 * });
 * ```
 */
export function createSqlStore<T = KubeObject>(
  database: SqlDatabase,
  options: SqlStoreOptions<T>,
): SqlStore<T> {
  return new Store<T>(database, options);
}

class Store<T> implements SqlStore<T> {
  readonly gvk: GroupVersionKind;
  readonly tableName: string;
  readonly indexedFields: readonly string[];
  readonly schemaHash: string;
  readonly #db: SqlDatabase;
  readonly #names: TableNames;
  readonly #schema: QuerySchema;
  readonly #codec: RowCodec<T>;
  readonly #keyFunc: KeyFunc;
  readonly #indexers: Indexers<T> = {};
  readonly #logger: Logger;
  readonly #flushes: Counter;
  readonly #flushErrors: Counter;
  readonly #sql: StoreSql;
  readonly #secondaryIndexes: readonly SecondaryIndex[];
  readonly #history: WatchHistory<T>;
  #pending = new Map<string, Pending<T>>();
  /** Every buffered write in order (`#pending` keeps one per key): the watch events of the next commit. */
  #events: HistoryWrite[] = [];
  #flushScheduled = false;
  #resourceVersion = '';
  #pendingResourceVersion = '';
  #dropped = false;

  constructor(database: SqlDatabase, options: SqlStoreOptions<T>) {
    const { gvk } = options;
    if (
      typeof gvk !== 'object' ||
      gvk === null ||
      typeof gvk.kind !== 'string' ||
      gvk.kind === ''
    ) {
      throw new TypeError('createSqlStore: gvk must name a kind');
    }
    this.gvk = gvk;
    this.#db = database;
    this.#names = tableNamesOf(gvk);
    this.tableName = this.#names.base;
    this.#keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;

    const namespaced = options.namespaced ?? true;
    const columns = indexedColumns<T>({
      namespaced,
      fields: options.fields,
      computedFields: options.computedFields,
    });
    this.indexedFields = Object.freeze(columns.map((column) => column.path));
    this.schemaHash = schemaHashOf(columns as readonly Column<unknown>[], namespaced);
    this.#schema = {
      fieldsTable: this.#names.fields,
      labelsTable: this.#names.labels,
      namespaced,
      columns: new Map(columns.map((column, i) => [column.path, `"c${i}"`])),
      types: new Map(columns.map((column) => [column.path, column.type])),
    };
    const encrypt =
      options.encrypt ?? (gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Secret');
    this.#codec = new RowCodec<T>(
      this.tableName,
      columns,
      this.#indexers,
      encrypt ? (options.encryptor ?? createEncryptor()) : undefined,
    );
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ table: this.tableName });
    const metrics = options.metrics ?? noopMetricsProvider;
    const labels = { name: this.tableName };
    this.#flushes = metrics.counter({
      name: 'lasso_sqlcache_flushes_total',
      help: 'Buffered writes committed in one transaction.',
      labels,
    });
    this.#flushErrors = metrics.counter({
      name: 'lasso_sqlcache_flush_errors_total',
      help: 'Commits of buffered writes that failed and were rolled back.',
      labels,
    });
    this.#history = new WatchHistory<T>({
      ...checkWatchHistoryOptions(options.watchHistory, 'createSqlStore'),
      clock: options.clock ?? systemClock,
      tooOld: metrics.counter({
        name: 'lasso_sqlcache_watch_too_old_total',
        help: 'Watches of the SQL cache refused or ended because their resourceVersion left the event history.',
        labels,
      }),
      size: metrics.gauge({
        name: 'lasso_sqlcache_watch_history_events',
        help: 'Events kept in the watch history of a kind.',
        labels,
      }),
    });
    const n = this.#names;
    this.#sql = storeSql(n, columns.length);
    this.#secondaryIndexes = secondaryIndexes(n, columns.length, namespaced);
    try {
      database.exec(
        createTablesSql(
          n,
          columns.map((column) => column.type),
          namespaced,
        ),
      );
    } catch (error) {
      if (/already exists/.test(errorMessage(error))) {
        throw new TypeError(`createSqlStore: the tables of ${this.tableName} exist already`);
      }
      throw error;
    }
    this.addIndexers(options.indexers ?? {});
  }

  // --- writes -------------------------------------------------------------------------------------------

  add(object: T): void {
    this.#put(object, 'ADDED');
  }

  update(object: T): void {
    this.#put(object, 'MODIFIED');
  }

  delete(object: T): void {
    this.#live();
    const key = this.#keyFunc(object);
    this.#notePending(object);
    this.#pending.set(key, { object: undefined });
    this.#events.push({ type: 'DELETED', object, json: JSON.stringify(object) });
    this.#scheduleFlush();
  }

  replace(list: readonly T[], resourceVersion: string): void {
    this.#live();
    // Keys first (the last object of a key wins, as in a Map); rows are computed inside the transaction, so a
    // throwing key, index or field function rolls it back and the previous content stays.
    // In resourceVersion order (steve sorts every list so): rows get ids, and so the store's order, by age of their
    // last change, whatever order the server listed them in; of two objects of one key the newer one wins.
    const sorted = sortByResourceVersion(list);
    const last = new Map<string, number>();
    for (let i = 0; i < sorted.length; i++) last.set(this.#keyFunc(sorted[i] as T), i);
    this.#db.write((prepare) => {
      prepare(`DELETE FROM ${this.#names.indices}`).run();
      prepare(`DELETE FROM ${this.#names.labels}`).run();
      prepare(`DELETE FROM ${this.#names.fields}`).run();
      prepare(`DELETE FROM ${this.#names.objects}`).run();
      // A large list: the secondary indexes are built once after the rows are in (one sort each) rather than
      // grown row by row. In the same transaction: a failed replace rolls their drop back too.
      const rebuild = last.size >= bulkIndexThreshold ? this.#secondaryIndexes : [];
      for (const index of rebuild) prepare(`DROP INDEX ${index.name}`).run();
      const bulk = new BulkInsert(prepare, this.#names, this.indexedFields.length);
      for (const [key, i] of last) bulk.add(key, this.#codec.encode(key, sorted[i] as T));
      bulk.finish();
      for (const index of rebuild) prepare(index.create).run();
    });
    this.#pending = new Map();
    this.#events = [];
    this.#resourceVersion = this.#pendingResourceVersion = resourceVersion || this.#resourceVersion;
    // What changed between the old content and the list is unknown: watches end with TooOld and relist.
    this.#history.reset(this.#resourceVersion);
    this.#flushes.inc();
    // A whole list leaves a large WAL behind: truncate it now rather than at the next write.
    if (last.size >= bulkIndexThreshold) this.#db.checkpoint();
  }

  resync(): void {}

  flush(): void {
    this.#live();
    if (this.#pending.size === 0) return;
    const pending = this.#pending;
    const events = this.#events;
    try {
      this.#db.write((prepare) => {
        const statements = prepareWriteStatements(this.#sql, prepare);
        for (const [key, entry] of pending) {
          if (entry.row === undefined) statements.delete.run(key);
          else writeRow(statements, key, entry.row);
        }
      });
    } catch (error) {
      this.#flushErrors.inc();
      this.#logger.error('committing buffered writes failed; kept for the next attempt', {
        writes: pending.size,
        error: errorMessage(error),
      });
      throw error;
    }
    // Writes buffered during the commit (none today: it is synchronous) stay for the next one.
    if (this.#pending === pending) this.#pending = new Map();
    if (this.#events === events) this.#events = [];
    this.#resourceVersion = this.#pendingResourceVersion;
    this.#flushes.inc();
    this.#history.append(events);
  }

  pendingWrites(): number {
    return this.#pending.size;
  }

  // --- reads --------------------------------------------------------------------------------------------

  get(object: T): T | undefined {
    return this.getByKey(this.#keyFunc(object));
  }

  getByKey(key: string): T | undefined {
    this.#live();
    // A buffered write is the newest state of its key; no commit needed to answer.
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending.object;
    const row = this.#db.read((prepare) => prepare(this.#sql.get).get(key));
    return row === undefined ? undefined : this.#codec.decode(row);
  }

  list(): T[] {
    return this.#readAll(this.#sql.list).map((row) => this.#codec.decode(row));
  }

  listKeys(): string[] {
    return this.#readAll(this.#sql.keys).map((row) => row.key as string);
  }

  size(): number {
    this.#readable();
    return Number(this.#db.read((prepare) => prepare(this.#sql.count).get())?.n ?? 0);
  }

  index(indexName: string, object: T): T[] {
    const indexFunc = this.#indexFunc(indexName);
    const values = [...new Set(indexFunc(object))];
    return this.#readAll(this.#sql.indexObjects, indexName, JSON.stringify(values)).map((row) =>
      this.#codec.decode(row),
    );
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.#indexFunc(indexName);
    return this.#readAll(this.#sql.indexKeys, indexName, indexedValue).map(
      (row) => row.key as string,
    );
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#readAll(this.#sql.values, indexName).map((row) => row.value as string);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    this.#indexFunc(indexName);
    return this.#readAll(this.#sql.byIndex, indexName, indexedValue).map((row) =>
      this.#codec.decode(row),
    );
  }

  getIndexers(): Readonly<Indexers<T>> {
    return { ...this.#indexers };
  }

  addIndexers(indexers: Indexers<T>): void {
    this.#live();
    for (const name of Object.keys(indexers)) {
      if (name in this.#indexers) {
        throw new TypeError(`addIndexers: indexer "${name}" already exists`);
      }
      if (typeof indexers[name] !== 'function') {
        throw new TypeError(`addIndexers: indexer "${name}" is not a function`);
      }
    }
    const entries = Object.entries(indexers);
    if (entries.length === 0) return;
    this.flush();
    // Every value is computed before any row is written or any indexer registered: all or nothing.
    const rows: [string, string, string][] = [];
    for (const stored of this.#readAll(this.#sql.list)) {
      const object = this.#codec.decode(stored);
      for (const [name, indexFunc] of entries) {
        for (const value of indexFunc(object)) rows.push([name, value, stored.key as string]);
      }
    }
    if (rows.length > 0) {
      this.#db.write((prepare) => {
        const insert = prepare(
          `INSERT OR IGNORE INTO ${this.#names.indices} (name, value, id) SELECT ?, ?, id FROM ${this.#names.objects} WHERE key = ?`,
        );
        for (const [name, value, key] of rows) insert.run(name, value, key);
      });
    }
    for (const [name, indexFunc] of entries) this.#indexers[name] = indexFunc;
  }

  listByOptions(options: ListOptions = {}): ListResult<T> {
    this.#readable();
    const query = compileListQuery(this.#schema, options);
    const cached = this.#resourceVersion;
    const requested = options.resourceVersion;
    if (requested !== undefined && requested !== '' && isNewer(requested, cached)) {
      throw new ResourceVersionTooNewError(requested, cached);
    }
    const { limit, offset } = query;
    return this.#db.read((prepare) => {
      const ids = prepare(query.idsSql).all(
        ...query.params,
        ...query.sortParams,
        limit === undefined ? -1 : limit + 1,
        offset,
      );
      const more = limit !== undefined && ids.length > limit;
      const page = more ? ids.slice(0, limit) : ids;
      // The count runs in the same read transaction as the page, so both describe one snapshot.
      const total =
        limit === undefined && offset === 0
          ? ids.length
          : Number(prepare(query.countSql).get(...query.params)?.n ?? 0);
      const get = prepare(this.#sql.getById);
      const items: T[] = [];
      for (const { id } of page) {
        const row = get.get(id as SqlValue);
        if (row !== undefined) items.push(this.#codec.decode(row));
      }
      return {
        items,
        total,
        continue: more ? encodeContinue(offset + (limit as number), query.fingerprint) : undefined,
        resourceVersion: cached,
        ...(query.summaries.length === 0
          ? {}
          : {
              summary: query.summaries.map((summary) => ({
                field: summary.field,
                counts: Object.fromEntries(
                  prepare(summary.sql)
                    .all(...summary.params)
                    .map(({ k, c }) => [summaryKey(summary.type, k as SqlValue), Number(c)]),
                ),
              })),
            }),
      };
    });
  }

  resourceVersion(): string {
    this.#readable();
    return this.#resourceVersion;
  }

  watch(options?: SqlWatchOptions): AsyncIterable<SqlWatchEvent<T>> {
    // Buffered writes first: a watch from the resourceVersion just read sees none of them twice or never.
    this.#readable();
    return this.#history.watch(options);
  }

  watchHistorySize(): number {
    return this.#history.size();
  }

  drop(reason?: Error): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.#history.close(reason);
    this.#pending = new Map();
    this.#events = [];
    if (!this.#db.isClosed()) this.#db.exec(dropTablesSql(this.#names));
  }

  // --- internals ----------------------------------------------------------------------------------------

  #put(object: T, type: SqlWatchEventType): void {
    this.#live();
    const key = this.#keyFunc(object);
    const row = this.#codec.encode(key, object);
    this.#notePending(object);
    this.#pending.set(key, { object, row });
    const json = typeof row.payload === 'string' ? row.payload : JSON.stringify(object);
    this.#events.push({ type, object, json });
    this.#scheduleFlush();
  }

  #readAll(sql: string, ...params: SqlValue[]): Record<string, SqlValue>[] {
    this.#readable();
    return this.#db.read((prepare) => prepare(sql).all(...params));
  }

  #readable(): void {
    this.#live();
    if (this.#pending.size > 0) this.flush();
  }

  #indexFunc(indexName: string): IndexFunc<T> {
    const indexFunc = this.#indexers[indexName];
    if (indexFunc === undefined) throw new RangeError(`index "${indexName}" does not exist`);
    return indexFunc;
  }

  #notePending(object: T): void {
    const version = (object as KubeObject)?.metadata?.resourceVersion;
    if (typeof version === 'string' && isNewer(version, this.#pendingResourceVersion)) {
      this.#pendingResourceVersion = version;
    }
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      if (this.#dropped || this.#db.isClosed()) return;
      try {
        this.flush();
      } catch {
        // Logged and counted by flush; the writes stay buffered for the next write or read.
      }
    });
  }

  #live(): void {
    if (this.#dropped) throw new StorageError(`the store of ${this.tableName} was dropped`);
  }
}

/**
 * @internal `list` stably sorted by `metadata.resourceVersion`: as numbers when both are decimal, else as text (steve's
 * fallback); `list` itself when already in order (a list from the server usually is not, a relist of one
 * namespace's objects often is).
 */
export function sortByResourceVersion<T>(list: readonly T[]): readonly T[] {
  const versions = list.map((object) => {
    const version = (object as KubeObject)?.metadata?.resourceVersion;
    return typeof version === 'string' ? version : '';
  });
  const compare = (a: string, b: string): number => {
    if (/^\d+$/.test(a) && /^\d+$/.test(b)) {
      if (a.length !== b.length) return a.length - b.length;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  };
  let ordered = true;
  for (let i = 1; i < versions.length && ordered; i++) {
    if (compare(versions[i - 1] as string, versions[i] as string) > 0) ordered = false;
  }
  if (ordered) return list;
  const order = versions.map((_, i) => i);
  order.sort((a, b) => compare(versions[a] as string, versions[b] as string) || a - b);
  return order.map((i) => list[i] as T);
}

/** The text of a summarised value: a timestamp column's milliseconds as RFC 3339, a number as its text. */
function summaryKey(type: ColumnType, value: SqlValue): string {
  if (type === 'timestamp' && typeof value === 'number') return new Date(value).toISOString();
  return String(value);
}

/** True when `a` is a newer resourceVersion than `b` (decimal strings; anything else is never newer). */
function isNewer(a: string, b: string): boolean {
  if (!/^\d+$/.test(a)) return false;
  if (!/^\d+$/.test(b)) return true;
  return BigInt(a) > BigInt(b);
}
