// The types of a controller: its handler, its startCache, the Controller interface and its options (the
// implementation is controller.ts).
import type { SharedIndexInformer } from '@lasso/cache';
import type { KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  checkTracerProvider,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  type StopResult,
  type TracerProvider,
} from '@lasso/core';
import type { RateLimiter } from '@lasso/workqueue';
import type { PredicateEvent } from './predicates.ts';
import type { ReconcileContext } from './reconcile-context.ts';

/**
 * Reconciles one key. `object` is the cached object, or `undefined` when it was deleted; `context` carries the
 * reconcile's `signal` (aborts on stop, leadership loss, close and `reconcileTimeoutMs`), its `key` and a
 * `logger`. Return (or resolve) for success: the key's backoff is reset. Throw (or reject) to have the key
 * retried through the rate limiter; throw `ErrIgnore` to stop without a retry, `retryAfter(ms)` to retry after
 * a fixed delay. A two-argument handler is a handler too.
 */
export type Handler<T> = (
  key: string,
  object: T | undefined,
  context: ReconcileContext,
) => void | Promise<void>;

/**
 * Starts the cache a controller reads (lasso's `startCache`): called by every `start`, with the start's
 * signal. It must be idempotent (a running informer is not started twice); the controller then waits for the
 * informer to sync. Pass `undefined` to {@link createController} to have the controller run its informer
 * itself, with each start's signal: the informer stops with the controller and relists at the next start. To
 * keep the cache (and the queue it fills) warm across stops, run the informer on a longer-lived signal here.
 */
export type StartCacheFunc = (signal: AbortSignal) => void | Promise<void>;

/**
 * A controller: a workqueue of keys fed by one informer and drained by workers (lasso `controller.Controller`),
 * and a `@lasso/core` {@link Lifecycle}: `start(signal, workers?)` (lasso's name; `workers` defaults to the
 * `workers` option), `stopped()`, `isRunning()`, `close()`.
 */
export interface Controller<T extends KubeObjectLike> extends Lifecycle {
  /** The controller's name: the workqueue's `name` label and the logger's `controller` attribute. */
  readonly name: string;
  /** Queue `namespace/name` through the rate limiter: it raises that key's backoff (lasso `Enqueue`). */
  enqueue(namespace: string, name: string): void;
  /**
   * Queue `namespace/name` once `delayMs` has passed; a delay <= 0 queues it at once (client-go `AddAfter`).
   * Throws a RangeError for NaN, an infinite delay or a non-number.
   */
  enqueueAfter(namespace: string, name: string, delayMs: number): void;
  /** Queue a key now, without rate limiting (what informer events do). */
  enqueueKey(key: string): void;
  /** The informer whose store the handler reads. */
  informer(): SharedIndexInformer<T>;
  /**
   * Start the cache, wait for it to sync, then run `workers` workers (default: the controller's `workers`
   * option; a RangeError for anything but an integer >= 1) until `signal` aborts. Resolves once
   * the workers run; rejects with a `CacheNotSyncedError` when the signal aborts before the cache synced, or
   * when `startCache` left the informer stopped (it cannot see changes any more). Idempotent while running;
   * after the signal aborted the controller can be started again with a new signal, on the same queue.
   * Rejects after {@link Controller.close}.
   */
  start(signal: AbortSignal, workers?: number | undefined): Promise<void>;
  /**
   * Settles once the controller is not running: after an abort, when every in-flight key is done and the last
   * worker returned (`drained: true`), or when `gracefulShutdownTimeoutMs` passed first (`drained: false`,
   * `pending` naming each reconcile still running as `'<controller> <key>'`, each also logged as an error).
   * Resolves at once (drained) when it is not running; never rejects.
   */
  stopped(): Promise<StopResult>;
  /** True between a successful `start` and the end of the stop that follows its signal's abort. */
  isRunning(): boolean;
  /**
   * Stop (aborting every in-flight reconcile's signal), shut the queue down (its delayed keys and timers go),
   * stop listening to the informer, and wait for the stop (bounded by `gracefulShutdownTimeoutMs`). Idempotent;
   * a closed controller cannot start again and ignores enqueues.
   */
  close(): Promise<void>;
  /** {@link Controller.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Judges a key of a {@link HandOffController}: `object` is its cached object, or the last state its delete event
 * carried (tracked only with the `admit` option), or undefined when neither is known.
 */
export type KeyPredicate<T> = (key: string, object: T | undefined) => boolean;

/**
 * The controller {@link createController} returns: a {@link Controller} whose keys can be handed to another
 * replica (a sharded controller's hand-off): queued keys dropped, in-flight reconciles cancelled.
 */
export interface HandOffController<T extends KubeObjectLike> extends Controller<T> {
  /**
   * Remove the queued keys `predicate` accepts, delayed and rate-limited ones included, and forget their
   * backoff; a key being reconciled loses a pending re-add. Returns how many keys it dropped. Keys added later
   * are queued as usual: pair it with the `admit` option to keep them out.
   *
   * @example
   * ```ts
   * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
   * declare const controller: HandOffController<ConfigMap>;
   * const dropped = controller.dropQueued((key) => key.startsWith('team-a/'));
   * ```
   */
  dropQueued(predicate: KeyPredicate<T>): number;
  /**
   * Abort the `context.signal` of every reconcile in flight whose key `predicate` accepts, with `reason`, and
   * resolve with how many once each of them has returned (however long a handler that ignores its signal
   * takes: an error is logged once `gracefulShutdownTimeoutMs` passed). A cancelled key is not retried here
   * and its backoff is forgotten, whether the handler failed or not.
   *
   * @example
   * ```ts
   * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
   * declare const controller: HandOffController<ConfigMap>;
   * const moved = new Error('moved to another replica');
   * await controller.cancelReconciles((key) => key.startsWith('team-a/'), moved);
   * ```
   */
  cancelReconciles(predicate: KeyPredicate<T>, reason: unknown): Promise<number>;
  /**
   * Reconcile `key` as deleted, `lastState` being its object's last known state: queued as a delete event would
   * queue it (`admit` decides on `lastState`), and its handler runs with no object unless the informer holds the
   * key again by then (a sharded replica replaying a deletion it did not see). Needs the `admit` option (without
   * it a key with no cached object is reconciled anyway).
   *
   * @example
   * ```ts
   * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
   * declare const controller: HandOffController<ConfigMap>;
   * controller.enqueueDeleted('default/settings', { metadata: { name: 'settings', namespace: 'default' } });
   * ```
   */
  enqueueDeleted(key: string, lastState: T): void;
}

/**
 * Told, in the order this controller receives them, of its informer's events and of the deletions it settled:
 * how a sharded replica knows which deletions it has reconciled (see {@link ControllerOptions.deletionObserver}).
 *
 * @example
 * ```ts
 * import type { DeletionObserver } from '@lasso/controller';
 * const pending = new Set<string>();
 * const observer: DeletionObserver = {
 *   event: (type, key) => {
 *     if (type === 'delete') pending.add(key);
 *   },
 *   settled: (key) => pending.delete(key),
 * };
 * ```
 */
export interface DeletionObserver {
  /**
   * An informer event reached this controller (before any predicate): `object` is the object (the last state of
   * a deleted one; undefined for a deletion whose final state is unknown and not carried).
   */
  event(type: 'add' | 'update' | 'delete', key: string, object: KubeObjectLike | undefined): void;
  /**
   * The deletion of `key` is settled here: a reconcile that started after it was seen (with no object) returned
   * without error (or an ignored one), or the key was given up. Not told for a reconcile cancelled by
   * `cancelReconciles`, nor for a key `admit` refused or `dropQueued` dropped.
   */
  settled(key: string): void;
}

/** Options of {@link createController} (lasso `controller.Options` plus lasso's injected services). */
export interface ControllerOptions {
  /**
   * Workers of a `start` that names no count (lasso's `start(signal, workers)` with `workers` omitted): an
   * integer >= 1. Default 1 (controller-runtime's `MaxConcurrentReconciles`).
   */
  workers?: number | undefined;
  /** Per-key retry backoff. Default `defaultLassoRateLimiter()` (5 ms doubling to 30 s, then 120 s after 30 failures). */
  rateLimiter?: RateLimiter<string> | undefined;
  /** Skip informer updates whose resourceVersion did not change (resyncs). Default false. */
  syncOnlyChangedObjects?: boolean | undefined;
  /**
   * Abort a reconcile's `context.signal` (with a `TimeoutError`) once it has run this long, counting
   * `lasso_controller_reconcile_timeouts_total` (controller-runtime `ReconciliationTimeout`). The handler decides
   * what to do with the abort; a rejection it leads to is retried like any failure. Default: no timeout.
   */
  reconcileTimeoutMs?: number | undefined;
  /**
   * Give a key up after this many failed retries in a row (client-go's sample controllers' `maxRetries`; lasso
   * retries forever, capped at 120 s apart): the key leaves the queue with its backoff forgotten, one error is
   * logged (`giving up on '<key>' after N retries`), `lasso_controller_give_ups_total` counts it and `onGiveUp`
   * is told. The next informer event or enqueue of the key starts it afresh. Default `Infinity` (never).
   */
  maxRetries?: number | undefined;
  /**
   * Told of every key given up after `maxRetries` (a dead-letter hook: record it, raise an Event, enqueue it
   * again later). What it throws is logged and does not bring the key back.
   */
  onGiveUp?: ((giveUp: GiveUp) => void) | undefined;
  /**
   * How long `stopped()` waits after the start signal aborts for in-flight reconciles to finish before it
   * settles with `drained: false` and logs each one still running. Default `defaultGracefulShutdownTimeoutMs`
   * from `@lasso/core` (30 000, controller-runtime's).
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * Decides, as each key is taken from the queue, whether this controller reconciles it now (a sharded
   * controller: does this replica own it). Called with the cached object, or the last state of an object whose
   * delete event arrived; a key with neither (another replica's object, or one never seen) is not reconciled
   * and `admit` is not called. A key refused leaves the queue without a retry and with its backoff
   * forgotten; an `admit` that throws is logged and the key retried through the rate limiter. Default: every
   * key is reconciled.
   */
  admit?: ((key: string, object: KubeObjectLike) => boolean) | undefined;
  /**
   * An extra signal every reconcile's `context.signal` follows (a fence: a sharded replica's renew deadline),
   * or a function read as each reconcile starts, for a fence re-armed with a new signal. Default none.
   */
  fence?: AbortSignal | (() => AbortSignal | undefined) | undefined;
  /**
   * Told of every informer event as it reaches this controller and of every deletion settled here (a sharded
   * factory's deletion watermark). Needs `admit` (deletions are tracked only with it). What it throws is logged.
   * Default none.
   */
  deletionObserver?: DeletionObserver | undefined;
  /** Time source of the queue, its delays, the reconcile timeout and the shutdown bound. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where failures and lifecycle events are logged. */
  logger?: Logger | undefined;
  /**
   * Records the `workqueue_*` metrics of the controller's queue (its `name` label is the controller's name) and
   * `lasso_controller_reconcile_timeouts_total{controller_name}`.
   */
  metrics?: MetricsProvider | undefined;
  /**
   * Where the span of each reconcile goes (`reconcile <name>`, attributes `lasso.controller`, `lasso.kind`,
   * `lasso.key`, `lasso.retries`, `lasso.outcome`); a request made with the reconcile's `signal` is its child.
   * Default: the global provider of `@opentelemetry/api` when that optional peer dependency is installed;
   * without it no span is made and the handler runs unwrapped.
   */
  tracerProvider?: TracerProvider | undefined;
}

/**
 * @internal Installs the filter informer events pass before their key is enqueued: how a shared controller
 * applies its handlers' predicates to the controller its `createController` built (from this copy of the package).
 */
export const setEventFilter: unique symbol = Symbol('lasso.controller.setEventFilter') as never;

/**
 * @internal The filter of a shared controller's informer events. `active()` is false while `accepts` could only
 * say yes (no live handler has predicates): the controller then builds no event object for it.
 */
export interface EventFilter<T> {
  active(): boolean;
  accepts(event: PredicateEvent<T>): boolean;
}

/** @internal A controller of this package, which takes an event filter. */
export interface FilterableController<T extends KubeObjectLike> extends Controller<T> {
  [setEventFilter](filter: EventFilter<T>): void;
}

/** A key a controller stopped retrying (see {@link ControllerOptions.maxRetries}). */
export interface GiveUp {
  /** The controller's name. */
  readonly controller: string;
  /** The key's `namespace/name`. */
  readonly key: string;
  /** The error of the last attempt. */
  readonly error: unknown;
  /** Failed retries before it was given up (the attempts are one more). */
  readonly retries: number;
}

/** @internal Throws a RangeError naming the option for a bad `workers`, `reconcileTimeoutMs` or `gracefulShutdownTimeoutMs`. */
export function checkControllerOptions(options: ControllerOptions, name: string): void {
  const workers = options.workers;
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1)) {
    throw new RangeError(
      `createController(${name}): workers must be an integer >= 1, got ${String(workers)}`,
    );
  }
  checkDuration(options.reconcileTimeoutMs, 'reconcileTimeoutMs', name, 'timeout');
  if (options.admit !== undefined && typeof options.admit !== 'function') {
    throw new TypeError(`createController(${name}): admit must be a function`);
  }
  const observer = options.deletionObserver;
  if (
    observer !== undefined &&
    (typeof observer?.event !== 'function' || typeof observer?.settled !== 'function')
  ) {
    throw new TypeError(
      `createController(${name}): deletionObserver must have event and settled functions`,
    );
  }
  const fence = options.fence;
  if (fence !== undefined && typeof fence !== 'function' && !(fence instanceof AbortSignal)) {
    throw new TypeError(
      `createController(${name}): fence must be an AbortSignal or a function returning one`,
    );
  }
  checkDuration(options.gracefulShutdownTimeoutMs, 'gracefulShutdownTimeoutMs', name, 'bound');
  const maxRetries = options.maxRetries;
  if (
    maxRetries !== undefined &&
    !(maxRetries === Number.POSITIVE_INFINITY || (Number.isInteger(maxRetries) && maxRetries >= 0))
  ) {
    throw new RangeError(
      `createController(${name}): maxRetries must be an integer >= 0 or Infinity, got ${String(maxRetries)}`,
    );
  }
  if (options.onGiveUp !== undefined && typeof options.onGiveUp !== 'function') {
    throw new TypeError(`createController(${name}): onGiveUp must be a function`);
  }
  checkTracerProvider(options.tracerProvider, `createController(${name}): tracerProvider`);
}

// A timeout is a finite number > 0; a bound is a number >= 0, `Infinity` meaning "wait as long as it takes".
function checkDuration(
  value: unknown,
  option: string,
  name: string,
  kind: 'timeout' | 'bound',
): void {
  if (value === undefined) return;
  const valid =
    typeof value === 'number' &&
    (kind === 'timeout' ? value > 0 && Number.isFinite(value) : value >= 0);
  if (!valid) {
    throw new RangeError(
      `createController(${name}): ${option} must be ${kind === 'timeout' ? 'a finite number > 0' : 'a number >= 0'}, got ${String(value)}`,
    );
  }
}
