// The deadlines of one request attempt on the injected clock: a total deadline and a progress deadline
// (no response bytes for that long), both aborting one signal with a RequestTimeoutError.
import type { Clock } from '@lasso/core';
import { InactivityTimer } from '../inactivity-timer.ts';
import { type RequestDeadlines, RequestTimeoutError } from '../timeout-policy.ts';
import type { QueryParams } from './rest-request.ts';

/**
 * @internal The deadlines of one attempt: `signal` aborts with a {@link RequestTimeoutError} when the
 * total deadline passes or when {@link RequestDeadline.progress} was not called for the progress
 * deadline (counted from construction, so the wait for the headers counts as no progress). Progress
 * is lazy (one timer, re-armed for the remainder when it fires early; a call only reads the clock).
 * {@link RequestDeadline.clear} releases both timers.
 */
export class RequestDeadline {
  /** Aborts when a deadline passes; undefined when the attempt has none. */
  readonly signal: AbortSignal | undefined;
  readonly #total: { cancel(): void } | undefined;
  readonly #progress: InactivityTimer | undefined;

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
    if (totalMs > 0) {
      this.#total = clock.schedule(totalMs, () => {
        this.#progress?.cancel();
        controller.abort(RequestTimeoutError.of(request, 'request', totalMs));
      });
    }
    if (progressMs > 0) {
      this.#progress = new InactivityTimer({
        clock,
        timeoutMs: progressMs,
        onExpire: () => {
          this.#total?.cancel();
          controller.abort(RequestTimeoutError.of(request, 'progress', progressMs));
        },
      });
    }
  }

  /** Response bytes arrived: the progress deadline counts from now. */
  progress(): void {
    this.#progress?.touch();
  }

  /** Release the timers; the signal will not abort any more. */
  clear(): void {
    this.#total?.cancel();
    this.#progress?.cancel();
  }
}
