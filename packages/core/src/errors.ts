// LassoError: the base of every error lasso throws, with a stable code that survives duplicate installs.
import type { ShardSelectorError } from './sharding/selector.ts';

/**
 * The registry of stable error codes: one key per code, documented where it is declared, whose type is the
 * class thrown with that code ({@link LassoError} itself where several kinds of failure share it). `@lasso/core`
 * declares its own; each package above declares its codes in its `errors.ts` by augmenting this interface,
 * so {@link LassoErrorCode} lists exactly the codes of the packages a program imports, and
 * {@link isLassoError} narrows a caught value to the class of the code it checks:
 *
 * ```ts
 * declare module '@lasso/core' {
 *   interface LassoErrorCodes {
 *     LASSO_API_ERROR: ApiError; // with a TSDoc comment saying what it means
 *   }
 * }
 * ```
 *
 * A code declared as `true` (no class named) narrows to {@link LassoError}.
 */
export interface LassoErrorCodes {
  /** An operation stopped because its signal aborted with a reason that was not an Error. */
  LASSO_ABORTED: LassoError;
  /** A configuration or a call that cannot work (a kubeconfig without a server, a second `run()`). */
  LASSO_CONFIG_INVALID: LassoError;
  /** A timeout, not an abort by the caller, ended an operation: a {@link TimeoutError}. */
  LASSO_TIMEOUT: TimeoutError;
  /** A KEP-5866 shard selector text the server's grammar refuses (`@lasso/core/sharding`). */
  LASSO_SHARD_SELECTOR_INVALID: ShardSelectorError;
}

/**
 * Stable error codes: the keys of {@link LassoErrorCodes}. Callers branch on these (or on the `isX()`
 * guards), never on messages.
 */
export type LassoErrorCode = keyof LassoErrorCodes & string;

/**
 * The class of the errors thrown with `Code`, as {@link LassoErrorCodes} declares it: `LassoErrorOf<'LASSO_TIMEOUT'>`
 * is {@link TimeoutError}. {@link LassoError} for a code declared without a class, and for the whole
 * {@link LassoErrorCode} union (a code only known at run time).
 */
export type LassoErrorOf<Code extends LassoErrorCode> = LassoErrorCode extends Code
  ? LassoError
  : LassoErrorCodes[Code] extends LassoError
    ? LassoErrorCodes[Code]
    : LassoError;

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
 * True when `value` is a {@link LassoError} from any copy of `@lasso/core`; with `code`, one of that code,
 * narrowed to the class {@link LassoErrorCodes} names for it (`LASSO_API_ERROR`: `@lasso/client`'s `ApiError`).
 * Use it instead of `instanceof`, which is false for an error of a second installed copy of a package.
 *
 * @example
 * ```ts
 * declare function withTimeout(): Promise<void>;
 * try {
 *   await withTimeout();
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_TIMEOUT')) console.log(`gave up after ${error.timeoutMs} ms`);
 *   else if (isLassoError(error)) console.log(error.code);
 *   else throw error;
 * }
 * ```
 */
export function isLassoError<Code extends LassoErrorCode>(
  value: unknown,
  code: Code,
): value is LassoErrorOf<Code>;
export function isLassoError(value: unknown, code?: LassoErrorCode): value is LassoError;
export function isLassoError(value: unknown, code?: LassoErrorCode): value is LassoError {
  if (typeof value !== 'object' || value === null) return false;
  // Guards run in catch blocks on whatever was thrown: a revoked Proxy throws from `in`.
  try {
    if (!(lassoBrand in value)) return false;
    return code === undefined || (value as LassoError).code === code;
  } catch {
    return false;
  }
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

/**
 * The message of any thrown value, for logs and error messages. Total: it never throws, whatever was thrown
 * (a revoked Proxy, an Error whose `message` getter throws, a null-prototype object, a Symbol).
 *
 * An object's non-empty string `message` (an Error's, or a plain object's); otherwise `String(value)`, so an
 * Error without a message gives its name (`'RangeError'`); otherwise its tag (`'[object Object]'`); and
 * `'unprintable object'` when even that throws.
 */
export function errorMessage(error: unknown): string {
  try {
    if (typeof error === 'string') return error;
    if (typeof error === 'object' && error !== null) {
      const message = (error as { message?: unknown }).message;
      if (typeof message === 'string' && message !== '') return message;
    }
    return String(error);
  } catch {
    try {
      return Object.prototype.toString.call(error);
    } catch {
      return `unprintable ${typeof error}`;
    }
  }
}

/** A thrown value as plain, JSON-safe data: what {@link describeError} returns. */
export interface ErrorDescription {
  /** `error.name` (`'ApiError'`, `'TypeError'`); for a value without one, its kind (`'string'`, `'null'`, `'object'`). */
  readonly name: string;
  /** {@link errorMessage} of the value. */
  readonly message: string;
  /** A string or numeric `code` (`'LASSO_WATCH_FAILED'`, `'ECONNRESET'`), as a string. */
  readonly code?: string;
  /** The value's `stack`, when it is a string. */
  readonly stack?: string;
  /** The description of the value's `cause`, at most four levels deep (cause chains may be cyclic). */
  readonly cause?: ErrorDescription;
}

const maxCauseDepth = 4;

/**
 * Describe any thrown value for a log attribute (`{ error: describeError(error) }`): plain strings only,
 * safe to serialize, and total like {@link errorMessage}. Each property is read on its own, so one throwing
 * getter loses that property, not the description.
 *
 * **Gotchas**: loggers that format attributes should pass caught values through this (or
 * {@link errorMessage}) instead of reading `.message`, `.stack` or calling `String()` themselves.
 */
export function describeError(error: unknown): ErrorDescription {
  return describe(error, 0);
}

function describe(value: unknown, depth: number): ErrorDescription {
  const description: {
    name: string;
    message: string;
    code?: string;
    stack?: string;
    cause?: ErrorDescription;
  } = { name: value === null ? 'null' : typeof value, message: errorMessage(value) };
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return description;
  }
  const name = read(value, 'name');
  if (typeof name === 'string' && name !== '') description.name = name;
  const code = read(value, 'code');
  if (typeof code === 'string' || typeof code === 'number') description.code = String(code);
  const stack = read(value, 'stack');
  if (typeof stack === 'string') description.stack = stack;
  if (depth < maxCauseDepth) {
    const cause = read(value, 'cause');
    if (cause !== undefined) description.cause = describe(cause, depth + 1);
  }
  return description;
}

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
