// SharedCacheFactory: one deferred informer per GVK, started together behind one health gate. Ports rancher/lasso
// pkg/cache/sharedinformerfactory.go and healthcheck.go.
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
  errorMessage,
  guardLogger,
  isLassoError,
  type Logger,
  type MetricsProvider,
  raceSignal,
  systemClock,
} from '@lasso/core';
import { FactoryStartError, type KindStartFailure } from './errors.ts';
import { HealthGate } from './health-gate.ts';
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
import type { LookupOptions, SharedClientFactory } from './shared-client-factory.ts';
import { followSignal } from './signals.ts';

/** Options of {@link createSharedCacheFactory} (lasso `SharedCacheFactoryOptions`). */
export interface SharedCacheFactoryOptions {
  /** Namespace every informer watches; `''`/undefined = all. Ignored for cluster-scoped kinds. */
  defaultNamespace?: string | undefined;
  /** Resync period of every informer; `0` = never. Default 10 hours (lasso's 600 minutes). */
  defaultResyncMs?: number | undefined;
  /** Applied to every list and watch (label/field selectors). */
  defaultTweakList?: TweakListOptionsFunc | undefined;
  /** Per-kind namespace, e.g. `new Map([[{ group: '', version: 'v1', kind: 'Secret' }, 'cattle-system']])`. */
  kindNamespace?: Iterable<readonly [GroupVersionKind, string]> | undefined;
  /** Per-kind resync period in ms (`0` = never). */
  kindResyncMs?: Iterable<readonly [GroupVersionKind, number]> | undefined;
  /** Per-kind list/watch tweak; replaces `defaultTweakList` for that kind. */
  kindTweakList?: Iterable<readonly [GroupVersionKind, TweakListOptionsFunc]> | undefined;
  /** Told the outcome of every health ping (lasso's `HealthCallback`). */
  healthCallback?: ((healthy: boolean) => void) | undefined;
  /** Time source of the informers and the health gate. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where the factory, its informers and the health gate log. Default `defaultLogger`. */
  logger?: Logger | undefined;
  /** Where the informers count. */
  metrics?: MetricsProvider | undefined;
}

/**
 * One informer per kind over a {@link SharedClientFactory} (lasso `SharedCacheFactory`). Informers are
 * created deferred: none lists or watches before {@link SharedCacheFactory.start} or
 * {@link SharedCacheFactory.startGVK}.
 */
export interface SharedCacheFactory {
  /**
   * The informer of an object's kind (from its `apiVersion` and `kind`; a TypeError when either is
   * missing). Typed as the object, or from the built-in table when both fields are literal.
   */
  forObject<const T extends KubeObjectLike>(
    object: T,
    options?: LookupOptions,
  ): Promise<SharedIndexInformer<ObjectKindType<T>>>;
  /**
   * The informer of a kind; its resource and scope come from the RESTMapper. A built-in kind is typed from
   * the built-in table; name a custom resource's type with a generic parameter. Rejects with
   * `LASSO_NO_KIND_MATCH` when the server does not serve the kind.
   */
  forKind<G extends string, V extends string, K extends string>(
    gvk: { readonly group: G; readonly version: V; readonly kind: K },
    options?: LookupOptions,
  ): Promise<SharedIndexInformer<GroupVersionKindType<G, V, K>>>;
  forKind<T extends KubeObjectLike>(
    gvk: GroupVersionKind,
    options?: LookupOptions,
  ): Promise<SharedIndexInformer<T>>;
  /** The informer of a resource; its kind comes from the RESTMapper. */
  forResource<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options?: LookupOptions,
  ): Promise<SharedIndexInformer<T>>;
  /** The informer of a resource whose kind and scope the caller knows: no lookup, no I/O. */
  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): SharedIndexInformer<T>;
  /**
   * Run every informer created and not running yet, until `signal` aborts. The first start waits until the
   * API server answers `/version` (pinging every 15 s, logging each failure; rejects with the signal's
   * reason when it aborts first). Each informer's resource is checked against discovery first: a kind the
   * server does not serve is not started, and `start` then rejects with a {@link FactoryStartError} naming
   * it once every other informer runs. Idempotent; informers created since the last start are started by
   * the next one, and so are kinds that failed before.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Start the informer of one kind if it was created and is not running (lasso `StartGVK`). */
  startGVK(signal: AbortSignal, gvk: GroupVersionKind): Promise<void>;
  /**
   * Wait until every running informer has synced, or `signal` aborts: the result maps each kind
   * ({@link gvkString}, e.g. `apps/v1, Kind=Deployment`) to whether it synced. Never rejects on abort.
   */
  waitForCacheSync(signal?: AbortSignal | undefined): Promise<Map<string, boolean>>;
  /** The client factory the informers list and watch through. */
  sharedClientFactory(): SharedClientFactory;
}

interface Entry {
  readonly key: string;
  readonly gvk: GroupVersionKind;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
  readonly informer: SharedIndexInformer<KubeObjectLike>;
  readonly logger: Logger;
  /** Set once the informer runs: it runs until the signal of the start that started it aborts. */
  run: Promise<void> | undefined;
  /** The check-then-run in progress, shared by concurrent starts. */
  starting: { readonly signal: AbortSignal; readonly done: Promise<void> } | undefined;
}

class SharedCacheFactoryImpl implements SharedCacheFactory {
  readonly #clients: SharedClientFactory;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: MetricsProvider | undefined;
  readonly #defaultNamespace: string | undefined;
  readonly #defaultResyncMs: number | undefined;
  readonly #defaultTweakList: TweakListOptionsFunc | undefined;
  readonly #kindNamespace: Map<string, string>;
  readonly #kindResyncMs: Map<string, number>;
  readonly #kindTweakList: Map<string, TweakListOptionsFunc>;
  readonly #gate: HealthGate;
  readonly #entries = new Map<string, Entry>();
  #healthy = false;

  constructor(clients: SharedClientFactory, options: SharedCacheFactoryOptions) {
    this.#clients = clients;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#metrics = options.metrics;
    this.#defaultNamespace = options.defaultNamespace;
    this.#defaultResyncMs = options.defaultResyncMs;
    this.#defaultTweakList = options.defaultTweakList;
    this.#kindNamespace = kindMap(options.kindNamespace, 'kindNamespace', checkNamespaceOption);
    this.#kindResyncMs = kindMap(options.kindResyncMs, 'kindResyncMs', checkResyncOption);
    this.#kindTweakList = kindMap(options.kindTweakList, 'kindTweakList', checkTweakOption);
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

  async forObject<const T extends KubeObjectLike>(
    object: T,
    options: LookupOptions = {},
  ): Promise<SharedIndexInformer<ObjectKindType<T>>> {
    const gvk = gvkOfObject(object, 'forObject');
    return this.forKind<ObjectKindType<T>>(gvk, options);
  }

  async forKind<T extends KubeObjectLike>(
    gvk: GroupVersionKind,
    options: LookupOptions = {},
  ): Promise<SharedIndexInformer<T>> {
    const mapping = await this.#clients.resourceForGVK(checkGvk(gvk, 'forKind'), options);
    return this.forResourceKind<T>(mapping.gvr, mapping.gvk.kind, mapping.namespaced);
  }

  async forResource<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions = {},
  ): Promise<SharedIndexInformer<T>> {
    const client = await this.#clients.forResource<T>(gvr, namespaced, options);
    return this.forResourceKind<T>(client.gvr, client.kind, client.namespaced);
  }

  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): SharedIndexInformer<T> {
    const checked = checkGvr(gvr, 'forResourceKind');
    checkKind(kind, 'forResourceKind');
    checkNamespaced(namespaced, 'forResourceKind');
    const gvk = { group: checked.group, version: checked.version, kind };
    const key = gvkString(gvk);
    const existing = this.#entries.get(key);
    if (existing !== undefined) return existing.informer as unknown as SharedIndexInformer<T>;
    const client = this.#clients.forResourceKind<KubeObjectLike>(checked, kind, namespaced);
    const logger = this.#logger.child({ gvk: key });
    const namespace = this.#kindNamespace.get(key) ?? this.#defaultNamespace;
    const resyncMs = this.#kindResyncMs.get(key) ?? this.#defaultResyncMs;
    const tweakList = this.#kindTweakList.get(key) ?? this.#defaultTweakList;
    // createCache defers its lister-watcher: creating the informer costs no API call.
    const informer = createCache(client, {
      name: key,
      waitHealthy: (wait) => this.#gate.wait(wait),
      clock: this.#clock,
      logger,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(resyncMs !== undefined ? { resyncMs } : {}),
      ...(tweakList !== undefined ? { tweakList } : {}),
      ...(this.#metrics !== undefined ? { metrics: this.#metrics } : {}),
    });
    this.#entries.set(key, {
      key,
      gvk,
      gvr: checked,
      namespaced,
      informer,
      logger,
      run: undefined,
      starting: undefined,
    });
    return informer as unknown as SharedIndexInformer<T>;
  }

  async start(signal: AbortSignal): Promise<void> {
    checkSignal(signal, 'SharedCacheFactory.start');
    if (!this.#healthy) {
      this.#logger.info('waiting for the API server to answer /version');
      await this.#gate.wait({ signal });
      this.#healthy = true;
      this.#logger.info('API server is healthy, starting informers');
    }
    const entries = [...this.#entries.values()].filter((entry) => entry.run === undefined);
    const runSignal = followSignal(signal);
    const results = await Promise.allSettled(
      entries.map((entry) => this.#startEntry(entry, runSignal)),
    );
    if (signal.aborted) throw abortReason(signal);
    const failures: KindStartFailure[] = [];
    results.forEach((result, index) => {
      const entry = entries[index] as Entry;
      if (result.status === 'rejected') failures.push({ gvk: entry.gvk, error: result.reason });
    });
    if (failures.length > 0) throw new FactoryStartError(failures);
  }

  async startGVK(signal: AbortSignal, gvk: GroupVersionKind): Promise<void> {
    checkSignal(signal, 'SharedCacheFactory.startGVK');
    const entry = this.#entries.get(gvkString(checkGvk(gvk, 'startGVK')));
    if (entry === undefined || entry.run !== undefined) return;
    try {
      await this.#startEntry(entry, followSignal(signal));
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      throw new FactoryStartError([{ gvk: entry.gvk, error }]);
    }
  }

  async waitForCacheSync(signal?: AbortSignal | undefined): Promise<Map<string, boolean>> {
    if (signal !== undefined) checkSignal(signal, 'SharedCacheFactory.waitForCacheSync');
    // A snapshot: informers started while this waits are not waited for (as lasso).
    const running = [...this.#entries.values()].filter((entry) => entry.run !== undefined);
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

  async #startEntry(entry: Entry, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (entry.run !== undefined) return;
      if (signal.aborted) throw abortReason(signal);
      let attempt = entry.starting;
      if (attempt === undefined) {
        const started = { signal, done: this.#checkAndRun(entry, signal) };
        entry.starting = started;
        started.done
          .finally(() => {
            if (entry.starting === started) entry.starting = undefined;
          })
          .catch(() => {});
        attempt = started;
      }
      try {
        await raceSignal(attempt.done, signal);
        return;
      } catch (error) {
        if (signal.aborted) throw abortReason(signal);
        // Another start gave up on this kind; try again under this start's signal.
        if (attempt.signal !== signal && attempt.signal.aborted) {
          if (entry.starting === attempt) entry.starting = undefined;
          continue;
        }
        throw error;
      }
    }
  }

  // Runs the informer unless discovery says its resource is not served (as asked): an informer of a missing
  // resource would list, fail and back off forever while its controller waited for a sync that never comes.
  async #checkAndRun(entry: Entry, signal: AbortSignal): Promise<void> {
    try {
      const served = await this.#clients.resourceForGVK(entry.gvk, { signal });
      if (served.gvr.resource !== entry.gvr.resource || served.namespaced !== entry.namespaced) {
        throw new TypeError(
          `${entry.key} is served as ${gvrString(served.gvr)} (namespaced: ${served.namespaced}), not ${gvrString(entry.gvr)} (namespaced: ${entry.namespaced})`,
        );
      }
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      if (error instanceof TypeError || isLassoError(error, 'LASSO_NO_KIND_MATCH')) {
        entry.logger.warn('kind not served, informer not started', {
          error: errorMessage(error),
        });
        throw error;
      }
      // Discovery itself failed (API down, an aggregated group unavailable): the informer's own retries and
      // the health gate handle that better than refusing to start.
      entry.logger.warn(
        'could not check the kind against discovery, starting its informer anyway',
        {
          error: errorMessage(error),
        },
      );
    }
    if (signal.aborted) throw abortReason(signal);
    entry.run = entry.informer.run({ signal }).catch((error: unknown) => {
      entry.logger.error('informer failed', { error: errorMessage(error) });
    });
    entry.logger.debug('informer started');
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

/**
 * Create a {@link SharedCacheFactory} (lasso `NewSharedCachedFactory`): one informer per GVK (never two
 * under concurrent calls), created deferred so only kinds somebody asked for are ever listed or watched.
 * Every informer waits on one shared health gate after a failed list: one `/version` ping loop (15 s timeout,
 * 15 s between pings) however many informers fail, ending when nobody waits any more.
 *
 * @example
 * ```ts
 * const caches = createSharedCacheFactory(createSharedClientFactory(rest), { defaultResyncMs: 0 });
 * const configMaps = await caches.forKind({ group: '', version: 'v1', kind: 'ConfigMap' });
 * const stop = new AbortController();
 * await caches.start(stop.signal);
 * await caches.waitForCacheSync(stop.signal);
 * console.log(configMaps.getStore().listKeys());
 * stop.abort();
 * ```
 *
 * **Gotchas**: an informer runs until the signal of the start that started it aborts, and cannot run again
 * (client-go's rule): after that abort, build a new factory rather than starting this one again.
 */
export function createSharedCacheFactory(
  clientFactory: SharedClientFactory,
  options: SharedCacheFactoryOptions = {},
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
  return new SharedCacheFactoryImpl(clientFactory, options);
}
