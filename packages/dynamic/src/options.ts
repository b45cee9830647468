// Checks of the dynamic controller's options and registrations (TypeError/RangeError naming the option).
import type {
  DynamicControllerOptions,
  DynamicMatcher,
  GvkMatcher,
} from './dynamic-controller-api.ts';

/** @internal A matcher as `onChange` takes it. */
export type DynamicMatcherInput = GvkMatcher | DynamicMatcher;

/** @internal */
export function toMatcher(input: DynamicMatcherInput): DynamicMatcher {
  return typeof input === 'function' ? { gvk: input } : input;
}

/** @internal */
export function checkOptions(options: DynamicControllerOptions): void {
  const where = 'createDynamicController';
  nonNegative(options.debounceMs, 'debounceMs', where);
  nonNegative(options.gracefulShutdownTimeoutMs, 'gracefulShutdownTimeoutMs', where);
  nonNegative(options.refreshRetry?.initialMs, 'refreshRetry.initialMs', where, true);
  nonNegative(options.syncTimeoutMs, 'syncTimeoutMs', where, true);
  nonNegative(options.refreshRetry?.maxMs, 'refreshRetry.maxMs', where, true);
  if (
    options.workers !== undefined &&
    (!Number.isInteger(options.workers) || options.workers < 1)
  ) {
    throw new RangeError(
      `${where}: workers must be an integer >= 1, got ${String(options.workers)}`,
    );
  }
  if (options.rateLimiter !== undefined && typeof options.rateLimiter !== 'function') {
    throw new TypeError(`${where}: rateLimiter must be a function that builds a rate limiter`);
  }
  const discovery = options.discovery;
  if (
    discovery !== undefined &&
    (typeof discovery?.discover !== 'function' || typeof discovery.invalidate !== 'function')
  ) {
    throw new TypeError(`${where}: discovery must have discover() and invalidate()`);
  }
}

/** @internal */
export function checkRegistration(
  signal: unknown,
  name: unknown,
  matcher: unknown,
  handler: unknown,
): asserts matcher is DynamicMatcherInput {
  const where = 'DynamicController.onChange';
  if (!(signal instanceof AbortSignal))
    throw new TypeError(`${where}: signal must be an AbortSignal`);
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`${where}: name must be a non-empty string`);
  }
  const gvk =
    typeof matcher === 'function' ? matcher : (matcher as { gvk?: unknown } | undefined)?.gvk;
  if (typeof gvk !== 'function') {
    throw new TypeError(
      `${where}: matcher must be a function of the GVK or { gvk, metadataOnly? }`,
    );
  }
  if (typeof handler !== 'function') throw new TypeError(`${where}: handler must be a function`);
}

function nonNegative(
  value: number | undefined,
  name: string,
  where: string,
  positive = false,
): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (positive && value === 0)) {
    throw new RangeError(
      `${where}: ${name} must be a number ${positive ? '> 0' : '>= 0'}, got ${String(value)}`,
    );
  }
}
