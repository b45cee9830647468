// A logger and a metrics provider for the soak's factory: they count (by level and message, by metric name) so
// the report can print what happened without a line per retry.
import type {
  Counter,
  Gauge,
  Histogram,
  LogAttributes,
  Logger,
  MetricsProvider,
} from '@lasso/core';

/** Log entries counted by `level message`; errors are also kept (the first few) for the report. */
export interface CountingLogger extends Logger {
  readonly counts: Map<string, number>;
}

/** A logger that counts every entry by level and message; with `verbose` it also prints warn and error. */
export function createCountingLogger(verbose = false, prefix = ''): CountingLogger {
  const counts = new Map<string, number>();
  const record =
    (level: string) =>
    (message: string, attributes?: LogAttributes): void => {
      const key = `${level} ${message}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (verbose && (level === 'warn' || level === 'error')) {
        process.stderr.write(
          `${new Date().toISOString()} ${prefix}${key} ${JSON.stringify(attributes ?? {})}\n`,
        );
      }
    };
  const logger: CountingLogger = {
    counts,
    debug: () => {},
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => logger,
  };
  return logger;
}

/** Counter totals by metric name (all label sets summed). */
export interface CountingMetrics extends MetricsProvider {
  total(name: string): number;
}

export function createCountingMetrics(): CountingMetrics {
  const totals = new Map<string, number>();
  const add = (name: string, value: number): void => {
    totals.set(name, (totals.get(name) ?? 0) + value);
  };
  return {
    total: (name) => totals.get(name) ?? 0,
    counter: ({ name }): Counter => ({ inc: (value = 1) => add(name, value) }),
    gauge: (): Gauge => ({ set: () => {}, inc: () => {}, dec: () => {} }),
    histogram: (): Histogram => ({ observe: () => {} }),
  };
}
