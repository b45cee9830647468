// The workqueue demo (`pnpm start` until the example operator exists): three workers reconcile a
// dozen keys from a rate-limited queue; some keys fail a few times and are retried with backoff.
import {
  anySignal,
  type Counter,
  errorMessage,
  type LogAttributes,
  type Logger,
  type MetricsProvider,
  sleep,
  systemClock,
  timeoutSignal,
} from '@lasso/core';
import { createRateLimitingQueue, exponentialFailureRateLimiter } from '@lasso/workqueue';

const workers = 3;
const keys = Array.from({ length: 12 }, (_, i) => `default/object-${i}`);
// Key i fails its first (i % 4) attempts, then succeeds: enough to show backoff 100, 200, 400 ms.
const failuresFor = (key: string): number => Number(key.split('-').at(-1)) % 4;
const deadlineMs = 5_000;

function consoleLogger(base: LogAttributes = {}): Logger {
  const write =
    (level: string) =>
    (message: string, attributes?: LogAttributes): void => {
      const fields = { ...base, ...attributes };
      const suffix = Object.entries(fields)
        .map(
          ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(' ');
      const time = new Date().toISOString().slice(11, 23);
      console.log(`${time} ${level.padEnd(5)} ${message}${suffix ? ` ${suffix}` : ''}`);
    };
  return {
    debug: () => {},
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (attributes) => consoleLogger({ ...base, ...attributes }),
  };
}

// Just enough of a MetricsProvider to print the queue's counters in the summary.
function countingMetrics(): MetricsProvider & { total(name: string): number } {
  const totals = new Map<string, number>();
  const series = (name: string): Counter & { set(v: number): void; dec(v?: number): void } => ({
    inc: (value = 1) => totals.set(name, (totals.get(name) ?? 0) + value),
    dec: (value = 1) => totals.set(name, (totals.get(name) ?? 0) - value),
    set: (value) => totals.set(name, value),
  });
  return {
    counter: ({ name }) => series(name),
    gauge: ({ name }) => series(name),
    histogram: () => ({ observe: () => {} }),
    total: (name) => totals.get(name) ?? 0,
  };
}

async function main(): Promise<void> {
  const logger = consoleLogger();
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info('stopping', { signal });
    stop.abort(new Error(`received ${signal}`));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const deadline = timeoutSignal(systemClock, deadlineMs, 'demo deadline reached');
  const run = anySignal([stop.signal, deadline.signal]);

  const metrics = countingMetrics();
  const queue = createRateLimitingQueue<string>(
    exponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 1_600 }),
    { name: 'demo', metrics, logger },
  );
  const succeeded = new Set<string>();
  let attempts = 0;

  const worker = async (id: number): Promise<void> => {
    const log = logger.child({ worker: id });
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      const key = next.item;
      const attempt = queue.numRequeues(key) + 1;
      attempts++;
      try {
        await sleep(systemClock, 30 + 20 * (attempt % 3), { signal: run.signal });
        if (attempt <= failuresFor(key)) throw new Error(`simulated failure ${attempt}`);
        queue.forget(key);
        succeeded.add(key);
        log.info('reconciled', { key, attempt });
        if (succeeded.size === keys.length) queue.shutDown();
      } catch (error) {
        if (run.signal.aborted) return;
        log.warn('reconcile failed, requeueing', { key, attempt, error: errorMessage(error) });
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };

  const started = performance.now();
  run.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  for (const key of keys) queue.add(key);
  await Promise.all(Array.from({ length: workers }, (_, i) => worker(i + 1)));
  await queue.shutDownWithDrain();
  deadline.clear();
  run.dispose();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);

  const elapsedMs = Math.round(performance.now() - started);
  const complete = succeeded.size === keys.length;
  logger.info(complete ? 'all keys reconciled' : 'stopped before every key was reconciled', {
    reconciled: `${succeeded.size}/${keys.length}`,
    attempts,
    retries: metrics.total('workqueue_retries_total'),
    adds: metrics.total('workqueue_adds_total'),
    elapsedMs,
  });
  if (!complete && !stop.signal.aborted) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
