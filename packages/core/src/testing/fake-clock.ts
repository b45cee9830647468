// FakeClock: a Clock whose time moves only when a test advances it.
import type { Clock, ScheduleOptions, TimerHandle } from '../clock.ts';

interface FakeTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
  readonly keepAlive: boolean;
  cancelled: boolean;
}

/** Let pending promise callbacks run: several macrotask turns drain chains of awaits and I/O callbacks. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A {@link Clock} for tests. Time stands still until {@link FakeClock.advance} moves it; due timers
 * then fire one by one in deadline order (ties in scheduling order), and promises settle between
 * them, so code that awaits after a timer fires has run before the next timer does.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * let fired = false;
 * clock.schedule(50, () => {
 *   fired = true;
 * });
 * await clock.advance(50);
 * expect(fired).toBe(true);
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #monotonic = 0;
  #nextId = 0;
  #timers: FakeTimer[] = [];
  // Tests awaiting a schedule call (see `scheduled` and `untilPending`), woken by `schedule`.
  #waiters: Array<{ readonly delayMs: number | undefined; readonly wake: () => void }> = [];

  /** @param startMs wall-clock epoch ms the clock starts at (default 2024-01-01T00:00:00Z). */
  constructor(startMs = Date.UTC(2024, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#monotonic;
  }

  schedule(delayMs: number, callback: () => void, options?: ScheduleOptions): TimerHandle {
    const timer: FakeTimer = {
      id: this.#nextId++,
      // Same reading of odd delays as systemClock: NaN and negatives are 0, Infinity never falls due.
      at: this.#monotonic + (Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs)),
      callback,
      keepAlive: options?.keepAlive === true,
      cancelled: false,
    };
    this.#timers.push(timer);
    if (this.#waiters.length > 0) this.#wake(delayMs);
    return {
      cancel: () => {
        timer.cancelled = true;
        this.#timers = this.#timers.filter((t) => t !== timer);
      },
    };
  }

  /**
   * Number of timers scheduled and not yet fired or cancelled; with `filter.keepAlive`, only those
   * that would (true) or would not (false) keep a real process alive.
   */
  pendingTimers(filter?: { keepAlive: boolean }): number {
    if (filter === undefined) return this.#timers.length;
    return this.#timers.filter((t) => t.keepAlive === filter.keepAlive).length;
  }

  /**
   * Resolves when the code under test next schedules a timer (of exactly `delayMs`, when given): a test
   * advances time only once the code has reached its wait, whatever real I/O came before it, without polling.
   * Call it before the action that leads to the timer, so that a timer scheduled at once is not missed.
   *
   * @example
   * ```ts
   * const clock = new FakeClock();
   * const retrying = clock.scheduled(250);
   * queueMicrotask(() => clock.schedule(250, () => {})); // e.g. a retry after a failed request
   * await retrying;
   * await clock.advance(250);
   * ```
   */
  scheduled(delayMs?: number): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ delayMs, wake: resolve }));
  }

  /**
   * Resolves once at least `count` timers are pending (at once when they already are), without polling:
   * it waits for schedule calls.
   *
   * @example
   * ```ts
   * const clock = new FakeClock();
   * queueMicrotask(() => clock.schedule(1_000, () => {}));
   * await clock.untilPending(1);
   * expect(clock.pendingTimers()).toBe(1);
   * ```
   */
  async untilPending(count = 1): Promise<void> {
    while (this.pendingTimers() < count) await this.scheduled();
  }

  /** Deadline (monotonic ms) of the next timer, or undefined when none is pending. */
  nextTimerAt(): number | undefined {
    return this.#next()?.at;
  }

  /**
   * Move time forward by `ms`, firing every timer that falls due on the way, in deadline order,
   * with pending promises settled before and after each one. Timers scheduled by a callback fire
   * too when they fall within the window.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`FakeClock.advance: ms must be a finite number >= 0, got ${ms}`);
    }
    const target = this.#monotonic + ms;
    await settle();
    for (;;) {
      const next = this.#next();
      if (next === undefined || next.at > target) break;
      this.#move(next.at);
      this.#timers = this.#timers.filter((t) => t !== next);
      next.callback();
      await settle();
    }
    this.#move(target);
    await settle();
  }

  /**
   * Fire every pending timer (and those they schedule), up to `limit` of them, moving time as needed.
   * Timers with an infinite delay stay pending.
   */
  async runAll(limit = 10_000): Promise<void> {
    await settle();
    for (let fired = 0; fired < limit; fired++) {
      const next = this.#next();
      if (next === undefined || next.at === Number.POSITIVE_INFINITY) return;
      await this.advance(next.at - this.#monotonic);
    }
    throw new Error(
      `FakeClock.runAll: more than ${limit} timers fired; a timer reschedules itself`,
    );
  }

  /** Set the wall-clock time without moving monotonic time or firing timers (a wall-clock jump). */
  setTime(epochMs: number): void {
    this.#now = epochMs;
  }

  #wake(delayMs: number): void {
    const waiters = this.#waiters;
    this.#waiters = waiters.filter((w) => w.delayMs !== undefined && w.delayMs !== delayMs);
    for (const waiter of waiters) {
      if (waiter.delayMs === undefined || waiter.delayMs === delayMs) waiter.wake();
    }
  }

  #move(monotonic: number): void {
    this.#now += monotonic - this.#monotonic;
    this.#monotonic = monotonic;
  }

  #next(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const timer of this.#timers) {
      if (
        best === undefined ||
        timer.at < best.at ||
        (timer.at === best.at && timer.id < best.id)
      ) {
        best = timer;
      }
    }
    return best;
  }
}
