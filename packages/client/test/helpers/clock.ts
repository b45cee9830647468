// A FakeClock that tells tests when code under test scheduled a timer (so they advance after real I/O).
import { FakeClock } from '@lasso/core/testing';

export class EventClock extends FakeClock {
  #waiters: Array<() => void> = [];

  override schedule(delayMs: number, callback: () => void): { cancel(): void } {
    const handle = super.schedule(delayMs, callback);
    for (const wake of this.#waiters.splice(0)) wake();
    return handle;
  }

  /** Resolves once at least `count` timers are pending (bounded by the test timeout). */
  async untilPending(count = 1): Promise<void> {
    while (this.pendingTimers() < count) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}
