// Table names and DDL of one kind: objects, fields (one indexed column per field), labels and indices.
import { createHash } from 'node:crypto';
import { type ColumnType, sqlColumnType } from './column-types.ts';

/**
 * A group/version/kind; `group` is `''` for the core group.
 *
 * @example
 * ```ts
 * const gvk: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
 * ```
 */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The quoted table names of one kind. */
export interface TableNames {
  /** Unquoted base name (`core_v1_ConfigMap`), for logs and metrics. */
  readonly base: string;
  readonly objects: string;
  readonly fields: string;
  readonly labels: string;
  readonly indices: string;
}

/**
 * The table names of `gvk`: `<group>_<version>_<Kind>` (`core` for the core group) with anything outside
 * `[A-Za-z0-9_]` replaced and, when something was replaced, a short hash so two kinds never share a table.
 */
export function tableNamesOf(gvk: GroupVersionKind): TableNames {
  const raw = `${gvk.group === '' ? 'core' : gvk.group}_${gvk.version}_${gvk.kind}`;
  let base = raw.replace(/[^A-Za-z0-9_]/g, '_');
  if (base !== raw) {
    base += `_${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`;
  }
  const quote = (suffix: string): string => `"${base}${suffix}"`;
  return {
    base,
    objects: quote(''),
    fields: quote('_fields'),
    labels: quote('_labels'),
    indices: quote('_indices'),
  };
}

/** One secondary index of a kind's tables: its name (quoted) and its `CREATE INDEX` statement. */
export interface SecondaryIndex {
  readonly name: string;
  readonly create: string;
}

/**
 * The secondary indexes of a kind with `columnCount` field columns (not the primary keys and the `key` UNIQUE
 * constraint, which the tables need to be written): dropped during a large `replace` and built again after it,
 * which sorts each index once instead of inserting into it row by row.
 */
export function secondaryIndexes(
  names: TableNames,
  columnCount: number,
  namespaced: boolean,
): SecondaryIndex[] {
  const index = (suffix: string, on: string): SecondaryIndex => {
    const name = `"${names.base}_${suffix}"`;
    return { name, create: `CREATE INDEX ${name} ON ${on}` };
  };
  const indexes = [
    // Column c1 of a namespaced kind (the namespace) is served by the (namespace, name) index below.
    ...Array.from({ length: columnCount }, (_, i) => i)
      .filter((i) => !(namespaced && i === 1))
      .map((i) => index(`fields_c${i}`, `${names.fields}("c${i}")`)),
    index('labels_label_value', `${names.labels}(label, value)`),
    index('indices_id', `${names.indices}(id)`),
  ];
  // The default sort (namespace, then name) reads this index instead of sorting.
  if (namespaced) indexes.push(index('fields_namespace_name', `${names.fields}("c1", "c0")`));
  return indexes;
}

/**
 * DDL creating the tables and indexes of a kind whose field columns `"c0"`.. have `types` (a number or a
 * missing value of a typed column is NULL; text columns hold `''` for missing).
 */
export function createTablesSql(
  names: TableNames,
  types: readonly ColumnType[],
  namespaced: boolean,
): string {
  const columnCount = types.length;
  const columns = types.map((type, i) => `"c${i}" ${sqlColumnType(type)}`);
  const statements = [
    `CREATE TABLE ${names.objects} (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, object BLOB NOT NULL, nonce BLOB, keyid INTEGER)`,
    `CREATE TABLE ${names.fields} (id INTEGER PRIMARY KEY REFERENCES ${names.objects}(id) ON DELETE CASCADE, ${columns.join(', ')})`,
    `CREATE TABLE ${names.labels} (id INTEGER NOT NULL REFERENCES ${names.objects}(id) ON DELETE CASCADE, label TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (id, label)) WITHOUT ROWID`,
    `CREATE TABLE ${names.indices} (name TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL REFERENCES ${names.objects}(id) ON DELETE CASCADE, PRIMARY KEY (name, value, id)) WITHOUT ROWID`,
    ...secondaryIndexes(names, columnCount, namespaced).map((index) => index.create),
  ];
  return `${statements.join(';\n')};`;
}

/** DDL dropping the tables of a kind (dependent tables first). */
export function dropTablesSql(names: TableNames): string {
  return [names.indices, names.labels, names.fields, names.objects]
    .map((table) => `DROP TABLE IF EXISTS ${table};`)
    .join('\n');
}
