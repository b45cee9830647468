// In-memory object storage of the local API server: one global resourceVersion counter (etcd's revision),
// an event history ring with a compaction point (etcd compaction + the watch cache), and watch listeners.

/** A stored Kubernetes object (plain JSON). */
export type KubeObject = Record<string, unknown> & { metadata?: Record<string, unknown> };

/** One committed change, as watches see it. */
export interface HistoryEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** Storage key of the resource (`group/resource`). */
  key: string;
  namespace: string;
  name: string;
  /** The object after the change (for DELETED: the final object with the deletion's resourceVersion). */
  object: KubeObject;
  /** The object before the change (undefined for ADDED). */
  previous: KubeObject | undefined;
}

/** Thrown when a snapshot at a resourceVersion older than the compaction point is asked for. */
export class CompactedError extends Error {
  readonly requested: number;
  readonly oldest: number;
  constructor(requested: number, oldest: number) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = 'CompactedError';
    this.requested = requested;
    this.oldest = oldest;
  }
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Objects keyed by resource, namespace and name, with history for watches and consistent lists. */
export class Store {
  #rv: number;
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  #history: HistoryEvent[] = [];
  /** Events with rv > compactedRv are retained; a snapshot or watch from below it is gone. */
  #compactedRv: number;
  readonly #maxHistory: number;
  readonly #listeners = new Set<(event: HistoryEvent) => void>();

  constructor(options: { initialResourceVersion?: number; maxHistory?: number } = {}) {
    this.#rv = options.initialResourceVersion ?? 100;
    this.#compactedRv = this.#rv;
    this.#maxHistory = options.maxHistory ?? 20_000;
  }

  /** The current (latest committed) resourceVersion. */
  currentRv(): number {
    return this.#rv;
  }

  /** The oldest resourceVersion still served from history. */
  compactedRv(): number {
    return this.#compactedRv;
  }

  /** A copy of one object, or undefined. */
  get(key: string, namespace: string, name: string): KubeObject | undefined {
    const found = this.#objects.get(key)?.get(objectKey(namespace, name));
    return found === undefined ? undefined : structuredClone(found);
  }

  /** True when a namespace-scoped lookup for any object in `namespace` would find something. */
  has(key: string, namespace: string, name: string): boolean {
    return this.#objects.get(key)?.has(objectKey(namespace, name)) ?? false;
  }

  /**
   * Copies of the objects of `key` (in `namespace` when given), sorted by etcd key, as of `atRv`
   * (default: now). Throws {@link CompactedError} when `atRv` is older than the retained history.
   */
  list(key: string, namespace: string | undefined, atRv?: number): KubeObject[] {
    const current = this.#objects.get(key) ?? new Map<string, KubeObject>();
    let view: Map<string, KubeObject> = current;
    if (atRv !== undefined && atRv < this.#rv) {
      if (atRv < this.#compactedRv) throw new CompactedError(atRv, this.#compactedRv);
      view = new Map(current);
      for (let index = this.#history.length - 1; index >= 0; index--) {
        const event = this.#history[index]!;
        if (event.rv <= atRv) break;
        if (event.key !== key) continue;
        const id = objectKey(event.namespace, event.name);
        if (event.type === 'ADDED') view.delete(id);
        else if (event.previous !== undefined) view.set(id, event.previous);
      }
    }
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const ids = [...view.keys()]
      .filter((id) => prefix === undefined || id.startsWith(prefix))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return ids.map((id) => structuredClone(view.get(id)!));
  }

  /** Store a new object, assigning the next resourceVersion; returns a copy of what was stored. */
  create(key: string, object: KubeObject): KubeObject {
    return this.#commit('ADDED', key, object);
  }

  /** Replace an existing object, assigning the next resourceVersion. */
  update(key: string, object: KubeObject): KubeObject {
    return this.#commit('MODIFIED', key, object);
  }

  /** Remove an object; the DELETED event carries `object` with a new resourceVersion. */
  delete(key: string, object: KubeObject): KubeObject {
    return this.#commit('DELETED', key, object);
  }

  /** Events after `rv` in commit order. Throws {@link CompactedError} when `rv` is older than history. */
  eventsAfter(rv: number): HistoryEvent[] {
    if (rv < this.#compactedRv) throw new CompactedError(rv, this.#compactedRv);
    const result: HistoryEvent[] = [];
    for (let index = this.#history.length - 1; index >= 0; index--) {
      const event = this.#history[index]!;
      if (event.rv <= rv) break;
      result.push(event);
    }
    return result.reverse();
  }

  /** Be told about every commit, synchronously, in order. */
  subscribe(listener: (event: HistoryEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Forget all history: every resourceVersion older than the current one is now too old. */
  expireHistory(): void {
    this.#history = [];
    this.#compactedRv = this.#rv;
  }

  #commit(type: HistoryEvent['type'], key: string, input: KubeObject): KubeObject {
    const metadata = (input.metadata ?? {}) as Record<string, unknown>;
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    const name = String(metadata.name ?? '');
    const id = objectKey(namespace, name);
    let bucket = this.#objects.get(key);
    if (bucket === undefined) {
      bucket = new Map();
      this.#objects.set(key, bucket);
    }
    const previous = bucket.get(id);
    this.#rv += 1;
    const stored = structuredClone(input);
    stored.metadata = { ...metadata, resourceVersion: String(this.#rv) };
    if (type === 'DELETED') bucket.delete(id);
    else bucket.set(id, stored);
    const event: HistoryEvent = {
      rv: this.#rv,
      type,
      key,
      namespace,
      name,
      object: stored,
      previous,
    };
    this.#history.push(event);
    if (this.#history.length > this.#maxHistory) {
      const dropped = this.#history.shift()!;
      this.#compactedRv = dropped.rv;
    }
    for (const listener of this.#listeners) listener(event);
    return structuredClone(stored);
  }
}
