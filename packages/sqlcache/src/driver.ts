// The driver seam: the few synchronous SQLite calls the cache makes, so `node:sqlite` (Node >= 22.13, built in)
// and `better-sqlite3` (a native addon, an optional peer dependency) run the same store.
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
 * const statement: SqlStatement = defaultSqliteDriver().open(':memory:').prepare('SELECT ? AS v');
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
 * const connection: SqlConnection = defaultSqliteDriver().open(':memory:');
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
  readonly?: boolean | undefined;
}

/**
 * Opens connections. {@link defaultSqliteDriver} picks Node's built-in `node:sqlite` ({@link nodeSqliteDriver},
 * Node 22.13 or later) when the running Node has it, else `better-sqlite3` ({@link betterSqlite3Driver}).
 *
 * @example
 * ```ts
 * const driver = defaultSqliteDriver();
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
 * The `better-sqlite3` driver (12.x, a native addon built at install): an optional peer dependency, installed by
 * the application that asks for it (Node 20, or by choice on later versions). Loaded on first use, so importing
 * `@lasso/sqlcache` costs nothing until a database is opened; a missing or unloadable addon fails that open with
 * a message saying what to install. Busy waits are left to `PRAGMA busy_timeout`.
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
      Database ??= loadBetterSqlite3();
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

function loadBetterSqlite3(): BetterSqliteConstructor {
  try {
    return require('better-sqlite3') as BetterSqliteConstructor;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const hint =
      code === 'MODULE_NOT_FOUND'
        ? 'it is an optional peer dependency of @lasso/sqlcache: add better-sqlite3 to the application'
        : `its native addon does not load on Node ${process.version} (built for another Node version? run \`npm rebuild better-sqlite3\`)`;
    throw new Error(
      `betterSqlite3Driver: cannot load better-sqlite3: ${hint}; on Node 22.13 or later the default driver needs neither (node:sqlite)`,
      { cause: error },
    );
  }
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
 * const database = openSqlDatabase({ driver: nodeSqliteDriver() }); // what the default picks on Node 22.13+
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
      const { DatabaseSync } = module;
      return wrap(
        nodeSqliteErrors(
          () =>
            new DatabaseSync(path, {
              readOnly: options.readonly === true,
              enableForeignKeyConstraints: true,
            }),
        ),
        nodeSqliteErrors,
      );
    },
  });
}

/** Whether the running Node has `node:sqlite` without flags (22.13+, 23.4+, 24+). */
function hasNodeSqlite(): boolean {
  // getBuiltinModule (Node 20.16+, 22.3+) answers undefined for a module that is missing or behind a flag.
  return process.getBuiltinModule?.('node:sqlite') !== undefined;
}

/**
 * The driver {@link openSqlDatabase} uses when none is given: {@link nodeSqliteDriver} where the running Node has
 * `node:sqlite` (22.13 or later, no flag, nothing to build), else {@link betterSqlite3Driver} (Node 20, with
 * `better-sqlite3` installed). Pass `betterSqlite3Driver()` as `driver` to use the addon anyway.
 *
 * @example
 * ```ts
 * const driver = defaultSqliteDriver();
 * console.log(driver.name); // 'node:sqlite' on Node 22.13+, 'better-sqlite3' on Node 20
 * ```
 */
export function defaultSqliteDriver(): SqliteDriver {
  return hasNodeSqlite() ? nodeSqliteDriver() : betterSqlite3Driver();
}

// SQLite's primary result codes by number, so node:sqlite errors carry the same `code` as better-sqlite3's.
const primaryCodes = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
];
const extendedCodes = new Map([
  [261, 'BUSY_RECOVERY'],
  [517, 'BUSY_SNAPSHOT'],
  [773, 'BUSY_TIMEOUT'],
  [1555, 'CONSTRAINT_PRIMARYKEY'],
  [2067, 'CONSTRAINT_UNIQUE'],
  [787, 'CONSTRAINT_FOREIGNKEY'],
  [1299, 'CONSTRAINT_NOTNULL'],
]);

/** node:sqlite reports `code: 'ERR_SQLITE_ERROR'` and the number in `errcode`; better-sqlite3 `code: 'SQLITE_BUSY'`. */
class NodeSqliteError extends Error {
  override name = 'SqliteError';
  readonly code: string;
  constructor(message: string, errcode: number, cause: unknown) {
    super(message, { cause });
    const name = extendedCodes.get(errcode) ?? primaryCodes[errcode & 0xff] ?? 'ERROR';
    this.code = `SQLITE_${name}`;
  }
}

function nodeSqliteErrors<R>(work: () => R): R {
  try {
    return work();
  } catch (error) {
    const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
    if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
      throw new NodeSqliteError((error as Error).message, errcode, error);
    }
    throw error;
  }
}

type Guard = <R>(work: () => R) => R;
const unguarded: Guard = (work) => work();

function wrap(database: BetterSqliteDatabase, guard: Guard = unguarded): SqlConnection {
  return {
    exec: (sql) => {
      guard(() => database.exec(sql));
    },
    prepare: (sql) => {
      const statement = guard(() => database.prepare(sql));
      return {
        run: (...params) => guard(() => statement.run(...params)),
        get: (...params) =>
          guard(() => statement.get(...params)) as Record<string, SqlValue> | undefined,
        all: (...params) => guard(() => statement.all(...params)) as Record<string, SqlValue>[],
      };
    },
    close: () => {
      guard(() => database.close());
    },
  };
}
