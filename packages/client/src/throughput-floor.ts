// The minimum-throughput rule of lists and watches: a response that has started must keep bringing bytes at a
// least rate, or it fails with a SlowResponseError. A progress or inactivity deadline alone is reset by every
// byte, so a server sending a few bytes at a time (slowloris) held a list open forever without a word.
import { type Clock, LassoError } from '@lasso/core';
import { type ApiRequest, describeApiRequest } from './errors.ts';

/**
 * The floor of the minimum-throughput rule, in bytes per second: a list body (from its headers to its last
 * byte) and a watch event line (from its first byte to its newline) must bring at least this many bytes per
 * second, averaged over each window (a list's `progressTimeoutMs`, 30 s by default; 30 s for a watch event),
 * or fail with a {@link SlowResponseError}. 1 KiB/s is 8 kbit/s: a working link, however slow, does better;
 * a server dripping a few bytes at a time does not.
 *
 * @example
 * ```ts
 * const window = 30_000;
 * console.log(`a list must bring ${(MIN_RESPONSE_BYTES_PER_SECOND * window) / 1000} bytes per ${window} ms`); // 30720
 * ```
 */
export const MIN_RESPONSE_BYTES_PER_SECOND = 1024;

/** @internal The window of a watch event line under the floor: 30 s, a list's default progress deadline. */
export const WATCH_EVENT_WINDOW_MS = 30_000;

/** @internal The bytes a window of `windowMs` must bring. */
export function minBytesPer(windowMs: number): number {
  return Math.ceil((MIN_RESPONSE_BYTES_PER_SECOND * windowMs) / 1000);
}

/** @internal Options of {@link ThroughputFloor}. */
export interface ThroughputFloorOptions {
  clock: Clock;
  /** The window, in ms (> 0). */
  windowMs: number;
  /** Called once, with the bytes of the window and `windowMs`, when a window brought fewer than {@link minBytesPer}. */
  onTooSlow: (windowBytes: number, windowMs: number) => void;
}

/**
 * @internal The floor over one response: between {@link ThroughputFloor.begin} and {@link ThroughputFloor.end}
 * (bytes are owed: a body after its headers, a started watch event), each window of `windowMs` must bring
 * {@link minBytesPer} bytes ({@link ThroughputFloor.add}) or `onTooSlow` runs. Lazy, like InactivityTimer:
 * `add` only counts, `begin` reads the clock once, and the one timer, when it finds nothing owed, disarms; when
 * it fires before a window is over (a later `begin`), it re-arms for the remainder. Time between
 * {@link ThroughputFloor.hold} and {@link ThroughputFloor.release} (a consumer holding events, so no byte is
 * read) does not count: `release` starts a new window.
 */
export class ThroughputFloor {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #minBytes: number;
  readonly #onTooSlow: (windowBytes: number, windowMs: number) => void;
  #owed = false;
  #held = false;
  #done = false;
  #windowStart = 0;
  #windowBytes = 0;
  #timer: { cancel(): void } | undefined;

  constructor(options: ThroughputFloorOptions) {
    this.#clock = options.clock;
    this.#windowMs = options.windowMs;
    this.#minBytes = minBytesPer(options.windowMs);
    this.#onTooSlow = options.onTooSlow;
  }

  /** Bytes are owed from now (a no-op while they already are). */
  begin(): void {
    if (this.#owed || this.#done) return;
    this.#owed = true;
    this.#windowStart = this.#clock.monotonic();
    this.#windowBytes = 0;
    this.#timer ??= this.#clock.schedule(this.#windowMs, this.#check);
  }

  /** `bytes` arrived. */
  add(bytes: number): void {
    this.#windowBytes += bytes;
  }

  /** Nothing is owed any more (the body or the event line is complete). */
  end(): void {
    this.#owed = false;
  }

  /** Stop counting time until {@link ThroughputFloor.release}. */
  hold(): void {
    this.#held = true;
  }

  /** Count again: a new window starts now. */
  release(): void {
    this.#held = false;
    if (this.#owed) {
      this.#windowStart = this.#clock.monotonic();
      this.#windowBytes = 0;
    }
  }

  /** Release the timer; `onTooSlow` will not run. */
  cancel(): void {
    this.#done = true;
    this.#owed = false;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    if (this.#done || !this.#owed) return;
    if (this.#held) {
      this.#timer = this.#clock.schedule(this.#windowMs, this.#check);
      return;
    }
    const elapsed = this.#clock.monotonic() - this.#windowStart;
    if (elapsed < this.#windowMs) {
      this.#timer = this.#clock.schedule(this.#windowMs - elapsed, this.#check);
    } else if (this.#windowBytes >= this.#minBytes) {
      this.#windowStart += elapsed;
      this.#windowBytes = 0;
      this.#timer = this.#clock.schedule(this.#windowMs, this.#check);
    } else {
      this.#done = true;
      this.#onTooSlow(this.#windowBytes, this.#windowMs);
    }
  };
}

/**
 * A list or watch made too little progress: a response body (a list, from its headers on) or a watch event
 * line (from its first byte) brought fewer than {@link MIN_RESPONSE_BYTES_PER_SECOND} bytes per second over a
 * window (a list's `progressTimeoutMs`, default 30 s; 30 s for a watch event). Code `LASSO_RESPONSE_TOO_SLOW`;
 * the connection was closed. `request` is what was asked (verb, resource, namespace), `receivedBytes` and
 * `elapsedMs` what arrived since the request was sent, `windowBytes` in the last `windowMs`. A watch that is
 * idle between events is never one: only a started, incomplete event counts.
 *
 * @example
 * ```ts
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * try {
 *   await configMaps.list('default');
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_RESPONSE_TOO_SLOW')) console.log(error.request.verb, error.receivedBytes, error.elapsedMs);
 *   else throw error;
 * }
 * ```
 */
export class SlowResponseError extends LassoError {
  /** What the request asked for. */
  readonly request: ApiRequest;
  /** What fell under the floor: a list's (or any request's) body, or one watch event. */
  readonly part: 'body' | 'watch event';
  /** Bytes received since the request was sent (the body's, or the watch stream's). */
  readonly receivedBytes: number;
  /** Time since the request was sent, in ms. */
  readonly elapsedMs: number;
  /** Bytes received in the last window. */
  readonly windowBytes: number;
  /** The window, in ms. */
  readonly windowMs: number;
  /** The bytes the window had to bring. */
  readonly minBytes: number;

  constructor(init: {
    method: string;
    request: ApiRequest;
    part: 'body' | 'watch event';
    receivedBytes: number;
    elapsedMs: number;
    windowBytes: number;
    windowMs: number;
  }) {
    const { method, request, part, receivedBytes, elapsedMs, windowBytes, windowMs } = init;
    const minBytes = minBytesPer(windowMs);
    const asked =
      request.resource === undefined
        ? `${method} ${request.path}`
        : `${describeApiRequest(request)} (${method} ${request.path})`;
    const what =
      part === 'body'
        ? `the response body brought ${windowBytes} bytes in ${Math.round(windowMs)} ms`
        : `a watch event still incomplete brought ${windowBytes} bytes in ${Math.round(windowMs)} ms`;
    const window = part === 'body' ? 'a window of progressTimeoutMs' : 'a 30 s window';
    super(
      'LASSO_RESPONSE_TOO_SLOW',
      `${asked}: too little progress: ${what}, under the floor of ${minBytes} (${MIN_RESPONSE_BYTES_PER_SECOND} bytes/s over ${window}); ${receivedBytes} bytes received in ${Math.round(elapsedMs)} ms since the request was sent; the connection was closed`,
    );
    this.request = request;
    this.part = part;
    this.receivedBytes = receivedBytes;
    this.elapsedMs = elapsedMs;
    this.windowBytes = windowBytes;
    this.windowMs = windowMs;
    this.minBytes = minBytes;
  }
}
