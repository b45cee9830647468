// The reflector's metrics: one set per reflector, labelled with its name.
import type { Counter, Gauge, MetricsProvider } from '@lasso/core';

/** @internal What a reflector counts. */
export interface ReflectorMetrics {
  lists: Counter;
  relists: Counter;
  watches: Counter;
  restarts: Counter;
  errors: Counter;
  truncated: Counter;
  lastEvent: Gauge;
  polling: Gauge;
}

/** @internal The metrics of the reflector `name`. */
export function reflectorMetrics(metrics: MetricsProvider, name: string): ReflectorMetrics {
  const labels = { name };
  return {
    lists: metrics.counter({
      name: 'lasso_reflector_lists_total',
      help: 'Lists completed by the reflector (every page of one list counts once).',
      labels,
    }),
    relists: metrics.counter({
      name: 'lasso_reflector_relists_total',
      help: 'Lists after the first one (after a 410 Gone or malformed data).',
      labels,
    }),
    watches: metrics.counter({
      name: 'lasso_reflector_watches_total',
      help: 'Watch requests started by the reflector.',
      labels,
    }),
    restarts: metrics.counter({
      name: 'lasso_reflector_restarts_total',
      help: 'Watches started after a previous watch ended or failed.',
      labels,
    }),
    errors: metrics.counter({
      name: 'lasso_reflector_errors_total',
      help: 'Failures of the list/watch cycle (each one was also given to the watch error handler).',
      labels,
    }),
    truncated: metrics.counter({
      name: 'lasso_reflector_truncated_events_total',
      help: 'Watches whose body ended inside an event (the partial event was dropped; the watch resumed).',
      labels,
    }),
    lastEvent: metrics.gauge({
      name: 'lasso_reflector_last_event_timestamp_seconds',
      help: 'Wall-clock time of the last watch event or list, in seconds since the epoch.',
      labels,
    }),
    polling: metrics.gauge({
      name: 'lasso_reflector_polling',
      help: '1 while the reflector lists on an interval because the resource cannot be watched (405, or watchable: false), else 0.',
      labels,
    }),
  };
}
