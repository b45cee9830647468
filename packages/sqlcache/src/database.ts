// The database file and its two connections: one writer (BEGIN IMMEDIATE transactions, busy-retried within a
// bound, rolled back on failure) and one read-only reader, so a read never waits for a write (WAL) and a write
// never waits for a read. Reads run inside one synchronous call, so no read keeps a WAL snapshot pinned and
// checkpoints always complete.
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Counter,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
} from '@lasso/core';
import {
  defaultSqliteDriver,
  type SqlConnection,
  type SqliteDriver,
  type SqlStatement,
} from './driver.ts';
import { StorageError } from './errors.ts';

/**
 * Options of {@link openSqlDatabase}.
 *
 * @example
 * ```ts
 * const options: SqlDatabaseOptions = { directory: '/var/cache/lasso', busyTimeoutMs: 1_000, walLimitBytes: 8 << 20 };
 * const database = openSqlDatabase(options);
 * ```
 */
export interface SqlDatabaseOptions {
  /**
   * Folder of the database file (created 0700 when missing). Default: a unique temporary folder, removed on
   * close. An existing database file there is deleted first: the cache is rebuilt from a fresh list.
   */
  directory?: string | undefined;
  /** File name inside `directory`. Default `'lasso-sqlcache.db'`. */
  fileName?: string | undefined;
  /**
   * Default {@link defaultSqliteDriver}: `node:sqlite` on Node 22.13 or later, `better-sqlite3` on Node 20. Pass
   * `betterSqlite3Driver()` to use the addon on any version.
   */
  driver?: SqliteDriver | undefined;
  /** How long SQLite waits on a locked database before SQLITE_BUSY (`PRAGMA busy_timeout`). Default 5000 ms. */
  busyTimeoutMs?: number | undefined;
  /** A transaction that fails with SQLITE_BUSY is retried this many times, then fails. Default 3. */
  maxBusyRetries?: number | undefined;
  /** The WAL is checkpointed and truncated once a write has left it above this size. Default 16 MiB. */
  walLimitBytes?: number | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsProvider | undefined;
}

/**
 * One SQLite database file shared by the per-kind stores of a factory.
 *
 * @example
 * ```ts
 * const database = openSqlDatabase({ directory: '/var/cache/lasso' });
 * const configMaps = createSqlStore(database, { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * database.close(); // closes the connections and removes the file with its -wal and -shm
 * ```
 */
export interface SqlDatabase {
  /** The database file. */
  readonly path: string;
  readonly driverName: string;
  /** Run `work` in one write transaction (BEGIN IMMEDIATE); rolled back when it throws. */
  write<R>(work: (prepare: (sql: string) => SqlStatement) => R): R;
  /** Run `work` in one read transaction on the read-only connection. */
  read<R>(work: (prepare: (sql: string) => SqlStatement) => R): R;
  /** Run DDL on the writer (outside any transaction) and forget prepared statements. */
  exec(sql: string): void;
  /** Checkpoint the WAL and truncate it. */
  checkpoint(): void;
  /** Size of the WAL file in bytes (0 when absent). */
  walBytes(): number;
  isClosed(): boolean;
  /** Close both connections and remove the database, -wal and -shm files (and the folder it made). */
  close(): void;
}

const suffixes = ['', '-wal', '-shm', '-journal'];

/**
 * Open a fresh database file (any previous one at that path is deleted with its -wal and -shm files), created
 * with mode 0600, in WAL mode with `synchronous=OFF` (the cache is rebuilt from a list after a crash).
 *
 * @example
 * ```ts
 * const database = openSqlDatabase({ busyTimeoutMs: 1_000 });
 * console.log(database.path);
 * database.close();
 * ```
 */
export function openSqlDatabase(options: SqlDatabaseOptions = {}): SqlDatabase {
  const busyTimeoutMs = nonNegativeInteger(options.busyTimeoutMs ?? 5_000, 'busyTimeoutMs');
  const maxBusyRetries = nonNegativeInteger(options.maxBusyRetries ?? 3, 'maxBusyRetries');
  const walLimitBytes = nonNegativeInteger(
    options.walLimitBytes ?? 16 * 1024 * 1024,
    'walLimitBytes',
  );
  const fileName = options.fileName ?? 'lasso-sqlcache.db';
  if (typeof fileName !== 'string' || fileName === '' || /[/\\]/.test(fileName)) {
    throw new TypeError(
      `openSqlDatabase: fileName must be a plain file name, got ${JSON.stringify(fileName)}`,
    );
  }
  const ownDirectory = options.directory === undefined;
  let directory: string;
  if (options.directory === undefined) {
    directory = mkdtempSync(join(tmpdir(), 'lasso-sqlcache-'));
  } else {
    if (typeof options.directory !== 'string' || options.directory === '') {
      throw new TypeError('openSqlDatabase: directory must be a non-empty string');
    }
    directory = options.directory;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  }
  const path = join(directory, fileName);
  removeFiles(path);
  // Created 0600 before SQLite opens it; SQLite gives -wal and -shm the database file's mode.
  closeSync(openSync(path, 'wx', 0o600));
  chmodSync(path, 0o600);
  const driver = options.driver ?? defaultSqliteDriver();
  const logger = guardLogger(options.logger ?? defaultLogger).child({ component: 'sqlcache' });
  const metrics = options.metrics ?? noopMetricsProvider;
  let writer: SqlConnection;
  let reader: SqlConnection;
  try {
    writer = driver.open(path);
    writer.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA wal_autocheckpoint = 1000; PRAGMA journal_size_limit = ${walLimitBytes}; PRAGMA temp_store = MEMORY`,
    );
    reader = driver.open(path, { readonly: true });
    reader.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA temp_store = MEMORY`);
  } catch (error) {
    removeFiles(path);
    if (ownDirectory) rmSync(directory, { recursive: true, force: true });
    throw new StorageError(`cannot open the cache database: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return new Database({
    path,
    directory: ownDirectory ? directory : undefined,
    driverName: driver.name,
    writer,
    reader,
    maxBusyRetries,
    walLimitBytes,
    logger,
    metrics,
  });
}

interface DatabaseParts {
  path: string;
  directory: string | undefined;
  driverName: string;
  writer: SqlConnection;
  reader: SqlConnection;
  maxBusyRetries: number;
  walLimitBytes: number;
  logger: Logger;
  metrics: MetricsProvider;
}

class Database implements SqlDatabase {
  readonly path: string;
  readonly driverName: string;
  readonly #parts: DatabaseParts;
  readonly #writerStatements = new Map<string, SqlStatement>();
  readonly #readerStatements = new Map<string, SqlStatement>();
  readonly #commits: Counter;
  readonly #rollbacks: Counter;
  readonly #busyRetries: Counter;
  readonly #checkpoints: Counter;
  #closed = false;

  constructor(parts: DatabaseParts) {
    this.#parts = parts;
    this.path = parts.path;
    this.driverName = parts.driverName;
    const counter = (name: string, help: string): Counter => parts.metrics.counter({ name, help });
    this.#commits = counter('lasso_sqlcache_commits_total', 'Write transactions committed.');
    this.#rollbacks = counter('lasso_sqlcache_rollbacks_total', 'Write transactions rolled back.');
    this.#busyRetries = counter(
      'lasso_sqlcache_busy_retries_total',
      'Transactions retried after SQLITE_BUSY.',
    );
    this.#checkpoints = counter('lasso_sqlcache_checkpoints_total', 'WAL truncations.');
  }

  write<R>(work: (prepare: (sql: string) => SqlStatement) => R): R {
    const { writer } = this.#open();
    const prepare = (sql: string): SqlStatement => cached(this.#writerStatements, writer, sql);
    const result = this.#withBusyRetry('write', () => {
      writer.exec('BEGIN IMMEDIATE');
      let value: R;
      try {
        value = work(prepare);
        writer.exec('COMMIT');
      } catch (error) {
        try {
          writer.exec('ROLLBACK');
        } catch (rollbackError) {
          // SQLite rolls some failures back itself (SQLITE_FULL); "no transaction is active" is expected then.
          this.#parts.logger.debug('rollback after a failed write', {
            error: errorMessage(rollbackError),
          });
        }
        this.#rollbacks.inc();
        throw error;
      }
      this.#commits.inc();
      return value;
    });
    if (this.walBytes() > this.#parts.walLimitBytes) this.checkpoint();
    return result;
  }

  read<R>(work: (prepare: (sql: string) => SqlStatement) => R): R {
    const { reader } = this.#open();
    const prepare = (sql: string): SqlStatement => cached(this.#readerStatements, reader, sql);
    return this.#withBusyRetry('read', () => {
      reader.exec('BEGIN');
      try {
        return work(prepare);
      } finally {
        // Ended at once, success or not: a read transaction left open would pin the WAL.
        reader.exec('COMMIT');
      }
    });
  }

  exec(sql: string): void {
    const { writer } = this.#open();
    this.#withBusyRetry('schema change', () => writer.exec(sql));
    // DDL invalidates prepared statements of both connections.
    this.#writerStatements.clear();
    this.#readerStatements.clear();
  }

  checkpoint(): void {
    const { writer } = this.#open();
    try {
      writer.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      this.#checkpoints.inc();
    } catch (error) {
      this.#parts.logger.warn('wal checkpoint failed', { error: errorMessage(error) });
    }
  }

  walBytes(): number {
    this.#open();
    return walFileSize(this.path);
  }

  isClosed(): boolean {
    return this.#closed;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#writerStatements.clear();
    this.#readerStatements.clear();
    for (const connection of [this.#parts.reader, this.#parts.writer]) {
      try {
        connection.close();
      } catch (error) {
        this.#parts.logger.warn('closing a cache connection failed', {
          error: errorMessage(error),
        });
      }
    }
    removeFiles(this.path);
    if (this.#parts.directory !== undefined) {
      rmSync(this.#parts.directory, { recursive: true, force: true });
    }
  }

  #open(): DatabaseParts {
    if (this.#closed) throw new StorageError('the cache database is closed');
    return this.#parts;
  }

  #withBusyRetry<R>(what: string, work: () => R): R {
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const busy = typeof code === 'string' && code.startsWith('SQLITE_BUSY');
        if (busy && attempt < this.#parts.maxBusyRetries) {
          this.#busyRetries.inc();
          this.#parts.logger.warn('cache database busy, retrying', { what, attempt: attempt + 1 });
          continue;
        }
        if (error instanceof StorageError || !isSqliteError(error)) throw error;
        throw new StorageError(`cache ${what} failed: ${errorMessage(error)}`, { cause: error });
      }
    }
  }
}

function isSqliteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    (typeof code === 'string' && code.startsWith('SQLITE_')) ||
    (error as { name?: unknown } | null)?.name === 'SqliteError'
  );
}

function cached(
  statements: Map<string, SqlStatement>,
  connection: SqlConnection,
  sql: string,
): SqlStatement {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = connection.prepare(sql);
    // Bounded: list queries differ by shape, not by values (values are bound), but shapes can vary.
    if (statements.size >= 500) statements.clear();
    statements.set(sql, statement);
  }
  return statement;
}

function walFileSize(path: string): number {
  return statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
}

function removeFiles(path: string): void {
  for (const suffix of suffixes) rmSync(`${path}${suffix}`, { force: true });
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`openSqlDatabase: ${name} must be an integer >= 0, got ${String(value)}`);
  }
  return value;
}
