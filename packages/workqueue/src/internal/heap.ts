// A binary min-heap of waiting entries keyed by ready time; ports client-go's waitForPriorityQueue
// (util/workqueue/delaying_queue.go), which tracks each entry's index so a deadline can move up.

/** One waiting item: `index` is maintained by the heap so `update` is O(log n). */
export interface HeapEntry<T> {
  readonly item: T;
  readyAt: number;
  /** Insertion order: equal deadlines come out first in, first out. */
  readonly seq: number;
  index: number;
}

function before<T>(a: HeapEntry<T>, b: HeapEntry<T>): boolean {
  return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
}

/** Min-heap on `(readyAt, seq)`. */
export class DeadlineHeap<T> {
  #entries: HeapEntry<T>[] = [];

  get size(): number {
    return this.#entries.length;
  }

  peek(): HeapEntry<T> | undefined {
    return this.#entries[0];
  }

  push(entry: HeapEntry<T>): void {
    entry.index = this.#entries.length;
    this.#entries.push(entry);
    this.#up(entry.index);
  }

  pop(): HeapEntry<T> | undefined {
    const entries = this.#entries;
    const top = entries[0];
    if (top === undefined) return undefined;
    const last = entries.pop() as HeapEntry<T>;
    if (last !== top) {
      entries[0] = last;
      last.index = 0;
      this.#down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restore order after `entry.readyAt` moved earlier (the only direction the delaying queue moves it). */
  update(entry: HeapEntry<T>): void {
    this.#up(entry.index);
    this.#down(entry.index);
  }

  /** Remove every entry `predicate` accepts (their `index` becomes -1), then restore order: O(n). */
  removeWhere(predicate: (entry: HeapEntry<T>) => boolean): void {
    const removed = this.#entries.map((entry) => predicate(entry));
    if (!removed.includes(true)) return;
    const kept: HeapEntry<T>[] = [];
    this.#entries.forEach((entry, index) => {
      if (removed[index] === true) entry.index = -1;
      else kept.push(entry);
    });
    this.#entries = kept;
    kept.forEach((entry, index) => {
      entry.index = index;
    });
    for (let index = (kept.length >> 1) - 1; index >= 0; index--) this.#down(index);
  }

  clear(): void {
    for (const entry of this.#entries) entry.index = -1;
    this.#entries = [];
  }

  #up(index: number): void {
    const entries = this.#entries;
    const entry = entries[index] as HeapEntry<T>;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = entries[parentIndex] as HeapEntry<T>;
      if (!before(entry, parent)) break;
      entries[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    entries[index] = entry;
    entry.index = index;
  }

  #down(index: number): void {
    const entries = this.#entries;
    const length = entries.length;
    const entry = entries[index] as HeapEntry<T>;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && before(entries[right] as HeapEntry<T>, entries[left] as HeapEntry<T>)) {
        child = right;
      }
      const childEntry = entries[child] as HeapEntry<T>;
      if (!before(childEntry, entry)) break;
      entries[index] = childEntry;
      childEntry.index = index;
      index = child;
    }
    entries[index] = entry;
    entry.index = index;
  }
}
