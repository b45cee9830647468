// SharedCacheFactory: one deferred informer per GVK, run together behind one health gate, with the lifecycle shape
// (start / stopped / restart / close) and late kinds (a kind the server does not serve yet is retried and started
// once served). Ports rancher/lasso pkg/cache/sharedinformerfactory.go and healthcheck.go.
import {
  CacheNotSyncedError,
  createCache,
  defaultResyncMsFromEnv,
  type InitialListStrategy,
  type SharedIndexInformer,
  type TweakListOptionsFunc,
} from '@lasso/cache';
import type { GroupVersionResource, KubeObject, KubeObjectLike, RestConfig } from '@lasso/client';
import {
  abortReason,
  anySignal,
  type Clock,
  defaultGracefulShutdownTimeoutMs as coreGracefulShutdownTimeoutMs,
  defaultLogger,
  drainWithin,
  guardLogger,
  type Logger,
  type MetricsProvider,
  raceSignal,
  type StopResult,
  systemClock,
  timeoutSignal,
} from '@lasso/core';
import { ApiServerUnavailableError } from './api-server-failure.ts';
import { checkSignal, kindMap } from './checks.ts';
import type { DiscoveryFollowMode } from './discovery-follow.ts';
import { FactoryClosedError } from './errors.ts';
import { type HealthGate, sharedHealthGate } from './health-gate.ts';
import { type KindRef, resolveKindRef } from './kind.ts';
import {
  ClientBackedLookups,
  checkResourceKind,
  ProductRegistry,
  type ResolvedKind,
} from './kind-lookups.ts';
import { type Entry, type FactoryRun, KindSupervisor } from './kind-supervisor.ts';
import { gvkKey } from './names.ts';
import { type ShardFilterResolver, setShardFilters } from './sharding/cache-hook.ts';
import type {
  KindStatus,
  SharedCacheFactory,
  SharedCacheFactoryOptions,
} from './shared-cache-factory-api.ts';
import {
  checkInitialListOption,
  checkNamespaceOption,
  checkResyncOption,
  checkSharedCacheFactoryArgs,
  checkTweakOption,
} from './shared-cache-factory-options.ts';
import { createSharedClientFactory, type SharedClientFactory } from './shared-client-factory.ts';
import { followSignal } from './signals.ts';

/**
 * lasso's (and controller-runtime's) default bound on a graceful shutdown: `@lasso/core`'s
 * `defaultGracefulShutdownTimeoutMs`, the one default of every long-lived object, under the name this package
 * has always exported.
 */
export const defaultGracefulShutdownTimeoutMs: number = coreGracefulShutdownTimeoutMs;

class SharedCacheFactoryImpl extends ClientBackedLookups<'informer'> implements SharedCacheFactory {
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
  readonly #defaultInitialList: InitialListStrategy | undefined;
  readonly #kindInitialList: Map<string, InitialListStrategy>;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #kinds: KindSupervisor;
  readonly #gate: HealthGate;
  readonly #removeHealthListener: (() => void) | undefined;
  readonly #startTimeoutMs: number | undefined;
  readonly #informers = new ProductRegistry<'informer'>();
  readonly #entries = new Map<string, Entry>();
  #healthy = false;
  // Installed by a sharded controller factory: the shard filter of each kind's informer created from then on.
  #shardFor: ShardFilterResolver | undefined;
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
    // Read (and checked) once here: a bad CATTLE_RESYNC_DEFAULT fails the factory, not its first kind later.
    this.#defaultResyncMs = options.defaultResyncMs ?? defaultResyncMsFromEnv();
    this.#defaultTweakList = options.defaultTweakList;
    this.#kindNamespace = kindMap(options.kindNamespace, 'kindNamespace', checkNamespaceOption);
    this.#kindResyncMs = kindMap(options.kindResyncMs, 'kindResyncMs', checkResyncOption);
    this.#kindTweakList = kindMap(options.kindTweakList, 'kindTweakList', checkTweakOption);
    this.#defaultInitialList = options.defaultInitialList;
    this.#kindInitialList = kindMap(
      options.kindInitialList,
      'kindInitialList',
      checkInitialListOption,
    );
    this.#gracefulShutdownTimeoutMs =
      options.gracefulShutdownTimeoutMs ?? defaultGracefulShutdownTimeoutMs;
    this.#kinds = new KindSupervisor({
      clients,
      clock: this.#clock,
      retryInitialMs: options.unservedRetry?.initialMs ?? 1000,
      retryMaxMs: options.unservedRetry?.maxMs ?? 60_000,
      watchDiscovery: followMode(options.watchDiscovery),
      logger: this.#logger,
      entries: () => this.#entries.values(),
      liveRun: () => this.#liveRun(),
      internalInformer: (resolved) => this.#informer<KubeObject>(resolved, true),
    });
    // One gate per transport: while the server is down, every factory and kind over it waits on the same pings.
    this.#gate = sharedHealthGate(clients, { clock: this.#clock, logger: this.#logger });
    const onHealth = options.healthCallback;
    this.#removeHealthListener =
      onHealth === undefined ? undefined : this.#gate.addHealthListener(onHealth);
    this.#startTimeoutMs = options.startTimeoutMs;
  }

  sharedClientFactory(): SharedClientFactory {
    return this.#clients;
  }

  [setShardFilters](resolver: ShardFilterResolver): void {
    if (this.#shardFor !== undefined) {
      throw new TypeError(
        'sharding: this cache factory already serves a sharded controller factory; give each its own',
      );
    }
    this.#shardFor = resolver;
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
    const shard = internal ? undefined : this.#shardFor?.(key);
    const initialList = internal
      ? undefined
      : (this.#kindInitialList.get(key) ?? this.#defaultInitialList);
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
      // Known only once discovery was read (the kind supervisor sets it before each run).
      watchable: () => entry?.watchable ?? true,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(resyncMs !== undefined ? { resyncMs } : {}),
      ...(tweakList !== undefined ? { tweakList } : {}),
      ...(this.#metrics !== undefined ? { metrics: this.#metrics } : {}),
      ...(shard !== undefined ? { shard } : {}),
      ...(initialList !== undefined ? { initialList } : {}),
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
      watchable: true,
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
      await this.#waitForServer(signal);
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

  // The first start's wait for /version, bounded by startTimeoutMs and the signal: either ends it with an
  // ApiServerUnavailableError naming the server and the last failure (the gate warns meanwhile).
  async #waitForServer(signal: AbortSignal): Promise<void> {
    const server = this.#clients.config?.server ?? '(unknown server)';
    this.#logger.info('waiting for the API server to answer /version', {
      startTimeoutMs: this.#startTimeoutMs,
    });
    const startedAt = this.#clock.monotonic();
    const deadline =
      this.#startTimeoutMs === undefined
        ? undefined
        : timeoutSignal(this.#clock, this.#startTimeoutMs, 'startTimeoutMs passed');
    const both = anySignal([signal, deadline?.signal]);
    try {
      await this.#gate.wait({ signal: both.signal });
    } catch (error) {
      if (!both.signal.aborted) throw error;
      const last = this.#gate.lastFailure();
      throw new ApiServerUnavailableError(
        {
          server,
          reason: signal.aborted ? 'aborted' : 'deadline',
          waitedMs: this.#clock.monotonic() - startedAt,
          lastCause: last?.cause,
          lastError: last?.error,
        },
        { cause: signal.aborted ? abortReason(signal) : last?.error },
      );
    } finally {
      deadline?.clear();
      both.dispose();
    }
  }

  stopped(): Promise<StopResult> {
    const run = this.#run;
    if (run === undefined) return Promise.resolve({ drained: true, pending: [] });
    return run.result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#removeHealthListener?.();
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

  async whenSynced(options?: { signal?: AbortSignal | undefined } | undefined): Promise<void> {
    const signal = options?.signal;
    if (signal !== undefined) checkSignal(signal, 'SharedCacheFactory.whenSynced');
    const synced = await this.waitForCacheSync(signal);
    const missing = [...synced].filter(([, ok]) => !ok).map(([key]) => key);
    if (missing.length === 0) return;
    const lastErrors = new Map<string, unknown>();
    for (const key of missing) {
      const error = this.#entries.get(key)?.informer.lastWatchError?.();
      if (error !== undefined) lastErrors.set(key, error);
    }
    throw new CacheNotSyncedError(missing, { cause: signal?.reason, lastErrors });
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

// `true` follows CRDs and APIServices for the whole run, `false` never, `'auto'` (the default) only while a kind
// is not served.
function followMode(option: SharedCacheFactoryOptions['watchDiscovery']): DiscoveryFollowMode {
  return option === true ? 'always' : option === false ? 'never' : 'auto';
}

/** @internal {@link createSharedCacheFactory}, owning (closing) `clientFactory` when `ownsClients`. */
export function newSharedCacheFactory(
  clientFactory: SharedClientFactory,
  options: SharedCacheFactoryOptions,
  ownsClients: boolean,
): SharedCacheFactory {
  checkSharedCacheFactoryArgs(clientFactory, options);
  return new SharedCacheFactoryImpl(clientFactory, options, ownsClients);
}

/**
 * Create a {@link SharedCacheFactory} (lasso `NewSharedCachedFactory`): one informer per GVK (never two
 * under concurrent calls), created deferred so only kinds somebody asked for are ever listed or watched.
 * Every informer waits on one shared health gate after a failed list: one `/version` ping loop (15 s timeout,
 * retries after 800 ms doubling to 3.2 s, +0..25 % jitter) however many informers fail, ending when nobody waits
 * any more.
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
 * Ownership: given a client factory, `close()` leaves it open (it is the caller's). Given a `RestConfig`, the
 * factory creates its client factory (with its own transport, and the options' `clock`, `logger` and `metrics`)
 * and `close()` closes it: `createSharedCacheFactory(rest)` needs nothing else closed.
 *
 * **Gotchas**: an informer's `setWatchErrorHandler` replaces the factory's own handler, which notices a kind no
 * longer served from its 404s (with `watchDiscovery: true`, CRD deletions are still seen through the CRD watch).
 */
export function createSharedCacheFactory(
  clients: SharedClientFactory | RestConfig,
  options: SharedCacheFactoryOptions = {},
): SharedCacheFactory {
  if (typeof (clients as Partial<SharedClientFactory> | null)?.forResourceKind === 'function') {
    return newSharedCacheFactory(clients as SharedClientFactory, options, false);
  }
  if (typeof (clients as Partial<RestConfig> | null)?.server !== 'string') {
    throw new TypeError(
      'createSharedCacheFactory: clientFactory must be a SharedClientFactory or a RestConfig',
    );
  }
  const owned = createSharedClientFactory(clients as RestConfig, {
    ...(options?.clock !== undefined ? { clock: options.clock } : {}),
    ...(options?.logger !== undefined ? { logger: options.logger } : {}),
    ...(options?.metrics !== undefined ? { metrics: options.metrics } : {}),
  });
  try {
    return newSharedCacheFactory(owned, options, true);
  } catch (error) {
    // Bad options: nothing was requested yet, but the transport created above is still ours to close.
    void owned.close();
    throw error;
  }
}
