// Tracing through OpenTelemetry, which stays optional: `@opentelemetry/api` is an optional peer dependency,
// loaded with require() on first use, so a process without it loads nothing, makes no span and pays one
// failed resolution per process. The types below are the few members of the API's Tracer and Span that lasso
// calls, so its declarations compile without the package installed and accept the SDK's objects as they are.
import { readFileSync } from 'node:fs';
// Aliased: bundles that prepend the usual ESM `require` shim (`import { createRequire } from 'node:module'`) must
// not see a second top-level `createRequire`.
import { createRequire as createModuleRequire } from 'node:module';
import { join, sep } from 'node:path';
import { defaultLogger } from './console-logger.ts';
import { errorMessage } from './errors.ts';

/**
 * A value of a span attribute.
 *
 * @example
 * ```ts
 * const value: TraceAttributeValue = 'v1, Kind=ConfigMap';
 * ```
 */
export type TraceAttributeValue = string | number | boolean;

/**
 * The members of an OpenTelemetry `Span` lasso uses; any span of `@opentelemetry/api` is one.
 *
 * @example
 * ```ts
 * function done(span: TraceSpan): void {
 *   span.setAttribute('lasso.outcome', 'success');
 *   span.end();
 * }
 * ```
 */
export interface TraceSpan {
  spanContext(): { traceId: string };
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): void;
  isRecording(): boolean;
  end(): void;
}

/**
 * The member of an OpenTelemetry `Tracer` lasso uses; any tracer of `@opentelemetry/api` is one.
 *
 * @example
 * ```ts
 * function traced(tracer: Tracer): void {
 *   tracer.startSpan('work').end();
 * }
 * ```
 */
export interface Tracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Record<string, TraceAttributeValue> },
    context?: unknown,
  ): TraceSpan;
}

/**
 * Where lasso gets its tracers: an OpenTelemetry `TracerProvider` (the SDK's `BasicTracerProvider` or
 * `NodeTracerProvider`, or `trace.getTracerProvider()`). Give one to the `tracerProvider` option of a
 * `RestConfig` or a controller; without one, lasso uses the global provider of `@opentelemetry/api` when that
 * package is installed, and makes no span when it is not.
 *
 * @example
 * ```ts
 * const spans: string[] = [];
 * const tracerProvider: TracerProvider = {
 *   getTracer: () => ({
 *     startSpan: (name) => {
 *       spans.push(name);
 *       return {
 *         setAttribute: () => undefined,
 *         setStatus: () => undefined,
 *         recordException: () => {},
 *         spanContext: () => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }),
 *         isRecording: () => true,
 *         end: () => {},
 *       };
 *     },
 *   }),
 * };
 * ```
 */
export interface TracerProvider {
  getTracer(name: string, version?: string): Tracer;
}

/** The parts of `@opentelemetry/api` lasso calls. */
interface OpenTelemetryApi {
  trace: {
    getTracer(name: string, version?: string): Tracer;
    setSpan(context: unknown, span: TraceSpan): unknown;
  };
  context: {
    active(): unknown;
    with<R>(context: unknown, fn: () => R): R;
  };
}

/** OpenTelemetry's SpanKind and SpanStatusCode numbers (fixed by the specification). */
export const SPAN_KIND_INTERNAL = 0;
export const SPAN_KIND_CLIENT = 2;
export const SPAN_STATUS_ERROR = 2;

type RequireFn = ((id: string) => unknown) & { resolve?: (id: string) => string };

const API = '@opentelemetry/api';
// Made on first use, not at import: a CommonJS bundle of lasso (esbuild or tsup with `format: cjs`) has no
// `import.meta.url`, and `createRequire(undefined)` would throw as the bundle loads.
let loader: RequireFn | undefined;
// undefined: not tried yet; null: not installed (or broken).
let loaded: OpenTelemetryApi | null | undefined;

/**
 * @internal `@opentelemetry/api`, or undefined when it cannot be resolved. Tried once per process; a package
 * that is there but fails to load turns tracing off with a warning (a missing one is the normal case: quiet).
 */
export function openTelemetryApi(): OpenTelemetryApi | undefined {
  if (loaded === undefined) {
    try {
      loader ??= defaultLoader();
      loaded = loadApi(loader);
    } catch (error) {
      loaded = null;
      if (!isApiNotFound(error)) {
        defaultLogger.warn(`tracing off: ${API} is installed but did not load`, {
          error: errorMessage(error),
        });
      }
    }
  }
  return loaded ?? undefined;
}

/**
 * In ES modules a `require` made from this file's URL; in a CommonJS bundle the module's own. Decided by
 * `import.meta.url`, which a CommonJS bundle empties: an ES module bundle (tsup, esbuild) rewrites `require` into a
 * shim that exists but throws "Dynamic require ... is not supported", so `typeof require` cannot tell them apart.
 */
function defaultLoader(): RequireFn {
  const url: unknown = import.meta.url;
  return typeof url === 'string' ? createModuleRequire(url) : require;
}

/**
 * The API through `require`. A process run with a bundler's export condition (`--conditions module`, as vitest
 * runs tests) resolves the API to its ESM build, which Node cannot load (extensionless imports): then the
 * package's CommonJS `main` is required by its path, which no condition redirects.
 */
function loadApi(require: RequireFn): OpenTelemetryApi {
  try {
    return require(API) as OpenTelemetryApi;
  } catch (error) {
    if (isApiNotFound(error) || require.resolve === undefined) throw error;
    const resolved = require.resolve(API);
    const marker = `${sep}node_modules${sep}${API.replace('/', sep)}${sep}`;
    const at = resolved.lastIndexOf(marker);
    if (at < 0) throw error;
    const root = resolved.slice(0, at + marker.length);
    const { main } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      main?: unknown;
    };
    if (typeof main !== 'string') throw error;
    return require(join(root, main)) as OpenTelemetryApi;
  }
}

/**
 * @internal For tests: load `@opentelemetry/api` with `require` from now on (the default loader when
 * undefined), forgetting what an earlier call found.
 */
export function setOpenTelemetryLoader(require: RequireFn | undefined): void {
  loader = require;
  loaded = undefined;
}

// Only the package itself missing is "not installed"; a file missing inside it is a broken install.
function isApiNotFound(error: unknown): boolean {
  try {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return (
      (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
      typeof message === 'string' &&
      message.includes(`'${API}'`)
    );
  } catch {
    return false;
  }
}

// The API's span key: `createContextKey` is `Symbol.for(description)`, so contexts of every copy of the API
// agree on it. Used only when a tracer was given but the API itself cannot be loaded from here.
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** A minimal immutable OpenTelemetry `Context`, for a given tracer without the API. */
class FallbackContext {
  readonly #values: Map<symbol, unknown>;
  constructor(values: Map<symbol, unknown> = new Map()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): FallbackContext {
    return new FallbackContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): FallbackContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new FallbackContext(values);
  }
}

// Contexts of the signals lasso handed to handlers: a request made with a reconcile's signal is a child of
// the reconcile's span, whether or not the application registered a context manager.
const signalContexts = new WeakMap<AbortSignal, unknown>();

/**
 * @internal The tracer of one lasso component and the context operations around it. Made by
 * {@link resolveTracing}; absent (undefined) when tracing is off, so callers test one field per operation.
 */
export class Tracing {
  readonly tracer: Tracer;
  readonly #api: OpenTelemetryApi | undefined;

  constructor(tracer: Tracer, api: OpenTelemetryApi | undefined) {
    this.tracer = tracer;
    this.#api = api;
  }

  /** Start a span under `parent` (an OpenTelemetry Context), or under the active context when none. */
  startSpan(
    name: string,
    kind: number,
    attributes: Record<string, TraceAttributeValue>,
    parent?: unknown,
  ): TraceSpan {
    return this.tracer.startSpan(name, { kind, attributes }, parent ?? this.#api?.context.active());
  }

  /** The context whose current span is `span`, under `parent` (the active one when omitted). */
  contextWith(span: TraceSpan, parent?: unknown): unknown {
    const api = this.#api;
    if (api !== undefined) return api.trace.setSpan(parent ?? api.context.active(), span);
    const base = parent instanceof FallbackContext ? parent : new FallbackContext();
    return base.setValue(SPAN_KEY, span);
  }

  /** Run `fn` with `context` active (for code that reads the active context); plain call without the API. */
  with<R>(context: unknown, fn: () => R): R {
    return this.#api === undefined ? fn() : this.#api.context.with(context, fn);
  }
}

/**
 * @internal The tracing of a component named `name` (`@lasso/client`, `@lasso/controller`): the given provider's
 * tracer, else the global one of `@opentelemetry/api` when installed, else undefined (no span, no cost).
 */
export function resolveTracing(
  provider: TracerProvider | undefined,
  name: string,
  version: string,
): Tracing | undefined {
  const api = openTelemetryApi();
  if (provider !== undefined) return new Tracing(provider.getTracer(name, version), api);
  if (api === undefined) return undefined;
  return new Tracing(api.trace.getTracer(name, version), api);
}

// The trace id of OpenTelemetry's invalid span context: what the API's no-op tracer gives when no SDK is
// registered (an SDK's span has a real id even when its sampler drops it, and its children must follow it).
const INVALID_TRACE_ID = '00000000000000000000000000000000';

/**
 * @internal True for a span of the API's no-op tracer (no SDK registered and no parent): nothing downstream can
 * see it, so callers skip the context work and end it at once.
 */
export function isNoopSpan(span: TraceSpan): boolean {
  return !span.isRecording() && span.spanContext().traceId === INVALID_TRACE_ID;
}

/** @internal Requests made with `signal` become children of `context`'s span. */
export function bindTraceContext(signal: AbortSignal, context: unknown): void {
  signalContexts.set(signal, context);
}

/** @internal The context bound to `signal` by {@link bindTraceContext}, if any. */
export function traceContextOf(signal: AbortSignal | undefined): unknown {
  return signal === undefined ? undefined : signalContexts.get(signal);
}

/** @internal Mark `span` failed with `error` (status ERROR, the exception recorded); never throws. */
export function recordSpanError(span: TraceSpan, error: unknown): void {
  try {
    const message = errorMessage(error);
    span.recordException(error instanceof Error ? error : message);
    span.setStatus({ code: SPAN_STATUS_ERROR, message });
  } catch {
    // A hostile error or a broken span must not fail the request or the reconcile it describes.
  }
}

/** @internal Checks a `tracerProvider` option: undefined or an object with `getTracer`. */
export function checkTracerProvider(value: unknown, option: string): void {
  if (value === undefined) return;
  if (typeof (value as { getTracer?: unknown } | null)?.getTracer !== 'function') {
    throw new TypeError(`${option} must be an OpenTelemetry TracerProvider (with getTracer)`);
  }
}
