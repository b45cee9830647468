// A MetricsProvider that keeps its series in memory and writes them in Prometheus' text exposition format
// (version 0.0.4), so an operator serves /metrics without a Prometheus client library. Only what lasso records
// is modelled: counters, gauges and histograms with constant labels per series.
import {
  type Counter,
  defaultLogger,
  type Gauge,
  type Histogram,
  type HistogramOptions,
  type Logger,
  type MetricLabels,
  type MetricOptions,
  type MetricsProvider,
} from '@lasso/core';

/**
 * Prometheus' default histogram buckets (seconds), used when a histogram is asked for without its own.
 *
 * @example
 * ```ts
 * const slow = createPrometheusRegistry().metrics.histogram({
 *   name: 'sync_seconds',
 *   help: 'Sync time.',
 *   buckets: [...defaultHistogramBuckets, 30, 60],
 * });
 * slow.observe(12);
 * ```
 */
export const defaultHistogramBuckets: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]);

/**
 * The `Content-Type` of {@link PrometheusRegistry.expose}'s text (the text format, version 0.0.4).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * const registry = createPrometheusRegistry();
 * createServer((_request, response) => {
 *   response.writeHead(200, { 'content-type': prometheusContentType }).end(registry.expose());
 * }).listen(9090);
 * ```
 */
export const prometheusContentType = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Options of {@link createPrometheusRegistry}.
 *
 * @example
 * ```ts
 * const options: PrometheusRegistryOptions = { logger: createConsoleLogger({ level: 'warn' }) };
 * const registry = createPrometheusRegistry(options);
 * ```
 */
export interface PrometheusRegistryOptions {
  /** Told once per metric name asked for with another type than its first (that series records nothing). Default `defaultLogger`. */
  logger?: Logger | undefined;
}

/**
 * The lasso metrics of a process as Prometheus series: `metrics` is the {@link MetricsProvider} to give every
 * factory, `expose()` the text a `/metrics` scrape answers with.
 *
 * @example
 * ```ts
 * const registry: PrometheusRegistry = createPrometheusRegistry();
 * const operator = await createOperator({ registry, metrics: { port: 8080 } });
 * registry.metrics.counter({ name: 'derived_total', help: 'Copies written.' }).inc();
 * ```
 */
export interface PrometheusRegistry {
  /** Records into this registry; runs its `onCollect` hooks before each {@link PrometheusRegistry.expose}. */
  readonly metrics: MetricsProvider;
  /** Every series in the text exposition format, families sorted by name. */
  expose(): string;
  /** {@link prometheusContentType}. */
  readonly contentType: string;
}

type FamilyType = 'counter' | 'gauge' | 'histogram';

interface Series {
  readonly labels: string;
  value: number;
  /** Histograms: cumulative counts per bucket bound, then sum and count. */
  readonly buckets?: number[];
  sum?: number;
  count?: number;
}

interface Family {
  readonly type: FamilyType;
  readonly help: string;
  readonly bounds: readonly number[];
  readonly series: Map<string, Series>;
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const noop = (): void => {};
const noopSeries = Object.freeze({ inc: noop, dec: noop, set: noop, observe: noop });

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  return String(value);
}

/** `{a="1",b="2"}` with names sorted (one text per label set), or '' without labels. */
function formatLabels(labels: MetricLabels | undefined): string {
  const names = Object.keys(labels ?? {})
    .filter((name) => labelName.test(name) && name !== 'le')
    .sort();
  if (names.length === 0) return '';
  return `{${names.map((name) => `${name}="${escapeLabelValue(String(labels?.[name]))}"`).join(',')}}`;
}

/** `labels` with `le="bound"` appended, for a histogram's bucket lines. */
function withLe(labels: string, bound: number): string {
  const le = `le="${formatNumber(bound)}"`;
  return labels === '' ? `{${le}}` : `${labels.slice(0, -1)},${le}}`;
}

/**
 * Create a {@link PrometheusRegistry}: a {@link MetricsProvider} whose series are written as Prometheus text.
 * One series per (name, labels); asking again returns the same series. A name asked for with another type than
 * its first, or a name Prometheus would refuse, records nothing and is logged once at warn (metrics never fail
 * the code that records them). A counter ignores negative increments.
 *
 * @example
 * ```ts
 * const registry = createPrometheusRegistry();
 * registry.metrics.counter({ name: 'jobs_total', help: 'Jobs done.', labels: { queue: 'a' } }).inc();
 * registry.expose(); // '# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total{queue="a"} 1\n'
 * ```
 */
export function createPrometheusRegistry(
  options: PrometheusRegistryOptions = {},
): PrometheusRegistry {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createPrometheusRegistry: options must be an object');
  }
  const logger = options.logger ?? defaultLogger;
  const families = new Map<string, Family>();
  const collectors = new Set<() => void>();
  const warned = new Set<string>();

  function warnOnce(name: string, message: string, attributes: Record<string, string>): void {
    if (warned.has(name)) return;
    warned.add(name);
    logger.warn(message, { metric: name, ...attributes });
  }

  function seriesOf(
    type: FamilyType,
    options: MetricOptions,
    bounds: readonly number[],
  ): Series | undefined {
    const { name, help, labels } = options;
    if (typeof name !== 'string' || !metricName.test(name)) {
      warnOnce(String(name), 'metric name not valid in Prometheus, not recorded', {});
      return undefined;
    }
    let family = families.get(name);
    if (family === undefined) {
      family = { type, help: String(help ?? ''), bounds, series: new Map() };
      families.set(name, family);
    } else if (family.type !== type) {
      warnOnce(name, 'metric asked for with another type, not recorded', {
        type,
        registeredAs: family.type,
      });
      return undefined;
    }
    const text = formatLabels(labels);
    let series = family.series.get(text);
    if (series === undefined) {
      series =
        type === 'histogram'
          ? { labels: text, value: 0, buckets: family.bounds.map(() => 0), sum: 0, count: 0 }
          : { labels: text, value: 0 };
      family.series.set(text, series);
    }
    return series;
  }

  const metrics: MetricsProvider = {
    counter(options: MetricOptions): Counter {
      const series = seriesOf('counter', options, []);
      if (series === undefined) return noopSeries;
      return {
        inc: (value = 1) => {
          if (value >= 0) series.value += value;
        },
      };
    },
    gauge(options: MetricOptions): Gauge {
      const series = seriesOf('gauge', options, []);
      if (series === undefined) return noopSeries;
      return {
        set: (value) => {
          series.value = value;
        },
        inc: (value = 1) => {
          series.value += value;
        },
        dec: (value = 1) => {
          series.value -= value;
        },
      };
    },
    histogram(options: HistogramOptions): Histogram {
      const bounds = [...(options.buckets ?? defaultHistogramBuckets)]
        .filter((bound) => Number.isFinite(bound))
        .sort((a, b) => a - b);
      const series = seriesOf('histogram', options, bounds);
      if (series === undefined) return noopSeries;
      const family = families.get(options.name) as Family;
      return {
        observe: (value) => {
          const buckets = series.buckets ?? [];
          family.bounds.forEach((bound, index) => {
            if (value <= bound) buckets[index] = (buckets[index] ?? 0) + 1;
          });
          series.sum = (series.sum ?? 0) + value;
          series.count = (series.count ?? 0) + 1;
        },
      };
    },
    onCollect(collect) {
      collectors.add(collect);
      return () => {
        collectors.delete(collect);
      };
    },
  };

  function expose(): string {
    for (const collect of [...collectors]) {
      try {
        collect();
      } catch (error) {
        // A collector that throws must not cost the scrape the other series.
        warnOnce('onCollect', 'metrics collector threw, its gauges may be stale', {
          error: String(error),
        });
      }
    }
    const lines: string[] = [];
    for (const name of [...families.keys()].sort()) {
      const family = families.get(name) as Family;
      lines.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`);
      for (const series of family.series.values()) {
        if (family.type !== 'histogram') {
          lines.push(`${name}${series.labels} ${formatNumber(series.value)}`);
          continue;
        }
        family.bounds.forEach((bound, index) => {
          lines.push(
            `${name}_bucket${withLe(series.labels, bound)} ${series.buckets?.[index] ?? 0}`,
          );
        });
        lines.push(
          `${name}_bucket${withLe(series.labels, Number.POSITIVE_INFINITY)} ${series.count ?? 0}`,
          `${name}_sum${series.labels} ${formatNumber(series.sum ?? 0)}`,
          `${name}_count${series.labels} ${series.count ?? 0}`,
        );
      }
    }
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  return { metrics, expose, contentType: prometheusContentType };
}
