// The handler outcomes a controller gives meaning to (ignore, retry after a delay, conflict) and the
// aggregate error of a shared handler. Ports rancher/lasso pkg/controller (ErrIgnore, retryAfterError,
// errorList) with a cause-chain walk in place of Go's errors.Is / errors.As.
import { errorMessage, isLassoError, LassoError } from '@lasso/core';
import type { LeadershipLostError } from './leader-elector-api.ts';
import type { AlreadyOwnedError } from './owner-references.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** Handlers of one key failed: a {@link HandlerError}. */
    LASSO_HANDLER_FAILED: HandlerError;
    /** A handler asked for its error to be ignored: an {@link IgnoreError}. */
    LASSO_HANDLER_IGNORED: IgnoreError;
    /** A handler asked for the key to be retried after a delay: a {@link RetryAfterError}. */
    LASSO_RETRY_AFTER: RetryAfterError;
    /**
     * A controller could not start: a shared controller's constructor failed (`ControllerInitError`), or the
     * informer of a restarted controller has stopped.
     */
    LASSO_CONTROLLER_FAILED: LassoError;
    /** An object already has another controller owner reference (`AlreadyOwnedError`). */
    LASSO_ALREADY_OWNED: AlreadyOwnedError;
    /** A leader lost its lease (`LeadershipLostError`). */
    LASSO_LEADERSHIP_LOST: LeadershipLostError;
  }
}

// Bounds the cause-chain walk: a cyclic or absurdly deep chain must not hang a worker.
const maxCauseDepth = 32;

/** Reads `key` of a caught value without ever throwing (getters and revoked proxies may throw). */
function safeGet(value: unknown, key: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null)
    return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * The failures of a {@link HandlerError} (of any installed copy: recognised by its code), or undefined for any
 * other value. Total.
 */
function failuresOf(error: unknown): readonly HandlerFailure[] | undefined {
  if (!isLassoError(error, 'LASSO_HANDLER_FAILED')) return undefined;
  try {
    const failures = safeGet(error, 'failures');
    if (!Array.isArray(failures)) return undefined;
    return failures.filter(
      (failure): failure is HandlerFailure => typeof failure === 'object' && failure !== null,
    );
  } catch {
    // A revoked Proxy (Array.isArray throws on it) or an array whose iteration throws.
    return undefined;
  }
}

// Bounds of the `stack` attribute: a handler error's cause chain, the failures of one run and the text as a
// whole, so a cyclic chain or a huge aggregate cannot flood a log line.
const maxStackCauses = 5;
const maxStackFailures = 10;
const maxStackChars = 16_384;

function ownStack(error: unknown): string | undefined {
  const stack = safeGet(error, 'stack');
  if (typeof stack === 'string' && stack !== '') return stack;
  if (typeof error === 'object' && error !== null) return undefined;
  // A thrown primitive has no stack: its text says at least what was thrown.
  return error === undefined ? undefined : `thrown ${typeof error}: ${errorMessage(error)}`;
}

// `error`'s stack followed by its cause chain's (`caused by: ...`), `seen` breaking cycles.
function chainStack(error: unknown, seen: Set<unknown>): string[] {
  const parts: string[] = [];
  let current = error;
  for (let depth = 0; current !== undefined && current !== null; depth++) {
    if (seen.has(current)) {
      parts.push('caused by: [circular]');
      break;
    }
    if (depth > maxStackCauses) {
      parts.push('caused by: [more causes]');
      break;
    }
    seen.add(current);
    const stack = ownStack(current) ?? errorMessage(current);
    parts.push(depth === 0 ? stack : `caused by: ${stack}`);
    current = safeGet(current, 'cause');
  }
  return parts;
}

/**
 * @internal The `stack` attribute of an error log: the thrown value's stack with its `cause` chain (5 causes
 * at most), and for a {@link HandlerError} each failed handler's own error first (`handler <name>: <stack>`,
 * 10 handlers at most), so the line of the user's handler that threw is in the log, not only the library frames
 * that aggregated it. At most 16 KiB. Total: a getter that throws or a revoked proxy is skipped, never thrown;
 * only `stack`, `message` and `cause` are read (no request bodies, headers or other fields).
 */
export function stackOf(error: unknown): string | undefined {
  try {
    if (typeof error !== 'object' || error === null) return undefined;
    const seen = new Set<unknown>();
    const parts: string[] = [];
    const failures = failuresOf(error);
    if (failures !== undefined) {
      seen.add(error);
      for (const failure of failures.slice(0, maxStackFailures)) {
        const chain = chainStack(safeGet(failure, 'error'), seen);
        const handler = safeGet(failure, 'handler');
        parts.push(`handler ${typeof handler === 'string' ? handler : '?'}: ${chain.join('\n')}`);
      }
      if (failures.length > maxStackFailures) {
        parts.push(`[${failures.length - maxStackFailures} more failed handlers]`);
      }
      const wrapper = ownStack(error);
      if (wrapper !== undefined) parts.push(`aggregated at: ${wrapper}`);
    } else {
      if (ownStack(error) === undefined) return undefined;
      parts.push(...chainStack(error, seen));
    }
    const text = parts.join('\n');
    return text.length > maxStackChars ? `${text.slice(0, maxStackChars)}\n[truncated]` : text;
  } catch {
    return undefined;
  }
}

/**
 * True when `error`, something in its `cause` chain, or one failure of a {@link HandlerError} satisfies
 * `predicate`. Total: never throws, whatever was thrown.
 */
export function someError(error: unknown, predicate: (error: unknown) => boolean): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < maxCauseDepth) {
    const current = pending.pop();
    if (current === undefined || current === null || seen.has(current)) continue;
    seen.add(current);
    try {
      if (predicate(current)) return true;
    } catch {
      // A predicate that throws on a hostile value has simply not matched it.
    }
    pending.push(safeGet(current, 'cause'));
    for (const failure of failuresOf(current) ?? []) pending.push(failure.error);
  }
  return false;
}

/**
 * The error a handler returns (throws) to say "not an error": the key is not retried and its backoff is
 * reset, and the execution counts as successful (`has_error="false"`). Throw {@link ErrIgnore} itself or
 * any error whose `cause` chain contains it.
 */
export class IgnoreError extends LassoError {
  constructor(message = 'ignore handler error', options?: { cause?: unknown }) {
    super('LASSO_HANDLER_IGNORED', message, options);
  }
}

/**
 * lasso's `ErrIgnore`: throw it (or an error caused by it) from a handler to stop processing a key
 * without an error and without a retry.
 *
 * @example
 * ```ts
 * const handler: Handler<KubeObject> = (key, object) => {
 *   if (object === undefined) throw new Error(`${key} is already gone`, { cause: ErrIgnore });
 * };
 * ```
 */
export const ErrIgnore: IgnoreError = new IgnoreError();

/**
 * True when `error` is {@link ErrIgnore}, another {@link IgnoreError}, or wraps one in its `cause` chain.
 * Recognised by its `LassoError` code, so an `ErrIgnore` from another installed copy of `@lasso/controller`
 * counts too.
 */
export function isIgnoreError(error: unknown): boolean {
  return someError(error, (current) => isLassoError(current, 'LASSO_HANDLER_IGNORED'));
}

/**
 * Thrown by a handler to have its key processed again after `delayMs`, without raising the key's
 * rate-limiter backoff and without an error log. Create it with {@link retryAfter}.
 */
export class RetryAfterError extends LassoError {
  /** How long to wait before the key is processed again, in ms. */
  readonly delayMs: number;

  constructor(delayMs: number, message?: string, options?: { cause?: unknown }) {
    super('LASSO_RETRY_AFTER', message ?? `retry after ${delayMs} ms`, options);
    this.delayMs = delayMs;
  }
}

/**
 * An error that requeues the key after `delayMs` without rate limiting (lasso's `retryAfterError`).
 *
 * @example
 * ```ts
 * import type { Deployment } from 'kubernetes-types/apps/v1.js';
 *
 * const waitForReplicas: Handler<Deployment> = (_key, deployment) => {
 *   if (!deployment?.status?.readyReplicas) throw retryAfter(5_000, 'waiting for replicas');
 * };
 * ```
 */
export function retryAfter(delayMs: number, message?: string): RetryAfterError {
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError(
      `retryAfter: delayMs must be a finite number >= 0, got ${String(delayMs)}`,
    );
  }
  return new RetryAfterError(delayMs, message);
}

/**
 * The delay asked for by `error` when every failure in it is a {@link RetryAfterError} (the shortest one
 * wins); `undefined` when it holds any other error, which then goes through the rate limiter. Recognised by
 * `LassoError` code, so errors of another installed copy of `@lasso/controller` count. Total: never throws,
 * whatever was thrown.
 */
export function retryAfterDelay(error: unknown): number | undefined {
  if (isLassoError(error, 'LASSO_RETRY_AFTER')) {
    // By code, not instanceof: a RetryAfterError of another installed copy counts too.
    const delayMs = safeGet(error, 'delayMs');
    return typeof delayMs === 'number' && delayMs >= 0 && Number.isFinite(delayMs)
      ? delayMs
      : undefined;
  }
  const failures = failuresOf(error);
  if (failures !== undefined) {
    let delayMs: number | undefined;
    for (const failure of failures) {
      const own = retryAfterDelay(failure.error);
      if (own === undefined) return undefined;
      delayMs = delayMs === undefined ? own : Math.min(delayMs, own);
    }
    return delayMs;
  }
  return undefined;
}

// The text apimachinery puts in every optimistic-concurrency conflict; lasso matches on it too, so a
// conflict reported by a wrapper that lost the ApiError still reads as one.
const conflictText = 'please apply your changes to the latest version and try again';

/**
 * True when `error` is an optimistic-concurrency conflict (409 Conflict, anywhere in its cause chain or
 * among a {@link HandlerError}'s failures): the controller requeues it without an error log.
 */
export function isConflictError(error: unknown): boolean {
  return someError(error, (current) => {
    if (safeGet(current, 'code') === 'LASSO_API_ERROR' && safeGet(current, 'reason') === 'Conflict')
      return true;
    const message = safeGet(current, 'message');
    return typeof message === 'string' && message.includes(conflictText);
  });
}

/** One failed handler of a shared handler run. */
export interface HandlerFailure {
  /** The handler's registered name. */
  readonly handler: string;
  /** What it threw (any value). */
  readonly error: unknown;
}

/**
 * The handlers of one key that failed during one run of a shared handler, in registration order
 * (lasso's `errorList`). The message reads `handler <name>: <message>, handler <name>: <message>`;
 * `cause` is the first failure's error.
 */
export class HandlerError extends LassoError {
  /** The controller whose handlers failed. */
  readonly controller: string;
  /** Every failure, in registration order. */
  readonly failures: readonly HandlerFailure[];

  constructor(controller: string, failures: readonly HandlerFailure[]) {
    super(
      'LASSO_HANDLER_FAILED',
      failures
        .map((failure) => `handler ${failure.handler}: ${errorMessage(failure.error)}`)
        .join(', '),
      { cause: failures[0]?.error },
    );
    this.controller = controller;
    this.failures = failures;
  }
}
