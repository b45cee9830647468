// SharedCacheFactory: one deferred informer per GVK, run together behind one health gate, with the lifecycle shape
// (start / stopped / restart / close) and late kinds (a kind the server does not serve yet is retried and started
// once served). Ports rancher/lasso pkg/cache/sharedinformerfactory.go and healthcheck.go.
import { createCache, type SharedIndexInformer, type TweakListOptionsFunc } from '@lasso/cache';
import type {
  GroupVersionKind,
  GroupVersionResource,
  KubeObject,
  KubeObjectLike,
} from '@lasso/client';
import {
  abortReason,
  type Clock,
  defaultLogger,
  drainWithin,
  guardLogger,
  type Logger,
  type MetricsProvider,
  raceSignal,
  type StopResult,
  systemClock,
} from '@lasso/core';
import { checkSignal, checkTimeout, kindMap } from './checks.ts';
import { FactoryClosedError } from './errors.ts';
import { HealthGate } from './health-gate.ts';
import { type KindRef, resolveKindRef } from './kind.ts';
import {
  checkResourceKind,
  type KindLookups,
  KindLookupsBase,
  type LookupOptions,
  ProductRegistry,
  type ResolvedKind,
} from './kind-lookups.ts';
import { type Entry, type FactoryRun, type KindState, KindSupervisor } from './kind-supervisor.ts';
import { gvkKey } from './names.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';
import { followSignal } from './signals.ts';

/** lasso's (and controller-runtime's) default bound on a graceful shutdown. */
export const defaultGracefulShutdownTimeoutMs = 30_000;

export type { KindState } from './kind-supervisor.ts';

/** Options of {@link createSharedCacheFactory} (lasso `SharedCacheFactoryOptions`). */
export interface SharedCacheFactoryOptions {
  /** Namespace every informer watches; `''`/undefined = all. Ignored for cluster-scoped kinds. */
  defaultNamespace?: string | undefined;
  /** Resync period of every informer; `0` = never. Default 10 hours (lasso's 600 minutes). */
  defaultResyncMs?: number | undefined;
  /** Applied to every list and watch (label/field selectors). */
  defaultTweakList?: TweakListOptionsFunc | undefined;
  /** Per-kind namespace, e.g. `new Map([[{ apiVersion: 'v1', kind: 'Secret' }, 'cattle-system']])`. */
  kindNamespace?: Iterable<readonly [KindRef, string]> | undefined;
  /** Per-kind resync period in ms (`0` = never). */
  kindResyncMs?: Iterable<readonly [KindRef, number]> | undefined;
  /** Per-kind list/watch tweak; replaces `defaultTweakList` for that kind. */
  kindTweakList?: Iterable<readonly [KindRef, TweakListOptionsFunc]> | undefined;
  /** Told the outcome of every health ping (lasso's `HealthCallback`). */
  healthCallback?: ((healthy: boolean) => void) | undefined;
  /**
   * How long {@link SharedCacheFactory.stopped} waits, after the start signal aborted, for the informers
   * (and the handler calls in progress) to end before it settles with `drained: false`. Default 30 000.
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * Backoff between retries of a kind the server does not serve (a CRD not installed yet). Default: 1 s
   * doubling to 60 s.
   */
  unservedRetry?: { initialMs?: number | undefined; maxMs?: number | undefined } | undefined;
  /**
   * Watch CustomResourceDefinitions and APIServices (through this factory's own informers) while a kind is not
   * served or a custom kind runs, to retry at once when they change and to stop the informer of a kind no
   * longer served. Needs list/watch on both; without it, unserved kinds are still retried with backoff.
   * Default true.
   */
  watchDiscovery?: boolean | undefined;
  /** Time source of the informers, retries, shutdown bound and the health gate. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where the factory, its informers and the health gate log. Default `defaultLogger`. */
  logger?: Logger | undefined;
  /** Where the informers count. */
  metrics?: MetricsProvider | undefined;
}

/** One kind in {@link SharedCacheFactory.status}. */
export interface KindStatus {
  /** The kind. */
  readonly gvk: GroupVersionKind;
  /** {@link gvkString} of the kind, e.g. `apps/v1, Kind=Deployment`. */
  readonly key: string;
  /** Where it is. */
  readonly state: KindState;
  /** Why it is unserved, or the last list/watch failure of its informer; undefined when none. */
  readonly lastError: unknown;
  /** True for the factory's own CRD and APIService informers (see `watchDiscovery`). */
  readonly internal: boolean;
}

/**
 * One informer per kind over a {@link SharedClientFactory} (lasso `SharedCacheFactory`), with the lifecycle
 * shape of `@lasso/core`'s `Lifecycle`. Informers are created deferred: none lists or watches before the
 * factory runs. While it runs, every informer created is started at once.
 */
export interface SharedCacheFactory extends KindLookups<'informer'> {
  /**
   * Run every informer created, and every one created later, until `signal` aborts. The first start waits
   * until the API server answers `/version` (pinging every 15 s, logging each failure; rejects with the
   * signal's reason when it aborts first). Resolves once every kind was checked against discovery: the
   * served ones run (not necessarily synced: see {@link waitForCacheSync}), the others are `unserved` in
   * {@link status} and start once served. Idempotent while running (the running signal stays in charge);
   * after a stop, runs again (each informer relists). Rejects with a `LASSO_FACTORY_CLOSED` error after
   * `close()`.
   */
  start(signal: AbortSignal): Promise<void>;
  /**
   * Settles once the run's informers have ended after its signal aborted (at once when not running), bounded
   * by `gracefulShutdownTimeoutMs`: `drained: false` names the informers still ending.
   */
  stopped(): Promise<StopResult>;
  /** True from a start until the stop that follows its signal's abort has finished. */
  isRunning(): boolean;
  /**
   * Stop (aborting the run) and release what the factory created: its timers, and the client factory when
   * this factory created it. A closed factory cannot start again. Idempotent.
   */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * Start the informer of one kind if it was created (lasso `StartGVK`): starts the factory with `signal` when
   * it does not run. Resolves once that informer runs; for a kind the server does not serve yet, once it is
   * served. Rejects with the signal's reason when it aborts first.
   */
  startGVK(signal: AbortSignal, kind: KindRef): Promise<void>;
  /**
   * Wait until every running informer has synced, or `signal` aborts: the result maps each kind
   * ({@link gvkString}, e.g. `apps/v1, Kind=Deployment`) to whether it synced. Never rejects on abort.
   */
  waitForCacheSync(signal?: AbortSignal | undefined): Promise<Map<string, boolean>>;
  /** Every kind of the factory and where it is: a health/readiness report. */
  status(): KindStatus[];
  /** The client factory the informers list and watch through. */
  sharedClientFactory(): SharedClientFactory;
}

class SharedCacheFactoryImpl extends KindLookupsBase<'informer'> implements SharedCacheFactory {
  readonly #clients: SharedClientFactory;
  readonly #ownsClients: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider | undefined;
  readonly #defaultNamespace: string | undefined;
  readonly #defaultResyncMs: number | undefined;
  readonly #defaultTweakList: TweakListOptionsFunc | undefined;
  readonly #kindNamespace: Map<string, string>;
  readonly #kindResyncMs: Map<string, number>;
  readonly #kindTweakList: Map<string, TweakListOptionsFunc>;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #kinds: KindSupervisor;
  readonly #gate: HealthGate;
  readonly #informers = new ProductRegistry<'informer'>();
  readonly #entries = new Map<string, Entry>();
  #healthy = false;
  #run: FactoryRun | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;

  constructor(
    clients: SharedClientFactory,
    options: SharedCacheFactoryOptions,
    ownsClients: boolean,
  ) {
    super();
    this.#clients = clients;
    this.#ownsClients = ownsClients;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#metrics = options.metrics;
    this.#defaultNamespace = options.defaultNamespace;
    this.#defaultResyncMs = options.defaultResyncMs;
    this.#defaultTweakList = options.defaultTweakList;
    this.#kindNamespace = kindMap(options.kindNamespace, 'kindNamespace', checkNamespaceOption);
    this.#kindResyncMs = kindMap(options.kindResyncMs, 'kindResyncMs', checkResyncOption);
    this.#kindTweakList = kindMap(options.kindTweakList, 'kindTweakList', checkTweakOption);
    this.#gracefulShutdownTimeoutMs =
      options.gracefulShutdownTimeoutMs ?? defaultGracefulShutdownTimeoutMs;
    this.#kinds = new KindSupervisor({
      clients,
      clock: this.#clock,
      retryInitialMs: options.unservedRetry?.initialMs ?? 1000,
      retryMaxMs: options.unservedRetry?.maxMs ?? 60_000,
      watchDiscovery: options.watchDiscovery ?? true,
      entries: () => this.#entries.values(),
      liveRun: () => this.#liveRun(),
      internalInformer: (resolved) => this.#informer<KubeObject>(resolved, true),
    });
    this.#gate = new HealthGate({
      isHealthy: (ping) => clients.isHealthy(ping),
      clock: this.#clock,
      logger: this.#logger,
      onHealth: options.healthCallback,
    });
  }

  sharedClientFactory(): SharedClientFactory {
    return this.#clients;
  }

  protected async resolveKind(
    gvk: GroupVersionKind,
    options: LookupOptions,
  ): Promise<ResolvedKind> {
    const mapping = await this.#clients.resourceForGVK(gvk, options);
    return { gvr: mapping.gvr, kind: mapping.gvk.kind, namespaced: mapping.namespaced };
  }

  protected async resolveResource(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions,
  ): Promise<ResolvedKind> {
    const client = await this.#clients.forResource(gvr, namespaced, options);
    return { gvr: client.gvr, kind: client.kind, namespaced: client.namespaced };
  }

  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): SharedIndexInformer<T> {
    return this.#informer<T>(checkResourceKind(gvr, kind, namespaced, 'forResourceKind'), false);
  }

  #informer<T extends KubeObjectLike>(
    resolved: ResolvedKind,
    internal: boolean,
  ): SharedIndexInformer<T> {
    const { gvr, kind, namespaced } = resolved;
    const gvk = { group: gvr.group, version: gvr.version, kind };
    const key = gvkKey(gvk);
    const existing = this.#informers.get<T>(key);
    if (existing !== undefined) return existing;
    const client = this.#clients.forResourceKind<KubeObjectLike>(gvr, kind, namespaced);
    const logger = this.#logger.child({ gvk: key });
    // The factory's own informers see every CRD and APIService, whatever the user's defaults select.
    const namespace = internal
      ? undefined
      : (this.#kindNamespace.get(key) ?? this.#defaultNamespace);
    const resyncMs = internal ? 0 : (this.#kindResyncMs.get(key) ?? this.#defaultResyncMs);
    const tweakList = internal
      ? undefined
      : (this.#kindTweakList.get(key) ?? this.#defaultTweakList);
    let entry: Entry | undefined;
    // createCache defers its lister-watcher: creating the informer costs no API call.
    const informer = createCache(client, {
      name: key,
      waitHealthy: (wait) => this.#gate.wait(wait),
      clock: this.#clock,
      logger,
      // A 404 on list or watch: the kind may have stopped being served (its CRD deleted).
      watchErrorHandler: (error) => {
        if (entry !== undefined) this.#kinds.onWatchError(entry, error);
      },
      ...(namespace !== undefined ? { namespace } : {}),
      ...(resyncMs !== undefined ? { resyncMs } : {}),
      ...(tweakList !== undefined ? { tweakList } : {}),
      ...(this.#metrics !== undefined ? { metrics: this.#metrics } : {}),
    });
    entry = {
      key,
      gvk,
      gvr,
      namespaced,
      internal,
      informer,
      logger,
      state: 'pending',
      lastError: undefined,
      active: undefined,
    };
    this.#entries.set(key, entry);
    this.#informers.set(key, informer);
    // A kind created while the factory runs starts at once.
    const run = this.#liveRun();
    if (run !== undefined) void this.#kinds.activate(entry, run);
    return this.#informers.get<T>(key) as SharedIndexInformer<T>;
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  async start(signal: AbortSignal): Promise<void> {
    checkSignal(signal, 'SharedCacheFactory.start');
    if (this.#closed) throw new FactoryClosedError('SharedCacheFactory');
    if (signal.aborted) throw abortReason(signal);
    while (this.#starting !== undefined) await raceSignal(this.#starting, signal);
    let run = this.#liveRun();
    if (run === undefined) {
      const starting = this.#begin(signal);
      this.#starting = starting.then(
        () => undefined,
        () => undefined,
      );
      try {
        run = await starting;
      } finally {
        this.#starting = undefined;
      }
    }
    const checks = [...this.#entries.values()].map((entry) => this.#kinds.activate(entry, run));
    await raceSignal(Promise.all(checks), signal);
  }

  // Waits for the previous run to end and for a healthy API server, then makes the new run current.
  async #begin(signal: AbortSignal): Promise<FactoryRun> {
    const previous = this.#run;
    if (previous !== undefined) await raceSignal(previous.result, signal);
    if (!this.#healthy) {
      this.#logger.info('waiting for the API server to answer /version');
      await this.#gate.wait({ signal });
      this.#healthy = true;
      this.#logger.info('API server is healthy, starting informers');
    }
    if (this.#closed) throw new FactoryClosedError('SharedCacheFactory');
    if (signal.aborted) throw abortReason(signal);
    const stop = new AbortController();
    const runSignal = followSignal(stop.signal);
    const onAbort = (): void => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const work = new Set<Promise<void>>();
    let settle!: (result: Promise<StopResult>) => void;
    const result = new Promise<StopResult>((resolve) => {
      settle = resolve;
    });
    const run: FactoryRun = { signal: runSignal, stop, result, work };
    runSignal.addEventListener(
      'abort',
      () => {
        signal.removeEventListener('abort', onAbort);
        for (const entry of this.#entries.values()) this.#kinds.deactivate(entry, run);
        const done = (async () => {
          while (work.size > 0) await Promise.allSettled([...work]);
        })();
        void done.then(() => {
          if (this.#run === run) this.#run = undefined;
        });
        settle(
          drainWithin(this.#clock, done, this.#gracefulShutdownTimeoutMs, () =>
            [...this.#entries.values()]
              .filter((entry) => entry.informer.isRunning())
              .map((entry) => `informer ${entry.key}`),
          ).then((stopResult) => {
            if (!stopResult.drained) {
              this.#logger.error('graceful shutdown timed out; informers still ending', {
                pending: stopResult.pending,
              });
            }
            return stopResult;
          }),
        );
      },
      { once: true },
    );
    this.#run = run;
    return run;
  }

  stopped(): Promise<StopResult> {
    const run = this.#run;
    if (run === undefined) return Promise.resolve({ drained: true, pending: [] });
    return run.result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const run = this.#run;
    if (run !== undefined) {
      run.stop.abort(new FactoryClosedError('SharedCacheFactory'));
      await run.result;
    }
    if (this.#ownsClients) await this.#clients.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async startGVK(signal: AbortSignal, kind: KindRef): Promise<void> {
    checkSignal(signal, 'SharedCacheFactory.startGVK');
    const { gvk } = resolveKindRef(kind, 'startGVK');
    const entry = this.#entries.get(gvkKey(gvk));
    if (entry === undefined) return;
    if (this.#liveRun() === undefined) await this.start(signal);
    const run = this.#liveRun();
    if (run === undefined) throw abortReason(signal);
    await raceSignal(this.#kinds.activate(entry, run), signal);
    const active = entry.active;
    if (active === undefined || active.informer !== undefined) return;
    // Not served yet: wait until it is (or the signal aborts).
    let release!: () => void;
    const running = new Promise<void>((resolve) => {
      release = resolve;
    });
    active.waiters.add(release);
    try {
      await raceSignal(running, signal);
    } finally {
      active.waiters.delete(release);
    }
  }

  async waitForCacheSync(signal?: AbortSignal | undefined): Promise<Map<string, boolean>> {
    if (signal !== undefined) checkSignal(signal, 'SharedCacheFactory.waitForCacheSync');
    // A snapshot: informers started while this waits are not waited for (as lasso).
    const running = [...this.#entries.values()].filter(
      (entry) => !entry.internal && entry.active?.informer !== undefined,
    );
    const waitSignal = signal === undefined ? undefined : followSignal(signal);
    const synced = await Promise.all(
      running.map(async (entry) => {
        try {
          await entry.informer.whenSynced(waitSignal === undefined ? {} : { signal: waitSignal });
          return true;
        } catch {
          return entry.informer.hasSynced();
        }
      }),
    );
    return new Map(running.map((entry, index) => [entry.key, synced[index] === true]));
  }

  status(): KindStatus[] {
    return [...this.#entries.values()].map((entry) => ({
      gvk: entry.gvk,
      key: entry.key,
      state: entry.state,
      lastError: entry.lastError,
      internal: entry.internal,
    }));
  }

  #liveRun(): FactoryRun | undefined {
    const run = this.#run;
    return run === undefined || run.signal.aborted ? undefined : run;
  }
}

function checkNamespaceOption(value: unknown, name: string): void {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string ('' = all)`);
}

function checkResyncOption(value: unknown, name: string): void {
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new RangeError(`${name} must be a number of ms >= 0 (0 = never), got ${String(value)}`);
  }
}

function checkTweakOption(value: unknown, name: string): void {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function`);
}

/** @internal {@link createSharedCacheFactory}, owning (closing) `clientFactory` when `ownsClients`. */
export function newSharedCacheFactory(
  clientFactory: SharedClientFactory,
  options: SharedCacheFactoryOptions,
  ownsClients: boolean,
): SharedCacheFactory {
  if (typeof clientFactory?.forResourceKind !== 'function') {
    throw new TypeError('createSharedCacheFactory: clientFactory must be a SharedClientFactory');
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createSharedCacheFactory: options must be an object');
  }
  if (options.defaultNamespace !== undefined)
    checkNamespaceOption(options.defaultNamespace, 'defaultNamespace');
  if (options.defaultResyncMs !== undefined)
    checkResyncOption(options.defaultResyncMs, 'defaultResyncMs');
  if (options.defaultTweakList !== undefined)
    checkTweakOption(options.defaultTweakList, 'defaultTweakList');
  if (options.healthCallback !== undefined && typeof options.healthCallback !== 'function') {
    throw new TypeError('createSharedCacheFactory: healthCallback must be a function');
  }
  if (options.gracefulShutdownTimeoutMs !== undefined) {
    checkTimeout(options.gracefulShutdownTimeoutMs, 'gracefulShutdownTimeoutMs');
  }
  const retry = options.unservedRetry;
  if (retry !== undefined) {
    for (const name of ['initialMs', 'maxMs'] as const) {
      const value = retry[name];
      if (
        value !== undefined &&
        !(typeof value === 'number' && value > 0 && Number.isFinite(value))
      ) {
        throw new RangeError(
          `unservedRetry.${name} must be a finite number of ms > 0, got ${String(value)}`,
        );
      }
    }
  }
  return new SharedCacheFactoryImpl(clientFactory, options, ownsClients);
}

/**
 * Create a {@link SharedCacheFactory} (lasso `NewSharedCachedFactory`): one informer per GVK (never two
 * under concurrent calls), created deferred so only kinds somebody asked for are ever listed or watched.
 * Every informer waits on one shared health gate after a failed list: one `/version` ping loop (15 s timeout,
 * 15 s between pings) however many informers fail, ending when nobody waits any more.
 *
 * @example
 * ```ts
 * const caches = createSharedCacheFactory(createSharedClientFactory(rest), { defaultResyncMs: 0 });
 * const configMaps = await caches.forKind(kindFor('v1', 'ConfigMap'));
 * const stop = new AbortController();
 * await caches.start(stop.signal);
 * await caches.waitForCacheSync(stop.signal);
 * console.log(configMaps.getStore().listKeys());
 * stop.abort();
 * await caches.stopped();
 * ```
 *
 * **Gotchas**: the given client factory is not closed by `close()` (it is the caller's). An informer's
 * `setWatchErrorHandler` replaces the factory's own handler, which notices a kind no longer served from its
 * 404s (CRD deletions are still seen through `watchDiscovery`).
 */
export function createSharedCacheFactory(
  clientFactory: SharedClientFactory,
  options: SharedCacheFactoryOptions = {},
): SharedCacheFactory {
  return newSharedCacheFactory(clientFactory, options, false);
}
