import type { KubeObject } from '@lasso/client';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlDatabase } from './database.ts';
import { InvalidQueryError, ResourceVersionTooNewError } from './errors.ts';
import type { ListOptions } from './list-options.ts';
import { createSqlStore } from './store.ts';

const database = openSqlDatabase();
afterAll(() => database.close());
let kinds = 0;

interface Obj extends KubeObject {
  spec?: Record<string, unknown>;
}

function obj(
  namespace: string,
  name: string,
  options: { labels?: Record<string, string>; spec?: Record<string, unknown>; rv?: string } = {},
): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Thing',
    metadata: {
      namespace,
      name,
      labels: options.labels ?? {},
      ...(options.rv === undefined ? {} : { resourceVersion: options.rv }),
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: options.spec ?? {},
  };
}

function store(
  fields: string[] = [],
  extra: Parameters<typeof createSqlStore<Obj>>[1] | object = {},
) {
  return createSqlStore<Obj>(database, {
    gvk: { group: 'list.test', version: 'v1', kind: `Thing${kinds++}` },
    fields,
    ...extra,
  });
}

/** Every namespace: the scope of the queries here that are about something else. */
const ALL: ListOptions = { partitions: [{ passthrough: true }] };

const keys = (items: readonly Obj[]) =>
  items.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`);

describe('listByOptions', () => {
  const s = store(['spec.replicas', 'spec.node']);
  s.replace(
    [
      obj('b', 'x', { labels: { app: 'web' }, spec: { replicas: 3, node: 'n1' } }),
      obj('a', 'y', { labels: { app: 'db' }, spec: { replicas: 10, node: 'n2' } }),
      obj('a', 'x', { labels: {}, spec: { replicas: 1, node: 'n1' } }),
      obj('c', 'z_1', { labels: { app: 'web', tier: 'front' }, spec: { node: 'n%3' } }),
    ],
    '100',
  );
  const list = (options: ListOptions) => keys(s.listByOptions({ ...ALL, ...options }).items);

  it('lists in namespace, name order by default, with the cache resourceVersion', () => {
    const result = s.listByOptions(ALL);
    expect(keys(result.items)).toEqual(['a/x', 'a/y', 'b/x', 'c/z_1']);
    expect(result.total).toBe(4);
    expect(result.continue).toBeUndefined();
    expect(result.resourceVersion).toBe('100');
  });

  it('filters fields with every operator', () => {
    const f = (op: string, values?: string[], partial?: boolean) =>
      list({ filters: [[{ field: 'spec.node', op, values, partial } as never]] });
    expect(f('=', ['n1'])).toEqual(['a/x', 'b/x']);
    expect(f('!=', ['n1'])).toEqual(['a/y', 'c/z_1']);
    expect(f('In', ['n2', 'n%3'])).toEqual(['a/y', 'c/z_1']);
    expect(f('NotIn', ['n2', 'n%3'])).toEqual(['a/x', 'b/x']);
    expect(f('=', ['%'], true)).toEqual(['c/z_1']);
    expect(f('!=', ['%'], true)).toEqual(['a/x', 'a/y', 'b/x']);
    expect(
      list({ filters: [[{ field: 'metadata.name', op: '=', values: ['_'], partial: true }]] }),
    ).toEqual(['c/z_1']);
    expect(list({ filters: [[{ field: 'spec.replicas', op: 'Gt', values: ['2'] }]] })).toEqual([
      'a/y',
      'b/x',
    ]);
    // Numeric, not text, comparison ("10" < "3" as text); empty fields never match.
    expect(list({ filters: [[{ field: 'spec.replicas', op: 'Lt', values: ['5'] }]] })).toEqual([
      'a/x',
      'b/x',
    ]);
  });

  it('filters labels, with != and NotIn matching objects without the label', () => {
    const l = (op: string, values?: string[]) =>
      list({ filters: [[{ field: 'metadata.labels[app]', op, values } as never]] });
    expect(l('=', ['web'])).toEqual(['b/x', 'c/z_1']);
    expect(l('!=', ['web'])).toEqual(['a/x', 'a/y']);
    expect(l('In', ['db', 'web'])).toEqual(['a/y', 'b/x', 'c/z_1']);
    expect(l('NotIn', ['db', 'web'])).toEqual(['a/x']);
    expect(l('Exists')).toEqual(['a/y', 'b/x', 'c/z_1']);
    expect(l('NotExists')).toEqual(['a/x']);
  });

  it('ANDs groups and ORs filters inside a group', () => {
    expect(
      list({
        filters: [
          [
            { field: 'metadata.labels.tier', op: 'Exists' },
            { field: 'spec.node', op: '=', values: ['n2'] },
          ],
          [{ field: 'metadata.namespace', op: '!=', values: ['c'] }],
        ],
      }),
    ).toEqual(['a/y']);
  });

  it('sorts by several fields in both directions', () => {
    expect(
      list({ sort: [{ field: 'spec.node', order: 'desc' }, { field: 'metadata.namespace' }] }),
    ).toEqual(['a/y', 'a/x', 'b/x', 'c/z_1']);
    expect(
      list({ sort: [{ field: 'metadata.name' }, { field: 'metadata.namespace', order: 'desc' }] }),
    ).toEqual(['b/x', 'a/x', 'a/y', 'c/z_1']);
  });

  it('restricts to a namespace', () => {
    expect(list({ namespace: 'a' })).toEqual(['a/x', 'a/y']);
    expect(list({ namespace: '*' })).toHaveLength(4);
  });

  it('returns no rows without partitions, as lasso answers zero partitions', () => {
    for (const result of [
      s.listByOptions(),
      s.listByOptions({}),
      s.listByOptions({ pageSize: 2 }),
    ]) {
      expect(result.items).toEqual([]);
      expect(result.total).toBe(0);
      expect(result.continue).toBeUndefined();
      // Still the cache's resourceVersion: an empty answer, not a missing one.
      expect(result.resourceVersion).toBe('100');
    }
    expect(keys(s.listByOptions({ namespace: 'a' }).items)).toEqual([]);
  });

  it("reads a partition namespace of '*' as every namespace", () => {
    expect(keys(s.listByOptions({ partitions: [{ namespace: '*', all: true }] }).items)).toEqual([
      'a/x',
      'a/y',
      'b/x',
      'c/z_1',
    ]);
    expect(keys(s.listByOptions({ partitions: [{ namespace: '*', names: ['x'] }] }).items)).toEqual(
      ['a/x', 'b/x'],
    );
  });

  it('scopes to partitions, OR-ed and AND-ed with filters', () => {
    expect(list({ partitions: [] })).toEqual([]);
    expect(list({ partitions: [{ passthrough: true }] })).toHaveLength(4);
    expect(
      list({
        partitions: [
          { namespace: 'a', all: true },
          { namespace: 'c', names: ['z_1', 'nope'] },
        ],
      }),
    ).toEqual(['a/x', 'a/y', 'c/z_1']);
    expect(list({ partitions: [{ names: ['x'] }] })).toEqual(['a/x', 'b/x']);
    expect(
      list({
        partitions: [
          { namespace: 'a', all: true },
          { namespace: 'b', all: true },
        ],
        filters: [[{ field: 'spec.node', op: '=', values: ['n1'] }]],
      }),
    ).toEqual(['a/x', 'b/x']);
    const result = s.listByOptions({ partitions: [] });
    expect(result.total).toBe(0);
  });

  it('pages with continue tokens and counts every match on each page', () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = s.listByOptions({
        ...ALL,
        pageSize: 3,
        continue: token,
        sort: [{ field: 'metadata.name' }],
      });
      expect(page.total).toBe(4);
      seen.push(...keys(page.items));
      token = page.continue;
      pages++;
    } while (token !== undefined);
    expect(pages).toBe(2);
    // Equal names keep insertion order (the row id breaks ties): b/x was stored before a/x.
    expect(seen).toEqual(['b/x', 'a/x', 'a/y', 'c/z_1']);
    expect(keys(s.listByOptions({ ...ALL, pageSize: 2, page: 2 }).items)).toEqual(['b/x', 'c/z_1']);
  });

  it('fails with a retryable error for a resourceVersion newer than the cache', () => {
    expect(s.listByOptions({ ...ALL, resourceVersion: '100' }).items).toHaveLength(4);
    expect(s.listByOptions({ ...ALL, resourceVersion: '99' }).items).toHaveLength(4);
    let error: unknown;
    try {
      s.listByOptions({ resourceVersion: '101' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ResourceVersionTooNewError);
    expect((error as ResourceVersionTooNewError).retryable).toBe(true);
    expect((error as ResourceVersionTooNewError).code).toBe(
      'LASSO_SQLCACHE_RESOURCE_VERSION_TOO_NEW',
    );
  });

  it('follows the resourceVersion of later writes', async () => {
    const t = store();
    t.replace([obj('a', 'a', { rv: '5' })], '7');
    expect(t.resourceVersion()).toBe('7');
    t.update(obj('a', 'a', { rv: '12' }));
    expect(t.listByOptions({ resourceVersion: '12' }).resourceVersion).toBe('12');
    t.delete(obj('a', 'a', { rv: '13' }));
    await Promise.resolve();
    expect(t.resourceVersion()).toBe('13');
    t.drop();
  });

  it('refuses unindexed fields with an InvalidQueryError', () => {
    expect(() =>
      s.listByOptions({ filters: [[{ field: 'spec.hidden', op: '=', values: ['x'] }]] }),
    ).toThrow(InvalidQueryError);
  });
});

describe('partitions of many namespaces', () => {
  it('answer 2,000 namespaces without an expression-tree error', () => {
    const s = store();
    const objects: Obj[] = [];
    for (let i = 0; i < 3_000; i++) objects.push(obj(`ns-${String(i).padStart(4, '0')}`, 'o'));
    s.replace(objects, '1');
    const partitions = Array.from({ length: 2_000 }, (_, i) => ({
      namespace: `ns-${String((i * 1.5) | 0).padStart(4, '0')}`,
      all: true,
    }));
    const named = Array.from({ length: 1_500 }, (_, i) => ({
      namespace: `ns-${String(1_500 + i).padStart(4, '0')}`,
      names: ['o'],
    }));
    const result = s.listByOptions({ partitions: [...partitions, ...named], pageSize: 10 });
    const expected = new Set([...partitions, ...named].map((p) => p.namespace));
    expect(result.total).toBe(expected.size);
    expect(result.items).toHaveLength(10);
    s.drop();
  });
});

describe('indexed fields', () => {
  it('extracts [key], [N], arrays of maps, null, numbers, booleans, string arrays and computed fields', () => {
    const s = store(
      [
        'metadata.annotations[example.com/owner]',
        'spec.containers[1].image',
        'spec.containers.name',
        'spec.nothing',
        'spec.count',
        'spec.enabled',
        'spec.tags',
      ],
      { computedFields: { 'status.summary': (o: Obj) => `${o.spec?.count}-${o.spec?.enabled}` } },
    );
    const thing: Obj = {
      ...obj('ns', 'a'),
      metadata: { namespace: 'ns', name: 'a', annotations: { 'example.com/owner': 'me' } },
      spec: {
        containers: [
          { name: 'c1', image: 'i1' },
          { name: 'c2', image: 'i2' },
        ],
        nothing: null,
        count: 4,
        enabled: false,
        tags: ['t1', 't2'],
      },
    };
    s.add(thing);
    const one = (field: string, value: string) =>
      s.listByOptions({ ...ALL, filters: [[{ field, op: '=', values: [value] }]] }).items.length;
    expect(one('metadata.annotations[example.com/owner]', 'me')).toBe(1);
    expect(one('spec.containers[1].image', 'i2')).toBe(1);
    expect(one('spec.containers.name', 'c1|c2')).toBe(1);
    expect(one('spec.nothing', '')).toBe(1);
    expect(one('spec.count', '4')).toBe(1);
    expect(one('spec.enabled', 'false')).toBe(1);
    expect(one('spec.tags', 't1|t2')).toBe(1);
    expect(one('status.summary', '4-false')).toBe(1);
    expect(one('metadata.creationTimestamp', '')).toBe(1);
    expect(s.indexedFields).toEqual([
      'metadata.name',
      'metadata.namespace',
      'metadata.creationTimestamp',
      'metadata.annotations[example.com/owner]',
      'spec.containers[1].image',
      'spec.containers.name',
      'spec.nothing',
      'spec.count',
      'spec.enabled',
      'spec.tags',
      'status.summary',
    ]);
    // A map cannot be indexed: the write is refused and the store unchanged.
    expect(() => s.add({ ...thing, spec: { ...thing.spec, count: { nested: 1 } } })).toThrow(
      TypeError,
    );
    expect(one('spec.count', '4')).toBe(1);
    s.drop();
  });

  it('indexes a cluster-scoped kind without a namespace column', () => {
    const s = createSqlStore<Obj>(database, {
      gvk: { group: 'list.test', version: 'v1', kind: 'Node' },
      namespaced: false,
    });
    expect(s.indexedFields).toEqual(['metadata.name', 'metadata.creationTimestamp']);
    s.add({ metadata: { name: 'n2' } });
    s.add({ metadata: { name: 'n1' } });
    expect(s.listByOptions(ALL).items.map((o) => o.metadata?.name)).toEqual(['n1', 'n2']);
    s.drop();
  });

  it('refuses a malformed field path and a second store of one kind', () => {
    expect(() => store(['spec..x'])).toThrow(TypeError);
    const gvk = { group: 'list.test', version: 'v1', kind: 'Twice' };
    const first = createSqlStore(database, { gvk });
    expect(() => createSqlStore(database, { gvk })).toThrow(/exist already/);
    first.drop();
  });
});

describe('dependent rows', () => {
  it('are deleted with their object and with replace', () => {
    const s = store(['spec.node'], { indexers: { node: (o: Obj) => [String(o.spec?.node)] } });
    s.add(obj('a', 'x', { labels: { app: 'web', tier: 't' }, spec: { node: 'n1' } }));
    s.add(obj('a', 'y', { labels: { app: 'db' }, spec: { node: 'n2' } }));
    const counts = () =>
      database.read((prepare) =>
        ['', '_fields', '_labels', '_indices'].map(
          (suffix) => prepare(`SELECT COUNT(*) AS n FROM "${s.tableName}${suffix}"`).get()?.n,
        ),
      );
    expect(s.size()).toBe(2);
    expect(counts()).toEqual([2, 2, 3, 2]);
    s.delete(obj('a', 'x'));
    expect(s.size()).toBe(1);
    expect(counts()).toEqual([1, 1, 1, 1]);
    s.update(obj('a', 'y', { labels: {}, spec: { node: 'n3' } }));
    expect(s.size()).toBe(1);
    expect(counts()).toEqual([1, 1, 0, 1]);
    s.replace([], '1');
    expect(counts()).toEqual([0, 0, 0, 0]);
    s.drop();
  });
});
