// Per-webhook metrics, named as lasso's other metrics (`lasso_<component>_<what>`) after controller-runtime's
// controller_runtime_webhook_{requests_total,latency_seconds,requests_in_flight}, plus denials and errors.
import type { Counter, Gauge, Histogram, MetricsProvider } from '@lasso/core';

/** @internal The series of one webhook path. */
export interface WebhookSeries {
  requests(code: number): Counter;
  readonly latency: Histogram;
  readonly inFlight: Gauge;
  readonly denials: Counter;
  readonly errors: Counter;
}

/** @internal Series created once per webhook and code (a Prometheus binding registers each once). */
export class WebhookMetrics {
  readonly #metrics: MetricsProvider;
  readonly #series = new Map<string, WebhookSeries>();
  readonly #reloads = new Map<string, Counter>();

  constructor(metrics: MetricsProvider) {
    this.#metrics = metrics;
  }

  for(webhook: string): WebhookSeries {
    let series = this.#series.get(webhook);
    if (series !== undefined) return series;
    const metrics = this.#metrics;
    const labels = { webhook };
    const byCode = new Map<number, Counter>();
    series = {
      requests: (code) => {
        let counter = byCode.get(code);
        if (counter === undefined) {
          counter = metrics.counter({
            name: 'lasso_webhook_requests_total',
            help: 'Total number of admission and conversion requests by webhook path and HTTP status code',
            labels: { webhook, code: String(code) },
          });
          byCode.set(code, counter);
        }
        return counter;
      },
      latency: metrics.histogram({
        name: 'lasso_webhook_latency_seconds',
        help: 'Time from a request read whole to its response written, by webhook path',
        labels,
      }),
      inFlight: metrics.gauge({
        name: 'lasso_webhook_requests_in_flight',
        help: 'Requests being served, by webhook path',
        labels,
      }),
      denials: metrics.counter({
        name: 'lasso_webhook_denials_total',
        help: 'Admission requests a handler denied, by webhook path',
        labels,
      }),
      errors: metrics.counter({
        name: 'lasso_webhook_errors_total',
        help: 'Requests whose handler threw or timed out, or whose conversion failed, by webhook path',
        labels,
      }),
    };
    this.#series.set(webhook, series);
    return series;
  }

  certificateReload(result: 'success' | 'failure'): Counter {
    let counter = this.#reloads.get(result);
    if (counter === undefined) {
      counter = this.#metrics.counter({
        name: 'lasso_webhook_certificate_reloads_total',
        help: 'Reloads of the serving certificate from disk, by result',
        labels: { result },
      });
      this.#reloads.set(result, counter);
    }
    return counter;
  }
}
