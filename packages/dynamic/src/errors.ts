// The errors of @lasso/dynamic, with stable codes.
import type { GroupVersionKind } from '@lasso/client';
import { LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A closed dynamic controller was started or asked for a kind: a {@link DynamicClosedError}. */
    LASSO_DYNAMIC_CLOSED: DynamicClosedError;
    /** A kind was asked for on demand while the dynamic controller does not run: a {@link DynamicNotRunningError}. */
    LASSO_DYNAMIC_NOT_RUNNING: DynamicNotRunningError;
    /** A kind's cache did not sync within `syncTimeoutMs` and was dropped: a {@link DynamicSyncFailedError}. */
    LASSO_DYNAMIC_SYNC_FAILED: DynamicSyncFailedError;
  }
}

/**
 * A dynamic controller was used after `close()` (code `LASSO_DYNAMIC_CLOSED`): it cannot run again.
 *
 * @example
 * ```ts
 * declare const dynamic: DynamicController;
 * await dynamic.close();
 * await dynamic.start(signal).catch((error: unknown) => isLassoError(error, 'LASSO_DYNAMIC_CLOSED')); // true
 * ```
 */
export class DynamicClosedError extends LassoError {
  constructor() {
    super('LASSO_DYNAMIC_CLOSED', 'the dynamic controller is closed');
  }
}

/**
 * A kind was asked for on demand (`getCache`, `get`, `list`, `getByIndex`, `enqueue*`) while the dynamic
 * controller does not run (code `LASSO_DYNAMIC_NOT_RUNNING`): watchers live within a run.
 *
 * @example
 * ```ts
 * declare const dynamic: DynamicController;
 * await dynamic.get(gvk, 'default', 'x').catch((error: unknown) => isLassoError(error, 'LASSO_DYNAMIC_NOT_RUNNING'));
 * ```
 */
export class DynamicNotRunningError extends LassoError {
  constructor(what: string) {
    super('LASSO_DYNAMIC_NOT_RUNNING', `${what}: the dynamic controller does not run`);
  }
}

/** Longest cause quoted in a {@link DynamicSyncFailedError} message (a list error can carry a whole body). */
const causeLength = 200;

/**
 * A kind's cache did not sync within the dynamic controller's `syncTimeoutMs` (code `LASSO_DYNAMIC_SYNC_FAILED`):
 * its watch was dropped (no further list or watch), and every read of the kind rejects with this error until the
 * next discovery refresh (a CRD or APIService change, or a retry after a failed refresh) watches it again. The
 * message names the kind as lasso does (`failed to sync cache for /v1, Kind=Secret`) and quotes the last list or
 * watch error when there was one (RBAC denied, a CRD whose objects cannot be decoded); `cause` holds it whole. A
 * refresh is asked for 1 minute after the drop when no CRD or APIService change brought one first.
 *
 * @example
 * ```ts
 * declare const dynamic: DynamicController;
 * const secrets = { group: '', version: 'v1', kind: 'Secret' };
 * await dynamic.list(secrets).catch((error: unknown) => {
 *   if (isLassoError(error, 'LASSO_DYNAMIC_SYNC_FAILED')) console.error(error.message);
 * });
 * ```
 */
export class DynamicSyncFailedError extends LassoError {
  /** The kind whose cache did not sync. */
  readonly gvk: GroupVersionKind;
  /** How long the sync was waited for, in ms. */
  readonly timeoutMs: number;

  constructor(
    gvk: GroupVersionKind,
    kind: string,
    timeoutMs: number,
    lastError: string | undefined,
    options?: { cause?: unknown },
  ) {
    const reason =
      lastError === undefined
        ? 'no list or watch error was seen'
        : lastError.length > causeLength
          ? `${lastError.slice(0, causeLength - 3)}...`
          : lastError;
    super(
      'LASSO_DYNAMIC_SYNC_FAILED',
      `failed to sync cache for ${kind} within ${timeoutMs} ms (${reason}); it is watched again at the next discovery refresh (in 1 minute at the latest)`,
      options,
    );
    this.gvk = { group: gvk.group, version: gvk.version, kind: gvk.kind };
    this.timeoutMs = timeoutMs;
  }
}
