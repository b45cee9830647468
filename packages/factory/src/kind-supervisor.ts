// The kinds of a cache factory inside one run: each is checked against discovery, its informer run when served, and
// retried with backoff (and at once when CRDs or APIServices change) when not; a kind no longer served has its
// informer stopped. Split from shared-cache-factory.ts, which owns the runs and the informers.
import type { Backoff } from '@lasso/cache';
import {
  createBackoff,
  isDeletedFinalStateUnknown,
  type SharedIndexInformer,
  type WatchError,
} from '@lasso/cache';
import {
  builtinKinds,
  type GroupVersionKind,
  type GroupVersionResource,
  groupOfApiVersion,
  isNotFound,
  type KubeObject,
  type KubeObjectLike,
  servedGroupOf,
} from '@lasso/client';
import {
  type Clock,
  errorMessage,
  isLassoError,
  type Logger,
  type StopResult,
  type TimerHandle,
} from '@lasso/core';
import type { ResolvedKind } from './kind-lookups.ts';
import { gvrString } from './names.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/**
 * Where a kind of a factory is:
 * - `pending`: created, not started (the factory does not run, or checks discovery first);
 * - `syncing`: its informer runs and has not finished its first list;
 * - `running`: its informer runs and has synced;
 * - `unserved`: the server does not serve it (a CRD not installed, a version not served); retried with
 *   backoff and at once when CRDs or APIServices change;
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

const crdKind = {
  gvr: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
  kind: 'CustomResourceDefinition',
};
const apiServiceKind = {
  gvr: { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' },
  kind: 'APIService',
};
const builtinGroups = new Set(Object.keys(builtinKinds).map(groupOfApiVersion));

/** @internal What a {@link KindSupervisor} needs from its factory. */
export interface KindSupervisorDeps {
  readonly clients: SharedClientFactory;
  readonly clock: Clock;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  readonly watchDiscovery: boolean;
  entries(): Iterable<Entry>;
  liveRun(): FactoryRun | undefined;
  /** The factory's own informer of a cluster-scoped kind (CRDs, APIServices), created once. */
  internalInformer(resolved: ResolvedKind): SharedIndexInformer<KubeObject>;
}

/** @internal Runs the kinds of a cache factory within its runs (see the file comment). */
export class KindSupervisor {
  readonly #deps: KindSupervisorDeps;
  // The CRD/APIService handlers are added once; their informers then start with every run.
  #discoveryWatched = false;

  constructor(deps: KindSupervisorDeps) {
    this.#deps = deps;
  }

  /** Makes `entry` part of `run` (once per run) and returns its first discovery check. */
  activate(entry: Entry, run: FactoryRun): Promise<void> {
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
    };
    entry.active = activation;
    this.#setState(entry, 'pending', undefined);
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
    try {
      const mapping = await this.#deps.clients.resourceForGVK(entry.gvk, { signal: run.signal });
      if (mapping.gvr.resource !== entry.gvr.resource || mapping.namespaced !== entry.namespaced) {
        served = false;
        why = new TypeError(
          `${entry.key} is served as ${gvrString(mapping.gvr)} (namespaced: ${mapping.namespaced}), not ${gvrString(entry.gvr)} (namespaced: ${entry.namespaced})`,
        );
      }
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
      this.#setState(entry, 'unserved', why);
      const delayMs = active.backoff.next();
      active.retry = this.#deps.clock.schedule(delayMs, () => {
        active.retry = undefined;
        void this.#check(entry, active);
      });
      if (!entry.internal) this.#watchDiscoveryChanges(run);
      return;
    }
    active.backoff.reset();
    this.#runInformer(entry, active);
  }

  #runInformer(entry: Entry, active: Activation): void {
    const { run } = active;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(run.signal.reason);
    run.signal.addEventListener('abort', onAbort, { once: true });
    const wasUnserved = entry.state === 'unserved';
    this.#setState(entry, 'syncing', undefined);
    if (wasUnserved) entry.logger.info('kind is served now, informer started');
    // A run of a previous factory run still ending (past its shutdown bound) ends first: one run at a time.
    const previous = entry.informer.isRunning() ? entry.informer.stopped() : undefined;
    const running =
      previous === undefined
        ? entry.informer.run({ signal: stop.signal })
        : previous.then(() =>
            stop.signal.aborted ? undefined : entry.informer.run({ signal: stop.signal }),
          );
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
    if (!entry.internal && !builtinGroups.has(entry.gvk.group)) this.#watchDiscoveryChanges(run);
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
    // Logged once per change of state, not per retry.
    if (state === 'unserved') {
      entry.logger.warn(
        'kind not served; retrying with backoff and when CRDs or APIServices change',
        { error: errorMessage(lastError) },
      );
    } else if (state === 'running') {
      entry.logger.debug('informer synced');
    }
  }

  // The factory's own CRD and APIService informers: a change retries unserved kinds at once, and a deletion or
  // update rechecks the running kinds of its group.
  #watchDiscoveryChanges(run: FactoryRun): void {
    if (!this.#deps.watchDiscovery || this.#discoveryWatched || run.signal.aborted) return;
    this.#discoveryWatched = true;
    for (const { gvr, kind } of [crdKind, apiServiceKind]) {
      const informer = this.#deps.internalInformer({ gvr, kind, namespaced: false });
      informer.addEventHandler(
        {
          onAdd: (_object, initial) => {
            if (!initial) this.#onDiscoveryChange(undefined);
          },
          onUpdate: (_old, object) => this.#onDiscoveryChange(servedGroupOf(object)),
          onDelete: (object) =>
            this.#onDiscoveryChange(
              servedGroupOf(isDeletedFinalStateUnknown(object) ? object.object : object),
            ),
        },
        { name: 'lasso-factory-discovery' },
      );
    }
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
    const active = entry.active;
    if (active?.informer === undefined || entry.internal) return;
    if (!isNotFound(error.cause)) return;
    const mapper = this.#deps.clients.restMapper();
    if (typeof mapper?.reset === 'function') mapper.reset();
    void this.#recheckServed(entry, active);
  }

  // Stops the informer of a kind that is no longer served; the retries then start it again once it is.
  async #recheckServed(entry: Entry, active: Activation): Promise<void> {
    const { run } = active;
    let served = true;
    let why: unknown;
    try {
      const mapping = await this.#deps.clients.resourceForGVK(entry.gvk, { signal: run.signal });
      served = mapping.gvr.resource === entry.gvr.resource;
    } catch (error) {
      if (!isLassoError(error, 'LASSO_NO_KIND_MATCH')) return;
      served = false;
      why = error;
    }
    const informer = active.informer;
    if (served || run.signal.aborted || informer === undefined || entry.active !== active) return;
    entry.logger.warn('kind no longer served; stopping its informer', {
      error: errorMessage(why),
    });
    informer.stop.abort(why);
    await informer.done;
    this.#setState(entry, 'unserved', why);
    void this.#check(entry, active);
  }
}
