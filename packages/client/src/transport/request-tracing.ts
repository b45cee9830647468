// The OpenTelemetry span of one API request: made only when tracing is on (a tracerProvider in the config, or
// @opentelemetry/api installed), a child of the reconcile whose signal the request carries.
import {
  isNoopSpan,
  recordSpanError,
  SPAN_KIND_CLIENT,
  type TraceAttributeValue,
  type TraceSpan,
  type Tracing,
  traceContextOf,
} from '@lasso/core';
import { requestInfoFor } from './request-info.ts';
import type { RestRequest } from './rest-request.ts';

/**
 * The span of one call of `requestJson` or `stream`, retries included: named `<verb> <resource>` (`get
 * configmaps`, `watch pods`; `<verb> <path>` for a non-resource path), with the attributes `lasso.verb`,
 * `lasso.resource` (`pods/status` for a subresource), `lasso.group`, `lasso.version`, `lasso.namespace` when
 * namespaced, `http.request.method` and the final `http.response.status_code`. A failure sets status ERROR and
 * records the error. A watch's span ends when its response headers arrive.
 */
export class RequestTrace {
  readonly #span: TraceSpan;

  constructor(tracing: Tracing, request: RestRequest) {
    const info = requestInfoFor(request.method, request.path, request.query);
    const attributes: Record<string, TraceAttributeValue> = {
      'lasso.verb': info.verb,
      'http.request.method': request.method,
    };
    let target = info.path;
    if (info.resource !== undefined) {
      target =
        info.subresource !== undefined ? `${info.resource}/${info.subresource}` : info.resource;
      attributes['lasso.resource'] = target;
      attributes['lasso.group'] = info.group ?? '';
      if (info.version !== undefined) attributes['lasso.version'] = info.version;
      if (info.namespace !== undefined) attributes['lasso.namespace'] = info.namespace;
    }
    this.#span = tracing.startSpan(
      `${info.verb} ${target}`,
      SPAN_KIND_CLIENT,
      attributes,
      traceContextOf(request.signal),
    );
  }

  /** True for a span of the API's no-op tracer. */
  get noop(): boolean {
    return isNoopSpan(this.#span);
  }

  end(): void {
    this.#span.end();
  }

  /** The status code of the answer that ends the request. */
  status(code: number): void {
    this.#span.setAttribute('http.response.status_code', code);
  }

  /** The request failed with `error` (an ApiError carries the answer's status). */
  fail(error: unknown): void {
    try {
      const status = (error as { status?: unknown } | null)?.status;
      if (typeof status === 'number') this.status(status);
    } catch {
      // A hostile thrown value: the span still gets the error below.
    }
    recordSpanError(this.#span, error);
  }

  /** Ends the span when `sent` settles, recording its failure. */
  async around<R>(sent: Promise<R>): Promise<R> {
    try {
      return await sent;
    } catch (error) {
      this.fail(error);
      throw error;
    } finally {
      this.#span.end();
    }
  }
}

/** The trace of `request`, or undefined when tracing is off. */
export function traceRequest(
  tracing: Tracing | undefined,
  request: RestRequest,
): RequestTrace | undefined {
  if (tracing === undefined) return undefined;
  const trace = new RequestTrace(tracing, request);
  if (!trace.noop) return trace;
  // The API's no-op tracer (no SDK registered): nothing to record or wait for.
  trace.end();
  return undefined;
}
