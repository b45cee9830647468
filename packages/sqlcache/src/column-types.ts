// Typed indexed columns (steve's IndexedField column types): a field declared integer, real or timestamp is stored
// as a number, so it sorts and compares as one (text sorts spec.replicas as 10, 100, 2, 9).
import type { SqlValue } from './driver.ts';
import type { FieldValue } from './fields.ts';

/**
 * The SQL type of an indexed field. `text` (the default) stores the field's text; `integer` and `real` store its
 * number (a value that is not one, or is missing, stores SQL NULL); `timestamp` stores an RFC 3339 time as
 * milliseconds since the epoch (NULL when missing or unparsable).
 *
 * @example
 * ```ts
 * const type: ColumnType = 'integer';
 * ```
 */
export type ColumnType = 'text' | 'integer' | 'real' | 'timestamp';

/**
 * An indexed field: a path (a `text` column) or a path with its column type.
 *
 * @example
 * ```ts
 * const fields: FieldSpec[] = ['spec.nodeName', { path: 'spec.replicas', type: 'integer' }];
 * ```
 */
export type FieldSpec = string | { readonly path: string; readonly type?: ColumnType | undefined };

/**
 * A computed field: a function (a `text` column) or a function with its column type.
 *
 * @example
 * ```ts
 * const restarts: ComputedField<KubeObject> = {
 *   type: 'integer',
 *   compute: (pod) => Number((pod as { status?: { restarts?: number } }).status?.restarts ?? 0),
 * };
 * ```
 */
export type ComputedField<T> =
  | ((object: T) => FieldValue)
  | { readonly compute: (object: T) => FieldValue; readonly type?: ColumnType | undefined };

const columnTypes: ReadonlySet<string> = new Set(['text', 'integer', 'real', 'timestamp']);

/** @internal Throws a TypeError naming `option` unless `type` is a column type. */
export function checkColumnType(type: unknown, option: string): ColumnType {
  if (type === undefined) return 'text';
  if (typeof type !== 'string' || !columnTypes.has(type)) {
    throw new TypeError(
      `${option} must be one of text, integer, real, timestamp, got ${JSON.stringify(type) ?? String(type)}`,
    );
  }
  return type as ColumnType;
}

/** @internal The SQLite declaration of a column of `type`. */
export function sqlColumnType(type: ColumnType): string {
  switch (type) {
    case 'text':
      return 'TEXT NOT NULL';
    case 'integer':
      return 'INTEGER';
    case 'real':
      return 'REAL';
    case 'timestamp':
      return 'INTEGER';
  }
}

// An RFC 3339 date or date-time; Date.parse alone reads "5" as the year 2005.
const timestampShape =
  /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?)?$/;

/**
 * @internal The stored value of a field whose text is `text`: the text itself for `text`, else a number or null
 * (missing or not of the type).
 */
export function columnValue(type: ColumnType, text: string): SqlValue {
  if (type === 'text') return text;
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (type === 'timestamp') {
    if (!timestampShape.test(trimmed)) return null;
    const ms = Date.parse(trimmed);
    return Number.isFinite(ms) ? ms : null;
  }
  const number = Number(trimmed);
  if (!Number.isFinite(number)) return null;
  if (type === 'integer' && !Number.isSafeInteger(number)) return null;
  return number;
}
