// The write side of the Event recorder: one Event sent as a create or a series patch, retried on transient
// failures, with every write tracked so the recorder can flush and stop. Ports client-go tools/events
// event_broadcaster.go (recordToSink, recordEvent). Internal: the recorder's series cache decides what to write.
import { isAlreadyExists, isApiError, isNotFound } from '@lasso/client';
import { type Clock, errorMessage, type Logger } from '@lasso/core';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';

/** Options of the calls the recorder makes. */
export interface EventRecorderRequestOptions {
  /** Aborted when the recorder's own `signal` aborts: the request should stop. */
  signal?: AbortSignal | undefined;
}

/** What the recorder writes through: a `Client<Event>` of `events.k8s.io/v1` `events` fits. */
export interface EventRecorderClient {
  create(
    namespace: string | undefined,
    event: EventsV1Event,
    options?: EventRecorderRequestOptions,
  ): Promise<EventsV1Event>;
  patch(
    namespace: string | undefined,
    name: string,
    patchType: 'merge',
    data: unknown,
    options?: EventRecorderRequestOptions,
  ): Promise<EventsV1Event>;
}

/** Log levels the recorder and its writer use. */
export type EventLogLevel = 'debug' | 'warn' | 'error';

/** Log through `logger`, never throwing: a failing logger must not turn a fire-and-forget event into an exception. */
export function logQuietly(
  logger: Logger,
  level: EventLogLevel,
  message: string,
  attributes: Record<string, unknown>,
): void {
  try {
    logger[level](message, attributes);
  } catch {
    // Nobody left to tell.
  }
}

/** Log attributes of an Event: identity only. The note is user text and may hold anything, so it stays out. */
export function eventAttributes(event: EventsV1Event): Record<string, unknown> {
  return {
    namespace: event.metadata?.namespace,
    name: event.metadata?.name,
    reason: event.reason,
    regarding: `${event.regarding?.kind}/${event.regarding?.name}`,
  };
}

/** Settings of an {@link EventWriter}. */
export interface EventWriterOptions {
  readonly client: EventRecorderClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Wait between attempts, in ms, plus up to 25% jitter. */
  readonly retryDelayMs: number;
}

// A write's verdict: done (written, or dropped for good) or worth another try.
type Outcome = 'done' | 'retry';

/**
 * Sends Events and keeps track of the writes in flight or waiting for a retry. A write never rejects: what
 * cannot be written is logged and dropped.
 */
export class EventWriter {
  readonly #client: EventRecorderClient;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retryDelayMs: number;
  readonly #writes = new Set<Promise<void>>();
  // Retry waits, woken early (with `false`) by stopRetries.
  readonly #sleeps = new Set<(proceed: boolean) => void>();
  // Aborted only by abort(): cancels requests in flight. stopRetries lets them finish.
  readonly #abort = new AbortController();
  #retrying = true;

  constructor(options: EventWriterOptions) {
    this.#client = options.client;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#retryDelayMs = options.retryDelayMs;
  }

  /** Writes in flight or waiting for a retry. */
  get pending(): number {
    return this.#writes.size;
  }

  /** True once {@link EventWriter.abort} was called: nothing is sent any more. */
  get aborted(): boolean {
    return this.#abort.signal.aborted;
  }

  /**
   * Send `event` in the background: a merge patch of its series when it has one (a create when that Event is
   * gone), else a create; at most `maxTries` attempts. `settled` runs once the write is over, while it still
   * counts as pending, so a write it starts keeps {@link EventWriter.flush} waiting.
   */
  write(event: EventsV1Event, maxTries: number, settled: () => void): void {
    const done: Promise<void> = this.#attempt(event, maxTries)
      .catch((error: unknown) => {
        // Only a hostile rejection of the client gets here (one that even classifying it throws on).
        this.#log('error', 'event dropped: its write failed unexpectedly', {
          ...eventAttributes(event),
          error: errorMessage(error),
        });
      })
      .finally(() => {
        this.#writes.delete(done);
        settled();
      });
    this.#writes.add(done);
  }

  /** Resolves once no write is in flight or waiting for a retry. */
  async flush(): Promise<void> {
    while (this.#writes.size > 0) await Promise.allSettled([...this.#writes]);
  }

  /** Drop every pending retry now and every later one; requests in flight finish. */
  stopRetries(): void {
    this.#retrying = false;
    for (const wake of this.#sleeps) wake(false);
    this.#sleeps.clear();
  }

  /** Cancel the requests in flight with `reason`; nothing is sent from now on. */
  abort(reason: unknown): void {
    this.#abort.abort(reason);
  }

  async #attempt(event: EventsV1Event, maxTries: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.#abort.signal.aborted) return;
      const outcome = await this.#send(event, attempt);
      if (outcome === 'done') return;
      if (attempt >= maxTries) {
        this.#log('error', 'event dropped: retry limit reached', {
          ...eventAttributes(event),
          attempt,
        });
        return;
      }
      const delayMs = this.#retryDelayMs * (1 + 0.25 * Math.random());
      if (!(await this.#sleep(delayMs))) {
        this.#log(
          'debug',
          'event dropped: the recorder stopped before a retry',
          eventAttributes(event),
        );
        return;
      }
    }
  }

  // client-go's recordEvent: a series is a merge patch of the existing Event, or a create when that Event
  // is gone (Events expire after an hour); everything else is a create.
  async #send(event: EventsV1Event, attempt: number): Promise<Outcome> {
    const namespace = event.metadata?.namespace;
    const options = { signal: this.#abort.signal };
    const isSeries = event.series !== undefined;
    try {
      if (isSeries) {
        try {
          await this.#client.patch(
            namespace,
            event.metadata?.name ?? '',
            'merge',
            { series: event.series },
            options,
          );
          return 'done';
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      const { resourceVersion: _, ...metadata } = event.metadata ?? {};
      await this.#client.create(namespace, { ...event, metadata }, options);
      return 'done';
    } catch (error) {
      if (this.#abort.signal.aborted) return 'done';
      const attributes = { ...eventAttributes(event), attempt, error: errorMessage(error) };
      if (isAlreadyExists(error)) {
        // A series create racing the first create of its Event: patch again. A plain duplicate is done.
        if (isSeries) return 'retry';
        this.#log('debug', 'event exists already', attributes);
        return 'done';
      }
      if (isApiError(error) && error.status !== 429 && error.status < 500) {
        this.#log('error', 'event rejected by the server', attributes);
        return 'done';
      }
      if (error instanceof TypeError) {
        this.#log('error', 'event could not be sent', attributes);
        return 'done';
      }
      this.#log('warn', 'event write failed, retrying', attributes);
      return 'retry';
    }
  }

  /** Resolves `true` after `delayMs`, or `false` at once when retries stop meanwhile. */
  #sleep(delayMs: number): Promise<boolean> {
    if (!this.#retrying) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = this.#clock.schedule(delayMs, () => wake(true));
      const wake = (proceed: boolean): void => {
        timer.cancel();
        this.#sleeps.delete(wake);
        resolve(proceed);
      };
      this.#sleeps.add(wake);
    });
  }

  #log(level: EventLogLevel, message: string, attributes: Record<string, unknown>): void {
    logQuietly(this.#logger, level, message, attributes);
  }
}
