// The MetricsProvider of @lasso/core on prom-client: every lasso metric (workqueue_*, rest_client_*, informer
// and lasso_controller_*) as Prometheus series in one registry, served on /metrics.
import type { Logger, MetricLabels, MetricsProvider } from '@lasso/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

type Metric = Counter<string> | Gauge<string> | Histogram<string>;

const noopSeries = { inc: () => {}, dec: () => {}, set: () => {}, observe: () => {} };

/** A {@link MetricsProvider} that registers its series in `registry` (with Node's default metrics). */
export function createPrometheusMetrics(
  logger: Logger,
  registry: Registry = new Registry(),
): { metrics: MetricsProvider; registry: Registry } {
  collectDefaultMetrics({ register: registry });
  const byName = new Map<string, { metric: Metric; labelNames: string }>();
  // lasso asks for a series by name and label values; Prometheus wants the label names once per name.
  function series<M extends Metric>(
    kind: string,
    name: string,
    labels: MetricLabels | undefined,
    create: (labelNames: string[]) => M,
  ) {
    const values = labels ?? {};
    const labelNames = Object.keys(values).sort();
    const id = `${kind}:${labelNames.join(',')}`;
    let entry = byName.get(name);
    if (entry === undefined) {
      entry = { metric: create(labelNames), labelNames: id };
      byName.set(name, entry);
    } else if (entry.labelNames !== id) {
      // Metrics must never fail the code that records them; one warning says what was dropped.
      logger.warn('metric asked for with other labels or type, not recorded', { metric: name });
      return noopSeries;
    }
    return labelNames.length === 0
      ? (entry.metric as M)
      : (entry.metric as M & { labels(values: MetricLabels): unknown }).labels(values);
  }
  const metrics: MetricsProvider = {
    counter: ({ name, help, labels }) =>
      series(
        'counter',
        name,
        labels,
        (labelNames) => new Counter({ name, help, labelNames, registers: [registry] }),
      ) as never,
    gauge: ({ name, help, labels }) =>
      series(
        'gauge',
        name,
        labels,
        (labelNames) => new Gauge({ name, help, labelNames, registers: [registry] }),
      ) as never,
    histogram: ({ name, help, labels, buckets }) =>
      series(
        'histogram',
        name,
        labels,
        (labelNames) =>
          new Histogram({
            name,
            help,
            labelNames,
            registers: [registry],
            ...(buckets === undefined ? {} : { buckets: [...buckets] }),
          }),
      ) as never,
  };
  return { metrics, registry };
}
