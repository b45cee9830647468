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

// Initial capacity of the per-slot timestamp arrays; they double when a queue holds more items at once.
const initialSlots = 64;

/**
 * The coarse clock of the add and hand-out timestamps: a clock reading is reused by later adds and hand-outs for
 * at most this long (a timer marks it stale; the timer runs only while readings are being reused) and at most
 * {@link coarseClockMaxUses} times. `done` always reads the clock. See the README's "Metrics" for the error bound.
 */
export const coarseClockPeriodMs = 1;
/** How many adds and hand-outs may reuse one clock reading (see {@link coarseClockPeriodMs}). */
export const coarseClockMaxUses = 16;

/**
 * Per-queue metric recorder; only created for a named queue with a metrics provider.
 *
 * Allocation-free per item: the seven series are resolved once, here, with their `name` label; the
 * queue passes each item's slot (see `WorkQueueImpl`) and the timestamps live in two `Float64Array`s
 * indexed by it. `done` reads the clock; an add or a hand-out reuses the latest reading while it is fresh
 * (younger than {@link coarseClockPeriodMs}, used fewer than {@link coarseClockMaxUses} times): a clock read
 * (`process.hrtime()`, 35-45 ns) was 40 % of a metered queue's cost per item with three per item.
 */
export class QueueMetrics {
  readonly #clock: Clock;
  readonly #depth: Gauge;
  readonly #adds: Counter;
  readonly #latency: Histogram;
  readonly #workDuration: Histogram;
  readonly #unfinishedWork: Gauge;
  readonly #longestRunningProcessor: Gauge;
  readonly #retries: Counter;
  // By slot: when the item last became dirty (client-go's addTimes; a re-add while dirty does not
  // reset it, because the queue reports only the transition), and when it was handed out (NaN when
  // it is not being processed: client-go's processingStartTimes).
  #addedAt = new Float64Array(initialSlots);
  #startedAt = new Float64Array(initialSlots).fill(Number.NaN);
  // The latest clock reading of an add or done (see `handedOut`).
  #lastReading = 0;
  // The coarse clock: how many more adds and hand-outs may reuse `#lastReading` (0: read the clock), and the timer
  // that makes it stale `coarseClockPeriodMs` after it was read (armed only while a reading is fresh).
  #freshUses = 0;
  #staleTimer: TimerHandle | undefined;
  readonly #makeStale = (): void => {
    this.#staleTimer = undefined;
    this.#freshUses = 0;
  };
  // One past the highest slot ever used: the refresh scans no further.
  #slotsInUse = 0;
  #timer: TimerHandle | undefined;
  // The provider's scrape hook, when it has one (then no timer).
  #stopCollecting: (() => void) | undefined;
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
    // The two "unfinished" gauges are computed from the slots: at each scrape when the provider says when
    // that is, else every 500 ms as in client-go. Neither costs anything per item.
    if (typeof provider.onCollect === 'function') {
      this.#stopCollecting = provider.onCollect(() => {
        if (!this.#stopped) this.updateUnfinishedWork();
      });
    } else {
      this.#schedule();
    }
  }

  /** The item in `slot` became dirty (first add, or an add while it is processed). */
  added(slot: number): void {
    this.#adds.inc();
    this.#depth.inc();
    if (slot >= this.#slotsInUse) this.#use(slot);
    this.#addedAt[slot] = this.#coarseNow();
  }

  /**
   * The item in `slot` was handed to a worker. `sameInstant`: within the add or done that queued it, so the
   * clock reading of that transition is this one's too (a direct hand-off to a waiting worker).
   */
  handedOut(slot: number, sameInstant = false): void {
    const now = sameInstant ? this.#lastReading : this.#coarseNow();
    this.#depth.dec();
    this.#startedAt[slot] = now;
    this.#latency.observe((now - (this.#addedAt[slot] as number)) / 1000);
  }

  /** The item in `slot` is done. */
  done(slot: number): void {
    const now = this.#now();
    this.#workDuration.observe((now - (this.#startedAt[slot] as number)) / 1000);
    this.#startedAt[slot] = Number.NaN;
  }

  /** A waiting item was dropped (it will not be handed out). */
  dropped(): void {
    this.#depth.dec();
  }

  retry(): void {
    this.#retries.inc();
  }

  /** Refresh the two gauges client-go derives from the processing start times (a scan of the slots in use). */
  updateUnfinishedWork(): void {
    const now = this.#now();
    const startedAt = this.#startedAt;
    let total = 0;
    let oldest = 0;
    for (let slot = 0; slot < this.#slotsInUse; slot++) {
      const started = startedAt[slot] as number;
      if (Number.isNaN(started)) continue;
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#unfinishedWork.set(total);
    this.#longestRunningProcessor.set(oldest);
  }

  /** Stop the periodic refresh or the scrape hook (on shutdown), so no timer or callback outlives the queue. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#staleTimer?.cancel();
    this.#staleTimer = undefined;
    this.#freshUses = 0;
    const stopCollecting = this.#stopCollecting;
    this.#stopCollecting = undefined;
    stopCollecting?.();
  }

  /**
   * The clock, once per transition; kept for a direct hand-off that follows it (see `handedOut`). `systemClock`'s
   * reading (`process.hrtime()`) allocates nothing once optimised.
   */
  #now(): number {
    const now = this.#clock.monotonic();
    this.#lastReading = now;
    if (!this.#stopped) {
      this.#freshUses = coarseClockMaxUses;
      this.#staleTimer ??= this.#clock.schedule(coarseClockPeriodMs, this.#makeStale);
    }
    return now;
  }

  /**
   * The latest reading while it is fresh, else a new one. The stale timer is armed by the reading that starts a
   * fresh period, never re-armed by a reuse: a reading is reused at most `coarseClockPeriodMs` after it was taken,
   * as far as timers can run (a timer cannot fire while the event loop is blocked, which the use count bounds).
   */
  #coarseNow(): number {
    if (this.#freshUses > 0) {
      this.#freshUses--;
      return this.#lastReading;
    }
    return this.#now();
  }

  /** Make room for `slot` (the queue hands out slots 0, 1, 2, ... and reuses freed ones). */
  #use(slot: number): void {
    this.#slotsInUse = slot + 1;
    let capacity = this.#addedAt.length;
    if (slot < capacity) return;
    while (capacity <= slot) capacity *= 2;
    const addedAt = new Float64Array(capacity);
    addedAt.set(this.#addedAt);
    this.#addedAt = addedAt;
    const startedAt = new Float64Array(capacity).fill(Number.NaN);
    startedAt.set(this.#startedAt);
    this.#startedAt = startedAt;
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
