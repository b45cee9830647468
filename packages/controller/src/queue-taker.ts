// QueueTaker: lets a controller's workers stop waiting on its one long-lived queue without shutting it down.
// A workqueue `get()` cannot be withdrawn, so a stop wakes each waiting worker with a wake-up item of its own
// (never handed to a handler); the queue then holds no waiting get while the controller is stopped, and keys
// added meanwhile stay queued in order for the next start.
import type { WorkQueue } from '@lasso/workqueue';

/** Takes keys from `queue` for workers that stop when their signal aborts. */
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
   * The next key, or undefined once `signal` has aborted (call {@link QueueTaker.wake} when it does) or the queue
   * shut down. A key returned was handed out by the queue: the caller must `done` it.
   */
  async take(signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      this.#waiting++;
      let result: Awaited<ReturnType<WorkQueue<string>['get']>>;
      try {
        result = await this.#queue.get();
      } finally {
        this.#waiting--;
      }
      if (result.shutdown) return undefined;
      const key = result.item;
      if (this.#wakeUps.delete(key)) {
        this.#queue.done(key);
        continue;
      }
      if (signal.aborted) {
        // Handed out as the signal aborted: not this worker's any more. Added while being processed, the key is
        // marked dirty, and done() queues it again.
        this.#queue.add(key);
        this.#queue.done(key);
        return undefined;
      }
      return key;
    }
  }

  /** Wake every worker waiting in {@link QueueTaker.take}, so those whose signal aborted return. */
  wake(): void {
    for (let index = 0; index < this.#waiting; index++) {
      const wakeUp = `\u0000wake-up ${this.#nextWakeUp++}`;
      this.#wakeUps.add(wakeUp);
      this.#queue.add(wakeUp);
    }
  }
}
