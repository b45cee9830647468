// Store and Indexer: an O(1) keyed object store with secondary indexes.
// Ports client-go tools/cache store.go, index.go and thread_safe_store.go.
import type { KubeObject, KubeObjectLike } from '@lasso/client';

/** Computes the store key of an object (`namespace/name` or `name` by default). */
export type KeyFunc = (object: unknown) => string;

/** Computes the index values of an object; an object may have several (or none). */
export type IndexFunc<T> = (object: T) => readonly string[];

/** Named index functions. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** The name of the namespace index added by `createCache` for namespaced kinds. */
export const namespaceIndex = 'namespace';

/**
 * The key of an object: `namespace/name`, or `name` for cluster-scoped objects. A string is its own key
 * (client-go's `ExplicitKey`); a {@link DeletedFinalStateUnknown}-like tombstone (`{ key, object }`)
 * yields its key. Throws a TypeError when the object has no `metadata.name`.
 */
export function metaNamespaceKeyFunc(object: unknown): string {
  if (typeof object === 'string') return object;
  if (typeof object !== 'object' || object === null) {
    throw new TypeError(`metaNamespaceKeyFunc: expected an object, got ${typeof object}`);
  }
  if (tombstoneBrand in object) return (object as unknown as { key: string }).key;
  const metadata = (object as KubeObject).metadata;
  const name = metadata?.name;
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('metaNamespaceKeyFunc: object has no metadata.name');
  }
  const namespace = metadata?.namespace;
  if (!namespace) return name;
  // Objects of one namespace come in runs (lists, watches of a namespace): their keys share one "ns/" prefix
  // string instead of each allocating its own.
  if (namespace !== lastNamespace) {
    lastNamespace = namespace;
    lastPrefix = `${namespace}/`;
  }
  return lastPrefix + name;
}

let lastNamespace = '';
let lastPrefix = '';

/** Split a `namespace/name` or `name` key. Throws a TypeError for a key with more than one `/`. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: key };
  if (parts.length === 2) return { namespace: parts[0] as string, name: parts[1] as string };
  throw new TypeError(`splitMetaNamespaceKey: unexpected key format: ${JSON.stringify(key)}`);
}

/** Index function of {@link namespaceIndex}: the object's namespace (`''` for cluster-scoped ones). */
export function metaNamespaceIndexFunc(object: KubeObjectLike): string[] {
  return [object.metadata?.namespace ?? ''];
}

/** @internal brand shared with DeletedFinalStateUnknown so the key function recognises tombstones. */
export const tombstoneBrand: unique symbol = Symbol.for('lasso.cache.tombstone') as never;

/** Read-only view of a store: what event handlers and listers get. */
export interface StoreReader<T> {
  /** The stored object with the same key as `object`. */
  get(object: T): T | undefined;
  getByKey(key: string): T | undefined;
  /** Every stored object (a new array; the objects are the stored ones: do not mutate them). */
  list(): T[];
  listKeys(): string[];
  /** Number of stored objects. */
  size(): number;
}

/** A keyed object store (client-go `Store`). */
export interface Store<T> extends StoreReader<T> {
  /** Store `object` under its key (replacing any object with that key). */
  add(object: T): void;
  /** Same as {@link Store.add}: store `object` under its key. */
  update(object: T): void;
  /** Remove the object with the key of `object`; a no-op when there is none. */
  delete(object: T): void;
  /**
   * Replace the whole content with `list`; `resourceVersion` is the list's version. When a key or index
   * function throws, the previous content stays.
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /** A no-op for a plain store; the DeltaFIFO re-queues every known object as a Sync delta. */
  resync(): void;
}

/** Read-only view of an indexer. */
export interface IndexerReader<T> extends StoreReader<T> {
  /** Objects sharing any index value with `object` under `indexName`. */
  index(indexName: string, object: T): T[];
  /** Keys of the objects whose `indexName` values include `indexedValue`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value present in the index `indexName`. */
  listIndexFuncValues(indexName: string): string[];
  /** Objects whose `indexName` values include `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[];
  getIndexers(): Readonly<Indexers<T>>;
}

/** A store with secondary indexes (client-go `Indexer`). */
export interface Indexer<T> extends Store<T>, IndexerReader<T> {
  /**
   * Add index functions; objects already stored are indexed at once. Throws a TypeError on a name clash; when
   * an index function throws on a stored object, none of `indexers` is added.
   */
  addIndexers(indexers: Indexers<T>): void;
  /**
   * Store `object` under `key`, which the caller computed with this indexer's key function: the informer stores
   * what its DeltaFIFO has just keyed without computing (and hashing) the key again. Optional; `createIndexer`'s
   * indexers have it.
   */
  putByKey?(key: string, object: T): void;
}

/** Options of {@link createIndexer}. */
export interface IndexerOptions<T> {
  /** Default {@link metaNamespaceKeyFunc}. */
  keyFunc?: KeyFunc | undefined;
  indexers?: Indexers<T> | undefined;
}

/**
 * Create an {@link Indexer}: a Map keyed by `keyFunc` with one Map-of-Sets per index, so every operation is
 * O(1) in the number of stored objects (O(values) per object for indexes).
 */
export function createIndexer<T = KubeObject>(options: IndexerOptions<T> = {}): Indexer<T> {
  return new MapIndexer<T>(options.keyFunc ?? metaNamespaceKeyFunc, options.indexers ?? {});
}

/** Create a {@link Store} without indexes. */
export function createStore<T = KubeObject>(options: { keyFunc?: KeyFunc } = {}): Store<T> {
  return createIndexer<T>(options);
}

class MapIndexer<T> implements Indexer<T> {
  readonly #keyFunc: KeyFunc;
  readonly #items = new Map<string, T>();
  readonly #indexers: Indexers<T> = {};
  // The entries of #indexers, for the per-object loops.
  readonly #indexFuncs: Array<[string, IndexFunc<T>]> = [];
  // index name -> index value -> keys; empty sets are deleted so values of deleted objects do not leak.
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  constructor(keyFunc: KeyFunc, indexers: Indexers<T>) {
    this.#keyFunc = keyFunc;
    this.addIndexers(indexers);
  }

  add(object: T): void {
    this.#put(this.#keyFunc(object), object);
  }

  update(object: T): void {
    this.#put(this.#keyFunc(object), object);
  }

  putByKey(key: string, object: T): void {
    this.#put(key, object);
  }

  delete(object: T): void {
    const key = this.#keyFunc(object);
    const old = this.#items.get(key);
    if (old === undefined) return;
    this.#items.delete(key);
    this.#unindex(key, old);
  }

  replace(list: readonly T[], _resourceVersion: string): void {
    // Built aside and swapped in, so a throwing key or index function leaves the previous content intact.
    const items = new Map<string, T>();
    for (const object of list) items.set(this.#keyFunc(object), object);
    const indices = new Map<string, Map<string, Set<string>>>();
    for (const [name, indexFunc] of Object.entries(this.#indexers)) {
      indices.set(name, buildIndex(items, indexFunc));
    }
    this.#items.clear();
    for (const [key, object] of items) this.#items.set(key, object);
    for (const [name, index] of indices) this.#indices.set(name, index);
  }

  resync(): void {}

  get(object: T): T | undefined {
    return this.#items.get(this.#keyFunc(object));
  }

  getByKey(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  size(): number {
    return this.#items.size;
  }

  index(indexName: string, object: T): T[] {
    const indexFunc = this.#indexFunc(indexName);
    const index = this.#indices.get(indexName) as Map<string, Set<string>>;
    const keys = new Set<string>();
    for (const value of indexFunc(object)) {
      for (const key of index.get(value) ?? []) keys.add(key);
    }
    return this.#objects(keys);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.#indexFunc(indexName);
    return [...(this.#indices.get(indexName)?.get(indexedValue) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.#indices.get(indexName)?.keys() ?? [])];
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    this.#indexFunc(indexName);
    return this.#objects(this.#indices.get(indexName)?.get(indexedValue) ?? []);
  }

  getIndexers(): Readonly<Indexers<T>> {
    return { ...this.#indexers };
  }

  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (name in this.#indexers) {
        throw new TypeError(`addIndexers: indexer "${name}" already exists`);
      }
      if (typeof indexers[name] !== 'function') {
        throw new TypeError(`addIndexers: indexer "${name}" is not a function`);
      }
    }
    // Every new index is built before any is registered: a throwing index function adds none of them.
    const built = Object.entries(indexers).map(
      ([name, indexFunc]) => [name, indexFunc, buildIndex(this.#items, indexFunc)] as const,
    );
    for (const [name, indexFunc, index] of built) {
      this.#indexers[name] = indexFunc;
      this.#indexFuncs.push([name, indexFunc]);
      this.#indices.set(name, index);
    }
  }

  #indexFunc(indexName: string): IndexFunc<T> {
    const indexFunc = this.#indexers[indexName];
    if (indexFunc === undefined) throw new RangeError(`index "${indexName}" does not exist`);
    return indexFunc;
  }

  #objects(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      const object = this.#items.get(key);
      if (object !== undefined) out.push(object);
    }
    return out;
  }

  #put(key: string, object: T): void {
    const old = this.#items.get(key);
    // Index values are computed before anything changes so a throwing index function leaves the store intact.
    // Allocated only when an index value changes (rare: most updates keep namespace and labels).
    let computed:
      | Array<[Map<string, Set<string>>, readonly string[], readonly string[]]>
      | undefined;
    for (const [name, indexFunc] of this.#indexFuncs) {
      const values = indexFunc(object);
      const oldValues = old === undefined ? noValues : indexFunc(old);
      // Most updates leave every index value as it was (client-go updateIndices): nothing to touch.
      if (!sameValues(oldValues, values)) {
        computed ??= [];
        computed.push([this.#indices.get(name) as Map<string, Set<string>>, oldValues, values]);
      }
    }
    this.#items.set(key, object);
    if (computed === undefined) return;
    for (const [index, oldValues, values] of computed) {
      for (const value of oldValues) {
        if (values.includes(value)) continue;
        const keys = index.get(value);
        if (keys === undefined) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
      addToIndex(index, values, key);
    }
  }

  #unindex(key: string, object: T): void {
    for (const [name, indexFunc] of this.#indexFuncs) {
      const index = this.#indices.get(name) as Map<string, Set<string>>;
      for (const value of indexFunc(object)) {
        const keys = index.get(value);
        if (keys === undefined) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}

const noValues: readonly string[] = [];

/** True when both lists hold the same values in the same order (the usual case of an update). */
function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function buildIndex<T>(
  items: ReadonlyMap<string, T>,
  indexFunc: IndexFunc<T>,
): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  for (const [key, object] of items) addToIndex(index, indexFunc(object), key);
  return index;
}

function addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) {
      keys = new Set();
      index.set(value, keys);
    }
    keys.add(key);
  }
}

const indexerMethods = [
  'add',
  'update',
  'delete',
  'replace',
  'get',
  'getByKey',
  'list',
  'listKeys',
  'size',
  'index',
  'indexKeys',
  'listIndexFuncValues',
  'byIndex',
  'getIndexers',
  'addIndexers',
] as const;

/** @internal `indexer` when it has every method of the Indexer contract; a TypeError naming the option otherwise. */
export function checkedIndexer<T>(indexer: Indexer<T>): Indexer<T> {
  if (typeof indexer !== 'object' || indexer === null) {
    throw new TypeError(
      `indexer must be an Indexer, got ${indexer === null ? 'null' : typeof indexer}`,
    );
  }
  for (const method of indexerMethods) {
    if (typeof indexer[method] !== 'function') {
      throw new TypeError(`indexer must be an Indexer: it has no ${method}()`);
    }
  }
  return indexer;
}

/**
 * A frozen read-only view of an indexer: its readers only, so whoever holds it cannot reach add, update or delete
 * (what an informer's `getIndexer()` hands out). Given a function, each call reads the indexer the function
 * returns then: a view that follows an indexer replaced by a rebuild (the SQL cache's stores).
 *
 * @example
 * ```ts
 * const indexer = createIndexer({ indexers: { namespace: metaNamespaceIndexFunc } });
 * const view = indexerView(indexer);
 * indexer.add({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
 * view.byIndex('namespace', 'default').length; // 1
 * 'add' in view; // false
 * ```
 */
export function indexerView<T>(
  indexer: IndexerReader<T> | (() => IndexerReader<T>),
): IndexerReader<T> {
  const current = typeof indexer === 'function' ? indexer : () => indexer;
  return Object.freeze({
    get: (object: T) => current().get(object),
    getByKey: (key: string) => current().getByKey(key),
    list: () => current().list(),
    listKeys: () => current().listKeys(),
    size: () => current().size(),
    index: (indexName: string, object: T) => current().index(indexName, object),
    indexKeys: (indexName: string, value: string) => current().indexKeys(indexName, value),
    listIndexFuncValues: (indexName: string) => current().listIndexFuncValues(indexName),
    byIndex: (indexName: string, value: string) => current().byIndex(indexName, value),
    getIndexers: () => current().getIndexers(),
  });
}
