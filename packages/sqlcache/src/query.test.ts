import { describe, expect, it } from 'vitest';
import { InvalidQueryError } from './errors.ts';
import type { ListOptions } from './list-options.ts';
import { compileListQuery, encodeContinue, likePattern, type QuerySchema } from './query.ts';

const schema: QuerySchema = {
  fieldsTable: '"t_fields"',
  labelsTable: '"t_labels"',
  namespaced: true,
  columns: new Map([
    ['metadata.name', '"c0"'],
    ['metadata.namespace', '"c1"'],
    ['metadata.creationTimestamp', '"c2"'],
    ['spec.replicas', '"c3"'],
    ['spec.nodeName', '"c4"'],
  ]),
};
const clusterSchema: QuerySchema = {
  ...schema,
  namespaced: false,
  columns: new Map([
    ['metadata.name', '"c0"'],
    ['metadata.creationTimestamp', '"c1"'],
  ]),
};

/** Everything: the scope of the queries below that are about something else. */
const ALL: ListOptions = { partitions: [{ passthrough: true }] };

const where = (options: ListOptions, on: QuerySchema = schema) => {
  const query = compileListQuery(on, { ...ALL, ...options });
  const match = /FROM "t_fields" AS f(?: WHERE (.*))? ORDER BY (.*) LIMIT \? OFFSET \?$/.exec(
    query.idsSql,
  );
  return { where: match?.[1], orderBy: match?.[2], params: query.params, query };
};
const label = (condition: string) =>
  `EXISTS (SELECT 1 FROM "t_labels" AS l WHERE l.id = f.id AND l.label = ?${condition})`;

describe('compileListQuery', () => {
  it('selects every row in namespace, name order without options', () => {
    const { where: w, orderBy, params, query } = where({});
    expect(w).toBeUndefined();
    expect(orderBy).toBe('f."c1" ASC, f."c0" ASC, f.id ASC');
    expect(params).toEqual([]);
    expect(query.countSql).toBe('SELECT COUNT(*) AS n FROM "t_fields" AS f');
    expect(query.limit).toBeUndefined();
    expect(query.offset).toBe(0);
  });

  it('sorts a cluster-scoped kind by name', () => {
    expect(where({}, clusterSchema).orderBy).toBe('f."c0" ASC, f.id ASC');
  });

  it.for([
    { name: '= one value', filter: { op: '=', values: ['a'] }, sql: '(f."c4" = ?)', params: ['a'] },
    {
      name: '= several values',
      filter: { op: '=', values: ['a', 'b'] },
      sql: '(f."c4" IN (SELECT value FROM json_each(?)))',
      params: ['["a","b"]'],
    },
    { name: '!=', filter: { op: '!=', values: ['a'] }, sql: 'NOT (f."c4" = ?)', params: ['a'] },
    {
      name: 'In',
      filter: { op: 'In', values: ['a', 'b'] },
      sql: '(f."c4" IN (SELECT value FROM json_each(?)))',
      params: ['["a","b"]'],
    },
    {
      name: 'NotIn',
      filter: { op: 'NotIn', values: ['a', 'b'] },
      sql: 'NOT (f."c4" IN (SELECT value FROM json_each(?)))',
      params: ['["a","b"]'],
    },
    {
      name: 'partial =',
      filter: { op: '=', values: ['a_b%c\\'], partial: true },
      sql: `(f."c4" LIKE ? ESCAPE '\\')`,
      params: ['%a\\_b\\%c\\\\%'],
    },
    {
      name: 'partial != with two values',
      filter: { op: '!=', values: ['x', 'y'], partial: true },
      sql: `NOT EXISTS (SELECT 1 FROM json_each(?) AS j WHERE f."c4" LIKE j.value ESCAPE '\\')`,
      params: ['["%x%","%y%"]'],
    },
    {
      name: 'Lt',
      filter: { op: 'Lt', values: ['3'] },
      sql: `(f."c4" != '' AND CAST(f."c4" AS REAL) < ?)`,
      params: [3],
    },
    {
      name: 'Gt',
      filter: { op: 'Gt', values: ['-1.5'] },
      sql: `(f."c4" != '' AND CAST(f."c4" AS REAL) > ?)`,
      params: [-1.5],
    },
  ] as const)('field filter $name', ({ filter, sql, params }) => {
    const compiled = where({ filters: [[{ field: 'spec.nodeName', ...filter }]] });
    expect(compiled.where).toBe(sql);
    expect(compiled.params).toEqual(params);
  });

  it.for([
    {
      name: '=',
      filter: { op: '=', values: ['web'] },
      sql: label(' AND (l.value = ?)'),
      params: ['app', 'web'],
    },
    {
      name: '!= (also objects without the label)',
      filter: { op: '!=', values: ['web'] },
      sql: `NOT ${label(' AND (l.value = ?)')}`,
      params: ['app', 'web'],
    },
    {
      name: 'In',
      filter: { op: 'In', values: ['a', 'b'] },
      sql: label(' AND (l.value IN (SELECT value FROM json_each(?)))'),
      params: ['app', '["a","b"]'],
    },
    {
      name: 'NotIn (also objects without the label)',
      filter: { op: 'NotIn', values: ['a', 'b'] },
      sql: `NOT ${label(' AND (l.value IN (SELECT value FROM json_each(?)))')}`,
      params: ['app', '["a","b"]'],
    },
    { name: 'Exists', filter: { op: 'Exists' }, sql: label(''), params: ['app'] },
    { name: 'NotExists', filter: { op: 'NotExists' }, sql: `NOT ${label('')}`, params: ['app'] },
    {
      name: 'Lt',
      filter: { op: 'Lt', values: ['10'] },
      sql: label(` AND l.value != '' AND CAST(l.value AS REAL) < ?`),
      params: ['app', 10],
    },
    {
      name: 'partial =',
      filter: { op: '=', values: ['we'], partial: true },
      sql: label(` AND (l.value LIKE ? ESCAPE '\\')`),
      params: ['app', '%we%'],
    },
  ] as const)('label filter $name', ({ filter, sql, params }) => {
    const compiled = where({ filters: [[{ field: 'metadata.labels[app]', ...filter }]] });
    expect(compiled.where).toBe(sql);
    expect(compiled.params).toEqual(params);
  });

  it('reads labels with dots and slashes in their key', () => {
    const compiled = where({
      filters: [[{ field: 'metadata.labels[app.kubernetes.io/name]', op: 'Exists' }]],
    });
    expect(compiled.params).toEqual(['app.kubernetes.io/name']);
  });

  it('ORs the filters of a group and ANDs the groups', () => {
    const compiled = where({
      filters: [
        [
          { field: 'spec.nodeName', op: '=', values: ['n1'] },
          { field: 'metadata.labels.tier', op: 'Exists' },
        ],
        [{ field: 'spec.replicas', op: 'Gt', values: ['2'] }],
      ],
    });
    expect(compiled.where).toBe(
      `((f."c4" = ?) OR ${label('')}) AND (f."c3" != '' AND CAST(f."c3" AS REAL) > ?)`,
    );
    expect(compiled.params).toEqual(['n1', 'tier', 2]);
  });

  it('adds the namespace argument unless it is empty or *', () => {
    expect(where({ namespace: 'team-a' }).where).toBe('f."c1" = ?');
    expect(where({ namespace: 'team-a' }).params).toEqual(['team-a']);
    expect(where({ namespace: '' }).where).toBeUndefined();
    expect(where({ namespace: '*' }).where).toBeUndefined();
    expect(where({ namespace: 'x' }, clusterSchema).where).toBe('0');
  });

  it('sorts by several fields in both directions, then by id', () => {
    const { orderBy } = where({
      sort: [{ field: 'spec.replicas', order: 'desc' }, { field: 'metadata.name' }],
    });
    expect(orderBy).toBe('f."c3" DESC, f."c0" ASC, f.id ASC');
  });

  describe('partitions', () => {
    it('match nothing when omitted or empty (lasso: zero partitions, no results)', () => {
      expect(where({ partitions: undefined }).where).toBe('0');
      expect(compileListQuery(schema, {}).idsSql).toContain(' WHERE 0 ');
      expect(compileListQuery(schema, {}).countSql).toContain(' WHERE 0');
      expect(where({ partitions: [] }).where).toBe('0');
      expect(where({ partitions: [{ namespace: 'a' }] }).where).toBe('0');
      expect(where({ partitions: [{ namespace: 'a', names: [] }] }).where).toBe('0');
    });

    it('vanish when any partition is a passthrough or covers every namespace', () => {
      expect(
        where({ partitions: [{ namespace: 'a', all: true }, { passthrough: true }] }).where,
      ).toBeUndefined();
      expect(where({ partitions: [{ all: true }] }).where).toBeUndefined();
      expect(where({ partitions: [{ namespace: '*', all: true }] }).where).toBeUndefined();
    });

    it("read a namespace of '*' as every namespace, never as a namespace named '*'", () => {
      const compiled = where({ partitions: [{ namespace: '*', names: ['x'] }] });
      expect(compiled.where).toBe('f."c0" IN (SELECT value FROM json_each(?))');
      expect(compiled.params).toEqual(['["x"]']);
      // A cluster-scoped kind too: '*' is no namespace grant.
      expect(
        where({ partitions: [{ namespace: '*', all: true }] }, clusterSchema).where,
      ).toBeUndefined();
    });

    it('bind whole namespaces, namespaced names and names anywhere as three JSON arrays, OR-ed', () => {
      const compiled = where({
        partitions: [
          { namespace: 'b', all: true },
          { namespace: 'a', all: true },
          { namespace: 'c', names: ['x', 'y'] },
          { names: new Set(['z']) },
        ],
      });
      expect(compiled.where).toBe(
        `(f."c1" IN (SELECT value FROM json_each(?)) OR (f."c1", f."c0") IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)) OR f."c0" IN (SELECT value FROM json_each(?)))`,
      );
      expect(compiled.params).toEqual(['["a","b"]', '[["c","x"],["c","y"]]', '["z"]']);
    });

    it('compile 5,000 namespaces to the same constant-size SQL', () => {
      const partitions = Array.from({ length: 5_000 }, (_, i) => ({
        namespace: `ns-${i}`,
        all: true,
      }));
      const compiled = where({ partitions });
      expect(compiled.where).toBe('f."c1" IN (SELECT value FROM json_each(?))');
      expect(compiled.params).toHaveLength(1);
    });

    it('are AND-ed with filters and the namespace', () => {
      const compiled = where({
        namespace: 'a',
        filters: [[{ field: 'spec.nodeName', op: '=', values: ['n'] }]],
        partitions: [{ namespace: 'a', all: true }],
      });
      expect(compiled.where).toBe(
        '(f."c4" = ?) AND f."c1" = ? AND f."c1" IN (SELECT value FROM json_each(?))',
      );
    });

    it('grant nothing of a cluster-scoped kind through a namespace', () => {
      expect(where({ partitions: [{ namespace: 'a', all: true }] }, clusterSchema).where).toBe('0');
      expect(where({ partitions: [{ names: ['n1'] }] }, clusterSchema).where).toBe(
        'f."c0" IN (SELECT value FROM json_each(?))',
      );
    });
  });

  describe('pages', () => {
    it('take the limit and the offset of a continue token of the same query', () => {
      const first = compileListQuery(schema, { pageSize: 10 });
      expect(first.limit).toBe(10);
      expect(first.offset).toBe(0);
      const token = encodeContinue(10, first.fingerprint);
      expect(compileListQuery(schema, { pageSize: 10, continue: token }).offset).toBe(10);
      expect(compileListQuery(schema, { pageSize: 10, page: 3 }).offset).toBe(20);
    });

    it('refuse a continue token of another query and a malformed one', () => {
      const token = encodeContinue(10, compileListQuery(schema, { pageSize: 10 }).fingerprint);
      expect(() =>
        compileListQuery(schema, { pageSize: 10, namespace: 'x', continue: token }),
      ).toThrow(/another query/);
      expect(() => compileListQuery(schema, { pageSize: 10, continue: 'bm90IGpzb24' })).toThrow(
        InvalidQueryError,
      );
      expect(() =>
        compileListQuery(schema, { pageSize: 10, continue: encodeContinue(-1, 'x') }),
      ).toThrow(/malformed/);
    });

    it('refuse a page size or page that is not a positive integer', () => {
      for (const pageSize of [0, -1, 1.5, Number.NaN]) {
        expect(() => compileListQuery(schema, { pageSize })).toThrow(/pageSize/);
      }
      expect(() => compileListQuery(schema, { pageSize: 1, page: 0 })).toThrow(/page must/);
    });
  });

  describe('refuses', () => {
    it.for([
      {
        name: 'an unindexed field',
        options: { filters: [[{ field: 'spec.other', op: '=', values: ['x'] }]] },
        message: /not an indexed field/,
      },
      {
        name: 'an unindexed sort field',
        options: { sort: [{ field: 'data.x' }] },
        message: /is neither an indexed field nor a label/,
      },
      {
        name: 'a bad sort order',
        options: { sort: [{ field: 'metadata.name', order: 'up' }] },
        message: /asc/,
      },
      {
        name: 'Exists on a field',
        options: { filters: [[{ field: 'spec.nodeName', op: 'Exists' }]] },
        message: /labels only/,
      },
      {
        name: 'an unknown operator',
        options: { filters: [[{ field: 'spec.nodeName', op: 'LIKE', values: ['x'] }]] },
        message: /op must be/,
      },
      {
        name: 'a non-numeric Lt',
        options: { filters: [[{ field: 'spec.replicas', op: 'Lt', values: ['ten'] }]] },
        message: /not a number/,
      },
      {
        name: 'Gt with two values',
        options: { filters: [[{ field: 'spec.replicas', op: 'Gt', values: ['1', '2'] }]] },
        message: /exactly one/,
      },
      {
        name: '= without values',
        options: { filters: [[{ field: 'spec.nodeName', op: '=' }]] },
        message: /at least one/,
      },
      {
        name: 'values on Exists',
        options: { filters: [[{ field: 'metadata.labels.a', op: 'Exists', values: ['x'] }]] },
        message: /no values/,
      },
      {
        name: 'partial In',
        options: {
          filters: [[{ field: 'spec.nodeName', op: 'In', values: ['x'], partial: true }]],
        },
        message: /partial/,
      },
      { name: 'an empty OR group', options: { filters: [[]] }, message: /non-empty/ },
      {
        name: 'a malformed path',
        options: { filters: [[{ field: 'spec..x', op: '=', values: ['x'] }]] },
        message: /malformed/,
      },
      {
        name: 'SQL in a field name',
        options: { filters: [[{ field: 'x"; DROP TABLE t; --', op: '=', values: ['x'] }]] },
        message: /not an indexed field/,
      },
    ])('$name', ({ options, message }) => {
      expect(() => compileListQuery(schema, options as ListOptions)).toThrow(InvalidQueryError);
      expect(() => compileListQuery(schema, options as ListOptions)).toThrow(message);
    });
  });

  it('never puts a caller value into the SQL text', () => {
    const hostile = `x' OR 1=1; DROP TABLE "t"; --`;
    const query = compileListQuery(schema, {
      namespace: hostile,
      filters: [
        [{ field: 'spec.nodeName', op: '=', values: [hostile] }],
        [{ field: `metadata.labels[${hostile}]`, op: 'In', values: [hostile] }],
      ],
      partitions: [
        { namespace: hostile, names: [hostile] },
        { namespace: hostile, all: true },
      ],
    });
    expect(query.idsSql).not.toContain('DROP');
    expect(query.countSql).not.toContain('DROP');
    expect(query.params.join(' ')).toContain('DROP');
  });

  it('escapes LIKE wildcards and the escape character', () => {
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
