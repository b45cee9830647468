// W4's tracing variants of the @lasso/factory consumer (`pnpm bench:e2e --tracing 1`): the same factory with an
// OpenTelemetry SDK recording every reconcile and request span (batched to an exporter that drops them), and
// the same factory in a process where @opentelemetry/api cannot be resolved (the optional peer not installed).
// The plain consumer is the third case: the API installed, no SDK registered (its no-op spans).
import Module from 'node:module';
import { type Consumer, lassoConsumer } from './e2e-consumers.ts';

// Spans exported in this process; the provider is registered once (the API refuses a second global provider).
let exported = 0;
let registered: Promise<{ forceFlush(): Promise<void> }> | undefined;

async function registerProvider(): Promise<{ forceFlush(): Promise<void> }> {
  const [{ trace }, { BasicTracerProvider, BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor({
        export: (spans, done) => {
          exported += spans.length;
          done({ code: 0 });
        },
        shutdown: async () => {},
      }),
    ],
  });
  if (!trace.setGlobalTracerProvider(provider))
    throw new Error('a global tracer provider was already set');
  return provider;
}

/** @lasso/factory with a recording tracer provider (batched to an exporter that counts and drops) in its process. */
export const tracedConsumer: Consumer = {
  name: '@lasso/factory +tracing',
  async start(...args) {
    registered ??= registerProvider();
    const provider = await registered;
    const before = exported;
    const running = await lassoConsumer.start(...args);
    return {
      failed: running.failed,
      stop: async () => {
        await running.stop();
        await provider.forceFlush();
        process.stderr.write(`${tracedConsumer.name}: ${exported - before} spans this round\n`);
      },
    };
  },
};

/** @lasso/factory where `require('@opentelemetry/api')` fails as it does when the package is not installed. */
export const withoutApiConsumer: Consumer = {
  name: '@lasso/factory no-otel',
  async start(...args) {
    blockModule('@opentelemetry/api');
    return lassoConsumer.start(...args);
  },
};

/** Makes `require(id)` throw MODULE_NOT_FOUND in this process (core loads the API lazily, after this runs). */
function blockModule(id: string): void {
  const loader = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
  };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function blocked(request: string, ...rest: unknown[]): string {
    if (request === id) {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    }
    return resolve.call(this, request, ...rest);
  };
}

/** The tracing variants, by name. */
export const tracingConsumers: readonly Consumer[] = [tracedConsumer, withoutApiConsumer];
