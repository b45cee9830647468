import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bindTraceContext,
  checkTracerProvider,
  isNoopSpan,
  openTelemetryApi,
  recordSpanError,
  resolveTracing,
  SPAN_KIND_CLIENT,
  setOpenTelemetryLoader,
  type TracerProvider,
  type TraceSpan,
  traceContextOf,
} from './tracing.ts';

interface Recorded {
  name: string;
  kind: number | undefined;
  attributes: Record<string, unknown>;
  parent: unknown;
  status?: { code: number; message?: string };
  ended: boolean;
}

function recordingProvider(): { provider: TracerProvider; spans: Recorded[] } {
  const spans: Recorded[] = [];
  const provider: TracerProvider = {
    getTracer: () => ({
      startSpan: (name, options, parent) => {
        const recorded: Recorded = {
          name,
          kind: options?.kind,
          attributes: { ...options?.attributes },
          parent,
          ended: false,
        };
        spans.push(recorded);
        const span: TraceSpan = {
          setAttribute: (key, value) => {
            recorded.attributes[key] = value;
          },
          setStatus: (status) => {
            recorded.status = status;
          },
          recordException: () => {},
          spanContext: () => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }),
          isRecording: () => true,
          end: () => {
            recorded.ended = true;
          },
        };
        return span;
      },
    }),
  };
  return { provider, spans };
}

const notFound = (id: string): never => {
  throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
};

afterEach(() => setOpenTelemetryLoader(undefined));

describe('resolveTracing', () => {
  it('is off (undefined) when @opentelemetry/api cannot be resolved and no provider is given', () => {
    setOpenTelemetryLoader(notFound);
    expect(openTelemetryApi()).toBeUndefined();
    expect(resolveTracing(undefined, '@lasso/test', '0.0.0')).toBeUndefined();
  });

  it('asks the loader once per process, not once per component', () => {
    let calls = 0;
    setOpenTelemetryLoader((id) => {
      calls++;
      return notFound(id);
    });
    resolveTracing(undefined, 'a', '0');
    resolveTracing(undefined, 'b', '0');
    expect(calls).toBe(1);
  });

  it('uses a given provider without the API, linking children through its own context', () => {
    setOpenTelemetryLoader(notFound);
    const { provider, spans } = recordingProvider();
    const tracing = resolveTracing(provider, '@lasso/test', '1.2.3');
    expect(tracing).toBeDefined();
    const parent = tracing?.startSpan('parent', 0, { a: 1 }) as TraceSpan;
    const context = tracing?.contextWith(parent);
    expect(tracing?.with(context, () => 'ran')).toBe('ran');
    tracing?.startSpan('child', SPAN_KIND_CLIENT, {}, context).end();
    // The SDK reads the parent with the API's span key, a Symbol.for shared by every copy of the API.
    const child = spans[1] as Recorded;
    expect(child.kind).toBe(SPAN_KIND_CLIENT);
    expect(
      (child.parent as { getValue(key: symbol): unknown }).getValue(
        Symbol.for('OpenTelemetry Context Key SPAN'),
      ),
    ).toBe(parent);
    // The API's own reader agrees.
    expect(trace.getSpan(child.parent as never)).toBe(parent);
  });

  it('uses the global provider of the API when installed', () => {
    const tracing = resolveTracing(undefined, '@lasso/test', '0');
    expect(tracing).toBeDefined();
    // No SDK registered: the API's no-op tracer, whose spans callers skip.
    const span = tracing?.startSpan('x', 0, {}) as TraceSpan;
    expect(span.isRecording()).toBe(false);
    expect(isNoopSpan(span)).toBe(true);
  });

  it('turns tracing off when the API is there but fails to load, without throwing', () => {
    setOpenTelemetryLoader(() => {
      throw new SyntaxError('broken install');
    });
    expect(resolveTracing(undefined, 'a', '0')).toBeUndefined();
  });
});

describe('trace contexts of signals', () => {
  it('are found by the signal they were bound to, and only by it', () => {
    const signal = new AbortController().signal;
    const context = { marker: 1 };
    bindTraceContext(signal, context);
    expect(traceContextOf(signal)).toBe(context);
    expect(traceContextOf(new AbortController().signal)).toBeUndefined();
    expect(traceContextOf(undefined)).toBeUndefined();
  });
});

describe('recordSpanError', () => {
  it('never throws, even for a hostile error or a broken span', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        getPrototypeOf() {
          throw new Error('boom');
        },
      },
    );
    const { provider, spans } = recordingProvider();
    const span = provider.getTracer('t').startSpan('s');
    expect(() => recordSpanError(span, hostile)).not.toThrow();
    recordSpanError(span, new Error('failed'));
    expect(spans[0]?.status).toEqual({ code: 2, message: 'failed' });
    const broken = {
      ...span,
      setStatus: () => {
        throw new Error('broken');
      },
    };
    expect(() => recordSpanError(broken, new Error('x'))).not.toThrow();
  });
});

describe('checkTracerProvider', () => {
  it('accepts undefined and providers, and throws a TypeError naming the option otherwise', () => {
    expect(() => checkTracerProvider(undefined, 'opt')).not.toThrow();
    expect(() => checkTracerProvider(trace.getTracerProvider(), 'opt')).not.toThrow();
    expect(() => checkTracerProvider({}, 'config.tracerProvider')).toThrow(
      /config.tracerProvider must be/,
    );
    expect(() => checkTracerProvider(null, 'opt')).toThrow(TypeError);
  });
});
