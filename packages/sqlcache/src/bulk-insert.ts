// The inserts of a replace: the tables were just emptied, so rows get ids 1, 2, 3... in list order (what SQLite
// would assign) and go in batches of multi-row INSERTs, a few calls per batch instead of four or more per object.
import type { SqlStatement, SqlValue } from './driver.ts';
import type { Row } from './row-codec.ts';
import type { TableNames } from './schema.ts';

/** @internal Objects per batch (each binds 5 + columns + 3 per index value parameters, far under SQLite's limit). */
export const bulkBatchSize = 64;

/** @internal Writes the rows of a replace into emptied tables, in order; `finish()` writes the last batch. */
export class BulkInsert {
  readonly #prepare: (sql: string) => SqlStatement;
  readonly #names: TableNames;
  readonly #columnCount: number;
  #nextId = 1;
  #objects: SqlValue[] = [];
  #fields: SqlValue[] = [];
  #labels: string[] = [];
  #indices: SqlValue[] = [];
  #count = 0;

  constructor(prepare: (sql: string) => SqlStatement, names: TableNames, columnCount: number) {
    this.#prepare = prepare;
    this.#names = names;
    this.#columnCount = columnCount;
  }

  /** Queue the row of `key` (a key not written before in this replace). */
  add(key: string, row: Row): void {
    const id = this.#nextId++;
    this.#objects.push(id, key, row.payload, row.nonce, row.keyId);
    this.#fields.push(id);
    for (const field of row.fields) this.#fields.push(field);
    this.#labels.push(row.labels ?? 'null');
    for (const [name, value] of row.indices) this.#indices.push(name, value, id);
    if (++this.#count === bulkBatchSize) this.#flush();
  }

  /** Write what is queued. */
  finish(): void {
    if (this.#count > 0) this.#flush();
  }

  #flush(): void {
    const n = this.#names;
    const count = this.#count;
    this.#prepare(
      `INSERT INTO ${n.objects} (id, key, object, nonce, keyid) VALUES ${tuples(count, 5)}`,
    ).run(...this.#objects);
    this.#prepare(`INSERT INTO ${n.fields} VALUES ${tuples(count, 1 + this.#columnCount)}`).run(
      ...this.#fields,
    );
    // Every object's labels in one statement: a JSON array of the objects' label objects (null for none).
    this.#prepare(
      `INSERT INTO ${n.labels} (id, label, value) SELECT ? + batch.key, label.key, label.value FROM json_each(?) AS batch, json_each(batch.value) AS label`,
    ).run(this.#nextId - count, `[${this.#labels.join(',')}]`);
    const indices = this.#indices;
    for (let start = 0; start < indices.length; start += 3 * bulkBatchSize) {
      const end = Math.min(indices.length, start + 3 * bulkBatchSize);
      this.#prepare(
        `INSERT OR IGNORE INTO ${n.indices} (name, value, id) VALUES ${tuples((end - start) / 3, 3)}`,
      ).run(...indices.slice(start, end));
    }
    this.#count = 0;
    this.#objects = [];
    this.#fields = [];
    this.#labels = [];
    this.#indices = [];
  }
}

const tupleCache = new Map<string, string>();

/** `(?, ?), (?, ?)` for `rows` rows of `width` parameters. */
function tuples(rows: number, width: number): string {
  const cacheKey = `${rows}x${width}`;
  let text = tupleCache.get(cacheKey);
  if (text === undefined) {
    const one = `(${Array.from({ length: width }, () => '?').join(', ')})`;
    text = Array.from({ length: rows }, () => one).join(', ');
    if (tupleCache.size < 1_000) tupleCache.set(cacheKey, text);
  }
  return text;
}
