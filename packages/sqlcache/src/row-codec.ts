// The row codec of a SQL store: an object to the row written for it (indexed field columns, labels, index values,
// JSON payload, encrypted when the kind is) and a stored row back to a fresh object.
import { createHash } from 'node:crypto';
import type { Indexers, IndexFunc } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import { errorMessage } from '@lasso/core';
import {
  type ColumnType,
  type ComputedField,
  checkColumnType,
  columnValue,
  type FieldSpec,
} from './column-types.ts';
import type { SqlValue } from './driver.ts';
import type { Encryptor } from './encryption.ts';
import {
  canonicalFieldPath,
  extractField,
  type FieldSegment,
  fieldText,
  parseFieldPath,
} from './fields.ts';

/** @internal The row of one object, ready to write. */
export interface Row {
  readonly payload: string | Uint8Array;
  readonly nonce: Uint8Array | null;
  readonly keyId: number | null;
  readonly fields: readonly SqlValue[];
  /** The labels as one JSON object, null when there are none. */
  readonly labels: string | null;
  readonly indices: readonly (readonly [string, string])[];
}

/** @internal One indexed field column: its canonical path and how to read it from an object. */
export interface Column<T> {
  readonly path: string;
  readonly type: ColumnType;
  readonly extract: (object: T) => SqlValue;
}

const fieldsOf = (segments: FieldSegment[]) => (object: unknown) => extractField(object, segments);

/**
 * @internal The indexed columns of a kind, in column order: `metadata.name`, `metadata.namespace` (namespaced kinds),
 * `metadata.creationTimestamp`, then `fields` and `computedFields`. Throws a TypeError naming the option for a
 * malformed path, a repeated computed field or a computed field that is not a function.
 */
export function indexedColumns<T>(options: {
  readonly namespaced: boolean;
  readonly fields?: readonly FieldSpec[] | undefined;
  readonly computedFields?: Readonly<Record<string, ComputedField<T>>> | undefined;
}): Column<T>[] {
  const columns: Column<T>[] = [];
  const add = (
    path: string,
    type: ColumnType,
    text: (object: T) => string,
    option: string,
  ): void => {
    if (columns.some((column) => column.path === path)) {
      throw new TypeError(`createSqlStore: ${option} repeats the indexed field ${path}`);
    }
    const extract =
      type === 'text' ? text : (object: T): SqlValue => columnValue(type, text(object));
    columns.push({ path, type, extract });
  };
  add('metadata.name', 'text', fieldsOf(parseFieldPath('metadata.name')), 'fields');
  if (options.namespaced)
    add('metadata.namespace', 'text', fieldsOf(parseFieldPath('metadata.namespace')), 'fields');
  const created = parseFieldPath('metadata.creationTimestamp');
  add('metadata.creationTimestamp', 'text', fieldsOf(created), 'fields');
  for (const [i, field] of (options.fields ?? []).entries()) {
    const spec = typeof field === 'string' ? { path: field } : field;
    if (typeof spec !== 'object' || spec === null) {
      throw new TypeError(`createSqlStore: fields[${i}] must be a path or { path, type }`);
    }
    const type = checkColumnType(spec.type, `createSqlStore: fields[${i}].type`);
    let segments: FieldSegment[];
    try {
      segments = parseFieldPath(spec.path);
    } catch (error) {
      throw new TypeError(`createSqlStore: fields: ${errorMessage(error)}`);
    }
    const canonical = canonicalFieldPath(segments);
    if (columns.some((column) => column.path === canonical)) continue;
    add(canonical, type, fieldsOf(segments), 'fields');
  }
  for (const [name, computed] of Object.entries(options.computedFields ?? {})) {
    const compute = typeof computed === 'function' ? computed : computed?.compute;
    if (typeof compute !== 'function') {
      throw new TypeError(`createSqlStore: computedFields.${name} is not a function`);
    }
    const type =
      typeof computed === 'function'
        ? 'text'
        : checkColumnType(computed.type, `createSqlStore: computedFields.${name}.type`);
    add(canonicalFieldPath(name), type, (object) => fieldText(compute(object)), 'computedFields');
  }
  return columns;
}

/**
 * @internal The schema hash of a kind's tables: its indexed columns (path and type, in order) and whether it is
 * namespaced. Two declarations with one hash use the same tables.
 */
export function schemaHashOf(columns: readonly Column<unknown>[], namespaced: boolean): string {
  const declared = JSON.stringify([
    namespaced,
    columns.map((column) => [column.path, column.type]),
  ]);
  return createHash('sha256').update(declared).digest('hex').slice(0, 16);
}

/** @internal Encodes objects to rows and decodes stored rows of one kind. */
export class RowCodec<T> {
  readonly #tableName: string;
  readonly #columns: readonly Column<T>[];
  /** The store's indexers (the live record: indexers added later are applied to later rows). */
  readonly #indexers: Indexers<T>;
  readonly #encryptor: Encryptor | undefined;

  constructor(
    tableName: string,
    columns: readonly Column<T>[],
    indexers: Indexers<T>,
    encryptor: Encryptor | undefined,
  ) {
    this.#tableName = tableName;
    this.#columns = columns;
    this.#indexers = indexers;
    this.#encryptor = encryptor;
  }

  /** The row of `object` stored under `key`; throws (writing nothing) when a field, index or label is bad. */
  encode(key: string, object: T): Row {
    const fields = this.#columns.map((column) => column.extract(object));
    const indices: [string, string][] = [];
    for (const name in this.#indexers) {
      for (const value of (this.#indexers[name] as IndexFunc<T>)(object))
        indices.push([name, value]);
    }
    const objectLabels = (object as KubeObject)?.metadata?.labels;
    let labels: string | null = null;
    if (typeof objectLabels === 'object' && objectLabels !== null) {
      for (const label in objectLabels) {
        if (typeof objectLabels[label] !== 'string') {
          throw new TypeError(`label ${JSON.stringify(label)} of ${key} is not a string`);
        }
        labels = JSON.stringify(objectLabels);
        break;
      }
    }
    const json = JSON.stringify(object);
    if (this.#encryptor === undefined) {
      return { payload: json, nonce: null, keyId: null, fields, labels, indices };
    }
    const sealed = this.#encryptor.encrypt(Buffer.from(json, 'utf8'), this.#aad(key));
    return {
      payload: sealed.ciphertext,
      nonce: sealed.nonce,
      keyId: sealed.keyId,
      fields,
      labels,
      indices,
    };
  }

  /** A fresh object from a stored row (`key`, `object`, `nonce`, `keyid`). */
  decode(row: Record<string, SqlValue>): T {
    const payload = row.object;
    if (this.#encryptor === undefined || row.nonce === null) {
      return JSON.parse(
        typeof payload === 'string' ? payload : Buffer.from(payload as Uint8Array).toString('utf8'),
      ) as T;
    }
    const plain = this.#encryptor.decrypt(
      {
        ciphertext: payload as Uint8Array,
        nonce: row.nonce as Uint8Array,
        keyId: Number(row.keyid),
      },
      this.#aad(row.key as string),
    );
    return JSON.parse(plain.toString('utf8')) as T;
  }

  // The additional data binding a ciphertext to its table and key: a row copied elsewhere does not decrypt.
  #aad(key: string): string {
    return `${this.#tableName}\u0000${key}`;
  }
}
