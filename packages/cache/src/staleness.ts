// Staleness of an informer's cache: the last resourceVersion it synced and when it last knew it was current,
// and lasso's cached-object count per kind. Read at any time with cacheStaleness(); also exported as gauges.
import type { Clock, Gauge, MetricLabels, MetricsProvider } from '@lasso/core';

/** A group/version/kind, the labels of `lasso_controller_total_cached_object`. */
export interface CacheGroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** How current an informer's cache is, computed when read (see {@link cacheStaleness}). */
export interface CacheStaleness {
  /** The resourceVersion of the last list, watch event or bookmark received; `''` before the first list. */
  readonly resourceVersion: string;
  /** `clock.now()` (ms since the epoch) when the cache last knew it was current; undefined before the first list. */
  readonly currentAt: number | undefined;
  /** Seconds from `currentAt` to now (the informer's clock); undefined before the first list. */
  readonly secondsSinceCurrent: number | undefined;
  /** Objects in the informer's store. */
  readonly cachedObjects: number;
}

/** The metric names of this file, for dashboards and tests. */
export const stalenessMetricNames = Object.freeze({
  resourceVersion: 'lasso_informer_last_sync_resource_version',
  currentTimestamp: 'lasso_informer_last_current_timestamp_seconds',
  cachedObjects: 'lasso_controller_total_cached_object',
});

// The reflector sets this gauge (clock.now() / 1000) after every list and every step of the watch (one event or
// bookmark, or every event of one body chunk from a Client), with its resourceVersion already advanced: the one
// moment the informer can observe bookmarks without a wrapper around every watch event. Pinned by the bookmark test
// in staleness.test.ts.
const reflectorLastEvent = 'lasso_reflector_last_event_timestamp_seconds';

const trackers = new WeakMap<object, StalenessTracker>();

/**
 * How current `informer`'s cache is, computed now from the informer's clock (no timer runs per informer).
 * Undefined for an informer this package did not create.
 *
 * `secondsSinceCurrent` grows while nothing arrives: a healthy watch on a quiet resource gets a bookmark about
 * once a minute from kube-apiserver, so values up to ~60 s are normal; more means the watch is failing or stalled
 * (see the informer's watch error handler and `lasso_reflector_errors_total`).
 *
 * @example
 * ```ts
 * declare const informer: SharedIndexInformer<KubeObject>;
 * const staleness = cacheStaleness(informer);
 * if ((staleness?.secondsSinceCurrent ?? 0) > 300) logger.warn('cache stale', { ...staleness });
 * ```
 */
export function cacheStaleness(informer: object): CacheStaleness | undefined {
  return trackers.get(informer)?.read();
}

/** Internal: records an informer's staleness; created by the informer, registered for {@link cacheStaleness}. */
export class StalenessTracker {
  readonly #clock: Clock;
  readonly #metrics: MetricsProvider;
  readonly #resourceVersionOf: () => string;
  readonly #size: () => number;
  readonly #resourceVersionGauge: Gauge;
  readonly #timestampGauge: Gauge;
  readonly #cachedObjectsGauge: Gauge | undefined;
  #lastResourceVersion = '';
  #currentAt: number | undefined;
  #lastSize = -1;

  constructor(options: {
    owner: object;
    name: string;
    clock: Clock;
    metrics: MetricsProvider;
    gvk: CacheGroupVersionKind | undefined;
    resourceVersion: () => string;
    size: () => number;
  }) {
    this.#clock = options.clock;
    this.#metrics = options.metrics;
    this.#resourceVersionOf = options.resourceVersion;
    this.#size = options.size;
    const labels: MetricLabels = { name: options.name };
    this.#resourceVersionGauge = options.metrics.gauge({
      name: stalenessMetricNames.resourceVersion,
      help: 'resourceVersion of the last list, watch event or bookmark the informer received (when numeric).',
      labels,
    });
    this.#timestampGauge = options.metrics.gauge({
      name: stalenessMetricNames.currentTimestamp,
      help: 'Unix time (s) when the informer last knew its cache was current (list, watch event or bookmark).',
      labels,
    });
    const { gvk } = options;
    this.#cachedObjectsGauge =
      gvk === undefined
        ? undefined
        : options.metrics.gauge({
            name: stalenessMetricNames.cachedObjects,
            help: 'Number of objects in the cache, per kind.',
            labels: { group: gvk.group, version: gvk.version, kind: gvk.kind },
          });
    trackers.set(options.owner, this);
  }

  /** The provider the reflector gets: the informer's, with the reflector's last-event gauge observed. */
  reflectorMetrics(): MetricsProvider {
    const inner = this.#metrics;
    return {
      counter: (options) => inner.counter(options),
      histogram: (options) => inner.histogram(options),
      gauge: (options) => {
        const gauge = inner.gauge(options);
        if (options.name !== reflectorLastEvent) return gauge;
        return {
          set: (seconds: number) => {
            gauge.set(seconds);
            this.#current(seconds * 1000);
          },
          inc: (value?: number) => gauge.inc(value),
          dec: (value?: number) => gauge.dec(value),
        };
      },
    };
  }

  /** Called after the informer applied a batch of deltas: the cached-object count (set only when it changed). */
  stored(): void {
    if (this.#cachedObjectsGauge === undefined) return;
    const size = this.#size();
    if (size === this.#lastSize) return;
    this.#lastSize = size;
    this.#cachedObjectsGauge.set(size);
  }

  read(): CacheStaleness {
    const currentAt = this.#currentAt;
    return {
      resourceVersion: this.#resourceVersionOf(),
      currentAt,
      secondsSinceCurrent:
        currentAt === undefined ? undefined : Math.max(0, (this.#clock.now() - currentAt) / 1000),
      cachedObjects: this.#size(),
    };
  }

  #current(nowMs: number): void {
    this.#currentAt = nowMs;
    this.#timestampGauge.set(nowMs / 1000);
    const resourceVersion = this.#resourceVersionOf();
    if (resourceVersion === this.#lastResourceVersion) return;
    this.#lastResourceVersion = resourceVersion;
    // resourceVersions are opaque; etcd's (and the built-in server's) are decimal integers.
    const value = Number(resourceVersion);
    if (resourceVersion !== '' && Number.isSafeInteger(value))
      this.#resourceVersionGauge.set(value);
  }
}
