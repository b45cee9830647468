// EventRecorder: fire-and-forget events.k8s.io/v1 Events, aggregated client-side into series. Ports client-go
// tools/events (event_recorder.go, event_broadcaster.go: the eventCache, finishSeries) to one single-threaded
// object with an injected clock; the writes and their retries are event-writer.ts.
import type { KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  defaultLogger,
  drainedResult,
  errorMessage,
  guardLogger,
  LassoError,
  type Lifecycle,
  type Logger,
  type StopResult,
  systemClock,
  TimeoutError,
  type TimerHandle,
} from '@lasso/core';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import {
  maxEventFieldLength,
  microTime,
  objectReference,
  referenceIdentity,
  truncateNote,
} from './event-format.ts';
import {
  type EventLogLevel,
  type EventRecorderClient,
  EventWriter,
  logQuietly,
} from './event-writer.ts';
import { qualifiedNameProblem } from './qualified-name.ts';

/** The two event types kube accepts. */
export type EventType = 'Normal' | 'Warning';

/** Options of {@link createEventRecorder}. */
export interface EventRecorderOptions {
  /** Writes the Events (a `Client<Event>` of `events.k8s.io/v1` `events`). */
  client: EventRecorderClient;
  /** `reportingController` of every Event: a qualified name such as `example.com/app-controller`. */
  reportingController: string;
  /** `reportingInstance` of every Event (client-go: `<controller>-<hostname>`), at most 128 characters. */
  reportingInstance: string;
  /** Time for `eventTime`, series and retries (default `systemClock`). */
  clock?: Clock | undefined;
  /** Where write failures and dropped events are logged (default: `defaultLogger`). Notes are never logged. */
  logger?: Logger | undefined;
  /**
   * The signal of the first run (the recorder records from creation; `start(signal)` does the same for a
   * later run). Aborting it stops the recorder: the series counts not written yet are written once, and they
   * and the requests in flight get `gracefulShutdownTimeoutMs` before they are cancelled.
   */
  signal?: AbortSignal | undefined;
  /**
   * How long a stop (an abort of the run's signal, or `close()`) lets the final series writes and the requests
   * in flight run before cancelling them, in ms (default 5 s: Events are best effort, and a recorder stops
   * inside its process's own drain bound).
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * @deprecated Use `gracefulShutdownTimeoutMs`, the drain bound's one name across lasso; this alias still
   * works (a warning is logged once) and loses to `gracefulShutdownTimeoutMs` when both are set.
   */
  stopTimeoutMs?: number | undefined;
  /** A repeated event's series is written at most this often, in ms (default 30 s). */
  seriesHeartbeatMs?: number | undefined;
  /**
   * An event seen again within this many ms of its last occurrence joins its series; after that it is a new
   * Event (default 6 minutes, client-go's `finishTime`).
   */
  seriesWindowMs?: number | undefined;
  /** Attempts per write before the event is dropped (default 12, client-go's `maxTriesPerEvent`). */
  maxTries?: number | undefined;
  /** Wait between attempts, in ms, plus up to 25% jitter (default 10 s, as client-go). */
  retryDelayMs?: number | undefined;
  /** Writes in flight or waiting for a retry beyond which new Events are dropped (default 1000). */
  maxPendingWrites?: number | undefined;
}

/**
 * Records Events about objects; see {@link createEventRecorder}. A `@lasso/core` {@link Lifecycle}: it records
 * from creation (bound to the `signal` option when given); an abort of the run's signal or `close()` stops it;
 * `start(signal)` runs it again after a stop; `stopped()` says whether the final writes finished within
 * `gracefulShutdownTimeoutMs`.
 */
export interface EventRecorder extends Lifecycle {
  /**
   * Record that `action` was taken on `regarding` (about `related`, if given) for `reason`. Never throws and
   * never waits: the write happens in the background; an invalid event is logged and dropped.
   */
  event(
    regarding: KubeObjectLike,
    related: KubeObjectLike | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void;
  /** Resolves once no write is in flight or waiting for a retry (retries wait on the clock). */
  flush(): Promise<void>;
  /**
   * Record again with `signal` in charge after a stop (waiting for that stop to end first). While recording,
   * it only hands control to `signal` when no signal is in charge (a recorder created without one). Rejects
   * with a `LASSO_CONFIG_INVALID` error after `close()`.
   */
  start(signal: AbortSignal): Promise<void>;
  /**
   * Settles once a stop has ended (at once when not recording): `drained: false`, naming the writes cancelled,
   * when `gracefulShutdownTimeoutMs` passed first.
   */
  stopped(): Promise<StopResult>;
  /** True from creation (or a start) until a stop begins. */
  isRunning(): boolean;
  /** Stop (as an abort of the run's signal does) and refuse further starts. Idempotent. */
  close(): Promise<void>;
  /**
   * Stop recording: later events are dropped, series counts not written yet are written once (no retry),
   * pending retries are dropped, and timers are cancelled. Resolves once the last write settled, or once
   * `gracefulShutdownTimeoutMs` passed (the writes still in flight are then cancelled).
   *
   * @deprecated Abort the run's signal, or call `close()` (the lifecycle shape); `stop()` still works, and a
   * recorder stopped by it can `start` again.
   */
  stop(): Promise<void>;
}

// One isomorphic event (client-go's eventCache entry). `event` is replaced, never mutated, so a write can
// send the version it started with while new occurrences build the next one.
interface SeriesEntry {
  event: EventsV1Event;
  /** Monotonic ms of the last occurrence: the series ends `seriesWindowMs` after it. */
  lastObservedAt: number;
  /** Monotonic ms the last write started: the next series write waits `seriesHeartbeatMs` after it. */
  lastWriteAt: number;
  /** Occurrences since the last write started, not yet written. */
  dirty: boolean;
  /** A write is in flight or waiting for a retry: never two writes of one entry at once. */
  writing: boolean;
}

function positiveOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`createEventRecorder: options.${name} must be a finite number > 0`);
  }
  return value;
}

// `stopTimeoutMs` is deprecated: said once per process, not once per recorder.
let warnedStopTimeoutMs = false;

class EventRecorderImpl implements EventRecorder {
  // Replaced by a start after a stop: a stopped writer sends nothing more.
  #writer: EventWriter;
  readonly #newWriter: () => EventWriter;
  #closed = false;
  // The result of the last stop, and the promise a running recorder's stopped() returns.
  #result: StopResult = drainedResult;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #reportingController: string;
  readonly #reportingInstance: string;
  readonly #heartbeatMs: number;
  readonly #windowMs: number;
  readonly #maxTries: number;
  readonly #maxPendingWrites: number;
  readonly #stopTimeoutMs: number;
  readonly #entries = new Map<string, SeriesEntry>();
  #signal: AbortSignal | undefined;
  // One timer for every entry: armed for the earliest series write or expiry, only while entries exist.
  #timer: TimerHandle | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  // Event names embed a nanosecond stamp; ms clocks repeat, so stamps are kept strictly increasing.
  #lastStamp = 0n;
  #stopped = false;
  #stopping: Promise<void> | undefined;

  constructor(options: EventRecorderOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('createEventRecorder: options must be an object');
    }
    const { client, reportingController, reportingInstance, signal } = options;
    if (typeof client?.create !== 'function' || typeof client.patch !== 'function') {
      throw new TypeError('createEventRecorder: options.client must have create and patch methods');
    }
    const controllerProblem = qualifiedNameProblem(reportingController);
    if (controllerProblem !== undefined) {
      throw new TypeError(`createEventRecorder: options.reportingController ${controllerProblem}`);
    }
    if (
      typeof reportingInstance !== 'string' ||
      reportingInstance === '' ||
      reportingInstance.length > maxEventFieldLength
    ) {
      throw new TypeError(
        `createEventRecorder: options.reportingInstance must be a non-empty string of at most ${maxEventFieldLength} characters`,
      );
    }
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new TypeError('createEventRecorder: options.signal must be an AbortSignal');
    }
    this.#reportingController = reportingController;
    this.#reportingInstance = reportingInstance;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#heartbeatMs = positiveOption('seriesHeartbeatMs', options.seriesHeartbeatMs, 30_000);
    this.#windowMs = positiveOption('seriesWindowMs', options.seriesWindowMs, 6 * 60_000);
    const retryDelayMs = positiveOption('retryDelayMs', options.retryDelayMs, 10_000);
    this.#maxTries = positiveOption('maxTries', options.maxTries, 12);
    this.#maxPendingWrites = positiveOption('maxPendingWrites', options.maxPendingWrites, 1000);
    if (options.stopTimeoutMs !== undefined && !warnedStopTimeoutMs) {
      warnedStopTimeoutMs = true;
      this.#logger.warn(
        'createEventRecorder: stopTimeoutMs is deprecated, use gracefulShutdownTimeoutMs',
        {},
      );
    }
    this.#stopTimeoutMs =
      options.gracefulShutdownTimeoutMs === undefined
        ? positiveOption('stopTimeoutMs', options.stopTimeoutMs, 5_000)
        : positiveOption('gracefulShutdownTimeoutMs', options.gracefulShutdownTimeoutMs, 5_000);
    if (!Number.isInteger(this.#maxTries)) {
      throw new RangeError('createEventRecorder: options.maxTries must be an integer');
    }
    this.#newWriter = () =>
      new EventWriter({ client, clock: this.#clock, logger: this.#logger, retryDelayMs });
    this.#writer = this.#newWriter();
    if (signal !== undefined) this.#bind(signal);
  }

  #bind(signal: AbortSignal): void {
    this.#signal = signal;
    if (signal.aborted) this.#onAbort();
    else signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  async start(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError(`event recorder: start needs an AbortSignal, got ${typeof signal}`);
    }
    if (this.#closed) throw new LassoError('LASSO_CONFIG_INVALID', 'event recorder is closed');
    if (!this.#stopped) {
      if (this.#signal === undefined) this.#bind(signal);
      return;
    }
    await this.#stopping;
    if (this.#closed) throw new LassoError('LASSO_CONFIG_INVALID', 'event recorder is closed');
    // Another start got here first.
    if (!this.#stopped) return;
    this.#writer = this.#newWriter();
    this.#stopped = false;
    this.#stopping = undefined;
    this.#signal = undefined;
    this.#bind(signal);
  }

  async stopped(): Promise<StopResult> {
    if (this.#stopping === undefined) return drainedResult;
    await this.#stopping;
    return this.#result;
  }

  isRunning(): boolean {
    return !this.#stopped;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.stop();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  event(
    regarding: KubeObjectLike,
    related: KubeObjectLike | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void {
    try {
      this.#record(regarding, related, type, reason, action, note);
    } catch (error) {
      // A hostile argument (a throwing getter) must not break the caller's reconcile.
      this.#log('error', 'event dropped: it could not be built', { error: errorMessage(error) });
    }
  }

  flush(): Promise<void> {
    return this.#writer.flush();
  }

  stop(): Promise<void> {
    if (this.#stopping !== undefined) return this.#stopping;
    this.#stopped = true;
    this.#result = drainedResult;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#writer.stopRetries();
    // The counts observed since the last heartbeat; one try, since nothing will retry after a stop. An entry
    // whose write is in flight writes its newer count once that write ends (see #write).
    for (const entry of this.#entries.values()) {
      if (entry.dirty && !entry.writing) this.#write(entry, 1);
    }
    // The final writes and those in flight are bounded: a hung server must not hold a shutdown.
    const bound = this.#clock.schedule(this.#stopTimeoutMs, () => {
      this.#result = Object.freeze({
        drained: false,
        pending: Object.freeze([`event writes (${this.#writer.pending})`]),
      });
      this.#log('warn', 'event writes cancelled: the recorder stop timed out', {
        timeoutMs: this.#stopTimeoutMs,
      });
      this.#writer.abort(
        new TimeoutError(
          `event recorder stop exceeded ${this.#stopTimeoutMs} ms`,
          this.#stopTimeoutMs,
        ),
      );
    });
    this.#stopping = this.flush().then(() => {
      bound.cancel();
      this.#entries.clear();
    });
    return this.#stopping;
  }

  // An abort of the recorder's signal is a stop: cancelling the writes at once would drop the final counts.
  readonly #onAbort = (): void => {
    this.stop().catch(() => undefined);
  };

  #record(
    regarding: KubeObjectLike,
    related: KubeObjectLike | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void {
    if (this.#stopped) {
      this.#log('debug', 'event dropped: the recorder is stopped', { reason });
      return;
    }
    if (type !== 'Normal' && type !== 'Warning') {
      this.#log('error', 'event dropped: type must be Normal or Warning', { reason, type });
      return;
    }
    for (const [field, value] of [
      ['reason', reason],
      ['action', action],
    ] as const) {
      if (typeof value !== 'string' || value === '' || value.length > maxEventFieldLength) {
        this.#log(
          'error',
          `event dropped: ${field} must have 1 to ${maxEventFieldLength} characters`,
          {
            reason: typeof reason === 'string' ? reason.slice(0, maxEventFieldLength) : undefined,
          },
        );
        return;
      }
    }
    const regardingReference = objectReference(regarding);
    if (regardingReference === undefined) {
      this.#log('error', 'event dropped: the regarding object has no kind or no name', { reason });
      return;
    }
    // client-go records the event without a related object it cannot reference.
    const relatedReference = related === undefined ? undefined : objectReference(related);
    const text = truncateNote(typeof note === 'string' ? note : String(note));
    const key = JSON.stringify([
      referenceIdentity(regardingReference),
      referenceIdentity(relatedReference),
      type,
      reason,
      action,
      text,
    ]);
    const now = this.#clock.monotonic();
    const entry = this.#entries.get(key);
    if (entry !== undefined && now - entry.lastObservedAt < this.#windowMs) {
      entry.event = {
        ...entry.event,
        series: {
          count: (entry.event.series?.count ?? 1) + 1,
          lastObservedTime: microTime(this.#clock.now()),
        },
      };
      entry.lastObservedAt = now;
      entry.dirty = true;
      if (!entry.writing) this.#arm(entry.lastWriteAt + this.#heartbeatMs);
      return;
    }
    if (this.#writer.pending >= this.#maxPendingWrites) {
      this.#log('warn', 'event dropped: too many writes pending', { reason });
      return;
    }
    const fresh: SeriesEntry = {
      event: this.#makeEvent(regardingReference, relatedReference, type, reason, action, text),
      lastObservedAt: now,
      lastWriteAt: now,
      dirty: false,
      writing: false,
    };
    this.#entries.set(key, fresh);
    this.#write(fresh, this.#maxTries);
    this.#arm(now + this.#windowMs);
  }

  #makeEvent(
    regarding: ObjectReference,
    related: ObjectReference | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): EventsV1Event {
    const nowMs = this.#clock.now();
    let stamp = BigInt(Math.floor(nowMs)) * 1_000_000n;
    if (stamp <= this.#lastStamp) stamp = this.#lastStamp + 1n;
    this.#lastStamp = stamp;
    const event: EventsV1Event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        name: `${regarding.name}.${stamp.toString(16)}`,
        namespace: regarding.namespace || 'default',
      },
      eventTime: microTime(nowMs),
      regarding,
      type,
      reason,
      action,
      note,
      reportingController: this.#reportingController,
      reportingInstance: this.#reportingInstance,
    };
    if (related !== undefined) event.related = related;
    return event;
  }

  // Write the entry's current event; when that write is over, schedule what the entry needs next.
  #write(entry: SeriesEntry, maxTries: number): void {
    entry.dirty = false;
    entry.writing = true;
    entry.lastWriteAt = this.#clock.monotonic();
    this.#writer.write(entry.event, maxTries, () => {
      entry.writing = false;
      if (!entry.dirty) this.#arm(entry.lastObservedAt + this.#windowMs);
      else if (!this.#stopped) this.#arm(entry.lastWriteAt + this.#heartbeatMs);
      // Stopped with occurrences observed during the write: their count is written once, as stop() does.
      else if (!this.#writer.aborted) this.#write(entry, 1);
    });
  }

  #arm(at: number): void {
    if (this.#stopped || (this.#timer !== undefined && this.#timerAt <= at)) return;
    this.#timer?.cancel();
    this.#timerAt = at;
    this.#timer = this.#clock.schedule(Math.max(0, at - this.#clock.monotonic()), () =>
      this.#tick(),
    );
  }

  // finishSeries and the series heartbeat in one pass: write due series, forget series that ended.
  #tick(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (this.#stopped) return;
    const now = this.#clock.monotonic();
    let next = Number.POSITIVE_INFINITY;
    for (const [key, entry] of this.#entries) {
      // A write in progress re-arms the timer for its entry when it ends.
      if (entry.writing) continue;
      const due = entry.dirty
        ? entry.lastWriteAt + this.#heartbeatMs
        : entry.lastObservedAt + this.#windowMs;
      if (due > now) next = Math.min(next, due);
      else if (entry.dirty) this.#write(entry, this.#maxTries);
      else this.#entries.delete(key);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }

  #log(level: EventLogLevel, message: string, attributes: Record<string, unknown>): void {
    logQuietly(this.#logger, level, message, attributes);
  }
}

/**
 * Create an Event recorder on `events.k8s.io/v1` (client-go `tools/events`: an `EventBroadcaster` recording
 * to a sink plus its `EventRecorder`, in one object).
 *
 * - Fire-and-forget: {@link EventRecorder.event} validates, builds the Event and returns; the write happens
 *   in the background. An invalid type, an empty or over-long reason or action, or a regarding object without
 *   kind or name is logged and dropped. Notes longer than 1 KiB are cut to fit, ending in ` ...`.
 * - Aggregation: an event identical to one seen less than `seriesWindowMs` (6 min) before (same regarding
 *   and related objects, type, reason, action and note) is not created again; it becomes a
 *   `series { count, lastObservedTime }` on the first Event, written with a merge patch at most once per
 *   `seriesHeartbeatMs` (30 s) however often it recurs. A hot loop costs one create, then one patch per
 *   heartbeat.
 * - Retries: a failed write (connection error, timeout, 429, 5xx) is retried `maxTries` times in all,
 *   `retryDelayMs` (10 s, +25% jitter) apart, then dropped and logged; other API errors are logged and
 *   dropped at once.
 * - Names and fields as client-go: `<regarding name>.<hex nanosecond timestamp>`, `eventTime` a MicroTime,
 *   the regarding object's namespace (or `default` for a cluster-scoped one).
 *
 * **Gotchas**: client-go writes the first repeat at once and refreshes series every 30 minutes; here every
 * series write waits for the heartbeat, so a count lags by up to `seriesHeartbeatMs`. Aggregation ignores the
 * regarding object's `resourceVersion` (client-go does not), so events about an object that keeps changing
 * still aggregate; the Event keeps the `resourceVersion` of the first occurrence. Counts observed after the
 * last write are lost when the process dies: call {@link EventRecorder.stop} on shutdown.
 *
 * @example
 * ```ts
 * import { hostname } from 'node:os';
 * import type { Deployment } from 'kubernetes-types/apps/v1.js';
 * import type { Event } from 'kubernetes-types/events/v1.js';
 * declare const app: Deployment;
 * const events = new Client<Event>({
 *   gvr: { group: 'events.k8s.io', version: 'v1', resource: 'events' }, kind: 'Event', namespaced: true, rest,
 * });
 * const recorder = createEventRecorder({
 *   client: events, reportingController: 'example.com/app-controller', reportingInstance: `app-controller-${hostname()}`,
 *   logger, signal,
 * });
 * recorder.event(app, undefined, 'Normal', 'Scaled', 'Scale', `scaled to ${app.spec?.replicas} replicas`);
 * ```
 *
 * @throws TypeError when `client` lacks `create` or `patch`, `reportingController` is not a qualified name,
 * or `reportingInstance` is empty or longer than 128 characters.
 * @throws RangeError when a duration, `maxTries` or `maxPendingWrites` is not a positive number.
 */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  return new EventRecorderImpl(options);
}
