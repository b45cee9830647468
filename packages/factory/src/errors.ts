// FactoryStartError: what a factory's start rejects with when some kinds could not be started (the others run).
import type { GroupVersionKind } from '@lasso/client';
import { errorMessage, LassoError } from '@lasso/core';
import { gvkKey } from './names.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A factory's `start` left out kinds it could not start (the others run): a {@link FactoryStartError}. */
    LASSO_FACTORY_START_FAILED: FactoryStartError;
    /** A closed factory was started: a {@link FactoryClosedError}. */
    LASSO_FACTORY_CLOSED: FactoryClosedError;
  }
}

/**
 * A factory was started after `close()`: a closed factory releases what it created and cannot run again
 * (build a new one). Code `LASSO_FACTORY_CLOSED`.
 *
 * @example
 * ```ts
 * declare const factory: SharedCacheFactory;
 * await factory.close();
 * await factory.start(signal).catch((error: unknown) => isLassoError(error, 'LASSO_FACTORY_CLOSED')); // true
 * ```
 */
export class FactoryClosedError extends LassoError {
  constructor(factory: string) {
    super('LASSO_FACTORY_CLOSED', `${factory} is closed and cannot start again`);
  }
}

/** One kind a factory could not start, and why. */
export interface KindStartFailure {
  /** The kind, e.g. `{ group: 'example.com', version: 'v1', kind: 'Widget' }`. */
  readonly gvk: GroupVersionKind;
  /**
   * Why: the controller's own build error (a kind the server does not serve is not a failure: it is
   * `unserved` in the factory's `status()` and starts once served).
   */
  readonly error: unknown;
}

/**
 * A controller factory's `start` could not build every controller. The kinds listed in
 * {@link FactoryStartError.failures} were left out; every other kind was started and keeps running. Code
 * `LASSO_FACTORY_START_FAILED`.
 *
 * @example
 * ```ts
 * declare const factory: SharedControllerFactory;
 * try {
 *   await factory.start(signal, 5);
 * } catch (error) {
 *   if (!isLassoError(error, 'LASSO_FACTORY_START_FAILED')) throw error;
 *   for (const { gvk, error: why } of error.failures) logger.warn('kind not started', { gvk: gvk.kind, error: why });
 * }
 * ```
 */
export class FactoryStartError extends LassoError {
  /** The kinds not started, in the order the factory created them. */
  readonly failures: readonly KindStartFailure[];

  constructor(failures: readonly KindStartFailure[]) {
    const listed = failures
      .map((failure) => `${gvkKey(failure.gvk)}: ${errorMessage(failure.error)}`)
      .join('; ');
    super(
      'LASSO_FACTORY_START_FAILED',
      `${failures.length} kind${failures.length === 1 ? '' : 's'} could not be started (the others run): ${listed}`,
      failures.length === 1 ? { cause: failures[0]?.error } : {},
    );
    this.failures = failures;
  }
}
