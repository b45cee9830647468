// QueueTaker: lets a controller's workers stop waiting on its one long-lived queue without shutting it down.
// A workqueue `get()` cannot be withdrawn, so a worker that stops leaves its pending get behind; the next worker
// adopts it, and a key it hands out while no worker holds it goes straight back into the queue.
import type { WorkQueue } from '@lasso/workqueue';

interface PendingGet {
  /** The worker waiting on this get; undefined while it is parked (nobody waits). */
  owner: ((key: string | undefined) => void) | undefined;
}

/** Takes keys from `queue` for workers that may stop waiting at any moment. */
export class QueueTaker {
  readonly #queue: WorkQueue<string>;
  // Gets left behind by stopped workers, in the order they were parked. At most one per worker that ever ran
  // at the same time: a worker adopts a parked get before it asks the queue for a new one.
  readonly #parked: PendingGet[] = [];

  constructor(queue: WorkQueue<string>) {
    this.#queue = queue;
  }

  /**
   * The next key, or undefined when `signal` aborts first or the queue shut down. A key returned was handed
   * out by the queue: the caller must `done` it (or {@link QueueTaker.giveBack} it).
   */
  take(signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const pending = this.#parked.shift() ?? this.#get();
    return new Promise<string | undefined>((resolve) => {
      const onAbort = (): void => {
        pending.owner = undefined;
        this.#parked.push(pending);
        resolve(undefined);
      };
      pending.owner = (key) => {
        signal.removeEventListener('abort', onAbort);
        resolve(key);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Put a key that was handed out but will not be processed back into the queue, at once. */
  giveBack(key: string): void {
    // Added while processing, it is marked dirty; done() then queues it again (or hands it to a waiting get).
    this.#queue.add(key);
    this.#queue.done(key);
  }

  /** Gets waiting for a worker (for tests and diagnostics). */
  parked(): number {
    return this.#parked.length;
  }

  #get(): PendingGet {
    const pending: PendingGet = { owner: undefined };
    void this.#queue.get().then((result) => {
      const key = result.shutdown ? undefined : result.item;
      const owner = pending.owner;
      if (owner !== undefined) {
        pending.owner = undefined;
        owner(key);
        return;
      }
      // Parked: no worker wants a key now.
      const index = this.#parked.indexOf(pending);
      if (index >= 0) this.#parked.splice(index, 1);
      if (key !== undefined) this.giveBack(key);
    });
    return pending;
  }
}
