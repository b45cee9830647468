// QueueTaker: lets a controller's workers stop waiting on its one long-lived queue without shutting it down.
// A workqueue `get()` cannot be withdrawn, so a stop wakes each waiting worker with a wake-up item of its own
// (never handed to a handler); the queue then holds no waiting get while the controller is stopped, and keys
// added meanwhile stay queued in order for the next start.
import type { GetResult, WorkQueue } from '@lasso/workqueue';

/** What {@link QueueTaker.accept} returns for a wake-up item: the worker asks again. */
export const wakeUp: unique symbol = Symbol('lasso.controller.wakeUp') as never;

/** Takes keys from `queue` for workers that stop when told to. */
export class QueueTaker {
  readonly #queue: WorkQueue<string>;
  // Gets in progress: the workers a stop must wake.
  #waiting = 0;
  // Wake-up items in the queue. NUL never appears in a Kubernetes key, and membership (not the prefix) decides.
  readonly #wakeUps = new Set<string>();
  #nextWakeUp = 0;

  constructor(queue: WorkQueue<string>) {
    this.#queue = queue;
  }

  /**
   * Wait for the next item: a worker checks whether it is stopping, then calls `accept(await get(), stopping)`,
   * which returns the key (the caller must `done` it), undefined once the worker is stopping (call
   * {@link QueueTaker.wake} when it starts to) or the queue shut down, or {@link wakeUp} to ask again. Two calls in
   * place of one async `take`: one promise less per key.
   */
  get(): Promise<GetResult<string>> {
    this.#waiting++;
    try {
      return this.#queue.get();
    } catch (error) {
      this.#waiting--;
      throw error;
    }
  }

  /**
   * What a `get` result means (call it once per `get`, as soon as the get settled, with whether the worker is
   * stopping now): the key, undefined to stop, or {@link wakeUp} to get again.
   */
  accept(result: GetResult<string>, stopping: boolean): string | undefined | typeof wakeUp {
    this.#waiting--;
    if (result.shutdown) return undefined;
    const key = result.item;
    if (this.#wakeUps.delete(key)) {
      this.#queue.done(key);
      return wakeUp;
    }
    if (stopping) {
      // Handed out as the worker began to stop: not this worker's any more. Added while being processed, the key is
      // marked dirty, and done() queues it again.
      this.#queue.add(key);
      this.#queue.done(key);
      return undefined;
    }
    return key;
  }

  /** Whether `item` is one of the wake-up items (never a key: it must not be dropped from the queue). */
  isWakeUp(item: string): boolean {
    return this.#wakeUps.has(item);
  }

  /** Wake every worker waiting in a `get`, so those that are stopping return. */
  wake(): void {
    for (let index = 0; index < this.#waiting; index++) {
      const wakeUp = `\u0000wake-up ${this.#nextWakeUp++}`;
      this.#wakeUps.add(wakeUp);
      this.#queue.add(wakeUp);
    }
  }
}
