// LassoError: the base of every error lasso throws, with a stable code that survives duplicate installs.

/**
 * Stable error codes. Callers branch on these (or on the `isX()` guards), never on messages.
 * Packages above core add their codes here so the union stays the one list users read.
 */
export type LassoErrorCode =
  | 'LASSO_ABORTED'
  | 'LASSO_API_ERROR'
  | 'LASSO_CONFIG_INVALID'
  | 'LASSO_CONNECTION_FAILED'
  | 'LASSO_TIMEOUT'
  | 'LASSO_WATCH_FAILED'
  | 'LASSO_WATCH_DECODE'
  | 'LASSO_EXEC_PLUGIN_FAILED'
  | 'LASSO_QUEUE_SHUT_DOWN'
  | 'LASSO_CACHE_NOT_SYNCED'
  | 'LASSO_DISCOVERY_FAILED'
  | 'LASSO_NO_KIND_MATCH'
  | 'LASSO_INVALID_OBJECT'
  | 'LASSO_ENVTEST_FAILED'
  | 'LASSO_HANDLER_FAILED'
  | 'LASSO_HANDLER_IGNORED'
  | 'LASSO_RETRY_AFTER'
  | 'LASSO_CONTROLLER_FAILED'
  | 'LASSO_ALREADY_OWNED';

const lassoBrand: unique symbol = Symbol.for('lasso.error') as never;

/**
 * Base class of every error lasso throws. `code` is stable across releases; `cause` is the native
 * error cause. A `Symbol.for` brand keeps {@link isLassoError} true when two copies of
 * `@lasso/core` are installed (where `instanceof` would fail).
 */
export class LassoError extends Error {
  /** Stable, machine-readable error code. */
  readonly code: LassoErrorCode;
  readonly [lassoBrand] = true;

  constructor(code: LassoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * True when `value` is a {@link LassoError} from any copy of `@lasso/core`, optionally with `code`.
 */
export function isLassoError(value: unknown, code?: LassoErrorCode): value is LassoError {
  if (typeof value !== 'object' || value === null || !(lassoBrand in value)) return false;
  return code === undefined || (value as LassoError).code === code;
}

/** Thrown when a timeout (not an abort by the caller) ends an operation. */
export class TimeoutError extends LassoError {
  /** The timeout that elapsed, in ms. */
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options?: { cause?: unknown }) {
    super('LASSO_TIMEOUT', message, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The message of any thrown value, for logs; never throws itself. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'unprintable error';
  }
}
