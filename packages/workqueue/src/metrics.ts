// The seven workqueue_* metrics; ports client-go util/workqueue/metrics.go (defaultQueueMetrics) with
// the names and help texts client-go, controller-runtime and lasso's pkg/metrics/workqueue.go register.
import type { Clock, Counter, Gauge, Histogram, MetricsProvider, TimerHandle } from '@lasso/core';

/** Names of the metrics every named queue with a metrics provider records (label `name`). */
export const workqueueMetricNames = Object.freeze({
  depth: 'workqueue_depth',
  adds: 'workqueue_adds_total',
  queueDuration: 'workqueue_queue_duration_seconds',
  workDuration: 'workqueue_work_duration_seconds',
  unfinishedWork: 'workqueue_unfinished_work_seconds',
  longestRunningProcessor: 'workqueue_longest_running_processor_seconds',
  retries: 'workqueue_retries_total',
});

/** client-go refreshes the two "unfinished" gauges on this period (queue.go). */
export const unfinishedWorkUpdatePeriodMs = 500;

// component-base's workqueue provider: prometheus.ExponentialBuckets(10e-9, 10, 10).
const durationBuckets = Object.freeze([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10]);

/** Per-queue metric recorder; only created for a named queue with a metrics provider. */
export class QueueMetrics<T> {
  readonly #clock: Clock;
  readonly #depth: Gauge;
  readonly #adds: Counter;
  readonly #latency: Histogram;
  readonly #workDuration: Histogram;
  readonly #unfinishedWork: Gauge;
  readonly #longestRunningProcessor: Gauge;
  readonly #retries: Counter;
  // First add time of each dirty item (a re-add does not reset it), as client-go's addTimes.
  readonly #addTimes = new Map<T, number>();
  // Start time of each item being processed.
  readonly #processingStartTimes = new Map<T, number>();
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(provider: MetricsProvider, name: string, clock: Clock) {
    this.#clock = clock;
    const labels = { name };
    const n = workqueueMetricNames;
    this.#depth = provider.gauge({ name: n.depth, help: 'Current depth of workqueue', labels });
    this.#adds = provider.counter({
      name: n.adds,
      help: 'Total number of adds handled by workqueue',
      labels,
    });
    this.#latency = provider.histogram({
      name: n.queueDuration,
      help: 'How long in seconds an item stays in workqueue before being requested.',
      labels,
      buckets: durationBuckets,
    });
    this.#workDuration = provider.histogram({
      name: n.workDuration,
      help: 'How long in seconds processing an item from workqueue takes.',
      labels,
      buckets: durationBuckets,
    });
    this.#unfinishedWork = provider.gauge({
      name: n.unfinishedWork,
      help:
        "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing ' +
        'the rate at which this increases.',
      labels,
    });
    this.#longestRunningProcessor = provider.gauge({
      name: n.longestRunningProcessor,
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labels,
    });
    this.#retries = provider.counter({
      name: n.retries,
      help: 'Total number of retries handled by workqueue',
      labels,
    });
    this.#schedule();
  }

  add(item: T): void {
    this.#adds.inc();
    this.#depth.inc();
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.monotonic());
  }

  get(item: T): void {
    const now = this.#clock.monotonic();
    this.#depth.dec();
    this.#processingStartTimes.set(item, now);
    const addedAt = this.#addTimes.get(item);
    if (addedAt !== undefined) {
      this.#latency.observe((now - addedAt) / 1000);
      this.#addTimes.delete(item);
    }
  }

  done(item: T): void {
    const startedAt = this.#processingStartTimes.get(item);
    if (startedAt !== undefined) {
      this.#workDuration.observe((this.#clock.monotonic() - startedAt) / 1000);
      this.#processingStartTimes.delete(item);
    }
  }

  retry(): void {
    this.#retries.inc();
  }

  /** Refresh the two gauges client-go derives from the processing start times. */
  updateUnfinishedWork(): void {
    const now = this.#clock.monotonic();
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.#processingStartTimes.values()) {
      const age = (now - startedAt) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#unfinishedWork.set(total);
    this.#longestRunningProcessor.set(oldest);
  }

  /** Stop the periodic refresh (on shutdown), so no timer outlives the queue. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #schedule(): void {
    // One timer at a time, re-armed after each tick; without keepAlive, so a refresh never holds the process open.
    this.#timer = this.#clock.schedule(unfinishedWorkUpdatePeriodMs, () => {
      this.#timer = undefined;
      if (this.#stopped) return;
      this.updateUnfinishedWork();
      this.#schedule();
    });
  }
}
