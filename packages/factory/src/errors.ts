// FactoryStartError: what a factory's start rejects with when some kinds could not be started (the others run).
import type { GroupVersionKind } from '@lasso/client';
import { errorMessage, LassoError } from '@lasso/core';
import { gvkString } from './names.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A factory's `start` left out kinds it could not start (the others run): a {@link FactoryStartError}. */
    LASSO_FACTORY_START_FAILED: true;
  }
}

/** One kind a factory could not start, and why. */
export interface KindStartFailure {
  /** The kind, e.g. `{ group: 'example.com', version: 'v1', kind: 'Widget' }`. */
  readonly gvk: GroupVersionKind;
  /**
   * Why: `LASSO_NO_KIND_MATCH` when the server does not serve the resource (a CRD not installed), a
   * TypeError when it serves it under another resource name or scope, the controller's own build error, or
   * `LASSO_CACHE_NOT_SYNCED` when its cache stopped before it synced.
   */
  readonly error: unknown;
}

/**
 * A factory's `start` could not start every kind. The kinds listed in {@link FactoryStartError.failures}
 * were left out; every other kind was started and keeps running. A later `start` tries the failed ones
 * again (so a CRD installed in the meantime starts then). Code `LASSO_FACTORY_START_FAILED`.
 *
 * @example
 * ```ts
 * try {
 *   await factory.start(signal, 5);
 * } catch (error) {
 *   if (!(error instanceof FactoryStartError)) throw error;
 *   for (const { gvk, error: why } of error.failures) logger.warn('kind not started', { gvk: gvk.kind, error: why });
 * }
 * ```
 */
export class FactoryStartError extends LassoError {
  /** The kinds not started, in the order the factory created them. */
  readonly failures: readonly KindStartFailure[];

  constructor(failures: readonly KindStartFailure[]) {
    const listed = failures
      .map((failure) => `${gvkString(failure.gvk)}: ${errorMessage(failure.error)}`)
      .join('; ');
    super(
      'LASSO_FACTORY_START_FAILED',
      `${failures.length} kind${failures.length === 1 ? '' : 's'} could not be started (the others run): ${listed}`,
      failures.length === 1 ? { cause: failures[0]?.error } : {},
    );
    this.failures = failures;
  }
}
