// The driver seam: the few synchronous SQLite calls the cache makes, so `node:sqlite` (Node >= 22.13) can take
// better-sqlite3's place without touching the store.
import { createRequire } from 'node:module';

/**
 * A value SQLite binds or returns: text, a number, a blob, or NULL.
 *
 * @example
 * ```ts
 * const values: SqlValue[] = ['text', 1, 2n, new Uint8Array([1]), null];
 * ```
 */
export type SqlValue = string | number | bigint | Uint8Array | null;

/**
 * A prepared statement: every parameter is bound positionally (`?`), never spliced into SQL text.
 *
 * @example
 * ```ts
 * const statement: SqlStatement = betterSqlite3Driver().open(':memory:').prepare('SELECT ? AS v');
 * const row = statement.get('x'); // { v: 'x' }
 * ```
 */
export interface SqlStatement {
  run(...params: readonly SqlValue[]): {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  };
  get(...params: readonly SqlValue[]): Record<string, SqlValue> | undefined;
  all(...params: readonly SqlValue[]): Record<string, SqlValue>[];
}

/**
 * One connection to a database file.
 *
 * @example
 * ```ts
 * const connection: SqlConnection = betterSqlite3Driver().open(':memory:');
 * connection.exec('CREATE TABLE t (k TEXT)');
 * connection.close();
 * ```
 */
export interface SqlConnection {
  /** Run one or more statements without parameters (DDL, pragmas, BEGIN/COMMIT). */
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

/**
 * Options of {@link SqliteDriver.open}.
 *
 * @example
 * ```ts
 * const options: OpenOptions = { readonly: true };
 * ```
 */
export interface OpenOptions {
  /** Open read-only (the reader connection). */
  readonly?: boolean;
}

/**
 * Opens connections. The default, {@link betterSqlite3Driver}, loads `better-sqlite3`; {@link nodeSqliteDriver}
 * uses Node's built-in `node:sqlite` (Node 22.13 or later).
 *
 * @example
 * ```ts
 * const driver = betterSqlite3Driver();
 * const connection = driver.open('/tmp/example.db');
 * connection.exec('CREATE TABLE IF NOT EXISTS t (k TEXT)');
 * connection.prepare('INSERT INTO t (k) VALUES (?)').run('a');
 * connection.close();
 * ```
 */
export interface SqliteDriver {
  /** Short name for logs: `'better-sqlite3'` or `'node:sqlite'`. */
  readonly name: string;
  open(path: string, options?: OpenOptions): SqlConnection;
}

const require = createRequire(import.meta.url);

interface BetterSqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): {
    run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  close(): unknown;
}
type BetterSqliteConstructor = new (
  path: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => BetterSqliteDatabase;

/**
 * The `better-sqlite3` driver (12.x, a native addon built at install). Loaded on first use, so importing
 * `@lasso/sqlcache` costs nothing until a database is opened. Busy waits are left to `PRAGMA busy_timeout`.
 *
 * @example
 * ```ts
 * const driver = betterSqlite3Driver();
 * const connection = driver.open(':memory:');
 * const row = connection.prepare('SELECT sqlite_version() AS version').get();
 * connection.close();
 * ```
 */
export function betterSqlite3Driver(): SqliteDriver {
  let Database: BetterSqliteConstructor | undefined;
  return Object.freeze({
    name: 'better-sqlite3',
    open(path: string, options: OpenOptions = {}): SqlConnection {
      Database ??= require('better-sqlite3') as BetterSqliteConstructor;
      const database = new Database(path, {
        readonly: options.readonly === true,
        fileMustExist: options.readonly === true,
        // busy_timeout is set by the caller's pragma; 0 here so the pragma alone bounds the wait.
        timeout: 0,
      });
      return wrap(database);
    },
  });
}

interface NodeSqliteModule {
  DatabaseSync: new (
    path: string,
    options?: { readOnly?: boolean; enableForeignKeyConstraints?: boolean },
  ) => BetterSqliteDatabase;
}

/**
 * The `node:sqlite` driver (`DatabaseSync`, Node 22.13 or later, no native addon). Throws a TypeError naming the
 * Node version when the module is missing.
 *
 * @example
 * ```ts
 * const driver = process.getBuiltinModule?.('node:sqlite') ? nodeSqliteDriver() : betterSqlite3Driver();
 * ```
 */
export function nodeSqliteDriver(): SqliteDriver {
  let module: NodeSqliteModule | undefined;
  return Object.freeze({
    name: 'node:sqlite',
    open(path: string, options: OpenOptions = {}): SqlConnection {
      if (module === undefined) {
        try {
          module = require('node:sqlite') as NodeSqliteModule;
        } catch (error) {
          throw new TypeError(
            `nodeSqliteDriver: node:sqlite is not available on Node ${process.version} (it needs 22.13 or later)`,
            { cause: error },
          );
        }
      }
      return wrap(
        new module.DatabaseSync(path, {
          readOnly: options.readonly === true,
          enableForeignKeyConstraints: true,
        }),
      );
    },
  });
}

function wrap(database: BetterSqliteDatabase): SqlConnection {
  return {
    exec: (sql) => {
      database.exec(sql);
    },
    prepare: (sql) => {
      const statement = database.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => statement.get(...params) as Record<string, SqlValue> | undefined,
        all: (...params) => statement.all(...params) as Record<string, SqlValue>[],
      };
    },
    close: () => {
      database.close();
    },
  };
}
