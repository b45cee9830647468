// In-memory object storage of the local API server: one global resourceVersion counter (etcd's revision),
// an event history ring with a compaction point (etcd compaction + the watch cache), and watch listeners.
import { orderKeys } from '../apimachinery/key-order.ts';
import { omitEmpty } from '../apimachinery/omit-empty.ts';

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

/** The same order as etcd keys for the ASCII names Kubernetes allows (UTF-16 code units). */
function lowerBound(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * One resource's objects. `ids` holds the keys of `objects` in order, kept sorted on every commit so that a
 * list page is a binary search and a walk, not a sort of the whole resource.
 */
interface Bucket {
  readonly objects: Map<string, KubeObject>;
  readonly ids: string[];
}

/**
 * How one resource looked at `atRv`, as a difference from now: for each id changed after `atRv`, its object
 * at `atRv` (undefined: it did not exist). Covers the events up to `throughRv`; extended on use.
 */
interface Overlay {
  readonly atRv: number;
  throughRv: number;
  readonly before: Map<string, KubeObject | undefined>;
}

/**
 * A consistent read of one resource at one resourceVersion. It hands out the stored objects themselves:
 * callers copy what they return and change nothing. Valid until the next commit.
 */
export interface Snapshot {
  /** Objects in key order, from id `start` (`namespace/name`, inclusive) on, in `namespace` when given. */
  objects(namespace: string | undefined, start?: string): Generator<KubeObject, void, undefined>;
  /** How many objects {@link Snapshot.objects} yields for the same arguments, without walking them. */
  count(namespace: string | undefined, start?: string): number;
}

const emptyBucket: Bucket = { objects: new Map(), ids: [] };

/** Objects keyed by resource, namespace and name, with history for watches and consistent lists. */
export class Store {
  #rv: number;
  readonly #buckets = new Map<string, Bucket>();
  #history: HistoryEvent[] = [];
  /** Events with rv > compactedRv are retained; a snapshot or watch from below it is gone. */
  #compactedRv: number;
  readonly #maxHistory: number;
  readonly #listeners = new Set<(event: HistoryEvent) => void>();
  /**
   * The latest past snapshot per resource, so that the pages of one continue sequence do not each replay
   * the history since their resourceVersion. Only holds objects history also holds: dropped on compaction.
   */
  readonly #overlays = new Map<string, Overlay>();

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
    const found = this.#buckets.get(key)?.objects.get(objectKey(namespace, name));
    return found === undefined ? undefined : structuredClone(found);
  }

  /** True when a namespace-scoped lookup for any object in `namespace` would find something. */
  has(key: string, namespace: string, name: string): boolean {
    return this.#buckets.get(key)?.objects.has(objectKey(namespace, name)) ?? false;
  }

  /**
   * Copies of the objects of `key` (in `namespace` when given), sorted by etcd key, as of `atRv`
   * (default: now). Throws {@link CompactedError} when `atRv` is older than the retained history.
   */
  list(key: string, namespace: string | undefined, atRv?: number): KubeObject[] {
    const result: KubeObject[] = [];
    for (const object of this.snapshot(key, atRv).objects(namespace)) {
      result.push(structuredClone(object));
    }
    return result;
  }

  /**
   * The objects of `key` as of `atRv` (default: now), read in place. Costs the changes to `key` since the
   * previous snapshot at the same `atRv`, not the size of the resource. Throws {@link CompactedError} when
   * `atRv` is older than the retained history.
   */
  snapshot(key: string, atRv?: number): Snapshot {
    const bucket = this.#buckets.get(key) ?? emptyBucket;
    if (atRv === undefined || atRv >= this.#rv) return snapshotOf(bucket, undefined);
    if (atRv < this.#compactedRv) throw new CompactedError(atRv, this.#compactedRv);
    return snapshotOf(bucket, this.#overlay(key, atRv).before);
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
    this.#dropCompactedOverlays();
  }

  #dropCompactedOverlays(): void {
    for (const [key, overlay] of this.#overlays) {
      if (overlay.atRv < this.#compactedRv) this.#overlays.delete(key);
    }
  }

  /** The overlay of `key` at `atRv` (compactedRv <= atRv < rv), brought up to the current revision. */
  #overlay(key: string, atRv: number): Overlay {
    let overlay = this.#overlays.get(key);
    if (overlay === undefined || overlay.atRv !== atRv) {
      overlay = { atRv, throughRv: atRv, before: new Map() };
      this.#overlays.set(key, overlay);
    }
    if (overlay.throughRv === this.#rv) return overlay;
    let first = this.#history.length;
    while (first > 0 && this.#history[first - 1]!.rv > overlay.throughRv) first--;
    // Oldest first: the first change after atRv tells what an id was at atRv; later ones do not.
    for (let index = first; index < this.#history.length; index++) {
      const event = this.#history[index]!;
      if (event.key !== key) continue;
      const id = objectKey(event.namespace, event.name);
      if (overlay.before.has(id)) continue;
      if (event.type === 'ADDED') overlay.before.set(id, undefined);
      else if (event.previous !== undefined) overlay.before.set(id, event.previous);
    }
    overlay.throughRv = this.#rv;
    return overlay;
  }

  #commit(type: HistoryEvent['type'], key: string, input: KubeObject): KubeObject {
    const metadata = (input.metadata ?? {}) as Record<string, unknown>;
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    const name = String(metadata.name ?? '');
    const id = objectKey(namespace, name);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { objects: new Map(), ids: [] };
      this.#buckets.set(key, bucket);
    }
    const previous = bucket.objects.get(id);
    this.#rv += 1;
    const copy = structuredClone(input);
    copy.metadata = { ...metadata, resourceVersion: String(this.#rv) };
    // Written as kube-apiserver's Go encoding writes it, so every reader sees sorted maps.
    const stored = orderKeys(omitEmpty(copy));
    if (type === 'DELETED') {
      if (bucket.objects.delete(id)) bucket.ids.splice(lowerBound(bucket.ids, id), 1);
    } else {
      if (!bucket.objects.has(id)) bucket.ids.splice(lowerBound(bucket.ids, id), 0, id);
      bucket.objects.set(id, stored);
    }
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
      this.#dropCompactedOverlays();
    }
    for (const listener of this.#listeners) listener(event);
    return structuredClone(stored);
  }
}

/** A snapshot of `bucket` as it is now, changed back by `before` (see {@link Overlay}) when given. */
function snapshotOf(
  bucket: Bucket,
  before: ReadonlyMap<string, KubeObject | undefined> | undefined,
): Snapshot {
  const range = (namespace: string | undefined, start: string | undefined) => {
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const from = prefix !== undefined && (start === undefined || start < prefix) ? prefix : start;
    return {
      from: from ?? '',
      includes: (id: string): boolean =>
        (from === undefined || id >= from) && (prefix === undefined || id.startsWith(prefix)),
      // Every id with the prefix sorts below the prefix with its '/' raised to '0'.
      end: prefix === undefined ? undefined : `${namespace}0`,
    };
  };
  // Ids that existed at the snapshot but are gone now, in order.
  const gone = (includes: (id: string) => boolean): string[] => {
    const ids: string[] = [];
    if (before === undefined) return ids;
    for (const [id, object] of before) {
      if (object !== undefined && !bucket.objects.has(id) && includes(id)) ids.push(id);
    }
    return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  };
  return {
    *objects(namespace, start) {
      const { from, includes } = range(namespace, start);
      const extra = gone(includes);
      let next = 0;
      for (let index = lowerBound(bucket.ids, from); index < bucket.ids.length; index++) {
        const id = bucket.ids[index]!;
        if (!includes(id)) break;
        while (next < extra.length && extra[next]! < id) yield before!.get(extra[next++]!)!;
        if (before?.has(id) === true) {
          const then = before.get(id);
          if (then !== undefined) yield then;
        } else {
          yield bucket.objects.get(id)!;
        }
      }
      while (next < extra.length) yield before!.get(extra[next++]!)!;
    },
    count(namespace, start) {
      const { from, includes, end } = range(namespace, start);
      const low = lowerBound(bucket.ids, from);
      let count = (end === undefined ? bucket.ids.length : lowerBound(bucket.ids, end)) - low;
      if (count < 0) count = 0;
      if (before === undefined) return count;
      for (const [id, object] of before) {
        if (!includes(id)) continue;
        const present = bucket.objects.has(id);
        if (object === undefined && present) count--;
        else if (object !== undefined && !present) count++;
      }
      return count;
    },
  };
}
