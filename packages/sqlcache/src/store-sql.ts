// The SQL of one kind's store: the statements' text (built once per store) and the writes of one row.
import type { SqlStatement } from './driver.ts';
import type { Row } from './row-codec.ts';
import type { TableNames } from './schema.ts';

/** @internal The statements that write rows, prepared in one write transaction. */
export interface WriteStatements {
  readonly upsert: SqlStatement;
  readonly fields: SqlStatement;
  readonly deleteLabels: SqlStatement;
  readonly labels: SqlStatement;
  readonly deleteIndices: SqlStatement;
  readonly index: SqlStatement;
  readonly delete: SqlStatement;
}

/** @internal The SQL text of a store's statements. */
export type StoreSql = Readonly<Record<keyof WriteStatements | ReadStatement, string>>;

type ReadStatement =
  | 'get'
  | 'getById'
  | 'list'
  | 'keys'
  | 'count'
  | 'indexKeys'
  | 'byIndex'
  | 'indexObjects'
  | 'values';

/** @internal The SQL of the tables `n` with `columnCount` field columns. */
export function storeSql(n: TableNames, columnCount: number): StoreSql {
  const placeholders = Array.from({ length: columnCount }, () => '?').join(', ');
  return {
    upsert: `INSERT INTO ${n.objects} (key, object, nonce, keyid) VALUES (?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET object = excluded.object, nonce = excluded.nonce, keyid = excluded.keyid RETURNING id`,
    fields: `INSERT OR REPLACE INTO ${n.fields} VALUES (?, ${placeholders})`,
    deleteLabels: `DELETE FROM ${n.labels} WHERE id = ?`,
    // All labels of an object in one statement: one call instead of one per label.
    labels: `INSERT INTO ${n.labels} (id, label, value) SELECT ?, key, value FROM json_each(?)`,
    deleteIndices: `DELETE FROM ${n.indices} WHERE id = ?`,
    index: `INSERT OR IGNORE INTO ${n.indices} (name, value, id) VALUES (?, ?, ?)`,
    delete: `DELETE FROM ${n.objects} WHERE key = ?`,
    get: `SELECT key, object, nonce, keyid FROM ${n.objects} WHERE key = ?`,
    getById: `SELECT key, object, nonce, keyid FROM ${n.objects} WHERE id = ?`,
    list: `SELECT key, object, nonce, keyid FROM ${n.objects} ORDER BY id`,
    keys: `SELECT key FROM ${n.objects} ORDER BY id`,
    count: `SELECT COUNT(*) AS n FROM ${n.objects}`,
    indexKeys: `SELECT o.key AS key FROM ${n.indices} AS i JOIN ${n.objects} AS o ON o.id = i.id WHERE i.name = ? AND i.value = ? ORDER BY o.id`,
    byIndex: `SELECT o.key AS key, o.object AS object, o.nonce AS nonce, o.keyid AS keyid FROM ${n.indices} AS i JOIN ${n.objects} AS o ON o.id = i.id WHERE i.name = ? AND i.value = ? ORDER BY o.id`,
    indexObjects: `SELECT o.key AS key, o.object AS object, o.nonce AS nonce, o.keyid AS keyid FROM ${n.objects} AS o WHERE o.id IN (SELECT i.id FROM ${n.indices} AS i WHERE i.name = ? AND i.value IN (SELECT value FROM json_each(?))) ORDER BY o.id`,
    values: `SELECT DISTINCT value FROM ${n.indices} WHERE name = ?`,
  };
}

/** @internal Prepare the write statements of `sql` inside a write transaction. */
export function prepareWriteStatements(
  sql: StoreSql,
  prepare: (sql: string) => SqlStatement,
): WriteStatements {
  return {
    upsert: prepare(sql.upsert),
    fields: prepare(sql.fields),
    deleteLabels: prepare(sql.deleteLabels),
    labels: prepare(sql.labels),
    deleteIndices: prepare(sql.deleteIndices),
    index: prepare(sql.index),
    delete: prepare(sql.delete),
  };
}

/** @internal Write (insert or replace) the row of `key`; a replace's rows go through `BulkInsert` instead. */
export function writeRow(statements: WriteStatements, key: string, row: Row): void {
  const id = (statements.upsert.get(key, row.payload, row.nonce, row.keyId) as { id: number }).id;
  statements.deleteLabels.run(id);
  statements.deleteIndices.run(id);
  statements.fields.run(id, ...row.fields);
  if (row.labels !== null) statements.labels.run(id, row.labels);
  for (const [name, value] of row.indices) statements.index.run(name, value, id);
}
