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
  labels?: MetricLabels;
}

/** Histogram options: bucket upper bounds, as in Prometheus. */
export interface HistogramOptions extends MetricOptions {
  buckets?: readonly number[];
}

/**
 * Factories for the metrics lasso records. A provider may be asked for the same name with different
 * labels several times; it returns one series per (name, labels).
 */
export interface MetricsProvider {
  counter(options: MetricOptions): Counter;
  gauge(options: MetricOptions): Gauge;
  histogram(options: HistogramOptions): Histogram;
}

const noop = (): void => {};
const noopSeries = Object.freeze({ inc: noop, dec: noop, set: noop, observe: noop });

/** A provider whose metrics record nothing; the default of every `metrics` option. */
export const noopMetricsProvider: MetricsProvider = Object.freeze({
  counter: () => noopSeries,
  gauge: () => noopSeries,
  histogram: () => noopSeries,
});
