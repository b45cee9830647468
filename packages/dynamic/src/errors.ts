// The errors of @lasso/dynamic, with stable codes.
import { LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A closed dynamic controller was started or asked for a kind: a {@link DynamicClosedError}. */
    LASSO_DYNAMIC_CLOSED: true;
    /** A kind was asked for on demand while the dynamic controller does not run: a {@link DynamicNotRunningError}. */
    LASSO_DYNAMIC_NOT_RUNNING: true;
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
