// SqlStore: @lasso/cache's Indexer contract over SQLite tables (lasso's pkg/cache/sql/store, informer/indexer.go
// and informer/listoption_indexer.go), plus list queries in SQL.
import {
  type Indexer,
  type IndexerReader,
  type Indexers,
  type IndexFunc,
  type KeyFunc,
  metaNamespaceKeyFunc,
} from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import {
  type Counter,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
} from '@lasso/core';
import type { SqlDatabase } from './database.ts';
import type { SqlStatement, SqlValue } from './driver.ts';
import { createEncryptor, type Encryptor } from './encryption.ts';
import { ResourceVersionTooNewError, StorageError } from './errors.ts';
import {
  canonicalFieldPath,
  extractField,
  type FieldSegment,
  type FieldValue,
  fieldText,
  parseFieldPath,
} from './fields.ts';
import type { ListOptions, ListResult } from './list-options.ts';
import { compileListQuery, encodeContinue, type QuerySchema } from './query.ts';
import {
  createTablesSql,
  dropTablesSql,
  type GroupVersionKind,
  type TableNames,
  tableNamesOf,
} from './schema.ts';

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
  readonly namespaced?: boolean;
  /** Extra indexed field paths (`spec.nodeName`, `metadata.annotations[example.com/owner]`, `spec.ports.port`). */
  readonly fields?: readonly string[];
  /** Computed fields, indexed like the others under their names (lasso's transform-made virtual fields). */
  readonly computedFields?: Readonly<Record<string, (object: T) => FieldValue>>;
  /** Default `metaNamespaceKeyFunc`. */
  readonly keyFunc?: KeyFunc;
  readonly indexers?: Indexers<T>;
  /** Encrypt stored objects. Default: true for core `v1 Secret` only. */
  readonly encrypt?: boolean;
  /** The encryptor of encrypted kinds (share one per database). Default: a new one. */
  readonly encryptor?: Encryptor;
  readonly logger?: Logger;
  readonly metrics?: MetricsProvider;
}

/**
 * The read side of a {@link SqlStore}: the Indexer readers plus SQL list queries. What a factory's caches hand
 * out.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * const reader: SqlStoreReader<KubeObject> = store;
 * const page = reader.listByOptions({ namespace: 'default', pageSize: 50 });
 * ```
 */
export interface SqlStoreReader<T> extends IndexerReader<T> {
  readonly gvk: GroupVersionKind;
  /** The objects table (unquoted), for logs. */
  readonly tableName: string;
  /** The canonical paths of the indexed fields, in column order. */
  readonly indexedFields: readonly string[];
  /** A filtered, sorted, paginated, counted, partition-scoped list (see {@link ListOptions}). */
  listByOptions(options?: ListOptions): ListResult<T>;
  /** The newest resourceVersion stored (from `replace` and the objects' own); `''` before any. */
  resourceVersion(): string;
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
 * console.log(store.getByKey('default/a'), store.listByOptions({ namespace: 'default' }).total);
 * ```
 */
export interface SqlStore<T> extends Indexer<T>, SqlStoreReader<T> {
  /** Commit buffered writes now. */
  flush(): void;
  /** Buffered writes not committed yet. */
  pendingWrites(): number;
  /** Drop the tables; every later call throws `StorageError`. */
  drop(): void;
}

interface Row {
  readonly payload: string | Uint8Array;
  readonly nonce: Uint8Array | null;
  readonly keyId: number | null;
  readonly fields: readonly string[];
  /** The labels as one JSON object, null when there are none. */
  readonly labels: string | null;
  readonly indices: readonly (readonly [string, string])[];
}

interface WriteStatements {
  readonly upsert: SqlStatement;
  readonly insert: SqlStatement;
  readonly fields: SqlStatement;
  readonly deleteLabels: SqlStatement;
  readonly labels: SqlStatement;
  readonly deleteIndices: SqlStatement;
  readonly index: SqlStatement;
  readonly delete: SqlStatement;
}

type Pending<T> =
  | { readonly object: T; readonly row: Row }
  | { readonly object: undefined; readonly row?: undefined };

interface Column<T> {
  readonly path: string;
  readonly extract: (object: T) => string;
}

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
 * const page = store.listByOptions({ filters: [[{ field: 'data.mode', op: '=', values: ['on'] }]] });
 * ```
 */
export function createSqlStore<T = KubeObject>(
  database: SqlDatabase,
  options: SqlStoreOptions<T>,
): SqlStore<T> {
  return new Store<T>(database, options);
}

const fieldsOf = (segments: FieldSegment[]) => (object: unknown) => extractField(object, segments);

class Store<T> implements SqlStore<T> {
  readonly gvk: GroupVersionKind;
  readonly tableName: string;
  readonly indexedFields: readonly string[];
  readonly #db: SqlDatabase;
  readonly #names: TableNames;
  readonly #schema: QuerySchema;
  readonly #columns: readonly Column<T>[];
  readonly #keyFunc: KeyFunc;
  readonly #indexers: Indexers<T> = {};
  readonly #encryptor: Encryptor | undefined;
  readonly #logger: Logger;
  readonly #flushes: Counter;
  readonly #flushErrors: Counter;
  readonly #sql: Record<string, string>;
  #pending = new Map<string, Pending<T>>();
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
    const columns: Column<T>[] = [];
    const add = (path: string, extract: (object: T) => string, option: string): void => {
      if (columns.some((column) => column.path === path)) {
        throw new TypeError(`createSqlStore: ${option} repeats the indexed field ${path}`);
      }
      columns.push({ path, extract });
    };
    add('metadata.name', fieldsOf(parseFieldPath('metadata.name')), 'fields');
    if (namespaced)
      add('metadata.namespace', fieldsOf(parseFieldPath('metadata.namespace')), 'fields');
    const created = parseFieldPath('metadata.creationTimestamp');
    add('metadata.creationTimestamp', fieldsOf(created), 'fields');
    for (const path of options.fields ?? []) {
      let segments: FieldSegment[];
      try {
        segments = parseFieldPath(path);
      } catch (error) {
        throw new TypeError(`createSqlStore: fields: ${errorMessage(error)}`);
      }
      const canonical = canonicalFieldPath(segments);
      if (columns.some((column) => column.path === canonical)) continue;
      add(canonical, fieldsOf(segments), 'fields');
    }
    for (const [name, compute] of Object.entries(options.computedFields ?? {})) {
      if (typeof compute !== 'function') {
        throw new TypeError(`createSqlStore: computedFields.${name} is not a function`);
      }
      add(canonicalFieldPath(name), (object) => fieldText(compute(object)), 'computedFields');
    }
    this.#columns = columns;
    this.indexedFields = Object.freeze(columns.map((column) => column.path));
    this.#schema = {
      fieldsTable: this.#names.fields,
      labelsTable: this.#names.labels,
      namespaced,
      columns: new Map(columns.map((column, i) => [column.path, `"c${i}"`])),
    };
    const encrypt =
      options.encrypt ?? (gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Secret');
    this.#encryptor = encrypt ? (options.encryptor ?? createEncryptor()) : undefined;
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
    const n = this.#names;
    const placeholders = columns.map(() => '?').join(', ');
    this.#sql = {
      upsert: `INSERT INTO ${n.objects} (key, object, nonce, keyid) VALUES (?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET object = excluded.object, nonce = excluded.nonce, keyid = excluded.keyid RETURNING id`,
      fields: `INSERT OR REPLACE INTO ${n.fields} VALUES (?, ${placeholders})`,
      deleteLabels: `DELETE FROM ${n.labels} WHERE id = ?`,
      // All labels of an object in one statement: one call instead of one per label.
      labels: `INSERT INTO ${n.labels} (id, label, value) SELECT ?, key, value FROM json_each(?)`,
      insert: `INSERT INTO ${n.objects} (key, object, nonce, keyid) VALUES (?, ?, ?, ?)`,
      deleteIndices: `DELETE FROM ${n.indices} WHERE id = ?`,
      index: `INSERT OR IGNORE INTO ${n.indices} (name, value, id) VALUES (?, ?, ?)`,
      delete: `DELETE FROM ${n.objects} WHERE key = ?`,
      get: `SELECT key, object, nonce, keyid FROM ${n.objects} WHERE key = ?`,
      getById: `SELECT key, object, nonce, keyid FROM ${n.objects} WHERE id = ?`,
      list: `SELECT key, object, nonce, keyid FROM ${n.objects} ORDER BY id`,
      keys: `SELECT key FROM ${n.objects} ORDER BY id`,
      count: `SELECT COUNT(*) AS n FROM ${n.objects}`,
      indexKeys: `SELECT o.key AS key FROM ${n.indices} AS i JOIN ${n.objects} AS o ON o.id = i.id WHERE i.name = ? AND i.value = ? ORDER BY o.id`,
      byIndex: `SELECT o.key AS key, o.object AS object, o.nonce AS nonce, o.keyid AS keyid FROM ${n.indices} AS i JOIN ${n.objects} AS o ON o.id = i.id WHERE i.name = ? AND i.value = ? ORDER BY o.id`,
      indexObjects: `SELECT o.key AS key, o.object AS object, o.nonce AS nonce, o.keyid AS keyid FROM ${n.objects} AS o WHERE o.id IN (SELECT i.id FROM ${n.indices} AS i WHERE i.name = ? AND i.value IN (SELECT value FROM json_each(?))) ORDER BY o.id`,
      values: `SELECT DISTINCT value FROM ${n.indices} WHERE name = ?`,
    };
    try {
      database.exec(createTablesSql(n, columns.length, namespaced));
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
    this.#put(object);
  }

  update(object: T): void {
    this.#put(object);
  }

  delete(object: T): void {
    this.#live();
    const key = this.#keyFunc(object);
    this.#notePending(object);
    this.#pending.set(key, { object: undefined });
    this.#scheduleFlush();
  }

  replace(list: readonly T[], resourceVersion: string): void {
    this.#live();
    // Keys first (the last object of a key wins, as in a Map); rows are computed inside the transaction, so a
    // throwing key, index or field function rolls it back and the previous content stays.
    const last = new Map<string, number>();
    for (let i = 0; i < list.length; i++) last.set(this.#keyFunc(list[i] as T), i);
    this.#db.write((prepare) => {
      prepare(`DELETE FROM ${this.#names.indices}`).run();
      prepare(`DELETE FROM ${this.#names.labels}`).run();
      prepare(`DELETE FROM ${this.#names.fields}`).run();
      prepare(`DELETE FROM ${this.#names.objects}`).run();
      const statements = this.#writeStatements(prepare);
      for (const [key, i] of last) {
        this.#writeRow(statements, key, this.#row(key, list[i] as T), true);
      }
    });
    this.#pending = new Map();
    this.#resourceVersion = this.#pendingResourceVersion = resourceVersion || this.#resourceVersion;
    this.#flushes.inc();
    // A whole list leaves a large WAL behind: truncate it now rather than at the next write.
    if (last.size >= 1_000) this.#db.checkpoint();
  }

  resync(): void {}

  flush(): void {
    this.#live();
    if (this.#pending.size === 0) return;
    const pending = this.#pending;
    try {
      this.#db.write((prepare) => {
        const statements = this.#writeStatements(prepare);
        for (const [key, entry] of pending) {
          if (entry.row === undefined) statements.delete.run(key);
          else this.#writeRow(statements, key, entry.row);
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
    this.#resourceVersion = this.#pendingResourceVersion;
    this.#flushes.inc();
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
    const row = this.#db.read((prepare) => prepare(this.#sql.get as string).get(key));
    return row === undefined ? undefined : this.#decode(row);
  }

  list(): T[] {
    return this.#readAll(this.#sql.list as string).map((row) => this.#decode(row));
  }

  listKeys(): string[] {
    return this.#readAll(this.#sql.keys as string).map((row) => row.key as string);
  }

  size(): number {
    this.#readable();
    return Number(this.#db.read((prepare) => prepare(this.#sql.count as string).get())?.n ?? 0);
  }

  index(indexName: string, object: T): T[] {
    const indexFunc = this.#indexFunc(indexName);
    const values = [...new Set(indexFunc(object))];
    return this.#readAll(this.#sql.indexObjects as string, indexName, JSON.stringify(values)).map(
      (row) => this.#decode(row),
    );
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.#indexFunc(indexName);
    return this.#readAll(this.#sql.indexKeys as string, indexName, indexedValue).map(
      (row) => row.key as string,
    );
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#readAll(this.#sql.values as string, indexName).map((row) => row.value as string);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    this.#indexFunc(indexName);
    return this.#readAll(this.#sql.byIndex as string, indexName, indexedValue).map((row) =>
      this.#decode(row),
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
    for (const stored of this.#readAll(this.#sql.list as string)) {
      const object = this.#decode(stored);
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
      const get = prepare(this.#sql.getById as string);
      const items: T[] = [];
      for (const { id } of page) {
        const row = get.get(id as SqlValue);
        if (row !== undefined) items.push(this.#decode(row));
      }
      return {
        items,
        total,
        continue: more ? encodeContinue(offset + (limit as number), query.fingerprint) : undefined,
        resourceVersion: cached,
      };
    });
  }

  resourceVersion(): string {
    this.#readable();
    return this.#resourceVersion;
  }

  drop(): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.#pending = new Map();
    if (!this.#db.isClosed()) this.#db.exec(dropTablesSql(this.#names));
  }

  // --- internals ----------------------------------------------------------------------------------------

  #put(object: T): void {
    this.#live();
    const key = this.#keyFunc(object);
    const row = this.#row(key, object);
    this.#notePending(object);
    this.#pending.set(key, { object, row });
    this.#scheduleFlush();
  }

  #row(key: string, object: T): Row {
    const fields = this.#columns.map((column) => column.extract(object));
    const indices: [string, string][] = [];
    for (const name in this.#indexers) {
      for (const value of (this.#indexers[name] as IndexFunc<T>)(object))
        indices.push([name, value]);
    }
    const objectLabels = (object as KubeObject)?.metadata?.labels;
    let labels: string | null = null;
    if (typeof objectLabels === 'object' && objectLabels !== null) {
      for (const label in objectLabels) {
        if (typeof objectLabels[label] !== 'string') {
          throw new TypeError(`label ${JSON.stringify(label)} of ${key} is not a string`);
        }
        labels = JSON.stringify(objectLabels);
        break;
      }
    }
    const json = JSON.stringify(object);
    if (this.#encryptor === undefined) {
      return { payload: json, nonce: null, keyId: null, fields, labels, indices };
    }
    const sealed = this.#encryptor.encrypt(Buffer.from(json, 'utf8'), this.#aad(key));
    return {
      payload: sealed.ciphertext,
      nonce: sealed.nonce,
      keyId: sealed.keyId,
      fields,
      labels,
      indices,
    };
  }

  #writeStatements(prepare: (sql: string) => SqlStatement): WriteStatements {
    const sql = this.#sql as Record<keyof WriteStatements, string>;
    return {
      upsert: prepare(sql.upsert),
      insert: prepare(sql.insert),
      fields: prepare(sql.fields),
      deleteLabels: prepare(sql.deleteLabels),
      labels: prepare(sql.labels),
      deleteIndices: prepare(sql.deleteIndices),
      index: prepare(sql.index),
      delete: prepare(sql.delete),
    };
  }

  /** Write one row; `fresh` when the tables are known not to hold `key` (a replace). */
  #writeRow(statements: WriteStatements, key: string, row: Row, fresh = false): void {
    let id: number | bigint;
    if (fresh) {
      id = statements.insert.run(key, row.payload, row.nonce, row.keyId).lastInsertRowid;
    } else {
      id = (statements.upsert.get(key, row.payload, row.nonce, row.keyId) as { id: number }).id;
      statements.deleteLabels.run(id);
      statements.deleteIndices.run(id);
    }
    statements.fields.run(id, ...row.fields);
    if (row.labels !== null) statements.labels.run(id, row.labels);
    for (const [name, value] of row.indices) statements.index.run(name, value, id);
  }

  #decode(row: Record<string, SqlValue>): T {
    const payload = row.object;
    if (this.#encryptor === undefined || row.nonce === null) {
      return JSON.parse(
        typeof payload === 'string' ? payload : Buffer.from(payload as Uint8Array).toString('utf8'),
      ) as T;
    }
    const plain = this.#encryptor.decrypt(
      {
        ciphertext: payload as Uint8Array,
        nonce: row.nonce as Uint8Array,
        keyId: Number(row.keyid),
      },
      this.#aad(row.key as string),
    );
    return JSON.parse(plain.toString('utf8')) as T;
  }

  #aad(key: string): string {
    return `${this.tableName}\u0000${key}`;
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

/** True when `a` is a newer resourceVersion than `b` (decimal strings; anything else is never newer). */
function isNewer(a: string, b: string): boolean {
  if (!/^\d+$/.test(a)) return false;
  if (!/^\d+$/.test(b)) return true;
  return BigInt(a) > BigInt(b);
}
