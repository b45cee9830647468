// SQL generation for list queries. Identifiers come only from the table schema (never from the caller);
// every caller value is a bound parameter; value lists and partitions bind one JSON array each (json_each),
// so a query's size does not grow with the number of values, names or namespaces.
import { createHash } from 'node:crypto';
import { type ColumnType, columnValue } from './column-types.ts';
import type { SqlValue } from './driver.ts';
import { InvalidQueryError } from './errors.ts';
import { canonicalFieldPath, type FieldSegment, labelKeyOf, parseFieldPath } from './fields.ts';
import type { Filter, ListOptions, Partition, SortField } from './list-options.ts';

/** The tables and columns of one kind, as the query builder sees them. */
export interface QuerySchema {
  /** Quoted table names. */
  readonly fieldsTable: string;
  readonly labelsTable: string;
  readonly namespaced: boolean;
  /** Canonical field path -> quoted column of the fields table. */
  readonly columns: ReadonlyMap<string, string>;
  /** Canonical field path -> its column type; a path not in it is `text`. */
  readonly types?: ReadonlyMap<string, ColumnType> | undefined;
}

/** One summary query of a compiled list query (counts of one field's values among the matching rows). */
export interface CompiledSummary {
  /** The field as the caller named it. */
  readonly field: string;
  /** The column type of the field (`text` for labels). */
  readonly type: ColumnType;
  /** Selects `k` (a value) and `c` (its count), one row per distinct non-empty value. */
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/** A compiled list query. */
export interface CompiledQuery {
  /** Selects `id` of the page's rows, in order; binds `params`, then the row limit (-1 = none) and `offset`. */
  readonly idsSql: string;
  /** Counts every matching row; binds `params`. */
  readonly countSql: string;
  readonly params: readonly SqlValue[];
  /** Bound after `params` in `idsSql` only (the sort keys' own, for label sorts). */
  readonly sortParams: readonly SqlValue[];
  /** The summaries asked for, each in its own query over the same rows. */
  readonly summaries: readonly CompiledSummary[];
  /** Rows per page (the query fetches one more to know whether a next page exists); undefined = all. */
  readonly limit: number | undefined;
  readonly offset: number;
  /** Identifies the query for its continue tokens. */
  readonly fingerprint: string;
}

const ops = new Set([
  '=',
  '!=',
  'Exists',
  'NotExists',
  'In',
  'NotIn',
  'Contains',
  'NotContains',
  'Lt',
  'Gt',
]);

/**
 * Compile `options` against `schema`. Throws {@link InvalidQueryError} for an unindexed field, an operator
 * that does not apply, a bad value count, a non-numeric bound or a continue token of another query.
 */
export function compileListQuery(schema: QuerySchema, options: ListOptions): CompiledQuery {
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const [i, group] of (options.filters ?? []).entries()) {
    if (!Array.isArray(group) || group.length === 0) {
      throw new InvalidQueryError(`filters[${i}] must be a non-empty array of filters`);
    }
    const alternatives = group.map((filter, j) =>
      compileFilter(schema, filter, `filters[${i}][${j}]`, params),
    );
    where.push(
      alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(' OR ')})`,
    );
  }
  const namespace = options.namespace;
  if (namespace !== undefined && namespace !== '' && namespace !== '*') {
    if (typeof namespace !== 'string') throw new InvalidQueryError('namespace must be a string');
    const column = schema.columns.get('metadata.namespace');
    // A cluster-scoped kind has no namespace: a namespace argument matches nothing.
    if (column === undefined) where.push('0');
    else {
      where.push(`f.${column} = ?`);
      params.push(namespace);
    }
  }
  const partitionsSql = compilePartitions(schema, options.partitions, params);
  if (partitionsSql !== undefined) where.push(partitionsSql);

  const sortParams: SqlValue[] = [];
  const orderBy = compileSort(schema, options.sort, sortParams);
  const whereSql = where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`;
  const summaries = compileSummaries(schema, options.summary, where, params);
  const limit = options.pageSize;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new InvalidQueryError(`pageSize must be an integer >= 1, got ${String(limit)}`);
  }
  const page = options.page;
  if (page !== undefined && (!Number.isSafeInteger(page) || page < 1)) {
    throw new InvalidQueryError(`page must be an integer >= 1, got ${String(page)}`);
  }
  const fingerprint = fingerprintOf(whereSql, orderBy, [...params, ...sortParams], limit);
  let offset = 0;
  if (options.continue !== undefined && options.continue !== '') {
    offset = decodeContinue(options.continue, fingerprint);
  } else if (page !== undefined && limit !== undefined) {
    offset = limit * (page - 1);
  }
  const from = `FROM ${schema.fieldsTable} AS f`;
  const paging = ' LIMIT ? OFFSET ?';
  return {
    idsSql: `SELECT f.id AS id ${from}${whereSql} ORDER BY ${orderBy}${paging}`,
    countSql: `SELECT COUNT(*) AS n ${from}${whereSql}`,
    params,
    sortParams,
    summaries,
    limit,
    offset,
    fingerprint,
  };
}

function compileFilter(
  schema: QuerySchema,
  filter: Filter,
  name: string,
  params: SqlValue[],
): string {
  if (typeof filter !== 'object' || filter === null) {
    throw new InvalidQueryError(`${name} must be an object`);
  }
  if (!ops.has(filter.op)) {
    throw new InvalidQueryError(`${name}.op must be one of ${[...ops].join(', ')}`);
  }
  let segments: FieldSegment[];
  try {
    segments = parseFieldPath(filter.field);
  } catch (error) {
    throw new InvalidQueryError(`${name}.field: ${(error as Error).message}`);
  }
  const values = filter.values ?? [];
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
    throw new InvalidQueryError(`${name}.values must be an array of strings`);
  }
  const { op } = filter;
  const partial = filter.partial === true;
  if (partial && op !== '=' && op !== '!=') {
    throw new InvalidQueryError(`${name}.partial applies to = and != only`);
  }
  if ((op === 'Exists' || op === 'NotExists') && values.length > 0) {
    throw new InvalidQueryError(`${name}: ${op} takes no values`);
  }
  if (
    (op === 'Lt' || op === 'Gt' || op === 'Contains' || op === 'NotContains') &&
    values.length !== 1
  ) {
    throw new InvalidQueryError(`${name}: ${op} takes exactly one value`);
  }
  if ((op === '=' || op === '!=') && values.length === 0) {
    throw new InvalidQueryError(`${name}: ${op} takes at least one value`);
  }
  const label = labelKeyOf(segments);
  if (label !== undefined)
    return compileLabelFilter(schema, label, op, values, partial, name, params);

  const column = schema.columns.get(canonicalFieldPath(segments));
  if (column === undefined) {
    throw new InvalidQueryError(
      `${name}.field ${JSON.stringify(filter.field)} is not an indexed field (indexed: ${[...schema.columns.keys()].join(', ')})`,
    );
  }
  const col = `f.${column}`;
  const type = schema.types?.get(canonicalFieldPath(segments)) ?? 'text';
  if (type !== 'text') return compileTypedFilter(col, type, op, values, partial, name, params);
  switch (op) {
    case 'Exists':
    case 'NotExists':
      throw new InvalidQueryError(`${name}: ${op} applies to labels only`);
    case 'Lt':
    case 'Gt':
      params.push(numberOf(values[0] as string, name));
      return `(${col} != '' AND CAST(${col} AS REAL) ${op === 'Lt' ? '<' : '>'} ?)`;
    case 'Contains':
    case 'NotContains': {
      // An array field is stored joined with `|` (steve's hasBarredValue): one element equal to the value.
      params.push(values[0] as string);
      const contains = `(instr('|' || ${col} || '|', '|' || ? || '|') > 0)`;
      return op === 'Contains' ? contains : `NOT ${contains}`;
    }
    default: {
      const positive = op === '=' || op === 'In';
      return positive
        ? matchSql(col, values, partial, params)
        : `NOT ${matchSql(col, values, partial, params)}`;
    }
  }
}

/**
 * A filter on an integer, real or timestamp column: values are converted as stored values are, and compared as
 * numbers. A missing value (NULL) matches `!=` and `NotIn`, as an empty text field does, and never `Lt`/`Gt`.
 */
function compileTypedFilter(
  col: string,
  type: ColumnType,
  op: Filter['op'],
  values: readonly string[],
  partial: boolean,
  name: string,
  params: SqlValue[],
): string {
  if (op === 'Exists' || op === 'NotExists') {
    throw new InvalidQueryError(`${name}: ${op} applies to labels only`);
  }
  if (partial || op === 'Contains' || op === 'NotContains') {
    throw new InvalidQueryError(
      `${name}: ${partial ? 'partial' : op} applies to text fields, not to a ${type} field`,
    );
  }
  const typed = values.map((value) => {
    const converted = columnValue(type, value);
    if (converted === null) {
      throw new InvalidQueryError(`${name}: ${JSON.stringify(value)} is not a ${type}`);
    }
    return converted;
  });
  if (op === 'Lt' || op === 'Gt') {
    params.push(typed[0] as SqlValue);
    return `(${col} ${op === 'Lt' ? '<' : '>'} ?)`;
  }
  let match: string;
  if (typed.length === 1) {
    params.push(typed[0] as SqlValue);
    match = `(${col} IS NOT NULL AND ${col} = ?)`;
  } else {
    params.push(JSON.stringify(typed));
    match = `(${col} IS NOT NULL AND ${col} IN (SELECT value FROM json_each(?)))`;
  }
  return op === '=' || op === 'In' ? match : `NOT ${match}`;
}

/** `col` equal to (or, with `partial`, containing) one of `values`, with NOT-safe parentheses. */
function matchSql(
  col: string,
  values: readonly string[],
  partial: boolean,
  params: SqlValue[],
): string {
  if (partial) {
    if (values.length === 1) {
      params.push(likePattern(values[0] as string));
      return `(${col} LIKE ? ESCAPE '\\')`;
    }
    params.push(JSON.stringify(values.map(likePattern)));
    return `EXISTS (SELECT 1 FROM json_each(?) AS j WHERE ${col} LIKE j.value ESCAPE '\\')`;
  }
  if (values.length === 1) {
    params.push(values[0] as string);
    return `(${col} = ?)`;
  }
  params.push(JSON.stringify(values));
  return `(${col} IN (SELECT value FROM json_each(?)))`;
}

function compileLabelFilter(
  schema: QuerySchema,
  label: string,
  given: Filter['op'],
  values: readonly string[],
  partial: boolean,
  name: string,
  params: SqlValue[],
): string {
  const exists = (condition: string): string =>
    `EXISTS (SELECT 1 FROM ${schema.labelsTable} AS l WHERE l.id = f.id AND l.label = ?${condition})`;
  params.push(label);
  // A label value cannot hold `|`: Contains is `=` and NotContains `!=` (steve).
  const op = given === 'Contains' ? '=' : given === 'NotContains' ? '!=' : given;
  switch (op) {
    case 'Exists':
      return exists('');
    case 'NotExists':
      return `NOT ${exists('')}`;
    case 'Lt':
    case 'Gt':
      params.push(numberOf(values[0] as string, name));
      return exists(` AND l.value != '' AND CAST(l.value AS REAL) ${op === 'Lt' ? '<' : '>'} ?`);
    default: {
      // Label != and NotIn also match objects without the label (lasso): NOT EXISTS of the positive match.
      const condition = ` AND ${matchSql('l.value', values, partial, params)}`;
      return op === '=' || op === 'In' ? exists(condition) : `NOT ${exists(condition)}`;
    }
  }
}

function compilePartitions(
  schema: QuerySchema,
  partitions: readonly Partition[] | undefined,
  params: SqlValue[],
): string | undefined {
  // No partitions grant nothing (lasso's ListByOptions, steve): a caller that forgets the caller's RBAC scope gets
  // no rows rather than every namespace's objects. `[{ passthrough: true }]` asks for everything.
  if (partitions === undefined) return '0';
  if (!Array.isArray(partitions)) throw new InvalidQueryError('partitions must be an array');
  const namespaceColumn = schema.columns.get('metadata.namespace');
  const nameColumn = schema.columns.get('metadata.name') as string;
  const wholeNamespaces = new Set<string>();
  const pairs = new Map<string, [string, string]>();
  const anywhereNames = new Set<string>();
  for (const [i, partition] of partitions.entries()) {
    if (typeof partition !== 'object' || partition === null) {
      throw new InvalidQueryError(`partitions[${i}] must be an object`);
    }
    if (partition.passthrough === true) return undefined;
    const given = partition.namespace ?? '';
    if (typeof given !== 'string') {
      throw new InvalidQueryError(`partitions[${i}].namespace must be a string`);
    }
    // `'*'` is every namespace, as in lasso and steve (and as `ListOptions.namespace` reads it): never a literal
    // name, which Kubernetes forbids anyway.
    const namespace = given === '*' ? '' : given;
    // A namespaced grant on a cluster-scoped kind grants nothing.
    if (namespace !== '' && namespaceColumn === undefined) continue;
    if (partition.all === true) {
      if (namespace === '') return undefined;
      wholeNamespaces.add(namespace);
      continue;
    }
    for (const objectName of partition.names ?? []) {
      if (typeof objectName !== 'string') {
        throw new InvalidQueryError(`partitions[${i}].names must hold strings`);
      }
      if (namespace === '') anywhereNames.add(objectName);
      else pairs.set(JSON.stringify([namespace, objectName]), [namespace, objectName]);
    }
  }
  const alternatives: string[] = [];
  if (wholeNamespaces.size > 0) {
    alternatives.push(`f.${namespaceColumn} IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify([...wholeNamespaces].sort()));
  }
  if (pairs.size > 0) {
    alternatives.push(
      `(f.${namespaceColumn}, f.${nameColumn}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
    );
    params.push(JSON.stringify([...pairs.values()].sort(comparePairs)));
  }
  if (anywhereNames.size > 0) {
    alternatives.push(`f.${nameColumn} IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify([...anywhereNames].sort()));
  }
  // Zero partitions, or only empty ones, grant nothing.
  if (alternatives.length === 0) return '0';
  return alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(' OR ')})`;
}

function comparePairs(a: [string, string], b: [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

function compileSort(
  schema: QuerySchema,
  sort: readonly SortField[] | undefined,
  params: SqlValue[],
): string {
  const keys: string[] = [];
  if (sort === undefined || sort.length === 0) {
    const namespace = schema.columns.get('metadata.namespace');
    if (namespace !== undefined) keys.push(`f.${namespace} ASC`);
    keys.push(`f.${schema.columns.get('metadata.name')} ASC`);
  } else {
    if (!Array.isArray(sort)) throw new InvalidQueryError('sort must be an array');
    for (const [i, key] of sort.entries()) {
      let segments: FieldSegment[];
      try {
        segments = parseFieldPath(key.field);
      } catch (error) {
        throw new InvalidQueryError(`sort[${i}].field: ${(error as Error).message}`);
      }
      const order = key.order ?? 'asc';
      if (order !== 'asc' && order !== 'desc') {
        throw new InvalidQueryError(`sort[${i}].order must be 'asc' or 'desc'`);
      }
      const direction = order === 'asc' ? 'ASC' : 'DESC';
      const path = canonicalFieldPath(segments);
      const column = schema.columns.get(path);
      const label = column === undefined ? labelKeyOf(segments) : undefined;
      if (label !== undefined) {
        // Any label sorts, declared or not: its value from the labels table; objects without it last.
        const value = `(SELECT l.value FROM ${schema.labelsTable} AS l WHERE l.id = f.id AND l.label = ?)`;
        keys.push(`${value} IS NULL`, `${value} ${direction}`);
        params.push(label, label);
        continue;
      }
      if (column === undefined) {
        throw new InvalidQueryError(
          `sort[${i}].field ${JSON.stringify(key.field)} is neither an indexed field nor a label`,
        );
      }
      // A typed column's missing values (NULL) sort last in both directions, as a missing label does.
      if ((schema.types?.get(path) ?? 'text') !== 'text') keys.push(`f.${column} IS NULL`);
      keys.push(`f.${column} ${direction}`);
    }
  }
  // A total order, so pages neither repeat nor skip rows while the data is unchanged.
  keys.push('f.id ASC');
  return keys.join(', ');
}

function compileSummaries(
  schema: QuerySchema,
  fields: readonly string[] | undefined,
  where: readonly string[],
  params: readonly SqlValue[],
): CompiledSummary[] {
  if (fields === undefined) return [];
  if (!Array.isArray(fields)) throw new InvalidQueryError('summary must be an array of fields');
  const summaries: CompiledSummary[] = [];
  for (const [i, field] of fields.entries()) {
    let segments: FieldSegment[];
    try {
      segments = parseFieldPath(field);
    } catch (error) {
      throw new InvalidQueryError(`summary[${i}]: ${(error as Error).message}`);
    }
    const path = canonicalFieldPath(segments);
    const column = schema.columns.get(path);
    const label = column === undefined ? labelKeyOf(segments) : undefined;
    if (label !== undefined) {
      const conditions = where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`;
      summaries.push({
        field,
        type: 'text',
        sql: `SELECT s.value AS k, COUNT(*) AS c FROM ${schema.fieldsTable} AS f JOIN ${schema.labelsTable} AS s ON s.id = f.id AND s.label = ?${conditions} GROUP BY s.value ORDER BY s.value`,
        params: [label, ...params],
      });
      continue;
    }
    if (column === undefined) {
      throw new InvalidQueryError(
        `summary[${i}] ${JSON.stringify(field)} is neither an indexed field nor a label`,
      );
    }
    const col = `f.${column}`;
    const conditions = [...where, `${col} IS NOT NULL`, `${col} != ''`];
    summaries.push({
      field,
      type: schema.types?.get(path) ?? 'text',
      sql: `SELECT ${col} AS k, COUNT(*) AS c FROM ${schema.fieldsTable} AS f WHERE ${conditions.join(' AND ')} GROUP BY ${col} ORDER BY ${col}`,
      params: [...params],
    });
  }
  return summaries;
}

function numberOf(value: string, name: string): number {
  const number = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(number)) {
    throw new InvalidQueryError(`${name}: ${JSON.stringify(value)} is not a number`);
  }
  return number;
}

/** `%value%` with LIKE's `\`, `%` and `_` escaped (ESCAPE '\'). */
export function likePattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

function fingerprintOf(
  whereSql: string,
  orderBy: string,
  params: readonly SqlValue[],
  limit: number | undefined,
): string {
  return createHash('sha256')
    .update(JSON.stringify([whereSql, orderBy, params, limit ?? null]))
    .digest('base64url')
    .slice(0, 16);
}

/** The opaque continue token of the page starting at `offset`. */
export function encodeContinue(offset: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ o: offset, q: fingerprint }), 'utf8').toString('base64url');
}

function decodeContinue(token: string, fingerprint: string): number {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(String(token), 'base64url').toString('utf8'));
  } catch {
    throw new InvalidQueryError('continue token is malformed');
  }
  const { o, q } = (decoded ?? {}) as { o?: unknown; q?: unknown };
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || typeof q !== 'string') {
    throw new InvalidQueryError('continue token is malformed');
  }
  if (q !== fingerprint) {
    throw new InvalidQueryError('continue token belongs to another query');
  }
  return o;
}
