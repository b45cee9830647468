// DeltaFIFO: a queue of per-key delta lists between the reflector and the informer's store.
// Ports client-go tools/cache delta_fifo.go (Replaced deltas on, deletes deduplicated, tombstones on relist).
import { abortReason } from '@lasso/core';
import { type KeyFunc, metaNamespaceKeyFunc, tombstoneBrand } from './store.ts';

/** What happened to an object. `Replaced` comes from a relist, `Sync` from a resync. */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/**
 * The object of a deletion the informer inferred from a relist instead of seeing it in the watch: the
 * object is the last state the cache knew and may be stale (client-go `DeletedFinalStateUnknown`).
 */
export class DeletedFinalStateUnknown<T = unknown> {
  /** Store key of the deleted object. */
  readonly key: string;
  /** Last known state of the object. */
  readonly object: T;
  readonly [tombstoneBrand] = true;

  constructor(key: string, object: T) {
    this.key = key;
    this.object = object;
  }
}

/** True when `value` is a {@link DeletedFinalStateUnknown} tombstone (from any copy of this package). */
export function isDeletedFinalStateUnknown<T = unknown>(
  value: unknown,
): value is DeletedFinalStateUnknown<T> {
  return typeof value === 'object' && value !== null && tombstoneBrand in value;
}

/** One change of one object. */
export interface Delta<T> {
  readonly type: DeltaType;
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** What the DeltaFIFO needs from the informer's store to infer deletions on relist. */
export interface KnownObjects<T> {
  getByKey(key: string): T | undefined;
  listKeys(): string[];
}

/** A function applied to every object before it is queued (and so before it is stored). */
export type TransformFunc<T> = (object: T) => T;

/** Options of {@link DeltaFIFO}. */
export interface DeltaFIFOOptions<T> {
  /** Default {@link metaNamespaceKeyFunc} (tombstones yield their key). */
  keyFunc?: KeyFunc | undefined;
  /** The informer's indexer: lets `replace` and `resync` see objects already popped. */
  knownObjects?: KnownObjects<T> | undefined;
  /** Applied to Added/Updated/Deleted/Replaced objects; not to Sync deltas nor tombstones (already transformed). */
  transform?: TransformFunc<T> | undefined;
}

/** One popped entry: every delta of one key, oldest first. */
export interface PoppedDeltas<T> {
  key: string;
  deltas: Delta<T>[];
  /** True while popping the items of the first `replace` (the initial list). */
  isInInitialList: boolean;
}

/**
 * A producer/consumer queue of deltas keyed by object: several changes of one key before it is popped come
 * out together in order, and the key holds one place in the queue. `replace` (a relist) queues `Replaced`
 * deltas and a `Deleted` delta wrapping a {@link DeletedFinalStateUnknown} for each known key that is
 * missing from the list; two consecutive deletes of a key collapse into one.
 *
 * **Gotchas**: single consumer; `pop` waits until an item exists, the FIFO is closed, or the signal aborts.
 */
export class DeltaFIFO<T> {
  readonly #keyFunc: KeyFunc;
  readonly #knownObjects: KnownObjects<T> | undefined;
  readonly #transform: TransformFunc<T> | undefined;
  // Replaced by a new Map (and `#queue` by a new array) whenever a pop empties the FIFO. V8 allocates a Map's
  // next hash table in the generation of its current one and leaves the old table pointing at the new one with
  // its entries still in it: once a full GC has moved the table of a long-lived Map to the old generation, every
  // table after it is old too, and each dead table keeps the deltas it held (and their objects) alive through
  // every scavenge until the next full GC. A FIFO that fills and drains once per watch body chunk rebuilds its
  // table several times per chunk, so after any full GC every event's objects were promoted (W3: peak heap
  // 50-200 MiB instead of ~20). A new Map per drained FIFO starts in the young generation.
  #items = new Map<string, Delta<T>[]>();
  // Keys in FIFO order; a key is in `#queue` exactly when it is in `#items`. `#head` avoids O(n) shift.
  #queue: string[] = [];
  #head = 0;
  #populated = false;
  #initialPopulationCount = 0;
  #closed = false;
  #waiter: (() => void) | undefined;
  // Built once: a pop without a signal parks on `new Promise(this.#park)`, no closure per wait (the informer
  // pops once per event when events arrive one at a time).
  readonly #park = (resolve: () => void): void => {
    this.#waiter = resolve;
  };

  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.#keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#transform = options.transform;
  }

  /** The key of an object, a tombstone, or a delta list (its newest object). */
  keyOf(object: unknown): string {
    if (Array.isArray(object)) {
      const newest = object[object.length - 1] as Delta<T> | undefined;
      if (newest === undefined) throw new TypeError('keyOf: empty delta list');
      return this.keyOf(newest.object);
    }
    if (isDeletedFinalStateUnknown(object)) return object.key;
    return this.#keyFunc(object);
  }

  /** Queue an `Added` delta (a watch ADDED event). */
  add(object: T): void {
    this.#populated = true;
    this.#queueAction('Added', object);
  }

  /** Queue an `Updated` delta (a watch MODIFIED event). */
  update(object: T): void {
    this.#populated = true;
    this.#queueAction('Updated', object);
  }

  /**
   * Queue a deletion. Ignored when the key is neither queued nor known (it was never added or is gone).
   */
  delete(object: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyOf(object);
    this.#populated = true;
    const known = this.#knownObjects?.getByKey(key) !== undefined;
    if (!known && !this.#items.has(key)) return;
    this.#queueAction('Deleted', object);
  }

  /**
   * Queue `Replaced` for every listed object and a tombstone deletion for every queued or known key missing
   * from `list`. The first call marks the FIFO populated: {@link hasSynced} turns true once those are popped.
   * `options.transformed`: the objects of `list` are already the transform's results (a reflector whose store
   * has the transform applied it as they arrived), so they are queued as they are.
   */
  replace(
    list: readonly T[],
    _resourceVersion: string,
    options?: { transformed?: boolean | undefined },
  ): void {
    const keys = new Set<string>();
    const transformed = options?.transformed === true;
    for (const object of list) {
      const key = this.keyOf(object);
      keys.add(key);
      this.#queueAction('Replaced', object, key, transformed);
    }
    let queuedDeletions = 0;
    for (const [key, deltas] of [...this.#items]) {
      if (keys.has(key)) continue;
      let last: unknown = deltas[deltas.length - 1]?.object;
      if (isDeletedFinalStateUnknown<T>(last)) last = last.object;
      queuedDeletions++;
      this.#queueAction('Deleted', new DeletedFinalStateUnknown(key, last as T), key);
    }
    if (this.#knownObjects !== undefined) {
      for (const key of this.#knownObjects.listKeys()) {
        if (keys.has(key) || this.#items.has(key)) continue;
        const last = this.#knownObjects.getByKey(key);
        if (last === undefined) continue;
        queuedDeletions++;
        this.#queueAction('Deleted', new DeletedFinalStateUnknown(key, last), key);
      }
    }
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /** Queue a `Sync` delta for every known object that has no pending delta. */
  resync(): void {
    if (this.#knownObjects === undefined) return;
    for (const key of this.#knownObjects.listKeys()) {
      if (this.#items.has(key)) continue;
      const object = this.#knownObjects.getByKey(key);
      if (object !== undefined) this.#queueAction('Sync', object, key);
    }
  }

  /** True once the first `replace` (or any add/update/delete) happened and the initial list was popped. */
  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Number of queued keys. */
  len(): number {
    return this.#queue.length - this.#head;
  }

  /** Queued keys in FIFO order. */
  listKeys(): string[] {
    return this.#queue.slice(this.#head);
  }

  /** The pending deltas of a key (a copy), or undefined. */
  getByKey(key: string): Delta<T>[] | undefined {
    const deltas = this.#items.get(key);
    return deltas === undefined ? undefined : [...deltas];
  }

  /** Pop the oldest key without waiting; undefined when empty. */
  tryPop(): PoppedDeltas<T> | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const key = this.#queue[this.#head] as string;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    const deltas = this.#items.get(key) as Delta<T>[];
    if (this.#head < this.#queue.length) {
      this.#items.delete(key);
    } else {
      // Drained: new storage instead of the emptied one (see `#items`).
      this.#items = new Map();
      this.#queue = [];
      this.#head = 0;
    }
    const isInInitialList = this.#initialPopulationCount > 0;
    if (isInInitialList) this.#initialPopulationCount--;
    return { key, deltas, isInInitialList };
  }

  /**
   * Pop the oldest key, waiting for one. Resolves undefined once the FIFO is closed and empty; rejects with
   * the signal's reason when it aborts first.
   */
  async pop(options: { signal?: AbortSignal } = {}): Promise<PoppedDeltas<T> | undefined> {
    const { signal } = options;
    for (;;) {
      const popped = this.tryPop();
      if (popped !== undefined) return popped;
      if (this.#closed) return undefined;
      if (signal === undefined) {
        await new Promise<void>(this.#park);
        continue;
      }
      if (signal.aborted) throw abortReason(signal);
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          this.#waiter = undefined;
          reject(abortReason(signal as AbortSignal));
        };
        this.#waiter = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** Close the FIFO: `pop` drains what is queued, then resolves undefined. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** True once {@link close} was called. */
  isClosed(): boolean {
    return this.#closed;
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  #queueAction(
    type: DeltaType,
    object: T | DeletedFinalStateUnknown<T>,
    knownKey?: string,
    transformed = false,
  ): void {
    const key = knownKey ?? this.keyOf(object);
    let stored = object;
    if (
      this.#transform !== undefined &&
      !transformed &&
      type !== 'Sync' &&
      !isDeletedFinalStateUnknown(object)
    ) {
      stored = this.#transform(object as T);
    }
    const deltas = this.#items.get(key);
    if (deltas === undefined) {
      this.#items.set(key, [{ type, object: stored }]);
      this.#queue.push(key);
      if (this.#waiter !== undefined) this.#wake();
      return;
    }
    deltas.push({ type, object: stored });
    dedupDeletes(deltas);
  }
}

/** Collapse two trailing deletes into one, keeping the one that is not a tombstone (client-go isDeletionDup). */
function dedupDeletes<T>(deltas: Delta<T>[]): void {
  const n = deltas.length;
  if (n < 2) return;
  const newer = deltas[n - 1] as Delta<T>;
  const older = deltas[n - 2] as Delta<T>;
  if (newer.type !== 'Deleted' || older.type !== 'Deleted') return;
  deltas[n - 2] = isDeletedFinalStateUnknown(older.object) ? newer : older;
  deltas.pop();
}
