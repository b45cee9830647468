// The deadlines of one request attempt on the injected clock: a total deadline, a progress deadline (no
// response bytes for that long) and, over the same window, the minimum-throughput floor of the body, all
// aborting one signal (with a RequestTimeoutError, or a SlowResponseError for the floor).
import type { Clock } from '@lasso/core';
import { InactivityTimer } from '../inactivity-timer.ts';
import { SlowResponseError, ThroughputFloor } from '../throughput-floor.ts';
import { type RequestDeadlines, RequestTimeoutError } from '../timeout-policy.ts';
import { requestInfoFor } from './request-info.ts';
import type { QueryParams } from './rest-request.ts';

/**
 * @internal The deadlines of one attempt: `signal` aborts with a {@link RequestTimeoutError} when the
 * total deadline passes or when {@link RequestDeadline.progress} was not called for the progress
 * deadline (counted from construction, so the wait for the headers counts as no progress). Progress
 * is lazy (one timer, re-armed for the remainder when it fires early; a call only reads the clock).
 * With a progress deadline, the body also runs under the throughput floor from
 * {@link RequestDeadline.headers} to {@link RequestDeadline.bodyDone}: each window of the progress
 * deadline must bring `MIN_RESPONSE_BYTES_PER_SECOND` on average, or `signal` aborts with a
 * {@link SlowResponseError}. {@link RequestDeadline.clear} releases every timer.
 */
export class RequestDeadline {
  /** Aborts when a deadline passes; undefined when the attempt has none. */
  readonly signal: AbortSignal | undefined;
  readonly #total: { cancel(): void } | undefined;
  readonly #progress: InactivityTimer | undefined;
  readonly #floor: ThroughputFloor | undefined;
  #received = 0;

  constructor(
    clock: Clock,
    deadlines: RequestDeadlines,
    request: { method: string; path: string; query?: QueryParams | undefined },
  ) {
    // Both are finite numbers >= 0 (resolveDeadlines' values; 0: none).
    const { totalMs, progressMs } = deadlines;
    if (!(totalMs > 0) && !(progressMs > 0)) {
      this.signal = undefined;
      return;
    }
    const controller = new AbortController();
    this.signal = controller.signal;
    const stopOthers = (): void => {
      this.#total?.cancel();
      this.#progress?.cancel();
      this.#floor?.cancel();
    };
    if (totalMs > 0) {
      this.#total = clock.schedule(totalMs, () => {
        stopOthers();
        controller.abort(RequestTimeoutError.of(request, 'request', totalMs));
      });
    }
    if (progressMs > 0) {
      this.#progress = new InactivityTimer({
        clock,
        timeoutMs: progressMs,
        onExpire: () => {
          stopOthers();
          controller.abort(RequestTimeoutError.of(request, 'progress', progressMs));
        },
      });
      const sent = clock.monotonic();
      this.#floor = new ThroughputFloor({
        clock,
        windowMs: progressMs,
        onTooSlow: (windowBytes, windowMs) => {
          stopOthers();
          controller.abort(
            new SlowResponseError({
              method: request.method,
              request: requestInfoFor(request.method, request.path, request.query),
              part: 'body',
              receivedBytes: this.#received,
              elapsedMs: clock.monotonic() - sent,
              windowBytes,
              windowMs,
            }),
          );
        },
      });
    }
  }

  /** The response headers arrived: progress, and the body owes bytes from now. */
  headers(): void {
    this.#progress?.touch();
    this.#floor?.begin();
  }

  /** `bytes` of the body arrived: the progress deadline counts from now. */
  progress(bytes: number): void {
    this.#progress?.touch();
    this.#received += bytes;
    this.#floor?.add(bytes);
  }

  /** The whole body was read: what follows (decoding it) is not the server's progress. */
  bodyDone(): void {
    this.#progress?.cancel();
    this.#floor?.end();
  }

  /** Release the timers; the signal will not abort any more. */
  clear(): void {
    this.#total?.cancel();
    this.#progress?.cancel();
    this.#floor?.cancel();
  }
}
