import type { KubeObject } from '@lasso/client';
import type { Counter, MetricOptions, MetricsProvider } from '@lasso/core';
import { noopLogger, noopMetricsProvider } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { testDrivers } from '../test/drivers.ts';
import { openSqlDatabase } from './database.ts';
import { StorageError } from './errors.ts';
import { createSqlStore } from './store.ts';

const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
const cm = (name: string, v = 'x'): KubeObject =>
  ({ metadata: { namespace: 'ns', name }, data: { v } }) as KubeObject;

function countingMetrics(): { metrics: MetricsProvider; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  return {
    counts,
    metrics: {
      ...noopMetricsProvider,
      counter: (options: MetricOptions): Counter => ({
        inc: (value = 1) => counts.set(options.name, (counts.get(options.name) ?? 0) + value),
      }),
    },
  };
}

// Every case on every driver that loads here: busy codes, locks and the WAL are the driver's business.
describe.each(testDrivers)('transactions ($name)', ({ driver }) => {
  it('commit a burst in one transaction and a replace in one transaction', async () => {
    const { metrics, counts } = countingMetrics();
    const database = openSqlDatabase({ driver: driver(), metrics });
    const store = createSqlStore<KubeObject>(database, { gvk, metrics });
    store.replace(
      Array.from({ length: 500 }, (_, i) => cm(`o${i}`)),
      '1',
    );
    expect(counts.get('lasso_sqlcache_commits_total')).toBe(1);
    for (let i = 0; i < 200; i++) store.update(cm(`o${i}`, 'y'));
    store.delete(cm('o499'));
    await Promise.resolve();
    expect(counts.get('lasso_sqlcache_commits_total')).toBe(2);
    expect(store.size()).toBe(499);
    database.close();
  });

  it('roll back a failed transaction: nothing of it is stored', () => {
    const { metrics, counts } = countingMetrics();
    const database = openSqlDatabase({ driver: driver(), metrics });
    const store = createSqlStore<KubeObject>(database, { gvk });
    store.add(cm('kept'));
    store.flush();
    expect(() =>
      database.write((prepare) => {
        prepare(`DELETE FROM "${store.tableName}"`).run();
        throw new Error('half way');
      }),
    ).toThrow('half way');
    expect(counts.get('lasso_sqlcache_rollbacks_total')).toBe(1);
    expect(store.listKeys()).toEqual(['ns/kept']);
    database.close();
  });

  it('retry SQLITE_BUSY within a bound, keep the writes and commit them once the lock is gone', () => {
    const { metrics, counts } = countingMetrics();
    const database = openSqlDatabase({
      driver: driver(),
      busyTimeoutMs: 10,
      maxBusyRetries: 2,
      metrics,
      logger: noopLogger,
    });
    const store = createSqlStore<KubeObject>(database, { gvk, logger: noopLogger });
    store.add(cm('before'));
    store.flush();
    // Another connection (another process, a backup tool) holds the write lock.
    const other = driver().open(database.path);
    other.exec('PRAGMA busy_timeout = 0; BEGIN IMMEDIATE');
    store.add(cm('during'));
    let error: unknown;
    try {
      store.flush();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).sqliteCode).toMatch(/^SQLITE_BUSY/);
    expect(counts.get('lasso_sqlcache_busy_retries_total')).toBe(2);
    // Reads are not blocked by the lock; the buffered write is still the key's state.
    expect(store.getByKey('ns/during')).toEqual(cm('during'));
    expect(store.pendingWrites()).toBe(1);
    other.exec('ROLLBACK');
    other.close();
    expect(store.listKeys()).toEqual(['ns/before', 'ns/during']);
    expect(store.pendingWrites()).toBe(0);
    database.close();
  });

  it('read on their own connection: an open write transaction elsewhere blocks no read', () => {
    const database = openSqlDatabase({ driver: driver(), busyTimeoutMs: 0 });
    const store = createSqlStore<KubeObject>(database, { gvk });
    store.add(cm('a'));
    store.flush();
    const other = driver().open(database.path);
    other.exec(`BEGIN IMMEDIATE; DELETE FROM "${store.tableName}"`);
    // busy_timeout 0: a read that had to wait would fail at once.
    expect(
      store.listByOptions({ pageSize: 10, partitions: [{ passthrough: true }] }).items,
    ).toHaveLength(1);
    expect(store.getByKey('ns/a')).toEqual(cm('a'));
    other.exec('ROLLBACK');
    other.close();
    database.close();
  });

  it('keep the WAL bounded: no read pins it, and it is truncated past walLimitBytes', () => {
    const database = openSqlDatabase({ driver: driver(), walLimitBytes: 256 * 1024 });
    const store = createSqlStore<KubeObject>(database, { gvk });
    const big = 'x'.repeat(2048);
    let maxWal = 0;
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100; i++) store.update(cm(`o${i}`, `${big}${round}`));
      store.flush();
      expect(
        store.listByOptions({ pageSize: 5, partitions: [{ passthrough: true }] }).items,
      ).toHaveLength(5);
      maxWal = Math.max(maxWal, database.walBytes());
    }
    // 40 rounds wrote ~8 MiB through the WAL; it never held much more than one round past the limit.
    expect(maxWal).toBeLessThan(2 * 1024 * 1024);
    database.checkpoint();
    expect(database.walBytes()).toBe(0);
    database.close();
  });

  it('fail every call after close with a StorageError', () => {
    const database = openSqlDatabase({ driver: driver() });
    database.close();
    database.close();
    expect(() => database.read(() => 1)).toThrow(StorageError);
    expect(() => createSqlStore(database, { gvk })).toThrow(StorageError);
  });
});
