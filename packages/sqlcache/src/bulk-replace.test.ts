// A large replace drops the secondary indexes and builds them again after its inserts: the schema, the answers
// and the rollback of a failed replace must be those of the row-by-row path.
import type { KubeObject } from '@lasso/client';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlDatabase } from './database.ts';
import { createSqlStore } from './store.ts';

const database = openSqlDatabase();
afterAll(() => database.close());
let kinds = 0;

const cm = (i: number, version = 'a'): KubeObject =>
  ({
    metadata: {
      namespace: `ns-${i % 7}`,
      name: `o${i}`,
      // Every third object has no labels: a batch mixes both.
      ...(i % 3 === 0
        ? {}
        : { labels: { tier: i % 2 === 0 ? 'even' : 'odd', shard: String(i % 5) } }),
    },
    data: { version },
  }) as KubeObject;

function store(failAt?: number) {
  return createSqlStore<KubeObject>(database, {
    gvk: { group: 'test', version: 'v1', kind: `Bulk${kinds++}` },
    fields: ['data.version'],
    indexers: {
      byShard: (object) => {
        if (object.metadata?.name === `o${failAt}`) throw new Error('indexer broke');
        const shard = object.metadata?.labels?.shard;
        // None, one, or a repeated value (stored once).
        return shard === undefined ? [] : shard === '4' ? [shard, shard, 'four'] : [shard];
      },
    },
  });
}

function indexes(tableName: string): string[] {
  return database
    .read((prepare) =>
      prepare(
        `SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name LIKE ? ORDER BY name`,
      ).all(`${tableName}%`),
    )
    .map((row) => String(row.sql).replaceAll(tableName, '<table>'));
}

describe('a replace of 1,000 objects or more', () => {
  const objects = Array.from({ length: 1_500 }, (_, i) => cm(i));

  it('leaves the schema of a new store and answers as the row-by-row path', () => {
    const bulk = store();
    const fresh = indexes(bulk.tableName);
    expect(fresh.length).toBeGreaterThanOrEqual(5);
    bulk.replace(objects, '10');
    expect(indexes(bulk.tableName)).toEqual(fresh);

    // The same objects through the row-by-row path (a replace under the threshold, then adds).
    const rows = store();
    rows.replace(objects.slice(0, 999), '10');
    for (const object of objects.slice(999)) rows.add(object);
    rows.flush();

    for (const s of [bulk, rows]) expect(s.size()).toBe(1_500);
    expect(bulk.listKeys()).toEqual(rows.listKeys());
    for (const value of ['3', '4', 'four']) {
      expect(bulk.byIndex('byShard', value).map((o) => o.metadata?.name)).toEqual(
        rows.byIndex('byShard', value).map((o) => o.metadata?.name),
      );
    }
    expect(bulk.byIndex('byShard', '4').length).toBeGreaterThan(0);
    expect(bulk.listIndexFuncValues('byShard').sort()).toEqual(
      rows.listIndexFuncValues('byShard').sort(),
    );
    expect(bulk.list()).toEqual(rows.list());
    const query = {
      filters: [[{ field: 'metadata.labels[tier]', op: '=' as const, values: ['even'] }]],
      namespace: 'ns-3',
      pageSize: 20,
      partitions: [{ passthrough: true }],
    };
    const a = bulk.listByOptions(query);
    const b = rows.listByOptions(query);
    expect(a.total).toBe(b.total);
    expect(a.total).toBeGreaterThan(0);
    expect(a.items).toEqual(b.items);
    expect(
      bulk.listByOptions({
        partitions: [{ passthrough: true }],
        filters: [[{ field: 'data.version', op: '=', values: ['a'] }]],
      }).total,
    ).toBe(1_500);
    bulk.drop();
    rows.drop();
  });

  it('rolls back a failed replace with its index drops: previous content and schema stay', () => {
    const s = store(1_200);
    const fresh = indexes(s.tableName);
    s.replace([cm(1, 'kept'), cm(2, 'kept')], '5');
    expect(() => s.replace(objects, '10')).toThrow('indexer broke');
    expect(indexes(s.tableName)).toEqual(fresh);
    expect(s.listKeys()).toEqual(['ns-1/o1', 'ns-2/o2']);
    expect(s.resourceVersion()).toBe('5');
    expect(
      s.byIndex('byShard', '1').map((o) => (o.data as { version?: string } | undefined)?.version),
    ).toEqual(['kept']);
    // A replace that succeeds afterwards uses the indexes as usual.
    s.replace(objects.slice(0, 1_100), '11');
    expect(s.size()).toBe(1_100);
    expect(indexes(s.tableName)).toEqual(fresh);
    s.drop();
  });
});
