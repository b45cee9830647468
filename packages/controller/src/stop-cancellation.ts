// Whether a failed reconcile was only cut short by the controller's stop (a shutdown, leadership lost, close):
// the worker then logs it at info, without a stack. A Ctrl-C is not an error of every reconcile in flight.
import { isAbortError, isLassoError } from '@lasso/core';

// Bounds the cause-chain walk, as errors.ts does: a cyclic or absurdly deep chain must not hang a worker.
const maxCauseDepth = 32;

function safeGet(value: unknown, key: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null)
    return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** The errors of a shared handler's `HandlerError` (of any installed copy), or undefined for anything else. */
function handlerFailures(error: unknown): unknown[] | undefined {
  if (!isLassoError(error, 'LASSO_HANDLER_FAILED')) return undefined;
  try {
    const failures = safeGet(error, 'failures');
    if (!Array.isArray(failures) || failures.length === 0) return undefined;
    return failures.map((failure: unknown) => safeGet(failure, 'error'));
  } catch {
    return undefined;
  }
}

/** `error` or something in its cause chain is the stop's `reason` or an abort error. */
function causedByAbort(error: unknown, reason: unknown): boolean {
  let current = error;
  const seen = new Set<unknown>();
  while (current !== undefined && current !== null && !seen.has(current)) {
    if (seen.size >= maxCauseDepth) return false;
    seen.add(current);
    try {
      if (current === reason || isAbortError(current)) return true;
    } catch {
      // A hostile value is simply not an abort.
    }
    current = safeGet(current, 'cause');
  }
  return false;
}

/**
 * @internal True when a reconcile that failed with `error` after its run began to stop with `reason` was
 * cancelled by that stop: `error` (or its cause chain) is `reason` or an abort error, or it is a shared
 * handler's `HandlerError` whose every failure is. A real failure among them keeps it an error. Total: never
 * throws, whatever was thrown.
 */
export function isStopCancellation(error: unknown, reason: unknown, depth = 0): boolean {
  const failures = handlerFailures(error);
  if (failures === undefined) return causedByAbort(error, reason);
  // A HandlerError nested in itself (only a hostile value is) must not recurse forever.
  if (depth >= maxCauseDepth) return false;
  return failures.every((failure) => isStopCancellation(failure, reason, depth + 1));
}
