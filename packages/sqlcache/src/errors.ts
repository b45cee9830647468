// Errors of @lasso/sqlcache, each with a stable LassoError code.
import { LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A list query names a field that is not indexed, an operator that does not apply, or a bad continue token. */
    LASSO_SQLCACHE_INVALID_QUERY: InvalidQueryError;
    /** A list asked for a resourceVersion newer than the cache reflects; retry once the cache caught up. */
    LASSO_SQLCACHE_RESOURCE_VERSION_TOO_NEW: ResourceVersionTooNewError;
    /**
     * A watch of the SQL cache asked for a resourceVersion older than the kind's event history keeps, or fell
     * behind it, or the kind relisted under it: the 410 Expired of the cache; list again and watch from that list.
     */
    LASSO_SQLCACHE_RESOURCE_VERSION_TOO_OLD: ResourceVersionTooOldError;
    /** A stored object could not be decrypted (unknown key id, wrong key, tampered bytes). */
    LASSO_SQLCACHE_DECRYPT_FAILED: DecryptionError;
    /** SQLite failed (busy past its bound, disk full, closed database); the transaction was rolled back. */
    LASSO_SQLCACHE_STORAGE_FAILED: StorageError;
  }
}

/**
 * A list query the cache cannot answer: an unindexed field (only indexed columns may be filtered or sorted),
 * an operator that does not apply to it, a non-numeric `Lt`/`Gt` value, or a continue token from another
 * query. Maps to HTTP 400.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * try {
 *   store.listByOptions({ filters: [[{ field: 'spec.unknown', op: '=', values: ['x'] }]] });
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_SQLCACHE_INVALID_QUERY')) console.warn(error.message);
 * }
 * ```
 */
export class InvalidQueryError extends LassoError {
  constructor(message: string) {
    super('LASSO_SQLCACHE_INVALID_QUERY', message);
  }
}

/**
 * A list asked for a resourceVersion newer than the one the cache reflects. `retryable` is always true: the
 * cache catches up as watch events arrive.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * try {
 *   store.listByOptions({ resourceVersion: '1000' });
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_SQLCACHE_RESOURCE_VERSION_TOO_NEW')) console.warn('retry later', error.cacheResourceVersion);
 * }
 * ```
 */
export class ResourceVersionTooNewError extends LassoError {
  /** Always true: the same request succeeds once the cache has caught up. */
  readonly retryable = true;
  /** The resourceVersion the caller asked for. */
  readonly requestedResourceVersion: string;
  /** The resourceVersion the cache reflects. */
  readonly cacheResourceVersion: string;
  constructor(requested: string, cached: string) {
    super(
      'LASSO_SQLCACHE_RESOURCE_VERSION_TOO_NEW',
      `resourceVersion ${requested} is newer than the cache's ${cached || '(none yet)'}; retry later`,
    );
    this.requestedResourceVersion = requested;
    this.cacheResourceVersion = cached;
  }
}

/**
 * A watch of the SQL cache cannot be served from its event history (steve's `ErrTooOld`, Kubernetes' 410
 * Expired): the resourceVersion asked for is older than the oldest event kept, the watcher fell more than the
 * history's size behind, or the kind was relisted or rebuilt after the watch began. `status` is 410 and `reason`
 * `'Expired'` so code written for the API server's answer reads it alike; list again and watch from the list's
 * resourceVersion.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * store.replace([], '100');
 * try {
 *   store.watch({ resourceVersion: '10' });
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_SQLCACHE_RESOURCE_VERSION_TOO_OLD')) console.warn('relist, then watch from', error.oldestResourceVersion);
 * }
 * ```
 */
export class ResourceVersionTooOldError extends LassoError {
  /** The HTTP status the API server answers for the same condition. */
  readonly status = 410;
  /** The `metav1.Status` reason the API server gives. */
  readonly reason = 'Expired';
  /** The resourceVersion the watch asked for or had reached. */
  readonly requestedResourceVersion: string;
  /** The oldest resourceVersion a watch can start from now (`''` when the history is complete). */
  readonly oldestResourceVersion: string;
  constructor(requested: string, oldest: string, why: string) {
    super(
      'LASSO_SQLCACHE_RESOURCE_VERSION_TOO_OLD',
      `resourceVersion ${requested || '(none)'} is too old: ${why}`,
    );
    this.requestedResourceVersion = requested;
    this.oldestResourceVersion = oldest;
  }
}

/**
 * A stored object could not be decrypted: its key id is unknown to this process (data keys live in memory
 * only), or the bytes do not authenticate under that key. The message never contains stored data.
 *
 * @example
 * ```ts
 * const sealed = createEncryptor().encrypt(Buffer.from('{}'), 'v1/Secret default/a');
 * try {
 *   createEncryptor().decrypt(sealed, 'v1/Secret default/a'); // another process's keys
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_SQLCACHE_DECRYPT_FAILED')) console.warn(error.message);
 * }
 * ```
 */
export class DecryptionError extends LassoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LASSO_SQLCACHE_DECRYPT_FAILED', message, options);
  }
}

/**
 * SQLite failed; the transaction was rolled back and the store still holds what it held before. `sqliteCode`
 * is SQLite's (`'SQLITE_BUSY'`, `'SQLITE_FULL'`) when the driver gave one.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * try {
 *   store.flush();
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_SQLCACHE_STORAGE_FAILED') && error.sqliteCode === 'SQLITE_BUSY') console.warn('database busy');
 * }
 * ```
 */
export class StorageError extends LassoError {
  /** SQLite's error code, when known. */
  readonly sqliteCode: string | undefined;
  constructor(message: string, options?: { cause?: unknown }) {
    super('LASSO_SQLCACHE_STORAGE_FAILED', message, options);
    const code = (options?.cause as { code?: unknown } | undefined)?.code;
    this.sqliteCode = typeof code === 'string' ? code : undefined;
  }
}
