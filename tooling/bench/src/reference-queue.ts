// The W1 limit reference: a bare Map/Set/array queue with client-go's queue semantics (dirty and
// processing sets, hand-off to a waiting worker), with nothing else: no metrics, no options, no checks.
import type { GetResult } from '@lasso/workqueue';

/** The queue surface W1 drives; both @lasso/workqueue and the reference implement it. */
export interface BenchQueue<T> {
  add(item: T): void;
  get(): Promise<GetResult<T>>;
  done(item: T): void;
  len(): number;
  shutDown(): void;
}

const shutdown: GetResult<never> = { shutdown: true };

// Item state bits in one Map: cheaper than client-go's two sets (one hash lookup per call), so the
// reference stays the fastest plain design and the ratio measures @lasso/workqueue's overhead.
const DIRTY = 1;
const PROCESSING = 2;

/** The limit: the least code that keeps dedup, single processing and re-queue after done. */
export class ReferenceQueue<T> implements BenchQueue<T> {
  queue: T[] = [];
  head = 0;
  state = new Map<T, number>();
  waiters: Array<(result: GetResult<T>) => void> = [];
  closed = false;

  add(item: T): void {
    if (this.closed) return;
    const state = this.state.get(item);
    if (state === undefined) {
      this.state.set(item, DIRTY);
      this.push(item);
    } else if ((state & DIRTY) === 0) {
      this.state.set(item, state | DIRTY);
    }
  }

  get(): Promise<GetResult<T>> {
    if (this.head < this.queue.length) {
      const item = this.queue[this.head++] as T;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      }
      this.state.set(item, PROCESSING);
      return Promise.resolve({ item, shutdown: false });
    }
    if (this.closed) return Promise.resolve(shutdown);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: T): void {
    const state = this.state.get(item);
    if (state === undefined || (state & PROCESSING) === 0) return;
    if ((state & DIRTY) === 0) {
      this.state.delete(item);
      return;
    }
    this.state.set(item, DIRTY);
    this.push(item);
  }

  len(): number {
    return this.queue.length - this.head;
  }

  shutDown(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter(shutdown);
  }

  private push(item: T): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) {
      this.queue.push(item);
      return;
    }
    this.state.set(item, PROCESSING);
    waiter({ item, shutdown: false });
  }
}
