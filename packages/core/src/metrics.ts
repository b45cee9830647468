// MetricsProvider: client-go-shaped metric factories; any Prometheus binding lives outside lasso.

/** Metric label values, keyed by label name. */
export type MetricLabels = Readonly<Record<string, string>>;

/** A monotonically increasing count. */
export interface Counter {
  inc(value?: number): void;
}

/** A value that goes up and down. */
export interface Gauge {
  set(value: number): void;
  inc(value?: number): void;
  dec(value?: number): void;
}

/** A distribution of observed values (seconds, for durations). */
export interface Histogram {
  observe(value: number): void;
}

/** Description of one metric series as lasso asks for it. */
export interface MetricOptions {
  /** Prometheus-style name, e.g. `workqueue_depth`. */
  name: string;
  /** One-line help text. */
  help: string;
  /** Constant labels of this series, e.g. `{ name: 'apps/v1, Kind=Deployment' }`. */
  labels?: MetricLabels | undefined;
}

/** Histogram options: bucket upper bounds, as in Prometheus. */
export interface HistogramOptions extends MetricOptions {
  buckets?: readonly number[] | undefined;
}

/**
 * Factories for the metrics lasso records. A provider may be asked for the same name with different
 * labels several times; it returns one series per (name, labels).
 */
export interface MetricsProvider {
  counter(options: MetricOptions): Counter;
  gauge(options: MetricOptions): Gauge;
  histogram(options: HistogramOptions): Histogram;
  /**
   * Optional scrape hook: call `collect` before each scrape (export) of the series, until the returned
   * function is called. Lasso sets gauges derived from its state there (the workqueue's
   * `workqueue_unfinished_work_seconds` and `workqueue_longest_running_processor_seconds`), computed when read
   * instead of refreshed on a timer. Without it, lasso refreshes those gauges on a timer, as client-go does.
   *
   * @example
   * ```ts
   * declare const base: Omit<MetricsProvider, 'onCollect'>;
   * const collectors = new Set<() => void>();
   * const provider: MetricsProvider = {
   *   ...base,
   *   onCollect: (collect) => {
   *     collectors.add(collect);
   *     return () => collectors.delete(collect);
   *   },
   * };
   * // In the /metrics handler, before serialising the registry:
   * for (const collect of collectors) collect();
   * ```
   */
  onCollect?(collect: () => void): () => void;
  /**
   * Optional: stop exporting the series of this name and labels (a closed controller's). Lasso calls it for the
   * series a controller created when the controller closes; a provider without it keeps them.
   */
  remove?(options: MetricOptions): void;
}

const noop = (): void => {};
const noopSeries = Object.freeze({ inc: noop, dec: noop, set: noop, observe: noop });

/** A provider whose metrics record nothing; the default of every `metrics` option. */
export const noopMetricsProvider: MetricsProvider = Object.freeze({
  counter: () => noopSeries,
  gauge: () => noopSeries,
  histogram: () => noopSeries,
});
