import { noopLogger } from '@lasso/core';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { Handler } from './controller-types.ts';
import { ErrIgnore, retryAfter } from './errors.ts';
import { LazyReconcileContext } from './reconcile-context.ts';
import { traceHandler } from './reconcile-tracing.ts';

const target = { controller: 'c', kind: 'v1, Kind=ConfigMap', retries: () => 3 };

function recording() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, spans: () => exporter.getFinishedSpans() };
}

describe('traceHandler', () => {
  it('records one span per reconcile with its outcome; a plain handler stays synchronous', async () => {
    const { provider, spans } = recording();
    const outcomes: Array<[string, Handler<unknown>]> = [
      ['success', () => undefined],
      ['ignored', () => Promise.reject(ErrIgnore)],
      ['requeue_after', () => Promise.reject(retryAfter(10))],
      [
        'conflict',
        () =>
          Promise.reject(
            new Error(
              'the object has been modified; please apply your changes to the latest version and try again',
            ),
          ),
      ],
      [
        'error',
        () => {
          throw new Error('boom');
        },
      ],
    ];
    for (const [outcome, handler] of outcomes) {
      const traced = traceHandler(handler, provider, target);
      const context = new LazyReconcileContext(`ns/${outcome}`, noopLogger);
      let result: unknown;
      try {
        result = traced(`ns/${outcome}`, undefined, context);
        if (result instanceof Promise) await result.catch(() => {});
      } catch {
        // the synchronous throw is rethrown as is
      }
      if (outcome === 'success') expect(result).toBeUndefined();
    }
    expect(
      spans().map((span) => [span.attributes['lasso.key'], span.attributes['lasso.outcome']]),
    ).toEqual(outcomes.map(([outcome]) => [`ns/${outcome}`, outcome]));
    expect(spans()[0]?.attributes).toMatchObject({
      'lasso.controller': 'c',
      'lasso.kind': 'v1, Kind=ConfigMap',
      'lasso.retries': 3,
    });
    expect(spans().find((span) => span.attributes['lasso.outcome'] === 'error')?.status.code).toBe(
      2,
    );
    expect(
      spans().find((span) => span.attributes['lasso.outcome'] === 'ignored')?.status.code,
    ).toBe(0);
  });

  it("is 'cancelled' when the reconcile's signal aborted and the error came from it", async () => {
    const { provider, spans } = recording();
    const stop = new AbortController();
    const traced = traceHandler(
      async (_key, _object, { signal }) => {
        stop.abort(new Error('stopping'));
        signal.throwIfAborted();
      },
      provider,
      target,
    );
    await expect(
      traced('k', undefined, new LazyReconcileContext('k', noopLogger, stop.signal)),
    ).rejects.toThrow('stopping');
    expect(spans()[0]?.attributes['lasso.outcome']).toBe('cancelled');
  });

  it("with the API's no-op tracer (no SDK) runs the handler without touching the context's signal", () => {
    let ran = false;
    const traced = traceHandler(
      () => {
        ran = true;
      },
      trace.getTracerProvider(),
      target,
    );
    const context = {
      key: 'k',
      logger: noopLogger,
      get signal(): AbortSignal {
        throw new Error('the signal was made');
      },
    };
    expect(traced('k', undefined, context)).toBeUndefined();
    expect(ran).toBe(true);
  });
});
