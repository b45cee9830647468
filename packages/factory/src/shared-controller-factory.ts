// SharedControllerFactory: one deferred SharedController per GVR over a SharedCacheFactory, started together.
// Ports rancher/lasso pkg/controller/sharedcontrollerfactory.go.
import type {
  GroupVersionKind,
  GroupVersionResource,
  KubeObject,
  KubeObjectLike,
  RestConfig,
} from '@lasso/client';
import { createController, createSharedController, type SharedController } from '@lasso/controller';
import {
  abortReason,
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Logger,
  type MetricsProvider,
  systemClock,
} from '@lasso/core';
import type { RateLimiter } from '@lasso/workqueue';
import { FactoryStartError, type KindStartFailure } from './errors.ts';
import type { GroupVersionKindType, ObjectKindType } from './kind-types.ts';
import {
  checkGvk,
  checkGvr,
  checkKind,
  checkNamespaced,
  checkSignal,
  gvkOfObject,
  gvkString,
  gvrString,
  kindMap,
} from './names.ts';
import {
  createSharedCacheFactory,
  type SharedCacheFactory,
  type SharedCacheFactoryOptions,
} from './shared-cache-factory.ts';
import {
  createSharedClientFactory,
  type LookupOptions,
  type SharedClientFactory,
  type SharedClientFactoryOptions,
} from './shared-client-factory.ts';
import { followSignal } from './signals.ts';

/** lasso's `DefaultWorkers`: workers per controller when neither `start` nor `kindWorkers` says otherwise. */
export const defaultControllerWorkers = 5;

/** Options of {@link createSharedControllerFactory} (lasso `SharedControllerFactoryOptions`). */
export interface SharedControllerFactoryOptions {
  /** Workers per controller when `start` is given none (or 0). Default 5. */
  defaultWorkers?: number | undefined;
  /** Per-kind workers; wins over `start`'s argument and `defaultWorkers`. */
  kindWorkers?: Iterable<readonly [GroupVersionKind, number]> | undefined;
  /**
   * Builds the rate limiter of each controller without one in `kindRateLimiter`. Default: the controller's
   * own default (`defaultLassoRateLimiter()`). A function, not an instance: a limiter counts failures per
   * key, and `namespace/name` keys of different kinds would share one backoff.
   */
  defaultRateLimiter?: (() => RateLimiter<string>) | undefined;
  /** Per-kind rate limiter. */
  kindRateLimiter?: Iterable<readonly [GroupVersionKind, RateLimiter<string>]> | undefined;
  /**
   * Skip informer updates whose resourceVersion did not change (resyncs): handlers then run only on real
   * changes, enqueues and retries, and the application owns its retries (lasso's `SyncOnlyChangedObjects`).
   */
  syncOnlyChangedObjects?: boolean | undefined;
  /** Time source of the queues and handler metrics. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where controllers log (with `controller` and `gvk` attributes). Default `defaultLogger`. */
  logger?: Logger | undefined;
  /** Handler metrics (`controller_name` = the GVR) and workqueue metrics (`name` = the GVK). */
  metrics?: MetricsProvider | undefined;
}

/** Options of {@link createSharedControllerFactoryFromConfig}: the controller factory's and the layers below. */
export interface SharedControllerFactoryFromConfigOptions extends SharedControllerFactoryOptions {
  /** Options of the cache factory; `clock`, `logger` and `metrics` default to the controller factory's. */
  cache?: SharedCacheFactoryOptions | undefined;
  /** Options of the client factory; `clock`, `logger` and `metrics` default to the controller factory's. */
  client?: SharedClientFactoryOptions | undefined;
}

/**
 * One {@link SharedController} per resource (lasso `SharedControllerFactory`): the single entry point to
 * clients, caches and handlers. Controllers are deferred: a kind is listed and watched only once somebody
 * registers a handler on it, enqueues into it or asks for its informer.
 */
export interface SharedControllerFactory {
  /**
   * The controller of an object's kind (from its `apiVersion` and `kind`; a TypeError when either is
   * missing). Typed as the object, or from the built-in table when both fields are literal.
   */
  forObject<const T extends KubeObjectLike>(
    object: T,
    options?: LookupOptions,
  ): Promise<SharedController<ObjectKindType<T>>>;
  /**
   * The controller of a kind; its resource and scope come from the RESTMapper (a CRD installed after start
   * resolves). A built-in kind is typed from the built-in table: `forKind({ group: 'apps', version: 'v1',
   * kind: 'Deployment' })` is a `SharedController<Deployment>`. Name a custom resource's type with a generic
   * parameter. Rejects with `LASSO_NO_KIND_MATCH` when the server does not serve the kind.
   */
  forKind<G extends string, V extends string, K extends string>(
    gvk: { readonly group: G; readonly version: V; readonly kind: K },
    options?: LookupOptions,
  ): Promise<SharedController<GroupVersionKindType<G, V, K>>>;
  forKind<T extends KubeObjectLike>(
    gvk: GroupVersionKind,
    options?: LookupOptions,
  ): Promise<SharedController<T>>;
  /** The controller of a resource; its kind comes from the RESTMapper. */
  forResource<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options?: LookupOptions,
  ): Promise<SharedController<T>>;
  /**
   * The controller of a resource whose kind and scope the caller knows: no lookup, no I/O. Throws a
   * TypeError when this factory already has a controller for `gvr` with another kind or scope.
   */
  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): SharedController<T>;
  /** The cache factory the controllers' informers come from. */
  sharedCacheFactory(): SharedCacheFactory;
  /**
   * Start the caches (the first start waits for a healthy API server), wait for them to sync, then start
   * every controller that has been used, each with `kindWorkers` for its kind, else `workers` when > 0, else
   * `defaultWorkers`. Resolves once they run; they run until `signal` aborts (await each controller's
   * `stopped()` for the end of the shutdown). Idempotent: controllers created since the last start are
   * started by the next one. Rejects with a {@link FactoryStartError} naming the kinds that could not be
   * started (a resource the server does not serve, a controller that could not be built) after starting all
   * the others; with the signal's reason when it aborts first.
   */
  start(signal: AbortSignal, workers?: number): Promise<void>;
}

interface ControllerEntry {
  readonly gvk: GroupVersionKind;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
  readonly controller: SharedController<KubeObjectLike>;
}

class SharedControllerFactoryImpl implements SharedControllerFactory {
  readonly #caches: SharedCacheFactory;
  readonly #clients: SharedClientFactory;
  readonly #defaultWorkers: number;
  readonly #kindWorkers: Map<string, number>;
  readonly #defaultRateLimiter: (() => RateLimiter<string>) | undefined;
  readonly #kindRateLimiter: Map<string, RateLimiter<string>>;
  readonly #syncOnlyChangedObjects: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider | undefined;
  readonly #controllers = new Map<string, ControllerEntry>();

  constructor(caches: SharedCacheFactory, options: SharedControllerFactoryOptions) {
    this.#caches = caches;
    this.#clients = caches.sharedClientFactory();
    this.#defaultWorkers = options.defaultWorkers ?? defaultControllerWorkers;
    this.#kindWorkers = kindMap(options.kindWorkers, 'kindWorkers', checkWorkersOption);
    this.#defaultRateLimiter = options.defaultRateLimiter;
    this.#kindRateLimiter = kindMap(options.kindRateLimiter, 'kindRateLimiter', checkLimiterOption);
    this.#syncOnlyChangedObjects = options.syncOnlyChangedObjects === true;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#metrics = options.metrics;
  }

  sharedCacheFactory(): SharedCacheFactory {
    return this.#caches;
  }

  async forObject<const T extends KubeObjectLike>(
    object: T,
    options: LookupOptions = {},
  ): Promise<SharedController<ObjectKindType<T>>> {
    const gvk = gvkOfObject(object, 'forObject');
    return this.forKind<ObjectKindType<T>>(gvk, options);
  }

  async forKind<T extends KubeObjectLike>(
    gvk: GroupVersionKind,
    options: LookupOptions = {},
  ): Promise<SharedController<T>> {
    const mapping = await this.#clients.resourceForGVK(checkGvk(gvk, 'forKind'), options);
    return this.forResourceKind<T>(mapping.gvr, mapping.gvk.kind, mapping.namespaced);
  }

  async forResource<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions = {},
  ): Promise<SharedController<T>> {
    const client = await this.#clients.forResource<T>(gvr, namespaced, options);
    return this.forResourceKind<T>(client.gvr, client.kind, client.namespaced);
  }

  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): SharedController<T> {
    const checked = checkGvr(gvr, 'forResourceKind');
    checkKind(kind, 'forResourceKind');
    checkNamespaced(namespaced, 'forResourceKind');
    const name = gvrString(checked);
    const existing = this.#controllers.get(name);
    if (existing !== undefined) {
      if (existing.gvk.kind !== kind || existing.namespaced !== namespaced) {
        throw new TypeError(
          `forResourceKind(${name}): this factory serves it as kind ${existing.gvk.kind} (namespaced: ${existing.namespaced}), not ${kind} (namespaced: ${namespaced})`,
        );
      }
      return existing.controller as unknown as SharedController<T>;
    }
    // The client exists from the start (lasso): Client() never builds the controller.
    const client = this.#clients.forResourceKind<KubeObjectLike>(checked, kind, namespaced);
    const gvk = { group: checked.group, version: checked.version, kind };
    const queueName = gvkString(gvk);
    const rateLimiter = this.#kindRateLimiter.get(queueName) ?? this.#defaultRateLimiter?.();
    const controller = createSharedController<KubeObjectLike>({
      name,
      client,
      clock: this.#clock,
      logger: this.#logger.child({ gvk: queueName }),
      metrics: this.#metrics,
      // Deferred: the informer exists only once somebody registers, enqueues or asks for it.
      createController: (handler) =>
        createController(
          queueName,
          this.#caches.forResourceKind<KubeObjectLike>(checked, kind, namespaced),
          (signal) => this.#caches.startGVK(signal, gvk),
          handler,
          {
            rateLimiter,
            syncOnlyChangedObjects: this.#syncOnlyChangedObjects,
            clock: this.#clock,
            logger: this.#logger.child({ gvk: queueName }),
            metrics: this.#metrics,
          },
        ),
    });
    const entry: ControllerEntry = {
      gvk,
      gvr: checked,
      namespaced,
      controller,
    };
    this.#controllers.set(name, entry);
    return entry.controller as unknown as SharedController<T>;
  }

  async start(signal: AbortSignal, workers = 0): Promise<void> {
    checkSignal(signal, 'SharedControllerFactory.start');
    if (!Number.isInteger(workers) || workers < 0) {
      throw new RangeError(
        `SharedControllerFactory.start: workers must be an integer >= 0 (0 = the default), got ${String(workers)}`,
      );
    }
    const failures: KindStartFailure[] = [];
    try {
      await this.#caches.start(signal);
    } catch (error) {
      if (!(error instanceof FactoryStartError)) throw error;
      failures.push(...error.failures);
    }
    // The controllers to start are those that exist now; later ones wait for the next start (lasso).
    const entries = [...this.#controllers.values()];
    // Nothing is held while the caches sync: handlers of running controllers may call forKind (and create
    // controllers) meanwhile, which deadlocked lasso before its commit 3c6118a.
    const runSignal = followSignal(signal);
    await this.#caches.waitForCacheSync(runSignal);
    if (signal.aborted) throw abortReason(signal);
    const failed = new Set(failures.map((failure) => gvkString(failure.gvk)));
    const starting = entries.filter((entry) => !failed.has(gvkString(entry.gvk)));
    const results = await Promise.allSettled(
      starting.map((entry) =>
        entry.controller.start(runSignal, this.#workersFor(entry.gvk, workers)),
      ),
    );
    if (signal.aborted) throw abortReason(signal);
    results.forEach((result, index) => {
      const entry = starting[index] as ControllerEntry;
      if (result.status === 'fulfilled') return;
      // Kinds the cache factory left out were logged there; these are the controllers' own failures.
      this.#logger.error('controller not started', {
        gvk: gvkString(entry.gvk),
        error: errorMessage(result.reason),
      });
      failures.push({ gvk: entry.gvk, error: result.reason });
    });
    if (failures.length > 0) throw new FactoryStartError(failures);
  }

  #workersFor(gvk: GroupVersionKind, workers: number): number {
    return this.#kindWorkers.get(gvkString(gvk)) ?? (workers > 0 ? workers : this.#defaultWorkers);
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
 * **Gotchas**: controllers are started by `start` only; one created afterwards (a handler registered on a
 * new kind) runs from the next `start`, which is cheap and idempotent for the others. The signal of the
 * first start also stops the informers, which cannot run again: use a new factory after that abort.
 */
export function createSharedControllerFactory(
  cacheFactory: SharedCacheFactory,
  options: SharedControllerFactoryOptions = {},
): SharedControllerFactory {
  if (typeof cacheFactory?.sharedClientFactory !== 'function') {
    throw new TypeError('createSharedControllerFactory: cacheFactory must be a SharedCacheFactory');
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createSharedControllerFactory: options must be an object');
  }
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
  return new SharedControllerFactoryImpl(cacheFactory, options);
}

/**
 * Create a {@link SharedControllerFactory} with its client and cache factories from a config (lasso
 * `NewSharedControllerFactoryFromConfig`); `clock`, `logger` and `metrics` reach every layer.
 *
 * @example
 * ```ts
 * const factory = createSharedControllerFactoryFromConfig(await loadDefaultConfig(), { defaultWorkers: 2 });
 * const deployments = await factory.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
 * ```
 *
 * **Gotchas**: a `clock`, `logger` or `metrics` that the config lacks gives the client factory its own copy
 * of the config and transport: close it at shutdown with
 * `factory.sharedCacheFactory().sharedClientFactory().close()`.
 */
export function createSharedControllerFactoryFromConfig(
  config: RestConfig,
  options: SharedControllerFactoryFromConfigOptions = {},
): SharedControllerFactory {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createSharedControllerFactoryFromConfig: options must be an object');
  }
  const { cache, client, ...controllerOptions } = options;
  const shared = {
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
  };
  const clients = createSharedClientFactory(config, { ...shared, ...client });
  const caches = createSharedCacheFactory(clients, { ...shared, ...cache });
  return createSharedControllerFactory(caches, controllerOptions);
}
