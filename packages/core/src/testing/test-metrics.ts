// A MetricsProvider that keeps values in memory so tests can read them back.
import type {
  Counter,
  Gauge,
  Histogram,
  HistogramOptions,
  MetricLabels,
  MetricOptions,
  MetricsProvider,
} from '../metrics.ts';

/** A {@link MetricsProvider} whose series can be read back by name and labels. */
export interface TestMetricsProvider extends MetricsProvider {
  /** Current value of a counter or gauge (0 when never touched). */
  value(name: string, labels?: MetricLabels): number;
  /** Every observation of a histogram, in order. */
  observations(name: string, labels?: MetricLabels): number[];
  /** Names of every series created so far. */
  names(): string[];
  /** Whether the series of this name and labels was removed (`remove`) and not created again since. */
  removed(name: string, labels?: MetricLabels): boolean;
}

function seriesKey(name: string, labels: MetricLabels = {}): string {
  const parts = Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`);
  return `${name}{${parts.join(',')}}`;
}

/** Create an in-memory metrics provider for tests. */
export function createTestMetricsProvider(): TestMetricsProvider {
  const values = new Map<string, number>();
  const histograms = new Map<string, number[]>();
  const names = new Set<string>();
  const removed = new Set<string>();
  const scalar = (options: MetricOptions): Counter & Gauge => {
    const key = seriesKey(options.name, options.labels);
    names.add(options.name);
    removed.delete(key);
    if (!values.has(key)) values.set(key, 0);
    return {
      inc: (value = 1) => values.set(key, (values.get(key) ?? 0) + value),
      dec: (value = 1) => values.set(key, (values.get(key) ?? 0) - value),
      set: (value) => values.set(key, value),
    };
  };
  return {
    counter: scalar,
    gauge: scalar,
    histogram: (options: HistogramOptions): Histogram => {
      const key = seriesKey(options.name, options.labels);
      names.add(options.name);
      removed.delete(key);
      const list = histograms.get(key) ?? [];
      histograms.set(key, list);
      return { observe: (value) => list.push(value) };
    },
    remove: (options) => {
      const key = seriesKey(options.name, options.labels);
      values.delete(key);
      histograms.delete(key);
      removed.add(key);
    },
    removed: (name, labels) => removed.has(seriesKey(name, labels)),
    value: (name, labels) => values.get(seriesKey(name, labels)) ?? 0,
    observations: (name, labels) => [...(histograms.get(seriesKey(name, labels)) ?? [])],
    names: () => [...names].sort(),
  };
}
