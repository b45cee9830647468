// Views of a MetricsProvider: one that adds constant labels to every series (lasso's context id, telling the
// series of two clusters apart in one process), and one that remembers the series it handed out so whoever
// created them can remove them when it stops (a closed controller's series are not scraped forever).
import type {
  Counter,
  Gauge,
  Histogram,
  HistogramOptions,
  MetricLabels,
  MetricOptions,
  MetricsProvider,
} from './metrics.ts';

/**
 * `provider` with `labels` added to every series it creates (a series' own label of the same name wins). lasso
 * labels its handler metrics with `ctx`, the context id of `WithContextID`; a factory's `contextId` option uses
 * this, so two factories on two clusters in one process count apart.
 *
 * @example
 * ```ts
 * import { noopMetricsProvider, withMetricLabels } from '@lasso/core';
 *
 * const local = withMetricLabels(noopMetricsProvider, { ctx: 'local' });
 * local.counter({ name: 'jobs_total', help: 'Jobs done.' }).inc(); // jobs_total{ctx="local"}
 * ```
 */
export function withMetricLabels(provider: MetricsProvider, labels: MetricLabels): MetricsProvider {
  if (typeof labels !== 'object' || labels === null) {
    throw new TypeError('withMetricLabels: labels must be an object of label names to values');
  }
  for (const [name, value] of Object.entries(labels)) {
    if (typeof value !== 'string') {
      throw new TypeError(`withMetricLabels: label ${name} must be a string, got ${typeof value}`);
    }
  }
  const constant = Object.freeze({ ...labels });
  const merged = <O extends MetricOptions>(options: O): O => ({
    ...options,
    labels: { ...constant, ...options.labels },
  });
  const view: MetricsProvider = {
    counter: (options) => provider.counter(merged(options)),
    gauge: (options) => provider.gauge(merged(options)),
    histogram: (options) => provider.histogram(merged(options)),
  };
  if (provider.onCollect !== undefined)
    view.onCollect = (collect) => provider.onCollect?.(collect) ?? noop;
  if (provider.remove !== undefined) view.remove = (options) => provider.remove?.(merged(options));
  return view;
}

/** A provider that remembers its series, and how to remove them all (see {@link trackMetrics}). */
export interface TrackedMetrics {
  /** Creates series through the underlying provider and remembers each. */
  readonly provider: MetricsProvider;
  /**
   * Ask the underlying provider to remove every series created so far (`MetricsProvider.remove`; nothing
   * happens with a provider that cannot remove), then forget them. Series created later are tracked afresh.
   */
  removeAll(): void;
}

/**
 * Remember every series created through the returned provider, to remove them together when their owner stops
 * (a closed controller removes its handler, queue and timeout series).
 *
 * @example
 * ```ts
 * import { noopMetricsProvider, trackMetrics } from '@lasso/core';
 *
 * const tracked = trackMetrics(noopMetricsProvider);
 * tracked.provider.gauge({ name: 'queue_depth', help: 'Items queued.', labels: { name: 'a' } }).set(3);
 * tracked.removeAll(); // queue_depth{name="a"} is no longer exported
 * ```
 */
export function trackMetrics(provider: MetricsProvider): TrackedMetrics {
  const created = new Map<string, MetricOptions>();
  const remember = <O extends MetricOptions>(options: O): O => {
    created.set(seriesId(options), {
      name: options.name,
      help: options.help,
      ...labelsOf(options),
    });
    return options;
  };
  const tracked: MetricsProvider = {
    counter: (options): Counter => provider.counter(remember(options)),
    gauge: (options): Gauge => provider.gauge(remember(options)),
    histogram: (options: HistogramOptions): Histogram => provider.histogram(remember(options)),
  };
  if (provider.onCollect !== undefined) {
    tracked.onCollect = (collect) => provider.onCollect?.(collect) ?? noop;
  }
  if (provider.remove !== undefined) tracked.remove = (options) => provider.remove?.(options);
  return {
    provider: tracked,
    removeAll() {
      const series = [...created.values()];
      created.clear();
      if (provider.remove === undefined) return;
      for (const options of series) provider.remove(options);
    },
  };
}

const noop = (): void => {};

function labelsOf(options: MetricOptions): { labels?: MetricLabels } {
  return options.labels === undefined ? {} : { labels: options.labels };
}

function seriesId(options: MetricOptions): string {
  const labels = options.labels ?? {};
  const parts = Object.keys(labels)
    .sort()
    .map((key) => `${key}=${JSON.stringify(labels[key])}`);
  return `${options.name}{${parts.join(',')}}`;
}
