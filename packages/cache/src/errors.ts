// Errors of @lasso/cache: what the reflector reports to its watch error handler, and a cache that did not sync.
import { errorMessage, LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** One failure of a reflector's list/watch cycle: a {@link WatchError}. */
    LASSO_WATCH_FAILED: LassoError;
    /** Caches did not sync before the wait ended: a {@link CacheNotSyncedError}. */
    LASSO_CACHE_NOT_SYNCED: CacheNotSyncedError;
  }
}

/** Where in the list/watch cycle a {@link WatchError} happened. */
export type WatchErrorPhase = 'list' | 'watch-start' | 'watch' | 'event';

/**
 * One failure of a reflector's list/watch cycle, as given to the watch error handler, the logger and the
 * metrics. The reflector has already decided what to do next (`willRelist`, `retryInMs`); the handler only
 * observes. `cause` is the original error (an `ApiError`, a `TimeoutError`, a connection failure, ...).
 */
export class WatchError extends LassoError {
  /** `list`: the (paginated) list failed; `watch-start`: the watch failed before its first event;
   * `watch`: the watch failed after events arrived; `event`: an event could not be decoded or stored. */
  readonly phase: WatchErrorPhase;
  /** The reflector's name (usually the GVK), for logs. */
  readonly reflector: string;
  /** The resourceVersion the reflector had reached when this happened (`''` before the first list). */
  readonly resourceVersion: string;
  /**
   * True when the reflector will list next (every watch failure but a 429, a refused connection and a broken open
   * stream; a list failure; a switch to polling); false when it resumes the watch.
   */
  readonly willRelist: boolean;
  /** The backoff before the next attempt, in ms (0 when it retries at once). */
  readonly retryInMs: number;

  constructor(
    init: {
      phase: WatchErrorPhase;
      reflector: string;
      resourceVersion: string;
      willRelist: boolean;
      retryInMs: number;
      message: string;
    },
    options?: { cause?: unknown },
  ) {
    super('LASSO_WATCH_FAILED', init.message, options);
    this.phase = init.phase;
    this.reflector = init.reflector;
    this.resourceVersion = init.resourceVersion;
    this.willRelist = init.willRelist;
    this.retryInMs = init.retryInMs;
  }
}

/** Longest reason quoted per informer in a {@link CacheNotSyncedError} message. */
const reasonLength = 160;

/**
 * Thrown by `waitForCacheSync` (and `whenSynced`) when a cache did not sync before the signal aborted or the
 * informer stopped. It says why: the message quotes, shortened, the last list or watch error of each informer
 * that had one (`caches did not sync: v1, Kind=Secret (list failed: secrets is forbidden: ...)`), and
 * {@link CacheNotSyncedError.lastErrors} has them whole.
 *
 * `cause` is the one last error, an `AggregateError` of them when several informers had one, and otherwise
 * `options.cause` (what ended the wait: the signal's reason).
 */
export class CacheNotSyncedError extends LassoError {
  /** Names of the informers that had not synced. */
  readonly informers: readonly string[];
  /** The last list or watch error (a {@link WatchError}) of each informer that had not synced and had one. */
  readonly lastErrors: ReadonlyMap<string, unknown>;

  constructor(
    informers: readonly string[],
    options: { cause?: unknown; lastErrors?: ReadonlyMap<string, unknown> } = {},
  ) {
    const lastErrors = new Map<string, unknown>();
    for (const name of informers) {
      if (options.lastErrors?.has(name)) lastErrors.set(name, options.lastErrors.get(name));
    }
    const named = informers.map((name) =>
      lastErrors.has(name) ? `${name} (${shortReason(lastErrors.get(name))})` : name,
    );
    const errors = [...lastErrors.values()];
    const cause =
      errors.length === 0
        ? options.cause
        : errors.length === 1
          ? errors[0]
          : new AggregateError(errors, `last errors of ${errors.length} informers`);
    super(
      'LASSO_CACHE_NOT_SYNCED',
      `caches did not sync: ${named.join(', ') || '(none)'}`,
      errors.length === 0 && !('cause' in options) ? undefined : { cause },
    );
    this.informers = informers;
    this.lastErrors = lastErrors;
  }
}

/** One line of at most {@link reasonLength} characters: a message can hold a whole response body. */
function shortReason(error: unknown): string {
  const line = errorMessage(error).replace(/\s+/g, ' ').trim();
  return line.length > reasonLength ? `${line.slice(0, reasonLength - 1)}…` : line;
}
