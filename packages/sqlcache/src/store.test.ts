import { createRequire } from 'node:module';
import { createIndexer } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import { afterAll, describe, expect, it } from 'vitest';
import { indexerContract } from '../test/indexer-contract.ts';
import { openSqlDatabase } from './database.ts';
import { nodeSqliteDriver } from './driver.ts';
import { createSqlStore } from './store.ts';

indexerContract('in-memory createIndexer (@lasso/cache)', (options) => ({
  indexer: createIndexer<KubeObject>(options),
  cleanup: () => {},
}));

const shared = openSqlDatabase();
afterAll(() => shared.close());
let kinds = 0;

indexerContract('SqlStore', (options) => {
  const store = createSqlStore<KubeObject>(shared, {
    gvk: { group: 'test', version: 'v1', kind: `Pod${kinds++}` },
    ...options,
  });
  return { indexer: store, cleanup: () => store.drop() };
});

indexerContract('SqlStore, encrypted', (options) => {
  const store = createSqlStore<KubeObject>(shared, {
    gvk: { group: 'test', version: 'v1', kind: `Secret${kinds++}` },
    encrypt: true,
    ...options,
  });
  return { indexer: store, cleanup: () => store.drop() };
});

// node:sqlite (Node 22.13+) through the driver seam; skipped on older Node versions.
const hasNodeSqlite = (() => {
  try {
    createRequire(import.meta.url)('node:sqlite');
    return true;
  } catch {
    return false;
  }
})();
describe.skipIf(!hasNodeSqlite)('node:sqlite driver', () => {
  const database = hasNodeSqlite ? openSqlDatabase({ driver: nodeSqliteDriver() }) : undefined;
  afterAll(() => database?.close());
  indexerContract('SqlStore on node:sqlite', (options) => {
    const store = createSqlStore<KubeObject>(database as never, {
      gvk: { group: 'node', version: 'v1', kind: `Pod${kinds++}` },
      ...options,
    });
    return { indexer: store, cleanup: () => store.drop() };
  });
});

describe('nodeSqliteDriver', () => {
  it.skipIf(hasNodeSqlite)('names the Node version it needs when node:sqlite is missing', () => {
    expect(() => nodeSqliteDriver().open(':memory:')).toThrow(/22\.13/);
  });
});

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
