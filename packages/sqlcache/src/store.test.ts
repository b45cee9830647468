import { createIndexer } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import { afterAll, describe, expect, it } from 'vitest';
import { testDrivers } from '../test/drivers.ts';
import { indexerContract } from '../test/indexer-contract.ts';
import { openSqlDatabase } from './database.ts';
import { defaultSqliteDriver, nodeSqliteDriver } from './driver.ts';
import { createSqlStore } from './store.ts';

indexerContract('in-memory createIndexer (@lasso/cache)', (options) => ({
  indexer: createIndexer<KubeObject>(options),
  cleanup: () => {},
}));

let kinds = 0;

// The same contract on every driver that loads here (node:sqlite on Node 22.13+, better-sqlite3 where built).
describe.each(testDrivers)('$name', ({ name, driver }) => {
  const database = openSqlDatabase({ driver: driver() });
  afterAll(() => database.close());

  it('opens the database with that driver', () => {
    expect(database.driverName).toBe(name);
  });

  indexerContract(`SqlStore (${name})`, (options) => {
    const store = createSqlStore<KubeObject>(database, {
      gvk: { group: 'test', version: 'v1', kind: `Pod${kinds++}` },
      ...options,
    });
    return { indexer: store, cleanup: () => store.drop() };
  });

  indexerContract(`SqlStore, encrypted (${name})`, (options) => {
    const store = createSqlStore<KubeObject>(database, {
      gvk: { group: 'test', version: 'v1', kind: `Secret${kinds++}` },
      encrypt: true,
      ...options,
    });
    return { indexer: store, cleanup: () => store.drop() };
  });
});

const hasNodeSqlite = process.getBuiltinModule?.('node:sqlite') !== undefined;

describe('nodeSqliteDriver', () => {
  it.skipIf(hasNodeSqlite)('names the Node version it needs when node:sqlite is missing', () => {
    expect(() => nodeSqliteDriver().open(':memory:')).toThrow(/22\.13/);
  });
});

describe('defaultSqliteDriver', () => {
  it('is node:sqlite where the running Node has it, else better-sqlite3', () => {
    const expected = hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3';
    expect(defaultSqliteDriver().name).toBe(expected);
    const database = openSqlDatabase();
    expect(database.driverName).toBe(expected);
    database.close();
  });
});

const shared = openSqlDatabase();
afterAll(() => shared.close());

describe('SqlStore writes', () => {
  it('batches a burst of writes into one transaction at the end of the task', async () => {
    const store = createSqlStore<KubeObject>(shared, {
      gvk: { group: 'b', version: 'v1', kind: 'Burst' },
    });
    for (let i = 0; i < 50; i++) store.add({ metadata: { namespace: 'ns', name: `o${i}` } });
    expect(store.pendingWrites()).toBe(50);
    await Promise.resolve();
    expect(store.pendingWrites()).toBe(0);
    expect(store.size()).toBe(50);
    store.drop();
  });
});
