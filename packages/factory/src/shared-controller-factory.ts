// SharedControllerFactory: one deferred SharedController per GVR over a SharedCacheFactory, started together.
// Ports rancher/lasso pkg/controller/sharedcontrollerfactory.go.
// size: the factory's per-kind controller construction, its run (start, stop, close) and the sharding and
// tracing wiring share its private state; the lookups are in kind-lookups.ts, the sharding in sharding/.
import {
  createRestConfig,
  type GroupVersionKind,
  type GroupVersionResource,
  type KubeObject,
  type KubeObjectLike,
  type RestConfig,
} from '@lasso/client';
import {
  createController,
  createSharedController,
  isOwnerHandler,
  type SharedController,
} from '@lasso/controller';
import {
  abortReason,
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  isLassoError,
  type Logger,
  type MetricsProvider,
  raceSignal,
  type StopResult,
  systemClock,
  withMetricLabels,
} from '@lasso/core';
import type { RateLimiter } from '@lasso/workqueue';
import { checkOptionsObject, checkSignal, checkTimeout, kindMap } from './checks.ts';
import {
  type ControllerKindStatus,
  defaultControllerWorkers,
  type SharedControllerFactory,
  type SharedControllerFactoryFromConfigOptions,
  type SharedControllerFactoryOptions,
} from './controller-factory-api.ts';
import { FactoryClosedError, FactoryStartError, type KindStartFailure } from './errors.ts';
import { ClientBackedLookups, checkResourceKind, ProductRegistry } from './kind-lookups.ts';
import { gvkKey, gvrString } from './names.ts';
import {
  createFactorySharding,
  type FactorySharding,
  type ShardingStatus,
} from './sharding/sharding-options.ts';
import { defaultGracefulShutdownTimeoutMs, newSharedCacheFactory } from './shared-cache-factory.ts';
import type { SharedCacheFactory } from './shared-cache-factory-api.ts';
import { createSharedClientFactory, type SharedClientFactory } from './shared-client-factory.ts';
import { followSignal } from './signals.ts';

interface ControllerEntry {
  readonly gvk: GroupVersionKind;
  readonly key: string;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
  readonly controller: SharedController<KubeObjectLike>;
  /** Set once the controller was built (used): only built controllers are started. */
  built: boolean;
  /** The run this controller was started in, and that start. */
  started: { readonly run: ControllerRun; readonly done: Promise<void> } | undefined;
}

interface ControllerRun {
  readonly signal: AbortSignal;
  readonly stop: AbortController;
  readonly workers: number;
  readonly startedCaches: boolean;
  readonly result: Promise<StopResult>;
}

class SharedControllerFactoryImpl
  extends ClientBackedLookups<'controller'>
  implements SharedControllerFactory
{
  readonly #caches: SharedCacheFactory;
  readonly #ownsCaches: boolean;
  readonly #clients: SharedClientFactory;
  readonly #defaultWorkers: number;
  readonly #kindWorkers: Map<string, number>;
  readonly #defaultRateLimiter: (() => RateLimiter<string>) | undefined;
  readonly #kindRateLimiter: Map<string, RateLimiter<string>>;
  readonly #syncOnlyChangedObjects: boolean;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #reconcileTimeoutMs: number | undefined;
  // Passed as is to every controller.
  readonly #giveUp: Pick<
    SharedControllerFactoryOptions,
    'maxRetries' | 'onGiveUp' | 'tracerProvider'
  >;
  readonly #removeFenceGuard: (() => void) | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider | undefined;
  readonly #controllers = new ProductRegistry<'controller'>();
  readonly #entries = new Map<string, ControllerEntry>();
  readonly #sharding: FactorySharding | undefined;
  #run: ControllerRun | undefined;
  #starting: Promise<void> | undefined;
  #closed: Promise<void> | undefined;

  constructor(
    caches: SharedCacheFactory,
    options: SharedControllerFactoryOptions,
    ownsCaches: boolean,
  ) {
    super();
    this.#caches = caches;
    this.#ownsCaches = ownsCaches;
    this.#clients = caches.sharedClientFactory();
    this.#defaultWorkers = options.defaultWorkers ?? defaultControllerWorkers;
    this.#kindWorkers = kindMap(options.kindWorkers, 'kindWorkers', checkWorkersOption);
    this.#defaultRateLimiter = options.defaultRateLimiter;
    this.#kindRateLimiter = kindMap(options.kindRateLimiter, 'kindRateLimiter', checkLimiterOption);
    this.#syncOnlyChangedObjects = options.syncOnlyChangedObjects === true;
    this.#gracefulShutdownTimeoutMs =
      options.gracefulShutdownTimeoutMs ?? defaultGracefulShutdownTimeoutMs;
    this.#reconcileTimeoutMs = options.reconcileTimeoutMs;
    this.#giveUp = {
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.onGiveUp !== undefined ? { onGiveUp: options.onGiveUp } : {}),
      ...(options.tracerProvider !== undefined ? { tracerProvider: options.tracerProvider } : {}),
    };
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#metrics =
      options.contextId !== undefined && options.metrics !== undefined
        ? withMetricLabels(options.metrics, { ctx: options.contextId })
        : options.metrics;
    this.#sharding =
      options.sharding === undefined
        ? undefined
        : createFactorySharding(options.sharding, caches, this.#clients, {
            clock: this.#clock,
            logger: this.#logger,
            metrics: this.#metrics,
            gracefulShutdownTimeoutMs: this.#gracefulShutdownTimeoutMs,
          });
    const coordinator = this.#sharding?.coordinator;
    // The fence checked right before each request of the factory's clients leaves: a replica that wakes from a
    // pause past its renew deadline may resume a reconcile from an I/O callback before its fence timer runs;
    // reading the fence checks the deadline and aborts every reconcile signal tied to it, so the write is not sent.
    this.#removeFenceGuard =
      coordinator !== undefined
        ? this.#clients.transport.addRequestGuard(() => void coordinator.fence())
        : undefined;
  }

  sharedCacheFactory(): SharedCacheFactory {
    return this.#caches;
  }

  sharedClientFactory(): SharedClientFactory {
    return this.#clients;
  }

  whenSynced(options?: { signal?: AbortSignal | undefined } | undefined): Promise<void> {
    return this.#caches.whenSynced(options);
  }

  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): SharedController<T> {
    const checked = checkResourceKind(gvr, kind, namespaced, 'forResourceKind');
    const name = gvrString(checked.gvr);
    const existing = this.#entries.get(name);
    if (existing !== undefined) {
      if (existing.gvk.kind !== kind || existing.namespaced !== namespaced) {
        throw new TypeError(
          `forResourceKind(${name}): this factory serves it as kind ${existing.gvk.kind} (namespaced: ${existing.namespaced}), not ${kind} (namespaced: ${namespaced})`,
        );
      }
      return this.#controllers.get<T>(name) as SharedController<T>;
    }
    // The client exists from the start (lasso): Client() never builds the controller.
    const client = this.#clients.forResourceKind<KubeObjectLike>(checked.gvr, kind, namespaced);
    const gvk = { group: checked.gvr.group, version: checked.gvr.version, kind };
    const queueName = gvkKey(gvk);
    const rateLimiter = this.#kindRateLimiter.get(queueName) ?? this.#defaultRateLimiter?.();
    let entry: ControllerEntry | undefined;
    // An unsharded kind (read whole by other kinds' reconcilers) gets no filter, admit or fence.
    const coordinator = this.#sharding?.unsharded.has(queueName)
      ? undefined
      : this.#sharding?.coordinator;
    const controller = createSharedController<KubeObjectLike>({
      name,
      client,
      clock: this.#clock,
      logger: this.#logger.child({ gvk: queueName }),
      metrics: this.#metrics,
      // A kind watched as an owned kind lands with its owners: hashed by controller owner.
      ...(coordinator !== undefined
        ? {
            onRegister: (_name: string, handler: unknown) => {
              if (isOwnerHandler(handler)) coordinator.hashByOwner(queueName);
            },
          }
        : {}),
      // Deferred: the informer exists only once somebody registers, enqueues or asks for it. Built while the
      // factory runs, the controller starts by itself (once built: hence the microtask).
      createController: (handler) => {
        if (entry !== undefined) {
          entry.built = true;
          const built = entry;
          queueMicrotask(() => this.#startLate(built));
        }
        // Sharded: the kind's filter exists before its informer, which the cache factory creates with it.
        const admit = coordinator?.admitFor(queueName);
        const informer = this.#caches.forResourceKind<KubeObjectLike>(
          checked.gvr,
          kind,
          namespaced,
        );
        const built = createController(
          queueName,
          informer,
          (signal) => this.#caches.startGVK(signal, gvk),
          handler,
          {
            ...(coordinator !== undefined
              ? {
                  admit,
                  fence: () => coordinator.fence(),
                  deletionObserver: coordinator.deletionObserverFor(queueName),
                }
              : {}),
            rateLimiter,
            syncOnlyChangedObjects: this.#syncOnlyChangedObjects,
            gracefulShutdownTimeoutMs: this.#gracefulShutdownTimeoutMs,
            ...(this.#reconcileTimeoutMs !== undefined
              ? { reconcileTimeoutMs: this.#reconcileTimeoutMs }
              : {}),
            ...this.#giveUp,
            clock: this.#clock,
            logger: this.#logger.child({ gvk: queueName }),
            metrics: this.#metrics,
          },
        );
        coordinator?.attach(queueName, {
          controller: built,
          list: () => informer.getStore().list(),
          listAt: (options) => client.list(undefined, options),
          watchFrom: (options) => client.watch(undefined, options),
        });
        return built;
      },
    });
    entry = {
      gvk,
      key: queueName,
      gvr: checked.gvr,
      namespaced,
      controller,
      built: false,
      started: undefined,
    };
    this.#entries.set(name, entry);
    this.#controllers.set(name, controller);
    return this.#controllers.get<T>(name) as SharedController<T>;
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  async start(signal: AbortSignal, workers = 0): Promise<void> {
    checkSignal(signal, 'SharedControllerFactory.start');
    if (!Number.isInteger(workers) || workers < 0) {
      throw new RangeError(
        `SharedControllerFactory.start: workers must be an integer >= 0 (0 = the default), got ${String(workers)}`,
      );
    }
    if (this.#closed !== undefined) throw new FactoryClosedError('SharedControllerFactory');
    if (signal.aborted) throw abortReason(signal);
    while (this.#starting !== undefined) await raceSignal(this.#starting, signal);
    let run = this.#liveRun();
    if (run === undefined) {
      const starting = this.#begin(signal, workers);
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
    const current = run;
    // Kinds the server does not serve yet start later, by themselves: not waited for.
    const unserved = new Set(
      this.#caches
        .status()
        .filter((status) => status.state === 'unserved')
        .map((status) => status.key),
    );
    const starting = [...this.#entries.values()].filter((entry) => entry.built);
    const results = await raceSignal(
      Promise.allSettled(
        starting.map((entry) => {
          const started = this.#startController(entry, current);
          return unserved.has(entry.key) ? Promise.resolve() : started;
        }),
      ),
      signal,
    );
    if (signal.aborted) throw abortReason(signal);
    const failures: KindStartFailure[] = [];
    results.forEach((result, index) => {
      const entry = starting[index] as ControllerEntry;
      if (result.status === 'rejected') failures.push({ gvk: entry.gvk, error: result.reason });
    });
    if (failures.length > 0) throw new FactoryStartError(failures);
  }

  // Waits for the previous run to stop, starts the caches when they do not run, and makes the new run current.
  async #begin(signal: AbortSignal, workers: number): Promise<ControllerRun> {
    const previous = this.#run;
    if (previous !== undefined) await raceSignal(previous.result, signal);
    const stop = new AbortController();
    const runSignal = followSignal(stop.signal);
    const onAbort = (): void => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // Caches this factory started in its previous run may still be ending (past their bound): still ours.
    const startedCaches = !this.#caches.isRunning() || previous?.startedCaches === true;
    try {
      // The ring first: its ranges arrive as changes while the caches start (empty filters sync at once).
      await this.#sharding?.coordinator.start(runSignal);
      // Under the run's signal, so close() stops caches this start started.
      await this.#caches.start(runSignal);
    } catch (error) {
      signal.removeEventListener('abort', onAbort);
      stop.abort(error);
      // The caches' own account of an abort during the wait for the API server names the server and the cause.
      if (signal.aborted && !isLassoError(error, 'LASSO_API_SERVER_UNAVAILABLE'))
        throw abortReason(signal);
      throw error;
    }
    let settle!: (result: Promise<StopResult>) => void;
    const result = new Promise<StopResult>((resolve) => {
      settle = resolve;
    });
    const run: ControllerRun = { signal: runSignal, stop, workers, startedCaches, result };
    runSignal.addEventListener(
      'abort',
      () => {
        signal.removeEventListener('abort', onAbort);
        settle(this.#stopRun(run));
      },
      { once: true },
    );
    this.#run = run;
    this.#logger.info('controller factory started', {
      warmCaches: !startedCaches,
    });
    return run;
  }

  // The stop of a run: every controller's bounded drain (and the caches', when this run started them).
  async #stopRun(run: ControllerRun): Promise<StopResult> {
    const controllers = [...this.#entries.values()].filter((entry) => entry.started?.run === run);
    const drains = controllers.map((entry) => entry.controller.stopped());
    if (run.startedCaches) drains.push(this.#caches.stopped());
    // The ring leaves once every range was released (its Lease emptied): bounded by its own graceful bound.
    if (this.#sharding !== undefined) drains.push(this.#sharding.coordinator.stopped());
    // Every controller (and cache factory) bounds its own drain: controllers by this factory's
    // gracefulShutdownTimeoutMs, given to each; their results are merged.
    const settled = await Promise.all(drains);
    const result: StopResult = {
      drained: settled.every((one) => one.drained),
      pending: settled.flatMap((one) => one.pending),
    };
    if (!result.drained) {
      this.#logger.error('graceful shutdown timed out; reconciles still running', {
        gracefulShutdownTimeoutMs: this.#gracefulShutdownTimeoutMs,
        pending: result.pending,
      });
    }
    if (this.#run === run) this.#run = undefined;
    return result;
  }

  stopped(): Promise<StopResult> {
    return this.#run?.result ?? Promise.resolve({ drained: true, pending: [] });
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      const run = this.#run;
      if (run !== undefined) {
        run.stop.abort(new FactoryClosedError('SharedControllerFactory'));
        await run.result;
      }
      await this.#sharding?.coordinator.close();
      this.#removeFenceGuard?.();
      await Promise.all([...this.#entries.values()].map((entry) => entry.controller.close()));
      if (this.#ownsCaches) await this.#caches.close();
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  status(): ControllerKindStatus[] {
    const byKind = new Map([...this.#entries.values()].map((entry) => [entry.key, entry]));
    const ring = this.#sharding?.status();
    const shardOf = new Map(ring?.kinds.map((kind) => [kind.kind, kind]));
    return this.#caches
      .status()
      .filter((status) => !status.internal)
      .map((status) => {
        const shard = ring === undefined ? undefined : shardOf.get(status.key);
        return {
          ...status,
          workers: byKind.get(status.key)?.controller.isRunning() === true,
          ...(ring === undefined || shard === undefined
            ? {}
            : {
                shard: {
                  ring: ring.ring,
                  members: ring.members,
                  ownedRanges: ring.owned.length,
                  rangeCount: ring.rangeCount,
                  moves: ring.moves,
                  objectsOwned: shard.objectsOwned,
                  byOwner: shard.byOwner,
                },
              }),
        };
      });
  }

  shardStatus(): ShardingStatus | undefined {
    return this.#sharding?.status();
  }

  #liveRun(): ControllerRun | undefined {
    const run = this.#run;
    return run === undefined || run.signal.aborted ? undefined : run;
  }

  #startController(entry: ControllerEntry, run: ControllerRun): Promise<void> {
    if (entry.started?.run === run) return entry.started.done;
    const done = entry.controller.start(run.signal, this.#workersFor(entry.gvk, run.workers));
    entry.started = { run, done };
    done.catch((error: unknown) => {
      if (run.signal.aborted) return;
      this.#logger.error('controller not started', {
        gvk: entry.key,
        error: errorMessage(error),
      });
    });
    return done;
  }

  // A controller used for the first time while the factory runs: started without another start().
  #startLate(entry: ControllerEntry): void {
    const run = this.#liveRun();
    if (run === undefined || this.#starting !== undefined) return;
    this.#logger.debug('starting a controller used while running', { gvk: entry.key });
    void this.#startController(entry, run).catch(() => {});
  }

  #workersFor(gvk: GroupVersionKind, workers: number): number {
    return this.#kindWorkers.get(gvkKey(gvk)) ?? (workers > 0 ? workers : this.#defaultWorkers);
  }
}

function checkWorkersOption(value: unknown, name: string): void {
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new RangeError(`${name} must be an integer >= 1, got ${String(value)}`);
  }
}

function checkLimiterOption(value: unknown, name: string): void {
  if (typeof (value as Partial<RateLimiter<string>> | null)?.when !== 'function') {
    throw new TypeError(`${name} must be a RateLimiter`);
  }
}

/**
 * Create a {@link SharedControllerFactory} over a cache factory (lasso `NewSharedControllerFactory`): one
 * shared controller per GVR (never two under concurrent calls), each with one informer per GVK from
 * `cacheFactory`, built only when first used.
 *
 * @example
 * ```ts
 * const clients = createSharedClientFactory(rest);
 * const factory = createSharedControllerFactory(createSharedCacheFactory(clients), { defaultWorkers: 2 });
 * ```
 *
 * **Gotchas**: `close()` closes the controllers but not `cacheFactory` nor its client factory (they are the
 * caller's); caches started by this factory's `start` stop with its signal.
 */
export function createSharedControllerFactory(
  cacheFactory: SharedCacheFactory,
  options: SharedControllerFactoryOptions = {},
): SharedControllerFactory {
  return newSharedControllerFactory(cacheFactory, options, false);
}

function newSharedControllerFactory(
  cacheFactory: SharedCacheFactory,
  options: SharedControllerFactoryOptions,
  ownsCaches: boolean,
): SharedControllerFactory {
  if (typeof cacheFactory?.sharedClientFactory !== 'function') {
    throw new TypeError('createSharedControllerFactory: cacheFactory must be a SharedCacheFactory');
  }
  checkOptionsObject(options, 'createSharedControllerFactory');
  if (options.defaultWorkers !== undefined) {
    checkWorkersOption(options.defaultWorkers, 'defaultWorkers');
  }
  if (
    options.defaultRateLimiter !== undefined &&
    typeof options.defaultRateLimiter !== 'function'
  ) {
    throw new TypeError(
      'createSharedControllerFactory: defaultRateLimiter must be a function returning a RateLimiter',
    );
  }
  if (options.gracefulShutdownTimeoutMs !== undefined) {
    checkTimeout(options.gracefulShutdownTimeoutMs, 'gracefulShutdownTimeoutMs');
  }
  if (options.reconcileTimeoutMs !== undefined) {
    checkTimeout(options.reconcileTimeoutMs, 'reconcileTimeoutMs');
  }
  const maxRetries = options.maxRetries;
  if (
    maxRetries !== undefined &&
    !(maxRetries === Number.POSITIVE_INFINITY || (Number.isInteger(maxRetries) && maxRetries >= 0))
  ) {
    throw new RangeError(
      `createSharedControllerFactory: maxRetries must be an integer >= 0 or Infinity, got ${String(maxRetries)}`,
    );
  }
  if (options.onGiveUp !== undefined && typeof options.onGiveUp !== 'function') {
    throw new TypeError('createSharedControllerFactory: onGiveUp must be a function');
  }
  if (options.contextId !== undefined && typeof options.contextId !== 'string') {
    throw new TypeError(
      `createSharedControllerFactory: contextId must be a string, got ${typeof options.contextId}`,
    );
  }
  return new SharedControllerFactoryImpl(cacheFactory, options, ownsCaches);
}

/**
 * Create a {@link SharedControllerFactory} with its client and cache factories from a config (lasso
 * `NewSharedControllerFactoryFromConfig`); `clock`, `logger`, `metrics` and `gracefulShutdownTimeoutMs` reach
 * every layer. The factory owns both: `close()` closes them.
 *
 * @example
 * ```ts
 * const factory = createSharedControllerFactoryFromConfig(await loadDefaultConfig(), { defaultWorkers: 2 });
 * const deployments = await factory.forKind(kindFor('apps/v1', 'Deployment'));
 * const stop = new AbortController();
 * await factory.start(stop.signal);
 * stop.abort();
 * const { drained, pending } = await factory.stopped();
 * await factory.close();
 * ```
 */
export function createSharedControllerFactoryFromConfig(
  config: RestConfig,
  options: SharedControllerFactoryFromConfigOptions = {},
): SharedControllerFactory {
  checkOptionsObject(options, 'createSharedControllerFactoryFromConfig');
  const { cache, client, ...controllerOptions } = options;
  const metrics =
    options.contextId !== undefined && options.metrics !== undefined
      ? withMetricLabels(options.metrics, { ctx: options.contextId })
      : options.metrics;
  const shared = {
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(metrics !== undefined ? { metrics } : {}),
  };
  // The reconciles' tracer traces their requests too, unless the config names its own.
  const traced =
    options.tracerProvider !== undefined && config.tracerProvider === undefined
      ? createRestConfig({ ...config, tracerProvider: options.tracerProvider })
      : config;
  const clients = createSharedClientFactory(traced, { ...shared, ...client });
  const caches = newSharedCacheFactory(
    clients,
    {
      ...shared,
      ...(options.gracefulShutdownTimeoutMs !== undefined
        ? { gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs }
        : {}),
      ...cache,
    },
    true,
  );
  return newSharedControllerFactory(caches, controllerOptions, true);
}
