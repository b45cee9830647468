// Public API of @lasso/sqlcache: a SQLite-backed informer store with SQL list queries, encryption at rest and
// a per-kind cache factory.
export type { ColumnType, ComputedField, FieldSpec } from './column-types.ts';
export {
  openSqlDatabase,
  type SqlDatabase,
  type SqlDatabaseOptions,
} from './database.ts';
export {
  betterSqlite3Driver,
  defaultSqliteDriver,
  nodeSqliteDriver,
  type OpenOptions,
  type SqlConnection,
  type SqliteDriver,
  type SqlStatement,
  type SqlValue,
} from './driver.ts';
export {
  createEncryptor,
  type Encryptor,
  type EncryptorOptions,
  type Sealed,
} from './encryption.ts';
export {
  DecryptionError,
  InvalidQueryError,
  ResourceVersionTooNewError,
  ResourceVersionTooOldError,
  StorageError,
} from './errors.ts';
export { createSqlCacheFactory } from './factory.ts';
export type {
  SqlCache,
  SqlCacheFactory,
  SqlCacheFactoryOptions,
  SqlCacheForOptions,
  SqlCacheOptions,
  SqlInformerCache,
  SqlInformerOptions,
} from './factory-types.ts';
export {
  canonicalFieldPath,
  type FieldSegment,
  type FieldValue,
  parseFieldPath,
} from './fields.ts';
export type {
  Filter,
  FilterOp,
  ListOptions,
  ListResult,
  OrFilter,
  Partition,
  SortField,
  SummaryEntry,
} from './list-options.ts';
export type { GroupVersionKind } from './schema.ts';
export { createSqlStore } from './store.ts';
export type { SqlStore, SqlStoreOptions, SqlStoreReader } from './store-api.ts';
export type {
  SqlWatchEvent,
  SqlWatchEventType,
  SqlWatchOptions,
  WatchHistoryOptions,
} from './watch-history.ts';
