// Typed columns, Contains/NotContains, sort by any label, summaries and the resourceVersion order of a replace,
// on every SQLite driver that loads here.
import type { KubeObject } from '@lasso/client';
import { afterAll, describe, expect, it } from 'vitest';
import { testDrivers } from '../test/drivers.ts';
import { openSqlDatabase } from './database.ts';
import { InvalidQueryError } from './errors.ts';
import type { ListOptions } from './list-options.ts';
import { createSqlStore, sortByResourceVersion } from './store.ts';
import type { SqlStoreOptions } from './store-api.ts';

interface Obj extends KubeObject {
  spec?: Record<string, unknown>;
}

const ALL: ListOptions = { partitions: [{ passthrough: true }] };

function obj(
  name: string,
  spec: Record<string, unknown> = {},
  labels: Record<string, string> = {},
  rv?: string,
): Obj {
  return {
    metadata: {
      namespace: 'ns',
      name,
      labels,
      ...(rv === undefined ? {} : { resourceVersion: rv }),
    },
    spec,
  };
}

const names = (items: readonly Obj[]) => items.map((item) => item.metadata?.name);

describe.each(testDrivers)('typed queries ($name)', ({ driver }) => {
  const database = openSqlDatabase({ driver: driver() });
  afterAll(() => database.close());
  let kinds = 0;
  const store = (options: Omit<SqlStoreOptions<Obj>, 'gvk'> = {}) =>
    createSqlStore<Obj>(database, {
      gvk: { group: 'typed.test', version: 'v1', kind: `Thing${kinds++}` },
      ...options,
    });

  describe('typed columns', () => {
    const replicas = [10, 100, 2, 9];
    const fill = (fields: NonNullable<SqlStoreOptions<Obj>['fields']>) => {
      const s = store({ fields });
      s.replace(
        [
          ...replicas.map((n) =>
            obj(`r${n}`, { replicas: n, started: `2026-01-0${(n % 9) + 1}T00:00:00Z` }),
          ),
          obj('none', {}),
        ],
        '1',
      );
      return s;
    };

    it('sorts a text field as text (the reason for types)', () => {
      const s = fill(['spec.replicas']);
      const sorted = s.listByOptions({ ...ALL, sort: [{ field: 'spec.replicas' }] }).items;
      expect(names(sorted)).toEqual(['none', 'r10', 'r100', 'r2', 'r9']);
    });

    it('sorts an integer field as numbers, missing values last in both directions', () => {
      const s = fill([{ path: 'spec.replicas', type: 'integer' }]);
      const sort = (order: 'asc' | 'desc') =>
        names(s.listByOptions({ ...ALL, sort: [{ field: 'spec.replicas', order }] }).items);
      expect(sort('asc')).toEqual(['r2', 'r9', 'r10', 'r100', 'none']);
      expect(sort('desc')).toEqual(['r100', 'r10', 'r9', 'r2', 'none']);
    });

    it('filters an integer field as numbers; a missing value matches only != and NotIn', () => {
      const s = fill([{ path: 'spec.replicas', type: 'integer' }]);
      const f = (op: string, values: string[]) =>
        names(
          s.listByOptions({ ...ALL, filters: [[{ field: 'spec.replicas', op, values } as never]] })
            .items,
        );
      expect(f('Gt', ['9'])).toEqual(['r10', 'r100']);
      expect(f('Lt', ['10'])).toEqual(['r2', 'r9']);
      expect(f('=', ['010'])).toEqual(['r10']);
      expect(f('In', ['2', '100'])).toEqual(['r100', 'r2']);
      expect(f('!=', ['2'])).toEqual(['none', 'r10', 'r100', 'r9']);
      expect(f('NotIn', ['2', '9'])).toEqual(['none', 'r10', 'r100']);
      expect(() => f('=', ['ten'])).toThrow(InvalidQueryError);
      expect(() =>
        s.listByOptions({
          ...ALL,
          filters: [[{ field: 'spec.replicas', op: '=', values: ['1'], partial: true }]],
        }),
      ).toThrow(/partial applies to text fields/);
    });

    it('stores a real field as a number and a value that is not one as missing', () => {
      const s = store({ fields: [{ path: 'spec.ratio', type: 'real' }] });
      s.replace(
        [obj('a', { ratio: 0.5 }), obj('b', { ratio: '1.25' }), obj('c', { ratio: '500m' })],
        '1',
      );
      const sorted = s.listByOptions({ ...ALL, sort: [{ field: 'spec.ratio', order: 'desc' }] });
      expect(names(sorted.items)).toEqual(['b', 'a', 'c']);
      const over = s.listByOptions({
        ...ALL,
        filters: [[{ field: 'spec.ratio', op: 'Gt', values: ['0.75'] }]],
      });
      expect(names(over.items)).toEqual(['b']);
    });

    it('sorts and compares a timestamp field as time, whatever its offset', () => {
      const s = store({ fields: [{ path: 'spec.at', type: 'timestamp' }] });
      s.replace(
        [
          obj('utc', { at: '2026-03-01T10:00:00Z' }),
          // 09:30 UTC: earlier, though it sorts later as text.
          obj('offset', { at: '2026-03-01T11:30:00+02:00' }),
          obj('bad', { at: 'yesterday' }),
        ],
        '1',
      );
      const sorted = s.listByOptions({ ...ALL, sort: [{ field: 'spec.at' }] });
      expect(names(sorted.items)).toEqual(['offset', 'utc', 'bad']);
      const after = s.listByOptions({
        ...ALL,
        filters: [[{ field: 'spec.at', op: 'Gt', values: ['2026-03-01T09:45:00Z'] }]],
      });
      expect(names(after.items)).toEqual(['utc']);
      expect(() =>
        s.listByOptions({ ...ALL, filters: [[{ field: 'spec.at', op: 'Lt', values: ['5'] }]] }),
      ).toThrow(InvalidQueryError);
    });

    it('types a computed field', () => {
      const s = store({
        computedFields: {
          containers: {
            type: 'integer',
            compute: (o) => (o.spec?.containers as unknown[] | undefined)?.length ?? 0,
          },
        },
      });
      s.replace(
        [obj('three', { containers: [1, 2, 3] }), obj('eleven', { containers: Array(11).fill(0) })],
        '1',
      );
      expect(names(s.listByOptions({ ...ALL, sort: [{ field: 'containers' }] }).items)).toEqual([
        'three',
        'eleven',
      ]);
    });

    it('refuses an unknown column type, naming the option', () => {
      expect(() => store({ fields: [{ path: 'spec.a', type: 'float' as never }] })).toThrow(
        /fields\[0\]\.type must be one of text, integer, real, timestamp/,
      );
      expect(() =>
        store({ computedFields: { x: { compute: () => 1, type: 'number' as never } } }),
      ).toThrow(/computedFields\.x\.type/);
    });
  });

  describe('Contains and NotContains', () => {
    const s = store({ fields: ['spec.ports.name'] });
    s.replace(
      [
        obj('a', { ports: [{ name: 'http' }, { name: 'https' }] }, { tier: 'web' }),
        obj('b', { ports: [{ name: 'https' }] }, { tier: 'db' }),
        obj('c', { ports: [] }),
      ],
      '1',
    );
    const f = (field: string, op: 'Contains' | 'NotContains', value: string) =>
      names(s.listByOptions({ ...ALL, filters: [[{ field, op, values: [value] }]] }).items);

    it('match one element of an array field exactly, never a substring', () => {
      expect(f('spec.ports.name', 'Contains', 'https')).toEqual(['a', 'b']);
      expect(f('spec.ports.name', 'Contains', 'http')).toEqual(['a']);
      expect(f('spec.ports.name', 'Contains', 'ttp')).toEqual([]);
      expect(f('spec.ports.name', 'NotContains', 'http')).toEqual(['b', 'c']);
    });

    it('are = and != on a label', () => {
      expect(f('metadata.labels[tier]', 'Contains', 'web')).toEqual(['a']);
      expect(f('metadata.labels[tier]', 'NotContains', 'web')).toEqual(['b', 'c']);
    });

    it('take exactly one value', () => {
      expect(() =>
        s.listByOptions({
          ...ALL,
          filters: [[{ field: 'spec.ports.name', op: 'Contains', values: ['a', 'b'] }]],
        }),
      ).toThrow(/Contains takes exactly one value/);
    });
  });

  describe('sort by any label', () => {
    const s = store();
    s.replace(
      [
        obj('a', {}, { team: 'red' }),
        obj('b', {}, { team: 'blue' }),
        obj('c', {}),
        obj('d', {}, { team: 'green' }),
      ],
      '1',
    );

    it('sorts by a label that is not a declared field, objects without it last', () => {
      const sort = (order: 'asc' | 'desc') =>
        names(s.listByOptions({ ...ALL, sort: [{ field: 'metadata.labels[team]', order }] }).items);
      expect(sort('asc')).toEqual(['b', 'd', 'a', 'c']);
      expect(sort('desc')).toEqual(['a', 'd', 'b', 'c']);
    });

    it('pages through a label sort with continue tokens', () => {
      const sort = [{ field: 'metadata.labels.team' }];
      const first = s.listByOptions({ ...ALL, sort, pageSize: 3 });
      const second = s.listByOptions({ ...ALL, sort, pageSize: 3, continue: first.continue });
      expect([...names(first.items), ...names(second.items)]).toEqual(['b', 'd', 'a', 'c']);
      expect(second.continue).toBeUndefined();
    });

    it('still refuses a field that is neither indexed nor a label', () => {
      expect(() => s.listByOptions({ ...ALL, sort: [{ field: 'spec.nope' }] })).toThrow(
        /neither an indexed field nor a label/,
      );
    });
  });

  describe('summary', () => {
    const s = store({ fields: ['spec.node', { path: 'spec.replicas', type: 'integer' }] });
    s.replace(
      [
        obj('a', { node: 'n1', replicas: 1 }, { app: 'web' }),
        obj('b', { node: 'n1', replicas: 2 }, { app: 'web' }),
        obj('c', { node: 'n2', replicas: 2 }, { app: 'db' }),
        obj('d', {}, {}),
      ],
      '1',
    );

    it('counts the values of fields and labels among every matching object, not only the page', () => {
      const result = s.listByOptions({
        ...ALL,
        pageSize: 1,
        summary: ['spec.node', 'metadata.labels[app]', 'spec.replicas'],
      });
      expect(result.items).toHaveLength(1);
      expect(result.summary).toEqual([
        { field: 'spec.node', counts: { n1: 2, n2: 1 } },
        { field: 'metadata.labels[app]', counts: { db: 1, web: 2 } },
        { field: 'spec.replicas', counts: { '1': 1, '2': 2 } },
      ]);
    });

    it('honours filters and partitions', () => {
      const filtered = s.listByOptions({
        ...ALL,
        filters: [[{ field: 'metadata.labels[app]', op: '=', values: ['web'] }]],
        summary: ['spec.replicas'],
      });
      expect(filtered.summary).toEqual([{ field: 'spec.replicas', counts: { '1': 1, '2': 1 } }]);
      const scoped = s.listByOptions({ summary: ['spec.node'] });
      expect(scoped.summary).toEqual([{ field: 'spec.node', counts: {} }]);
      const named = s.listByOptions({
        partitions: [{ namespace: 'ns', names: ['c'] }],
        summary: ['metadata.labels.app'],
      });
      expect(named.summary).toEqual([{ field: 'metadata.labels.app', counts: { db: 1 } }]);
    });

    it('is absent unless asked, and refuses an unknown field', () => {
      expect(s.listByOptions(ALL).summary).toBeUndefined();
      expect(() => s.listByOptions({ ...ALL, summary: ['spec.nope'] })).toThrow(InvalidQueryError);
    });
  });

  describe('replace', () => {
    it('stores a list in resourceVersion order, the newer of one key winning', () => {
      const s = store();
      s.replace(
        [
          obj('c', {}, {}, '30'),
          obj('a', {}, {}, '100'),
          obj('b', {}, {}, '9'),
          obj('d', { v: 'new' }, {}, '200'),
          obj('d', { v: 'old' }, {}, '20'),
        ],
        '200',
      );
      // A repeated key keeps the place of its first (oldest) version, as a Map does; its newest version wins.
      expect(s.listKeys()).toEqual(['ns/b', 'ns/d', 'ns/c', 'ns/a']);
      expect(s.getByKey('ns/d')?.spec).toEqual({ v: 'new' });
    });
  });
});

describe('sortByResourceVersion', () => {
  const rv = (version: string | undefined): Obj => ({
    metadata: version === undefined ? {} : { resourceVersion: version },
  });
  const order = (versions: (string | undefined)[]) =>
    sortByResourceVersion(versions.map(rv)).map((o) => o.metadata?.resourceVersion);

  it('compares decimal versions as numbers and others as text, stably', () => {
    expect(order(['10', '9', '100', '9'])).toEqual(['9', '9', '10', '100']);
    expect(order(['b', undefined, 'a'])).toEqual([undefined, 'a', 'b']);
  });

  it('returns an ordered list itself', () => {
    const list = ['1', '2', '3'].map(rv);
    expect(sortByResourceVersion(list)).toBe(list);
  });
});
