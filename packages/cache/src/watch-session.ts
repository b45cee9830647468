// The watch session: one watch request read into the store, from the cursor's resourceVersion until the stream
// ends, fails or is stopped, summed up as a WatchOutcome for the reflector's list/watch/backoff loop (reflector.ts).
// Ports the watch half of client-go's Reflector.watch / watchHandler.
import {
  ApiError,
  InactivityTimer,
  type KubeObjectLike,
  type Status,
  type WatchEvent,
  type WatchOptions,
} from '@lasso/client';
import {
  abortReason,
  type Clock,
  errorMessage,
  isLassoError,
  LassoError,
  type Logger,
  TimeoutError,
} from '@lasso/core';
import type { WatchErrorPhase } from './errors.ts';
import type { ReflectorStore } from './reflector.ts';
import type { ReflectorMetrics } from './reflector-metrics.ts';
import type { ForbiddenReporter } from './watch-errors.ts';
import type { WatchSteps } from './watch-list.ts';

/** How one watch ended: the list/watch loop decides from it whether to resume, relist or back off. */
export type WatchOutcome =
  | { kind: 'ended'; events: number; progressed: boolean; durationMs: number }
  | { kind: 'aborted' }
  | {
      kind: 'failed';
      phase: WatchErrorPhase;
      error: unknown;
      events: number;
      progressed: boolean;
      durationMs: number;
      /** An open stream broke (inactivity deadline, or the connection failed after events): resumable. */
      streamBroke: boolean;
    };

/** @internal Where the reflector is: the resourceVersion of its last list or event, shared with its session. */
export interface WatchCursor {
  resourceVersion: string;
}

/** @internal What a {@link WatchSession} needs from its reflector. */
export interface WatchSessionInit<T extends KubeObjectLike> {
  /** Opens the watch (the reflector's: it hands over a streaming list's open watch first). */
  open: (options: WatchOptions) => WatchSteps<T>;
  store: ReflectorStore<T>;
  cursor: WatchCursor;
  clock: Clock;
  logger: Logger;
  random: () => number;
  minWatchTimeoutMs: number;
  inactivityMarginMs: number;
  forbidden: ForbiddenReporter;
  metrics: ReflectorMetrics;
}

/**
 * @internal The reflector's watches, one {@link WatchSession.run} at a time: each draws its server timeout from
 * `minWatchTimeoutMs`..2x, runs the inactivity deadline (that timeout + `inactivityMarginMs`), applies events in
 * order (a batch of one body chunk without a promise turn between its events) and advances the cursor with every
 * newer resourceVersion. Never throws: every end is a {@link WatchOutcome}.
 */
export class WatchSession<T extends KubeObjectLike> {
  readonly #open: (options: WatchOptions) => WatchSteps<T>;
  readonly #store: ReflectorStore<T>;
  readonly #cursor: WatchCursor;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #minWatchTimeoutMs: number;
  readonly #inactivityMarginMs: number;
  readonly #forbidden: ForbiddenReporter;
  readonly #metrics: ReflectorMetrics;
  #watchesStarted = 0;

  constructor(init: WatchSessionInit<T>) {
    this.#open = init.open;
    this.#store = init.store;
    this.#cursor = init.cursor;
    this.#clock = init.clock;
    this.#logger = init.logger;
    this.#random = init.random;
    this.#minWatchTimeoutMs = init.minWatchTimeoutMs;
    this.#inactivityMarginMs = init.inactivityMarginMs;
    this.#forbidden = init.forbidden;
    this.#metrics = init.metrics;
  }

  /** One watch, from the cursor's resourceVersion until it ends, fails or `signal` aborts. */
  async run(signal: AbortSignal): Promise<WatchOutcome> {
    const timeoutSeconds = Math.floor((this.#minWatchTimeoutMs / 1000) * (1 + this.#random()));
    const inactivityTimeoutMs = timeoutSeconds * 1000 + this.#inactivityMarginMs;
    const controller = new AbortController();
    // The watch tests these flags and never touches an aborted signal: an aborted AbortSignal has another hidden
    // class than a live one, and reading it here (`aborted`, `removeEventListener`) deoptimized this method at every
    // stop (V8 then compiled it again for the next run). `stopped`: the caller's signal aborted; `released`: the
    // watch's own, with `releasedBy` its reason.
    let stopped = signal.aborted;
    let released = false;
    let releasedBy: Error | undefined;
    const onAbort = (): void => {
      stopped = true;
      controller.abort(signal.reason);
    };
    if (!stopped) signal.addEventListener('abort', onAbort, { once: true });
    const started = this.#clock.monotonic();
    // The watch's only inactivity deadline: the lister-watcher is asked for none (`inactivityTimeoutMs: 0`), as
    // client-go keeps the client-side timeout in the reflector's watch, so any ListerWatcher gets one and a Client
    // does not run a second timer for the same deadline. It is the client's InactivityTimer (one lazy timer),
    // touched once per step that applied events.
    // The inactivity deadline fired: the stream was open and went silent, which resumes like a stream that ended.
    let inactive = false;
    const deadline = new InactivityTimer({
      clock: this.#clock,
      timeoutMs: inactivityTimeoutMs,
      onExpire: () => {
        inactive = true;
        controller.abort(
          new TimeoutError(`watch silent for ${inactivityTimeoutMs} ms`, inactivityTimeoutMs),
        );
      },
    });
    // One abort listener for the whole watch rejects whichever next() is pending, instead of a listener added
    // and removed around every event (raceSignal). The pending next() itself is released by the abort.
    let rejectNext: ((reason: Error) => void) | undefined;
    const onWatchAbort = (): void => {
      released = true;
      releasedBy = abortReason(controller.signal);
      rejectNext?.(releasedBy);
    };
    controller.signal.addEventListener('abort', onWatchAbort, { once: true });
    const next = <V>(source: AsyncIterator<V>): Promise<IteratorResult<V>> => {
      const result = source.next();
      if (released) {
        result.catch(() => {});
        return Promise.reject(releasedBy);
      }
      return new Promise((resolve, reject) => {
        rejectNext = reject;
        result.then(resolve, reject);
      });
    };
    let events = 0;
    // Events applied to the store: the last-event gauge and the inactivity deadline are updated once per step (one
    // event, or every event of one body chunk from the client's batch view) that applied any.
    let applied = 0;
    const startVersion = this.#cursor.resourceVersion;
    const progressed = (): boolean => this.#cursor.resourceVersion !== startVersion;
    const elapsed = (): number => this.#clock.monotonic() - started;
    // One event: undefined once applied, else the outcome that ends the watch.
    const apply = (event: WatchEvent<T>): WatchOutcome | undefined => {
      // An ERROR event yielded instead of thrown is the failure of the watch, not progress: counting it as an
      // event would reset the 410 streak, so a server answering every watch with 410 could never be backed off.
      const status = errorEventStatus(event);
      if (status !== undefined) {
        return {
          kind: 'failed',
          phase: events === 0 ? 'watch-start' : 'watch',
          error: ApiError.fromStatus(status),
          events,
          progressed: progressed(),
          durationMs: elapsed(),
          streamBroke: false,
        };
      }
      // The first event proves the watch is allowed again after a 403.
      if (events === 0 && this.#forbidden.isDenied('watch')) this.#forbidden.allowed('watch');
      events++;
      try {
        this.#handleEvent(event);
      } catch (error) {
        return {
          kind: 'failed',
          phase: 'event',
          error,
          events,
          progressed: progressed(),
          durationMs: elapsed(),
          streamBroke: false,
        };
      }
      applied++;
      return undefined;
    };
    let iterator: AsyncIterator<unknown> | undefined;
    let pending = false;
    if (this.#watchesStarted > 0) this.#metrics.restarts.inc();
    this.#watchesStarted++;
    this.#metrics.watches.inc();
    try {
      // A lister-watcher with `watchBatches` gives the events of one body chunk per step, applied in order without
      // a promise turn between them. Any other is read event by event.
      const { batched, steps } = this.#open({
        resourceVersion: this.#cursor.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        inactivityTimeoutMs: 0,
        signal: controller.signal,
      });
      iterator = steps;
      for (;;) {
        pending = true;
        const result = await next(steps);
        pending = false;
        if (result.done) {
          return { kind: 'ended', events, progressed: progressed(), durationMs: elapsed() };
        }
        const appliedBefore = applied;
        let failure: WatchOutcome | undefined;
        if (!batched) {
          failure = apply(result.value as WatchEvent<T>);
        } else {
          const batch = result.value as WatchEvent<T>[];
          for (let index = 0; index < batch.length && failure === undefined; index++) {
            failure = apply(batch[index] as WatchEvent<T>);
          }
        }
        if (applied !== appliedBefore) {
          deadline.touch();
          // After the step's last event, with the resourceVersion already advanced (the staleness tracker reads it).
          this.#metrics.lastEvent.set(this.#clock.now() / 1000);
        }
        if (failure !== undefined) return failure;
      }
    } catch (error) {
      if (stopped) return { kind: 'aborted' };
      // The body ended inside an event: the server (or a proxy) closed the stream mid-write. Nothing after the
      // last whole event was lost, so this is the end of the watch (client-go's unexpected EOF), judged like any
      // end by its progress; the dropped part is logged and counted instead of passing silently.
      if (isLassoError(error, 'LASSO_WATCH_TRUNCATED')) {
        this.#metrics.truncated.inc();
        this.#logger.warn('watch ended inside an event, dropped the partial event', {
          error: errorMessage(error),
          resourceVersion: this.#cursor.resourceVersion,
        });
        return { kind: 'ended', events, progressed: progressed(), durationMs: elapsed() };
      }
      return {
        kind: 'failed',
        phase: events === 0 ? 'watch-start' : 'watch',
        error,
        events,
        progressed: progressed(),
        durationMs: elapsed(),
        streamBroke: inactive || (events > 0 && isLassoError(error, 'LASSO_CONNECTION_FAILED')),
      };
    } finally {
      deadline.cancel();
      // A listener added with `once` is gone once its signal aborted.
      if (!stopped) signal.removeEventListener('abort', onAbort);
      if (!released) controller.signal.removeEventListener('abort', onWatchAbort);
      // Aborting releases the HTTP body of the real client even while a next() is still pending.
      if (!released) controller.abort(new LassoError('LASSO_ABORTED', 'watch released'));
      if (iterator?.return !== undefined) {
        const closing = Promise.resolve()
          .then(() => iterator?.return?.())
          .catch(() => {});
        // A pending next() would make return() wait for it; the abort above already ends that request.
        if (!pending) await closing;
      }
    }
  }

  /** Apply one event to the store and advance the cursor; throws on a malformed event (the caller relists). */
  #handleEvent(event: WatchEvent<T>): void {
    if (typeof event !== 'object' || event === null) {
      throw new LassoError('LASSO_WATCH_DECODE', 'watch event is not an object');
    }
    const { type, object } = event as { type: string; object: T };
    if (typeof object !== 'object' || object === null) {
      throw new LassoError('LASSO_WATCH_DECODE', `watch event ${type} has no object`);
    }
    switch (type) {
      case 'ADDED':
        this.#store.add(object);
        break;
      case 'MODIFIED':
        this.#store.update(object);
        break;
      case 'DELETED':
        this.#store.delete(object);
        break;
      case 'BOOKMARK':
        break;
      default:
        throw new LassoError(
          'LASSO_WATCH_DECODE',
          `unknown watch event type ${JSON.stringify(type)}`,
        );
    }
    const resourceVersion = object.metadata?.resourceVersion;
    if (
      typeof resourceVersion === 'string' &&
      resourceVersion !== '' &&
      !olderOrSame(resourceVersion, this.#cursor.resourceVersion)
    ) {
      this.#cursor.resourceVersion = resourceVersion;
    }
  }
}

/**
 * True when `candidate` is not newer than `current`. resourceVersions are opaque, but every server in use
 * (etcd-backed kube-apiserver, the built-in one) sends decimal integers: those are compared as numbers, so a
 * replayed older event does not move the watch back. Anything else is "newer" when it differs.
 */
function olderOrSame(candidate: string, current: string): boolean {
  if (candidate === current) return true;
  if (!decimal.test(candidate) || !decimal.test(current)) return false;
  return (
    candidate.length < current.length ||
    (candidate.length === current.length && candidate < current)
  );
}

const decimal = /^[1-9][0-9]*$|^0$/;

/** The Status of an ERROR event (a lister-watcher that yields them instead of throwing), else undefined. */
function errorEventStatus(event: unknown): Status | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { type, object } = event as { type?: unknown; object?: unknown };
  if (type !== 'ERROR' || typeof object !== 'object' || object === null) return undefined;
  return object as Status;
}
