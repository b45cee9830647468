// The OpenTelemetry span of each reconcile: the controller's handler wrapped once at creation, and only when
// tracing is on (a tracerProvider option, or @opentelemetry/api installed), so an untraced controller runs the
// handler it was given.
import {
  bindTraceContext,
  isNoopSpan,
  recordSpanError,
  resolveTracing,
  SPAN_KIND_INTERNAL,
  type TracerProvider,
  type TraceSpan,
  type Tracing,
} from '@lasso/core';
import type { Handler } from './controller-types.ts';
import { isConflictError, isIgnoreError, retryAfterDelay } from './errors.ts';
import type { ReconcileContext } from './reconcile-context.ts';
import { isStopCancellation } from './stop-cancellation.ts';
import { isThenable } from './thenable.ts';
import { VERSION } from './version.ts';

/**
 * How a reconcile ended, the `lasso.outcome` attribute of its span: `success`; `ignored` (`ErrIgnore`);
 * `requeue_after` (`retryAfter(ms)`); `conflict` (a 409, retried quietly); `cancelled` (its signal aborted and
 * the error came from that: a stop, a lost lease, the reconcile timeout); `error` (retried with backoff).
 */
export type ReconcileOutcome =
  | 'success'
  | 'ignored'
  | 'requeue_after'
  | 'conflict'
  | 'cancelled'
  | 'error';

/** What the span of a reconcile needs from its controller. */
export interface ReconcileTraceTarget {
  /** The controller's name. */
  readonly controller: string;
  /** The kind reconciled: the informer's name (`v1, Kind=ConfigMap` for a cache of `createCache`). */
  readonly kind: string;
  /** Failed reconciles of `key` since its last success (the queue's `numRequeues`). */
  retries(key: string): number;
}

/**
 * `handler`, or when tracing is on a handler that runs it inside a `reconcile <controller>` span (kind
 * INTERNAL) with the attributes `lasso.controller`, `lasso.kind`, `lasso.key`, `lasso.retries` and
 * `lasso.outcome`. The span is the active OpenTelemetry context while the handler runs (for a context
 * manager), and the reconcile's `signal` carries it: an API request made with that signal is its child.
 */
export function traceHandler<T>(
  handler: Handler<T>,
  tracerProvider: TracerProvider | undefined,
  target: ReconcileTraceTarget,
): Handler<T> {
  const tracing = resolveTracing(tracerProvider, '@lasso/controller', VERSION);
  if (tracing === undefined) return handler;
  return (key, object, context) => traced(tracing, handler, target, key, object, context);
}

function traced<T>(
  tracing: Tracing,
  handler: Handler<T>,
  target: ReconcileTraceTarget,
  key: string,
  object: T | undefined,
  context: ReconcileContext,
): void | Promise<void> {
  const span = tracing.startSpan(`reconcile ${target.controller}`, SPAN_KIND_INTERNAL, {
    'lasso.controller': target.controller,
    'lasso.kind': target.kind,
    'lasso.key': key,
    'lasso.retries': target.retries(key),
  });
  if (isNoopSpan(span)) {
    // @opentelemetry/api installed without an SDK: no context to carry, and the signal stays lazy.
    span.end();
    return handler(key, object, context);
  }
  const spanContext = tracing.contextWith(span);
  // The signal is made here rather than on first use: requests find their parent through it.
  const signal = context.signal;
  bindTraceContext(signal, spanContext);
  let result: void | Promise<void>;
  try {
    result = tracing.with(spanContext, () => handler(key, object, context));
  } catch (error) {
    finish(span, signal, error, true);
    throw error;
  }
  if (!isThenable(result)) {
    finish(span, signal, undefined, false);
    return result;
  }
  return Promise.resolve(result).then(
    () => finish(span, signal, undefined, false),
    (error: unknown) => {
      finish(span, signal, error, true);
      throw error;
    },
  );
}

function finish(span: TraceSpan, signal: AbortSignal, error: unknown, failed: boolean): void {
  const outcome = outcomeOf(error, failed, signal);
  try {
    span.setAttribute('lasso.outcome', outcome);
    if (outcome === 'error' || outcome === 'conflict') recordSpanError(span, error);
    span.end();
  } catch {
    // A broken span must not change the reconcile's outcome.
  }
}

/** The {@link ReconcileOutcome} of a reconcile that returned (`failed` false) or threw `error`. */
export function outcomeOf(error: unknown, failed: boolean, signal: AbortSignal): ReconcileOutcome {
  if (!failed) return 'success';
  if (isIgnoreError(error)) return 'ignored';
  if (signal.aborted && isStopCancellation(error, signal.reason)) return 'cancelled';
  if (retryAfterDelay(error) !== undefined) return 'requeue_after';
  if (isConflictError(error)) return 'conflict';
  return 'error';
}
