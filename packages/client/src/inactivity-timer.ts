// The inactivity deadline of a watch: one lazy timer on the injected clock, shared by the Client's watch
// (bytes) and the cache's Reflector (events).
import type { Clock } from '@lasso/core';

/** Options of {@link InactivityTimer}. */
export interface InactivityTimerOptions {
  clock: Clock;
  /** How long without activity before `onExpire` runs; 0 (or less) never expires. */
  timeoutMs: number;
  /** Called once, with how long it was quiet, when `timeoutMs` passed without activity. */
  onExpire: (idleMs: number) => void;
}

/**
 * A deadline that moves with activity: `onExpire` runs once when `timeoutMs` pass without
 * {@link InactivityTimer.touch}. Lazy: `touch()` only records the time, and the one timer, when it
 * fires before the quiet time is long enough, re-arms for the remainder, so it expires exactly when
 * a timer re-armed at every touch would, without a cancel and a schedule per event. Between
 * {@link InactivityTimer.hold} and {@link InactivityTimer.release} it does not expire (a consumer
 * holding an event is not a silent server); `release()` counts as activity. Call
 * {@link InactivityTimer.cancel} when done: no timer is left behind.
 *
 * @example
 * ```ts
 * declare const client: Client;
 * const controller = new AbortController();
 * const deadline = new InactivityTimer({
 *   clock, timeoutMs: 330_000,
 *   onExpire: (idleMs) => controller.abort(new TimeoutError(`watch silent for ${idleMs} ms`, 330_000)),
 * });
 * try {
 *   for await (const event of client.watch('default', { inactivityTimeoutMs: 0, signal: controller.signal })) {
 *     deadline.touch();
 *   }
 * } finally {
 *   deadline.cancel();
 * }
 * ```
 */
export class InactivityTimer {
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #onExpire: (idleMs: number) => void;
  #last: number;
  #holding = false;
  #timer: { cancel(): void } | undefined;
  #done = false;

  constructor(options: InactivityTimerOptions) {
    const { clock, timeoutMs, onExpire } = options;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs)) {
      throw new RangeError(`InactivityTimer: timeoutMs must be a number, got ${String(timeoutMs)}`);
    }
    if (typeof onExpire !== 'function') {
      throw new TypeError('InactivityTimer: onExpire must be a function');
    }
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
    this.#onExpire = onExpire;
    this.#last = clock.monotonic();
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.#timer = clock.schedule(timeoutMs, this.#check);
    } else {
      this.#done = true;
    }
  }

  /** Record activity now. */
  touch(): void {
    this.#last = this.#clock.monotonic();
  }

  /** Stop counting until {@link InactivityTimer.release}. */
  hold(): void {
    this.#holding = true;
  }

  /** Count again, from now. */
  release(): void {
    this.#holding = false;
    this.#last = this.#clock.monotonic();
  }

  /** Cancel the timer; `onExpire` will not run. */
  cancel(): void {
    this.#done = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    if (this.#done) return;
    const idle = this.#clock.monotonic() - this.#last;
    if (this.#holding) {
      this.#timer = this.#clock.schedule(this.#timeoutMs, this.#check);
    } else if (idle >= this.#timeoutMs) {
      this.#done = true;
      this.#onExpire(idle);
    } else {
      this.#timer = this.#clock.schedule(this.#timeoutMs - idle, this.#check);
    }
  };
}
