// The fencing of a leader: the renew deadline (a timer, and a synchronous check of the clock that runs before
// anything else once a paused process wakes) and the wait between renewals, which checks it too.
import type { Clock, TimerHandle } from '@lasso/core';

/**
 * @internal The renew deadline of a leader. It runs from the moment the last successful write was SENT: a rival
 * counts its wait from when it saw that write, which is later, so with renewDeadlineMs < leaseDurationMs the
 * leader always stops first. (client-go counts from the start of each renew round, up to retryPeriod later.)
 *
 * Fencing: a timer only fires once the process runs again. A process paused past its deadline (event loop
 * blocked, SIGSTOP, a VM frozen) wakes with every timer overdue; whichever elector code runs first calls
 * {@link RenewDeadline.check}, which compares the deadline with the clock and expires leadership synchronously,
 * before any renewal or await.
 */
export class RenewDeadline {
  readonly #clock: Clock;
  readonly #renewDeadlineMs: number;
  readonly #expire: () => void;
  #deadlineAt: number;
  #timer: TimerHandle;

  /** Arm the deadline `renewDeadlineMs` after `writtenAt` (monotonic); `expire` runs when it passes. */
  constructor(clock: Clock, renewDeadlineMs: number, writtenAt: number, expire: () => void) {
    this.#clock = clock;
    this.#renewDeadlineMs = renewDeadlineMs;
    this.#expire = expire;
    this.#deadlineAt = writtenAt + renewDeadlineMs;
    this.#timer = this.#arm();
  }

  /** The fence: true (after calling `expire`) when the deadline has passed on the clock. */
  check(): boolean {
    if (this.#clock.monotonic() < this.#deadlineAt) return false;
    this.#expire();
    return true;
  }

  /** A renewal sent at `writtenAt` succeeded: the deadline moves to `writtenAt + renewDeadlineMs`. */
  extend(writtenAt: number): void {
    this.#timer.cancel();
    this.#deadlineAt = writtenAt + this.#renewDeadlineMs;
    this.#timer = this.#arm();
  }

  /** Leadership ended: no timer left behind. */
  cancel(): void {
    this.#timer.cancel();
  }

  #arm(): TimerHandle {
    return this.#clock.schedule(this.#deadlineAt - this.#clock.monotonic(), this.#expire);
  }
}

/**
 * @internal Wait `retryPeriodMs` for the next renewal; false when leadership ended meanwhile. The timer's callback
 * checks the deadline synchronously (`fence`): a timer that fires late after a pause must not start a renewal.
 */
export function renewTick(
  clock: Clock,
  retryPeriodMs: number,
  leading: AbortSignal,
  fence: () => boolean,
): Promise<boolean> {
  if (leading.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.schedule(
      retryPeriodMs,
      () => {
        leading.removeEventListener('abort', onAbort);
        resolve(!fence() && !leading.aborted);
      },
      { keepAlive: true },
    );
    leading.addEventListener('abort', onAbort, { once: true });
  });
}
