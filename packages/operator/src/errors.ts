// The errors of @lasso/operator, with stable codes.
import { LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A closed operator was started or asked for a controller: an {@link OperatorClosedError}. */
    LASSO_OPERATOR_CLOSED: OperatorClosedError;
    /** The health or metrics endpoint could not listen on its host and port: an {@link OperatorListenError}. */
    LASSO_OPERATOR_LISTEN: OperatorListenError;
  }
}

/**
 * A closed operator was started, or asked for a controller or a recorder (code `LASSO_OPERATOR_CLOSED`): it
 * cannot run again; create a new one.
 *
 * @example
 * ```ts
 * declare const operator: Operator;
 * await operator.close();
 * await operator.start(new AbortController().signal).catch((error: unknown) => isLassoError(error, 'LASSO_OPERATOR_CLOSED')); // true
 * ```
 */
export class OperatorClosedError extends LassoError {
  constructor() {
    super('LASSO_OPERATOR_CLOSED', 'the operator is closed');
  }
}

/**
 * The `/healthz`+`/readyz` or `/metrics` endpoint could not listen (code `LASSO_OPERATOR_LISTEN`): the port is
 * taken or the host is not an address of this machine. Thrown by `start()`, which then stops what it started.
 *
 * @example
 * ```ts
 * declare const operator: Operator;
 * await operator.start(new AbortController().signal).catch((error: unknown) => {
 *   if (isLassoError(error, 'LASSO_OPERATOR_LISTEN')) console.error(error.endpoint, error.address); // 'metrics' ':8080'
 * });
 * ```
 */
export class OperatorListenError extends LassoError {
  /** Which endpoint: `'health'` or `'metrics'`. */
  readonly endpoint: 'health' | 'metrics';
  /** The `host:port` it tried. */
  readonly address: string;

  constructor(endpoint: 'health' | 'metrics', address: string, options?: { cause?: unknown }) {
    super(
      'LASSO_OPERATOR_LISTEN',
      `the ${endpoint} endpoint could not listen on ${address}`,
      options,
    );
    this.endpoint = endpoint;
    this.address = address;
  }
}
