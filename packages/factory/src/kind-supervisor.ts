// The kinds of a cache factory inside one run: each is checked against discovery, its informer run when served, and
// retried with backoff (and at once when CRDs or APIServices change, while they are followed) when not; a kind no
// longer served has its informer stopped. Split from shared-cache-factory.ts, which owns the runs and the informers.
import type { Backoff } from '@lasso/cache';
import { createBackoff, type SharedIndexInformer, type WatchError } from '@lasso/cache';
import {
  type GroupVersionKind,
  type GroupVersionResource,
  isNotFound,
  type KubeObject,
  type KubeObjectLike,
  type RestMapping,
} from '@lasso/client';
import {
  type Clock,
  errorMessage,
  isLassoError,
  LassoError,
  type Logger,
  type StopResult,
  type TimerHandle,
} from '@lasso/core';
import { DiscoveryFollower, type DiscoveryFollowMode } from './discovery-follow.ts';
import type { ResolvedKind } from './kind-lookups.ts';
import { gvrString } from './names.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/**
 * Where a kind of a factory is:
 * - `pending`: created, not started (the factory does not run, or checks discovery first);
 * - `syncing`: its informer runs and has not finished its first list;
 * - `running`: its informer runs and has synced;
 * - `unserved`: discovery does not serve it (a CRD not installed, a version not served, a misspelt resource);
 *   retried with backoff, and at once when CRDs or APIServices change while the factory follows them;
 * - `stopped`: the factory's run ended.
 */
export type KindState = 'pending' | 'syncing' | 'running' | 'unserved' | 'stopped';

/** @internal One kind of a cache factory. */
export interface Entry {
  readonly key: string;
  readonly gvk: GroupVersionKind;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
  readonly internal: boolean;
  readonly informer: SharedIndexInformer<KubeObjectLike>;
  readonly logger: Logger;
  state: KindState;
  lastError: unknown;
  /**
   * False when discovery listed the resource's verbs without `watch`: the informer's next run lists on an
   * interval instead of watching (the informer asks for it at the start of every run).
   */
  watchable: boolean;
  /** The entry's part of the current factory run. */
  active: Activation | undefined;
}

/** @internal One entry inside one factory run. */
export interface Activation {
  readonly run: FactoryRun;
  readonly backoff: Backoff;
  /** The first discovery check of this run: start waits for it. */
  readonly firstCheck: Promise<void>;
  /** Stops the informer's current run (a kind no longer served), or undefined when it does not run. */
  informer: { readonly stop: AbortController; readonly done: Promise<void> } | undefined;
  retry: TimerHandle | undefined;
  checking: Promise<void> | undefined;
  /** Callers of startGVK waiting for the informer to run. */
  readonly waiters: Set<() => void>;
  /** A recheck of a running kind in progress (one at a time: its outcome is logged once). */
  rechecking: Promise<void> | undefined;
  /** Since when the kind is unserved, when its warning was last logged (clock ms), and the wait before the next. */
  unservedSince: number;
  warnedAt: number;
  warnEveryMs: number;
}

/** @internal One run of a cache factory: from a start to the end of the stop its signal's abort begins. */
export interface FactoryRun {
  readonly signal: AbortSignal;
  readonly stop: AbortController;
  /** Settles with the stop result once the signal aborted (bounded by the graceful shutdown timeout). */
  readonly result: Promise<StopResult>;
  /** Work of the run (informer runs, checks); the run is done when all of it has settled after the abort. */
  readonly work: Set<Promise<void>>;
}

/**
 * A kind that stays unserved is warned about again after 1 min, then each wait doubles up to 30 min: loud about a
 * misspelt resource, not a line per retry.
 */
export const unservedWarnFirstRepeatMs = 60_000;
export const unservedWarnMaxRepeatMs = 30 * 60_000;

/** @internal What a {@link KindSupervisor} needs from its factory. */
export interface KindSupervisorDeps {
  readonly clients: SharedClientFactory;
  readonly clock: Clock;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  readonly watchDiscovery: DiscoveryFollowMode;
  readonly logger: Logger;
  entries(): Iterable<Entry>;
  liveRun(): FactoryRun | undefined;
  /** The factory's own informer of a cluster-scoped kind (CRDs, APIServices), created once. */
  internalInformer(resolved: ResolvedKind): SharedIndexInformer<KubeObject>;
}

/** @internal Runs the kinds of a cache factory within its runs (see the file comment). */
export class KindSupervisor {
  readonly #deps: KindSupervisorDeps;
  readonly #follower: DiscoveryFollower;

  constructor(deps: KindSupervisorDeps) {
    this.#deps = deps;
    this.#follower = new DiscoveryFollower({
      clients: deps.clients,
      logger: deps.logger,
      internalInformer: deps.internalInformer,
      entry: (key) => {
        for (const entry of deps.entries()) if (entry.key === key) return entry;
        return undefined;
      },
      setState: (entry, state, lastError) => this.#setState(entry, state, lastError),
      onChange: (group) => this.#onDiscoveryChange(group),
      track: (run, work) => this.#track(run, work),
    });
  }

  /** Makes `entry` part of `run` (once per run) and returns its first discovery check. */
  activate(entry: Entry, run: FactoryRun): Promise<void> {
    // The factory's own informers run while discovery is followed, not with every run.
    if (entry.internal) return Promise.resolve();
    if (entry.active?.run === run) return entry.active.firstCheck;
    let firstDone!: () => void;
    const activation: Activation = {
      run,
      backoff: createBackoff({
        initialMs: this.#deps.retryInitialMs,
        maxMs: this.#deps.retryMaxMs,
        jitter: 0,
        clock: this.#deps.clock,
      }),
      firstCheck: new Promise<void>((resolve) => {
        firstDone = resolve;
      }),
      informer: undefined,
      retry: undefined,
      checking: undefined,
      waiters: new Set(),
      rechecking: undefined,
      unservedSince: 0,
      warnedAt: 0,
      warnEveryMs: unservedWarnFirstRepeatMs,
    };
    entry.active = activation;
    this.#setState(entry, 'pending', undefined);
    if (this.#deps.watchDiscovery === 'always') this.#updateFollowing(run);
    void this.#check(entry, activation).finally(firstDone);
    return activation.firstCheck;
  }

  deactivate(entry: Entry, run: FactoryRun): void {
    const active = entry.active;
    if (active === undefined || active.run !== run) return;
    active.retry?.cancel();
    active.retry = undefined;
    const informer = active.informer;
    const finish = (): void => {
      if (entry.active === active) {
        entry.active = undefined;
        this.#setState(entry, 'stopped', entry.lastError);
      }
    };
    if (informer === undefined) finish();
    else void informer.done.then(finish);
  }

  // Checks the kind against discovery and runs its informer when served; otherwise retries later.
  #check(entry: Entry, active: Activation): Promise<void> {
    if (active.checking !== undefined) return active.checking;
    const checking = this.#checkOnce(entry, active).finally(() => {
      active.checking = undefined;
    });
    active.checking = checking;
    this.#track(active.run, checking);
    return checking;
  }

  async #checkOnce(entry: Entry, active: Activation): Promise<void> {
    const { run } = active;
    if (run.signal.aborted || active.informer !== undefined || entry.active !== active) return;
    active.retry?.cancel();
    active.retry = undefined;
    let served = true;
    let why: unknown;
    let mapping: RestMapping | undefined;
    try {
      mapping = await this.#deps.clients.resourceForGVK(entry.gvk, { signal: run.signal });
      why = mismatch(entry, mapping);
      served = why === undefined;
    } catch (error) {
      if (run.signal.aborted) return;
      if (isLassoError(error, 'LASSO_NO_KIND_MATCH')) {
        served = false;
        why = error;
      } else {
        // Discovery itself failed (API down, an aggregated group unavailable): the informer's own retries and
        // the health gate handle that better than refusing to start.
        entry.logger.warn(
          'could not check the kind against discovery, starting its informer anyway',
          {
            error: errorMessage(error),
          },
        );
      }
    }
    if (run.signal.aborted || entry.active !== active) return;
    if (!served) {
      const delayMs = active.backoff.next();
      this.#unserved(entry, active, why, delayMs);
      active.retry = this.#deps.clock.schedule(delayMs, () => {
        active.retry = undefined;
        void this.#check(entry, active);
      });
      this.#updateFollowing(run);
      return;
    }
    active.backoff.reset();
    this.#runInformer(entry, active, mapping);
  }

  // Unserved: warned at once, then again after 1 min, doubling to every 30 min while it stays so.
  #unserved(entry: Entry, active: Activation, why: unknown, retryInMs: number): void {
    const now = this.#deps.clock.now();
    const first = entry.state !== 'unserved';
    this.#setState(entry, 'unserved', why);
    if (!first && now - active.warnedAt < active.warnEveryMs) return;
    if (first) {
      active.unservedSince = now;
      active.warnEveryMs = unservedWarnFirstRepeatMs;
    } else {
      active.warnEveryMs = Math.min(active.warnEveryMs * 2, unservedWarnMaxRepeatMs);
    }
    active.warnedAt = now;
    const attributes = {
      resource: gvrString(entry.gvr),
      error: errorMessage(why),
      retryInMs,
      ...(first ? {} : { unservedForMs: Math.round(now - active.unservedSince) }),
    };
    entry.logger.warn(
      `kind ${entry.key} not served by discovery; retrying with backoff${this.#deps.watchDiscovery === 'never' ? '' : ' and when CRDs or APIServices change'}`,
      attributes,
    );
  }

  // Follows CRDs and APIServices while a kind of this run is unserved (or always, or never: the option).
  #updateFollowing(run: FactoryRun): void {
    const mode = this.#deps.watchDiscovery;
    if (mode === 'never' || run.signal.aborted) return;
    let needed = mode === 'always';
    for (const entry of this.#deps.entries()) {
      if (needed) break;
      needed = !entry.internal && entry.active?.run === run && entry.state === 'unserved';
    }
    this.#follower.update(run, needed);
  }

  #runInformer(entry: Entry, active: Activation, mapping: RestMapping | undefined): void {
    const { run } = active;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(run.signal.reason);
    run.signal.addEventListener('abort', onAbort, { once: true });
    const wasUnserved = entry.state === 'unserved';
    // Read by the informer as its run starts: a resource discovery serves without `watch` is listed on an interval.
    // Discovery unreadable (no mapping): what it said last stands (watchable at first); a 405 still switches a
    // run to polling.
    if (mapping !== undefined) {
      const canWatch = watchable(mapping);
      if (!canWatch && entry.watchable) {
        entry.logger.info('discovery lists no watch verb for the kind: listing it on an interval', {
          resource: gvrString(entry.gvr),
        });
      }
      entry.watchable = canWatch;
    }
    this.#setState(entry, 'syncing', undefined);
    if (wasUnserved) entry.logger.info('kind is served now, informer started');
    // A run of a previous factory run still ending (past its shutdown bound) ends first: one run at a time.
    const previous = entry.informer.isRunning() ? entry.informer.stopped() : undefined;
    const runInformer = async (): Promise<void> => {
      await entry.informer.start(stop.signal);
      await entry.informer.stopped();
    };
    const running =
      previous === undefined
        ? runInformer()
        : previous.then(() => (stop.signal.aborted ? undefined : runInformer()));
    const done = running
      .catch((error: unknown) => {
        entry.logger.error('informer failed', { error: errorMessage(error) });
      })
      .finally(() => {
        run.signal.removeEventListener('abort', onAbort);
        if (active.informer?.stop === stop) active.informer = undefined;
      });
    active.informer = { stop, done };
    this.#track(run, done);
    void entry.informer.whenSynced({ signal: stop.signal }).then(
      () => {
        if (active.informer?.stop === stop) this.#setState(entry, 'running', undefined);
      },
      () => {},
    );
    for (const release of active.waiters) release();
    active.waiters.clear();
    this.#updateFollowing(run);
  }

  #track(run: FactoryRun, work: Promise<void>): void {
    run.work.add(work);
    void work.finally(() => run.work.delete(work));
  }

  #setState(entry: Entry, state: KindState, lastError: unknown): void {
    const previous = entry.state;
    entry.lastError = lastError;
    if (previous === state) return;
    entry.state = state;
    // The unserved warning is #unserved's (with its repeats) or the "no longer served" one.
    if (state === 'running') entry.logger.debug('informer synced');
  }

  #onDiscoveryChange(group: string | undefined): void {
    const run = this.#deps.liveRun();
    if (run === undefined) return;
    if (group !== undefined) {
      // Served kinds of that group may be served no more: read discovery afresh.
      const mapper = this.#deps.clients.restMapper();
      if (typeof mapper?.reset === 'function') mapper.reset();
    }
    for (const entry of this.#deps.entries()) {
      const active = entry.active;
      if (active === undefined || active.run !== run || entry.internal) continue;
      if (active.informer === undefined) {
        active.backoff.reset();
        void this.#check(entry, active);
      } else if (group !== undefined && entry.gvk.group === group) {
        void this.#recheckServed(entry, active);
      }
    }
  }

  onWatchError(entry: Entry, error: WatchError): void {
    entry.lastError = error;
    if (this.#follower.owns(entry)) {
      this.#follower.onWatchError(entry, error);
      return;
    }
    const active = entry.active;
    if (active?.informer === undefined || entry.internal) return;
    if (!isNotFound(error.cause)) return;
    const mapper = this.#deps.clients.restMapper();
    if (typeof mapper?.reset === 'function') mapper.reset();
    void this.#recheckServed(entry, active);
  }

  // Stops the informer of a kind that is no longer served; the retries then start it again once it is. Its CRD's
  // update and deletion events and its list and watch 404s all ask at once: one recheck at a time, so it is said
  // once.
  #recheckServed(entry: Entry, active: Activation): Promise<void> {
    if (active.rechecking !== undefined) return active.rechecking;
    const rechecking = this.#recheckOnce(entry, active).finally(() => {
      active.rechecking = undefined;
    });
    active.rechecking = rechecking;
    this.#track(active.run, rechecking);
    return rechecking;
  }

  async #recheckOnce(entry: Entry, active: Activation): Promise<void> {
    const { run } = active;
    if (active.informer === undefined || active.informer.stop.signal.aborted) return;
    let served = true;
    let why: unknown;
    try {
      const mapping = await this.#deps.clients.resourceForGVK(entry.gvk, { signal: run.signal });
      why = mismatch(entry, mapping);
      served = why === undefined;
    } catch (error) {
      if (!isLassoError(error, 'LASSO_NO_KIND_MATCH')) return;
      served = false;
      why = error;
    }
    const informer = active.informer;
    if (served || run.signal.aborted || informer === undefined || entry.active !== active) return;
    entry.logger.warn(`kind ${entry.key} no longer served by discovery; stopping its informer`, {
      resource: gvrString(entry.gvr),
      error: errorMessage(why),
    });
    informer.stop.abort(why);
    await informer.done;
    // Said above: the retries' first "not served" is not said again, only its repeats (#unserved).
    this.#setState(entry, 'unserved', why);
    active.unservedSince = this.#deps.clock.now();
    active.warnedAt = active.unservedSince;
    active.warnEveryMs = unservedWarnFirstRepeatMs;
    void this.#check(entry, active);
  }
}

/** Why discovery's mapping of the kind is not the entry's resource and scope (a misspelt resource), if it is not. */
function mismatch(entry: Entry, mapping: RestMapping): LassoError | undefined {
  if (mapping.gvr.resource === entry.gvr.resource && mapping.namespaced === entry.namespaced) {
    return undefined;
  }
  return new LassoError(
    'LASSO_NO_KIND_MATCH',
    `resource ${gvrString(entry.gvr)} (namespaced: ${entry.namespaced}) is not served for ${entry.key}; discovery serves the kind as ${gvrString(mapping.gvr)} (namespaced: ${mapping.namespaced})`,
  );
}

/** False when discovery lists the resource's verbs without `watch`; a mapping without verbs is taken as watchable. */
function watchable(mapping: RestMapping): boolean {
  const { verbs } = mapping;
  return verbs === undefined || verbs.includes('watch');
}
