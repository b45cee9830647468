// Reflector: keeps a store in step with the API server through list + watch, as an explicit state machine.
// Ports client-go tools/cache reflector.go; how it lists is list-strategy.ts (streaming lists, client-go's list rules).
// size: one state machine (list, watch, backoff and relist decisions share the cursor); one watch is watch-session.ts.
import {
  isApiError,
  isGone,
  type KubeObject,
  type KubeObjectLike,
  type WatchOptions,
} from '@lasso/client';
import {
  anySignal,
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  isLassoError,
  LassoError,
  type Logger,
  noopMetricsProvider,
  sleep,
  systemClock,
} from '@lasso/core';
import { createBackoff } from './backoff.ts';
import { WatchError, type WatchErrorPhase } from './errors.ts';
import { isTooLargeResourceVersion, ListStrategy } from './list-strategy.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import { type ReflectorMetrics, reflectorMetrics } from './reflector-metrics.ts';
import {
  nonNegative,
  positiveInteger,
  positiveNumber,
  type ReflectorOptions,
  type WatchErrorHandler,
} from './reflector-options.ts';
import {
  checkShardFilterSource,
  type ShardCheck,
  ShardView,
  shardCovers,
  shardFilteredCounter,
  shardListerWatcher,
} from './shard-filter.ts';
import {
  ForbiddenReporter,
  isForbiddenError,
  type ReflectorVerb,
  watchFailureAction,
} from './watch-errors.ts';
import {
  type OpenWatch,
  openWatchSteps,
  releaseWatch,
  resumeWatch,
  type WatchSteps,
} from './watch-list.ts';
import { type WatchCursor, WatchSession } from './watch-session.ts';

/** What a reflector writes to (a `DeltaFIFO` in an informer, or any `Store`). */
export interface ReflectorStore<T> {
  add(object: T): void;
  update(object: T): void;
  delete(object: T): void;
  replace(list: readonly T[], resourceVersion: string): void;
  /**
   * When present, the reflector applies it to each listed object as the object arrives (a page, an event of a
   * streaming list) and `replace` receives only its results: a list never holds the raw objects of a whole list
   * beside their transformed copies. Watch events are not transformed by the reflector (`add`, `update` and
   * `delete` get them as they came). The informer's store sets its transform here.
   */
  readonly transform?: ((object: T) => T) | undefined;
}

/**
 * Where the reflector's state machine is: `stopped` before `run` and after it resolves; `polling` between two lists
 * of a resource that cannot be watched; `idle` while its shard filter owns no range (no request at all).
 */
export type ReflectorState = 'listing' | 'watching' | 'backoff' | 'polling' | 'idle' | 'stopped';

// resourceVersion undefined: the first list (no version known yet).
type Next = { kind: 'list'; resourceVersion: string | undefined } | { kind: 'watch' };

/**
 * Lists, then watches, forever: the list replaces the store and gives the resourceVersion the watch starts
 * from; every newer event (bookmarks included) advances it. A watch that ends normally is resumed at once.
 * Every failure backs off 800 ms -> 3.2 s (x2, jitter +0..25 %) counted from the start of the failed attempt
 * (the server's Retry-After when longer), then, as client-go: a watch refused with 429 or a refused connection, and
 * an open stream that broke (the inactivity deadline, a connection lost after events), resume the watch; every
 * other watch failure (403, 5xx, other 4xx, network errors before any event, malformed data, a very short watch)
 * ends the watch session and relists. A 405 (the resource cannot be watched) or `watchable: false` lists every
 * `pollIntervalMs` (30 s) instead of watching. A 403 is logged once per outage (verb, resource, user). A body that
 * ends inside an event ends the watch (the partial event is logged and counted). A 410 Gone is not a server
 * failure: the first one relists at once at the last resourceVersion
 * (`NotOlderThan`, then `""` when that is gone too); another before a healthy watch waits the backoff. A healthy
 * watch (open 10 s, or ended normally after something newer) restarts the backoff. Every failure goes to the
 * watch error handler, the logger and metrics.
 *
 * **Gotchas**: by default the state comes from a streaming list (a watch with `sendInitialEvents`, ended by the
 * `k8s.io/initial-events-end` bookmark, then kept as the watch); a server that refuses it (kube-apiserver before
 * 1.27, or with the `WatchList` gate off) gets client-go's lists instead: the first at resourceVersion `"0"`,
 * served whole by the watch cache (`limit` is ignored there: one big response; `initialList: 'consistent'` lists
 * at `""` in pages, as Lasso Go does). A 410 or a too-large resourceVersion on a list makes the next one at `""`.
 * A watch that ends normally within 10 s without delivering anything newer
 * than what the reflector had counts as a failure (client-go's "very short watch", widened from "no event in
 * a second") and relists after the backoff, so a server that closes watches at once, or replays an old event
 * and closes, is neither hammered nor left unread.
 *
 * @example
 * ```ts
 * declare const listerWatcher: ListerWatcher<KubeObject>; // e.g. createClientListerWatcher(client, {})
 * const reflector = new Reflector(listerWatcher, createStore(), { name: 'v1, Kind=ConfigMap' });
 * const controller = new AbortController();
 * const done = reflector.run({ signal: controller.signal });
 * // ... later
 * controller.abort();
 * await done;
 * ```
 */
export class Reflector<T extends KubeObjectLike = KubeObject> {
  /** Name in logs, metrics and errors. */
  readonly name: string;
  readonly #lists: ListStrategy<T>;
  /** The open watch of the last streaming list, taken over by the next watch. */
  #handoff: OpenWatch<T> | undefined;
  readonly #store: ReflectorStore<T>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #pageSize: number;
  readonly #minWatchTimeoutMs: number;
  readonly #inactivityMarginMs: number;
  readonly #listPageTimeoutMs: number;
  readonly #healthyWatchMs: number;
  readonly #watchable: boolean;
  readonly #pollIntervalMs: number;
  readonly #forbidden: ForbiddenReporter;
  readonly #backoffOptions: {
    initialMs: number;
    maxMs: number;
    resetAfterMs: number;
    jitter: number;
  };
  readonly #metrics: ReflectorMetrics;
  #watchErrorHandler: WatchErrorHandler | undefined;
  #state: ReflectorState = 'stopped';
  #running = false;
  readonly #cursor: WatchCursor = { resourceVersion: '' };
  readonly #session: WatchSession<T>;
  #listsDone = 0;
  /** The shard filter (`shard` option): a change of its ranges ends the current pass and lists again. */
  readonly #shard: ShardView | undefined;
  /** The current pass of the list/watch loop: aborted to restart it with a new shard filter. */
  #pass: AbortController | undefined;
  /** The filter whose objects the store holds completely (the pass's, narrowed by changes that only lost ranges). */
  #held: ShardCheck | undefined;
  #restartPending = false;
  #storeEvicts = false;

  constructor(
    listerWatcher: ListerWatcher<T>,
    store: ReflectorStore<T>,
    options: ReflectorOptions = {},
  ) {
    this.name = options.name ?? 'reflector';
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ reflector: this.name });
    this.#random = options.random ?? Math.random;
    this.#pageSize = positiveInteger(options.pageSize ?? 500, 'pageSize');
    this.#minWatchTimeoutMs = positiveNumber(
      options.minWatchTimeoutMs ?? 300_000,
      'minWatchTimeoutMs',
    );
    this.#inactivityMarginMs = nonNegative(
      options.inactivityMarginMs ?? 30_000,
      'inactivityMarginMs',
    );
    this.#listPageTimeoutMs = positiveNumber(
      options.listPageTimeoutMs ?? 120_000,
      'listPageTimeoutMs',
    );
    this.#healthyWatchMs = positiveNumber(options.healthyWatchMs ?? 10_000, 'healthyWatchMs');
    if (options.watchable !== undefined && typeof options.watchable !== 'boolean') {
      throw new TypeError(
        `Reflector: watchable must be a boolean, got ${JSON.stringify(options.watchable)}`,
      );
    }
    this.#watchable = options.watchable ?? true;
    this.#pollIntervalMs = positiveNumber(options.pollIntervalMs ?? 30_000, 'pollIntervalMs');
    this.#forbidden = new ForbiddenReporter(this.#logger, this.name);
    this.#backoffOptions = {
      initialMs: positiveNumber(options.initialBackoffMs ?? 800, 'initialBackoffMs'),
      maxMs: positiveNumber(options.maxBackoffMs ?? 3_200, 'maxBackoffMs'),
      resetAfterMs: positiveNumber(options.backoffResetMs ?? 120_000, 'backoffResetMs'),
      jitter: nonNegative(options.backoffJitter ?? 0.25, 'backoffJitter'),
    };
    this.#watchErrorHandler = options.watchErrorHandler;
    const metrics = options.metrics ?? noopMetricsProvider;
    if (options.shard !== undefined) {
      checkShardFilterSource(options.shard, 'Reflector: shard');
      this.#shard = new ShardView(options.shard, (error) =>
        this.#logger.error('the shard filter source gave an invalid filter: keeping the last one', {
          error: errorMessage(error),
        }),
      );
      // A sharded informer passes a lister-watcher it already filters (with its kind's counter): not wrapped twice.
      const filtering = shardListerWatcher(listerWatcher, options.shard, {
        filtered: () => shardFilteredCounter(metrics, this.name),
        logger: this.#logger,
      });
      // That informer evicts from its store what a change gives up; a store of a reflector alone is only emptied
      // of it by a relist.
      this.#storeEvicts = filtering === listerWatcher;
      listerWatcher = filtering;
    }
    const initialList = options.initialList ?? 'streaming';
    if (!['streaming', 'cached', 'consistent'].includes(initialList)) {
      throw new TypeError(
        `Reflector: initialList must be 'streaming', 'cached' or 'consistent', got ${JSON.stringify(initialList)}`,
      );
    }
    this.#lists = new ListStrategy<T>({
      name: this.name,
      listerWatcher,
      // A streaming list is a watch: a resource that cannot be watched cannot stream either.
      strategy: !this.#watchable && initialList === 'streaming' ? 'cached' : initialList,
      pageSize: this.#pageSize,
      pageSizeSet: options.pageSize !== undefined,
      listPageTimeoutMs: this.#listPageTimeoutMs,
      streamingListSilenceMs: positiveNumber(
        options.streamingListSilenceMs ?? 10_000,
        'streamingListSilenceMs',
      ),
      minWatchTimeoutMs: this.#minWatchTimeoutMs,
      clock: this.#clock,
      logger: this.#logger,
      metrics,
      random: this.#random,
      transform: store.transform,
    });
    this.#metrics = reflectorMetrics(metrics, this.name);
    this.#session = new WatchSession<T>({
      open: (watchOptions) =>
        this.#takeOver(watchOptions) ?? openWatchSteps(listerWatcher, watchOptions),
      store,
      cursor: this.#cursor,
      clock: this.#clock,
      logger: this.#logger,
      random: this.#random,
      minWatchTimeoutMs: this.#minWatchTimeoutMs,
      inactivityMarginMs: this.#inactivityMarginMs,
      forbidden: this.#forbidden,
      metrics: this.#metrics,
    });
  }

  /** The state machine's current state. */
  state(): ReflectorState {
    return this.#state;
  }

  /** The resourceVersion of the last list or watch event (`''` before the first list). */
  lastSyncResourceVersion(): string {
    return this.#cursor.resourceVersion;
  }

  /** Replace the watch error handler (client-go `SetWatchErrorHandler`). */
  setWatchErrorHandler(handler: WatchErrorHandler | undefined): void {
    this.#watchErrorHandler = handler;
  }

  /**
   * List and watch until `signal` aborts; resolves once the current request has been released. Never
   * rejects for API or network failures (they are reported and retried); rejects only when already running.
   */
  async run(options: { signal: AbortSignal }): Promise<void> {
    const runSignal = options.signal;
    // The signal of the current pass: the run's, or the pass's own when a shard filter change ends it first.
    let signal = runSignal;
    if (this.#running)
      throw new LassoError('LASSO_CONFIG_INVALID', `reflector ${this.name} is already running`);
    this.#running = true;
    const backoff = createBackoff({
      ...this.#backoffOptions,
      clock: this.#clock,
      random: this.#random,
    });
    let next: Next = { kind: 'list', resourceVersion: undefined };
    // 410s since the last healthy watch.
    let goneStreak = 0;
    // Listing on an interval instead of watching: the resource cannot be watched. Each run tries the watch again
    // unless told it cannot (`watchable: false`).
    let polling = false;
    let lastListStartedAt = this.#clock.monotonic();
    const wait = async (delayMs: number, state: ReflectorState = 'backoff'): Promise<boolean> => {
      this.#state = state;
      try {
        await sleep(this.#clock, delayMs, { signal });
        return true;
      } catch {
        return false;
      }
    };
    const startPolling = (because: string, error: unknown, level: 'info' | 'warn'): void => {
      polling = true;
      this.#metrics.polling.set(1);
      const attributes = {
        intervalMs: this.#pollIntervalMs,
        ...(error === undefined ? {} : { error: errorMessage(error) }),
      };
      const message = `${because}: listing every ${this.#pollIntervalMs} ms instead of watching`;
      // Configured: expected, info. Found out at run time: the cache is now up to an interval behind, a warning.
      if (level === 'info') this.#logger.info(message, attributes);
      else this.#logger.warn(message, attributes);
    };
    this.#metrics.polling.set(0);
    if (!this.#watchable)
      startPolling('the resource is not watchable (watchable: false)', undefined, 'info');
    // One pass of the list/watch loop, until its signal (the run's or the pass's) aborts.
    const passLoop = async (): Promise<void> => {
      while (!signal.aborted) {
        if (next.kind === 'list') {
          // A poll reads the current state (""): there is no watch whose resourceVersion it would have to match.
          const listAt = polling ? '' : next.resourceVersion;
          const listStarted = this.#clock.monotonic();
          lastListStartedAt = listStarted;
          this.#state = 'listing';
          try {
            await this.#list(listAt, signal);
            next = { kind: 'watch' };
            // A list that completed as the signal aborted: do not start a watch that would miss the abort.
            if (signal.aborted) break;
          } catch (error) {
            if (signal.aborted) break;
            // The server forgot that version, or has not reached it (a lagging watch cache, an etcd restored
            // from a backup): a consistent list at "" always makes progress (client-go
            // isLastSyncResourceVersionUnavailable).
            if ((isGone(error) || isTooLargeResourceVersion(error)) && listAt !== '') {
              this.#report('list', error, true, 0);
              next = { kind: 'list', resourceVersion: '' };
              continue;
            }
            const delayMs = this.#delay(
              backoff.next(),
              error,
              this.#clock.monotonic() - listStarted,
            );
            this.#report('list', error, true, delayMs);
            if (!(await wait(delayMs))) break;
            continue;
          }
          if (!polling && this.#cursor.resourceVersion === '') {
            startPolling('the list carries no resourceVersion to watch from', undefined, 'warn');
          }
          if (polling) {
            // A streaming list (tried once more after a 405 switched to polling) left a watch open: not needed.
            this.#releaseHandoff();
            // A list that works is what a healthy watch is to a watched resource.
            backoff.reset();
            next = { kind: 'list', resourceVersion: '' };
            const sinceStart = this.#clock.monotonic() - listStarted;
            if (!(await wait(Math.max(this.#pollIntervalMs - sinceStart, 0), 'polling'))) break;
            continue;
          }
        }
        this.#state = 'watching';
        const outcome = await this.#session.run(signal);
        if (outcome.kind === 'aborted' || signal.aborted) break;
        // Healthy: open long enough, or ended cleanly after progress. The backoff and the 410 streak restart, so
        // one failure after a healthy watch waits 800 ms, not what a past fault storm had grown it to.
        const healthy =
          outcome.durationMs >= this.#healthyWatchMs ||
          (outcome.kind === 'ended' && outcome.progressed);
        if (healthy) {
          backoff.reset();
          goneStreak = 0;
        }
        if (outcome.kind === 'ended' || healthy) this.#forbidden.allowed('watch');
        if (outcome.kind === 'ended') {
          if (!healthy) {
            // client-go's "very short watch" ends the watch session: a server (or proxy) that closes every watch at
            // once would otherwise leave the store frozen at its last list.
            const error = new LassoError(
              'LASSO_WATCH_FAILED',
              `very short watch: the watch ended after ${Math.round(outcome.durationMs)} ms without anything newer than resourceVersion ${JSON.stringify(this.#cursor.resourceVersion)} (${outcome.events} events)`,
            );
            const delayMs = this.#delay(backoff.next(), error, outcome.durationMs);
            this.#report('watch', error, true, delayMs);
            next = { kind: 'list', resourceVersion: this.#cursor.resourceVersion };
            if (!(await wait(delayMs))) break;
          } else {
            this.#logger.debug('watch ended, resuming', {
              resourceVersion: this.#cursor.resourceVersion,
            });
          }
          continue;
        }
        const { phase, error } = outcome;
        const action =
          phase === 'event' ? 'relist' : watchFailureAction(error, outcome.streamBroke);
        if (action === 'poll') {
          // The server does not allow watching this resource (405): list it on an interval from now on. The next
          // list is an interval after the last one began.
          const delayMs = Math.max(
            this.#pollIntervalMs - (this.#clock.monotonic() - lastListStartedAt),
            0,
          );
          startPolling('the server does not allow watching this resource (405)', error, 'warn');
          this.#report(phase, error, true, delayMs, { logged: true });
          next = { kind: 'list', resourceVersion: '' };
          if (!(await wait(delayMs, 'polling'))) break;
          continue;
        }
        // A watch from a version the server has not reached cannot succeed by resuming either: relist (at that
        // version, then at "" if the list is refused too).
        const gone = isGone(error);
        const relist =
          action === 'relist' ||
          isLassoError(error, 'LASSO_WATCH_DECODE') ||
          isTooLargeResourceVersion(error);
        // A 410 from a server that answers is not a server failure: the first one relists at once. Another one
        // before a healthy watch waits the backoff, which keeps "one event, then 410" (an etcd compaction racing a
        // busy resource) from sending LISTs in a hot loop.
        const delayMs =
          gone && goneStreak === 0 ? 0 : this.#delay(backoff.next(), error, outcome.durationMs);
        if (gone) goneStreak++;
        this.#report(phase, error, relist, delayMs);
        if (relist) next = { kind: 'list', resourceVersion: this.#cursor.resourceVersion };
        if (delayMs > 0 && !(await wait(delayMs))) break;
      }
    };
    const unsubscribe = this.#shard?.source.subscribe(() => this.#shardChanged());
    try {
      // One pass per shard filter: a change of the owned ranges aborts the pass, which lists again (not older than
      // the last resourceVersion) with the new selector; the run's backoff, 410 streak and polling carry over.
      for (;;) {
        const pass = new AbortController();
        const combined = anySignal([runSignal, pass.signal]);
        this.#pass = pass;
        this.#restartPending = false;
        signal = combined.signal;
        const check = this.#shard?.get();
        this.#held = check;
        try {
          if (check?.empty === true) await this.#idle(signal);
          else await passLoop();
        } finally {
          combined.dispose();
          this.#pass = undefined;
        }
        if (runSignal.aborted || !this.#restartPending) break;
        const at = this.#cursor.resourceVersion;
        next = { kind: 'list', resourceVersion: at === '' ? undefined : at };
        this.#logger.info('shard ranges changed: listing again with the new selector', {
          resourceVersion: at,
        });
      }
    } finally {
      unsubscribe?.();
      this.#releaseHandoff();
      this.#state = 'stopped';
      this.#running = false;
    }
  }

  /**
   * The shard filter changed: restart the pass (list again with the new selector) when it gained anything. A change
   * that only gives ranges up restarts nothing: the store's owner evicts what left, the open watch checks each
   * event against the new filter, and its next watch sends the new selector (a relist would bring nothing new,
   * and on the client-side path it would read the whole resource). Giving up every range does restart: into
   * `idle`, with no request open. A reflector used alone (its store evicts nothing) relists on every change.
   */
  #shardChanged(): void {
    const pass = this.#pass;
    const held = this.#held;
    if (pass === undefined || this.#shard === undefined || held === undefined) return;
    // An invalid filter keeps the last good one (ShardView reports it): then nothing changed.
    const check = this.#shard.get();
    if (check.signature === held.signature) return;
    if (this.#storeEvicts && !check.empty && !held.empty && shardCovers(held, check)) {
      this.#held = check;
      return;
    }
    this.#restartPending = true;
    pass.abort(new LassoError('LASSO_ABORTED', 'shard ranges changed'));
  }

  /**
   * No range owned: the store is emptied (a sharded informer has evicted everything already, so no handler sees a
   * deletion) and marked listed, then nothing is requested until the filter changes or the run stops.
   */
  async #idle(signal: AbortSignal): Promise<void> {
    this.#releaseHandoff();
    this.#state = 'idle';
    this.#store.replace([], this.#cursor.resourceVersion);
    this.#shardListed();
    this.#logger.info('no shard range owned: not listing or watching until one is gained');
    if (signal.aborted) return;
    await new Promise<void>((resolve) =>
      signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  }

  /** The store holds what the filter of this pass selects: tell the source (`ShardFilterSource.listed`). */
  #shardListed(): void {
    const held = this.#held;
    const source = this.#shard?.source;
    if (held === undefined || typeof source?.listed !== 'function') return;
    try {
      source.listed(held.generation);
    } catch (error) {
      this.#logger.error('the shard filter source failed when told of a list', {
        error: errorMessage(error),
      });
    }
  }

  /** The streaming list's open watch, for the watch that follows it (undefined: open a new one). */
  #takeOver(options: WatchOptions): WatchSteps<T> | undefined {
    const open = this.#handoff;
    this.#handoff = undefined;
    return open === undefined ? undefined : resumeWatch(open, options);
  }

  #releaseHandoff(): void {
    const open = this.#handoff;
    this.#handoff = undefined;
    if (open !== undefined) releaseWatch(open, 'reflector stopped');
  }

  /**
   * The wait before the next attempt: the backoff counts from the start of the failed attempt (attempts start at
   * least a backoff apart; a list that waited for the server's health, or a watch that ran a while, has already
   * spent it), and the server's Retry-After from its answer.
   */
  #delay(backoffMs: number, error: unknown, attemptMs: number): number {
    const retryAfterMs = isApiError(error) ? (error.retryAfterMs ?? 0) : 0;
    return Math.max(backoffMs - attemptMs, retryAfterMs, 0);
  }

  async #list(resourceVersion: string | undefined, signal: AbortSignal): Promise<void> {
    this.#releaseHandoff();
    const {
      items,
      resourceVersion: listVersion,
      kind,
      stream,
    } = await this.#lists.list(resourceVersion, signal);
    try {
      this.#store.replace(items, listVersion);
    } catch (error) {
      if (stream !== undefined) releaseWatch(stream, 'streaming list not taken over');
      throw error;
    }
    this.#cursor.resourceVersion = listVersion;
    this.#handoff = stream;
    this.#forbidden.allowed('list');
    if (this.#listsDone > 0) this.#metrics.relists.inc();
    this.#listsDone++;
    this.#metrics.lists.inc();
    this.#shardListed();
    this.#metrics.lastEvent.set(this.#clock.now() / 1000);
    this.#logger.debug('listed', {
      items: items.length,
      resourceVersion: listVersion,
      strategy: kind,
    });
  }

  /** `logged`: the caller has logged this failure its own way (the switch to polling). */
  #report(
    phase: WatchErrorPhase,
    cause: unknown,
    willRelist: boolean,
    retryInMs: number,
    options: { logged?: boolean } = {},
  ): void {
    const error = new WatchError(
      {
        phase,
        reflector: this.name,
        resourceVersion: this.#cursor.resourceVersion,
        willRelist,
        retryInMs,
        message: `${phase} failed: ${errorMessage(cause)}`,
      },
      { cause },
    );
    this.#metrics.errors.inc();
    const attributes = {
      phase,
      error: errorMessage(cause),
      resourceVersion: error.resourceVersion,
      willRelist,
      delayMs: Math.round(retryInMs),
    };
    if (options.logged === true) {
      // The caller said it its own way (the one line of the switch to polling).
    } else if (isForbiddenError(cause)) {
      // Once per outage: a revoked permission repeats on every retry until someone fixes the RBAC.
      const verb: ReflectorVerb = phase === 'list' ? 'list' : 'watch';
      this.#forbidden.denied(verb, cause, retryInMs);
    } else if (isGone(cause)) {
      this.#logger.info('resource version expired, relisting', attributes);
    } else {
      this.#logger.warn(
        phase === 'list'
          ? 'list failed, retrying'
          : willRelist
            ? 'watch failed, relisting'
            : 'watch failed, resuming',
        attributes,
      );
    }
    if (this.#watchErrorHandler === undefined) return;
    try {
      this.#watchErrorHandler(error);
    } catch (handlerError) {
      this.#logger.error('watch error handler threw', { error: errorMessage(handlerError) });
    }
  }
}
