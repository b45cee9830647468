// client-go's REST client metrics (k8s.io/client-go/tools/metrics: rest_client_* series) for one transport.
import type { Clock, MetricsProvider } from '@lasso/core';

const HELP: Record<string, string> = {
  rest_client_requests_total:
    'Number of HTTP requests, partitioned by status code, method, and host.',
  rest_client_request_duration_seconds: 'Request latency in seconds (to the response headers).',
  rest_client_request_retries_total:
    'Number of request retries, partitioned by status code, verb, and host.',
};
/** client-go's request latency buckets. */
const DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

type Series = { inc(): void; observe(value: number): void };

/**
 * The `rest_client_*` series of one transport, labelled with its `host`. Series are created on
 * first use and kept, so a provider sees each label set registered once.
 */
export class RequestMetrics {
  readonly #metrics: MetricsProvider;
  readonly #clock: Clock;
  readonly #host: string;
  readonly #series = new Map<string, Series>();

  constructor(metrics: MetricsProvider, clock: Clock, host: string) {
    this.#metrics = metrics;
    this.#clock = clock;
    this.#host = host;
  }

  /**
   * `rest_client_requests_total` and `rest_client_request_duration_seconds` of one attempt, timed
   * from `startedMs` (a `clock.monotonic()` reading) to the response headers. `code` is the HTTP
   * status, or `<error>` when no answer came.
   */
  requestDone(method: string, code: string, startedMs: number): void {
    this.#seriesOf('counter', 'rest_client_requests_total', { code, method }).inc();
    this.#seriesOf('histogram', 'rest_client_request_duration_seconds', { verb: method }).observe(
      (this.#clock.monotonic() - startedMs) / 1000,
    );
  }

  /** `rest_client_request_retries_total`: `code` is the status retried, or `<error>` for a lost connection. */
  retried(method: string, code: string): void {
    this.#seriesOf('counter', 'rest_client_request_retries_total', { code, verb: method }).inc();
  }

  #seriesOf(type: 'counter' | 'histogram', name: string, labels: Record<string, string>): Series {
    const all = { ...labels, host: this.#host };
    const key = `${name}${JSON.stringify(all)}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      if (type === 'counter') {
        const counter = this.#metrics.counter({ name, help: HELP[name] ?? name, labels: all });
        series = { inc: () => counter.inc(), observe: () => {} };
      } else {
        const histogram = this.#metrics.histogram({
          name,
          help: HELP[name] ?? name,
          labels: all,
          buckets: DURATION_BUCKETS,
        });
        series = { inc: () => {}, observe: (value) => histogram.observe(value) };
      }
      this.#series.set(key, series);
    }
    return series;
  }
}
