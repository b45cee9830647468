// The SQLite drivers that load on the running Node, so the store contract, encryption, WAL bound and crash
// tests run once per driver: node:sqlite on Node 22.13+, better-sqlite3 wherever its addon was built for this
// Node (the workspace builds it for the Node that ran `pnpm install`). A suite with no driver fails.
import { betterSqlite3Driver, nodeSqliteDriver, type SqliteDriver } from '../src/driver.ts';

export interface TestDriver {
  readonly name: 'node:sqlite' | 'better-sqlite3';
  readonly driver: () => SqliteDriver;
}

const candidates: TestDriver[] = [
  { name: 'node:sqlite', driver: nodeSqliteDriver },
  { name: 'better-sqlite3', driver: betterSqlite3Driver },
];

function loads({ driver }: TestDriver): boolean {
  try {
    driver().open(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

/** Drivers named in LASSO_SQLCACHE_DRIVERS (comma-separated) are required: missing one fails the suite. */
const required = (process.env.LASSO_SQLCACHE_DRIVERS ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');

export const testDrivers: readonly TestDriver[] = candidates.filter(loads);

for (const name of required) {
  if (!testDrivers.some((candidate) => candidate.name === name)) {
    throw new Error(
      `LASSO_SQLCACHE_DRIVERS asks for ${name}, which does not load on Node ${process.version}`,
    );
  }
}
if (testDrivers.length === 0) {
  throw new Error(`no SQLite driver loads on Node ${process.version}`);
}
