// The dynamic controller: handlers for every kind the server serves, chosen by matcher, with kinds found through
// discovery (refreshed when CRDs or APIServices change) and asked for on demand by GVK. Ports rancher/lasso
// pkg/dynamic/controller.go and gvks.go, without its faults (see the README's porting notes).
// size: one class whose kinds, matchers and discovery refreshes share private state; a kind's watcher is watcher.ts.
import {
  type EventHandlerRegistration,
  namespaceIndex,
  type SharedIndexInformer,
} from '@lasso/cache';
import {
  ApiError,
  DiscoveryClient,
  type GroupVersionKind,
  type KubeObject,
  type KubeObjectLike,
  type WriteOptions,
} from '@lasso/client';
import { compileLabelSelector } from '@lasso/controller';
import {
  type Clock,
  defaultLogger,
  drainedResult,
  drainWithin,
  errorMessage,
  guardLogger,
  type Logger,
  type StopResult,
  systemClock,
  type TimerHandle,
} from '@lasso/core';
import {
  defaultGracefulShutdownTimeoutMs,
  gvkString,
  type SharedClientFactory,
  type SharedControllerFactory,
} from '@lasso/factory';
import { watchDiscoveryChanges } from './discovery-changes.ts';
import {
  DiscoveryRefresher,
  type DiscoverySnapshot,
  type DiscoverySource,
  groupVersionOf,
  type ServedKind,
} from './discovery-refresher.ts';
import type {
  DynamicController,
  DynamicControllerOptions,
  DynamicHandler,
  DynamicIndexFunc,
  DynamicListOptions,
  DynamicReadOptions,
  GvkMatcher,
  WatchedKind,
} from './dynamic-controller-api.ts';
import {
  DynamicClosedError,
  DynamicNotRunningError,
  type DynamicSyncFailedError,
} from './errors.ts';
import { HandlerRegistry, type WatchMode } from './handler-registry.ts';
import { IncrementalDiscovery } from './incremental-discovery.ts';
import { checkOptions, checkRegistration, type DynamicMatcherInput } from './options.ts';
import { Watcher } from './watcher.ts';

/** @internal How long a newly watched kind may take to sync before it is dropped (lasso's 15 minutes). */
export const defaultSyncTimeoutMs = 15 * 60_000;
/** @internal When a kind dropped for not syncing is retried if no discovery refresh came first. */
export const syncRetryMs = 60_000;

interface Run {
  readonly signal: AbortSignal;
  readonly stop: AbortController;
  readonly refresher: DiscoveryRefresher;
  readonly watchers: Map<string, Watcher>;
  readonly onDemand: Map<string, ServedKind>;
  /** Kinds dropped because their cache did not sync in time, until the next discovery refresh. */
  readonly syncFailed: Map<string, DynamicSyncFailedError>;
  readonly ending: Set<Promise<void>>;
  readonly discoveryHandlers: EventHandlerRegistration[];
  snapshot: DiscoverySnapshot | undefined;
  result: Promise<StopResult> | undefined;
  ended: boolean;
  /** The refresh asked for after a kind was dropped for not syncing, when no other refresh came first. */
  syncRetry: TimerHandle | undefined;
}

class DynamicControllerImpl implements DynamicController {
  readonly #factory: SharedControllerFactory;
  readonly #clients: SharedClientFactory;
  readonly #discovery: DiscoverySource;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: DynamicControllerOptions & {
    readonly debounceMs: number;
    readonly workers: number;
    readonly gracefulShutdownTimeoutMs: number;
    readonly syncTimeoutMs: number;
  };
  readonly #handlers: HandlerRegistry;
  /** lasso's AddIndexer: added to every matching informer, now and when a matching kind is watched later. */
  readonly #indexers = new Map<string, { matcher: GvkMatcher; index: DynamicIndexFunc }>();
  #run: Run | undefined;
  #closed = false;

  constructor(factory: SharedControllerFactory, options: DynamicControllerOptions) {
    this.#factory = factory;
    this.#clients = factory.sharedCacheFactory().sharedClientFactory();
    this.#discovery =
      options.discovery ?? new IncrementalDiscovery(new DiscoveryClient(this.#clients.transport));
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({
      controller: 'dynamic.Controller',
    });
    this.#options = {
      ...options,
      debounceMs: options.debounceMs ?? 500,
      workers: options.workers ?? 5,
      gracefulShutdownTimeoutMs:
        options.gracefulShutdownTimeoutMs ?? defaultGracefulShutdownTimeoutMs,
      syncTimeoutMs: options.syncTimeoutMs ?? defaultSyncTimeoutMs,
    };
    this.#handlers = new HandlerRegistry(this.#logger);
  }

  onChange(
    signal: AbortSignal,
    name: string,
    matcher: DynamicMatcherInput,
    handler: DynamicHandler,
  ): void {
    checkRegistration(signal, name, matcher, handler);
    if (this.#closed || signal.aborted) return;
    this.#handlers.add(signal, name, matcher, handler, () => {
      const run = this.#liveRun();
      if (run !== undefined) this.#reconcile(run);
    });
    // lasso waits for the next refresh; matching kinds are watched at once here.
    const run = this.#liveRun();
    if (run !== undefined) this.#reconcile(run);
  }

  addIndexer(name: string, matcher: GvkMatcher, index: DynamicIndexFunc): void {
    const where = 'DynamicController.addIndexer';
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`${where}: name must be a non-empty string`);
    }
    if (typeof matcher !== 'function') throw new TypeError(`${where}: matcher must be a function`);
    if (typeof index !== 'function') throw new TypeError(`${where}: index must be a function`);
    if (this.#indexers.has(name)) {
      throw new TypeError(`${where}: an indexer named "${name}" was already added`);
    }
    this.#indexers.set(name, { matcher, index });
    const run = this.#liveRun();
    if (run === undefined) return;
    for (const watcher of run.watchers.values()) this.#addIndexers(watcher, [name]);
  }

  // Adds the named (default: every) registered indexers that match the watcher's kind to its informer.
  #addIndexers(watcher: Watcher, names: Iterable<string> = this.#indexers.keys()): void {
    const present = watcher.informer.getIndexer().getIndexers();
    for (const name of names) {
      const entry = this.#indexers.get(name);
      if (entry === undefined || !this.#indexerMatches(name, entry.matcher, watcher)) continue;
      if (Object.hasOwn(present, name)) {
        // A reused factory informer keeps the index it has (the same function after a restart of this
        // controller; someone else's otherwise): said when it is not ours.
        if (present[name] !== entry.index) {
          this.#logger.warn('the informer already has an index of that name; keeping its own', {
            gvk: watcher.key,
            index: name,
          });
        }
        continue;
      }
      try {
        watcher.informer.addIndexers({
          [name]: entry.index as (object: KubeObjectLike) => readonly string[],
        });
      } catch (error) {
        this.#logger.error('adding an index to the informer failed', {
          gvk: watcher.key,
          index: name,
          error: errorMessage(error),
        });
      }
    }
  }

  #indexerMatches(name: string, matcher: GvkMatcher, watcher: Watcher): boolean {
    try {
      return matcher(watcher.kind.gvk) === true;
    } catch (error) {
      this.#logger.error('indexer matcher threw; treating the kind as not matched', {
        index: name,
        gvk: watcher.key,
        error: errorMessage(error),
      });
      return false;
    }
  }

  async start(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError('DynamicController.start: signal must be an AbortSignal');
    }
    if (this.#closed) throw new DynamicClosedError();
    signal.throwIfAborted();
    if (this.#liveRun() !== undefined) return;
    if (this.#run !== undefined && !this.#run.ended) await this.stopped();
    if (this.#closed) throw new DynamicClosedError();
    if (this.#liveRun() !== undefined) return;
    const stop = new AbortController();
    const run: Run = {
      signal: stop.signal,
      stop,
      refresher: new DiscoveryRefresher(
        {
          source: this.#discovery,
          clock: this.#clock,
          logger: this.#logger,
          debounceMs: this.#options.debounceMs,
          retryInitialMs: this.#options.refreshRetry?.initialMs ?? 1000,
          retryMaxMs: this.#options.refreshRetry?.maxMs ?? 60_000,
          onSnapshot: (snapshot) => {
            run.snapshot = snapshot;
            this.#retrySyncFailed(run);
            this.#reconcile(run);
          },
        },
        stop.signal,
      ),
      watchers: new Map(),
      onDemand: new Map(),
      syncFailed: new Map(),
      ending: new Set(),
      discoveryHandlers: [],
      snapshot: undefined,
      result: undefined,
      ended: false,
      syncRetry: undefined,
    };
    this.#run = run;
    const onAbort = (): void => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    stop.signal.addEventListener(
      'abort',
      () => {
        signal.removeEventListener('abort', onAbort);
        this.#endRun(run);
      },
      { once: true },
    );
    await watchDiscoveryChanges(
      this.#factory.sharedCacheFactory(),
      run.refresher,
      run.discoveryHandlers,
      run.signal,
      signal,
      this.#logger,
    );
    await run.refresher.refresh();
  }

  stopped(): Promise<StopResult> {
    const run = this.#run;
    if (run === undefined || run.ended) return Promise.resolve(drainedResult);
    if (run.result !== undefined) return run.result;
    return new Promise<StopResult>((resolve) => {
      run.signal.addEventListener('abort', () => resolve(run.result ?? drainedResult), {
        once: true,
      });
    });
  }

  isRunning(): boolean {
    return this.#run !== undefined && !this.#run.ended;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#run?.stop.abort(new DynamicClosedError());
    await this.stopped();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async getCache(
    gvk: GroupVersionKind,
    options: DynamicReadOptions = {},
  ): Promise<SharedIndexInformer<KubeObjectLike>> {
    const watcher = await this.#watcherFor(gvk, 'getCache', options.signal);
    await watcher.whenSynced(options.signal);
    return watcher.informer;
  }

  async get(
    gvk: GroupVersionKind,
    namespace: string,
    name: string,
    options: DynamicReadOptions = {},
  ): Promise<KubeObject> {
    const informer = await this.getCache(gvk, options);
    const object = informer.getStore().getByKey(namespace ? `${namespace}/${name}` : name);
    if (object !== undefined) return object as KubeObject;
    const watcher = this.#liveRun()?.watchers.get(gvkString(gvk));
    const resource = watcher?.kind.gvr.resource ?? gvk.kind.toLowerCase();
    const qualified = gvk.group === '' ? resource : `${resource}.${gvk.group}`;
    throw new ApiError({
      status: 404,
      reason: 'NotFound',
      message: `${qualified} "${name}" not found`,
      details: { name, group: gvk.group, kind: resource },
    });
  }

  async list(
    gvk: GroupVersionKind,
    namespace?: string | undefined,
    options: DynamicListOptions = {},
  ): Promise<KubeObject[]> {
    if (typeof options.labels === 'string') {
      // lasso's List takes a selector; a string here once matched nothing without a word.
      throw new TypeError(
        'DynamicController.list: labels is a map of label equalities; pass a selector string as `selector`',
      );
    }
    const selected = compileLabelSelector(options.selector, 'DynamicController.list: selector');
    const informer = await this.getCache(gvk, options);
    const labels = Object.entries(options.labels ?? {});
    const candidates =
      namespace && informer.getIndexer().getIndexers()[namespaceIndex] !== undefined
        ? informer.getIndexer().byIndex(namespaceIndex, namespace)
        : informer.getStore().list();
    return (candidates as KubeObject[]).filter(
      (object) =>
        (!namespace || object.metadata?.namespace === namespace) &&
        labels.every(([key, value]) => object.metadata?.labels?.[key] === value) &&
        selected(object.metadata?.labels),
    );
  }

  async getByIndex(
    gvk: GroupVersionKind,
    indexName: string,
    value: string,
    options: DynamicReadOptions = {},
  ): Promise<KubeObject[]> {
    const informer = await this.getCache(gvk, options);
    return informer.getIndexer().byIndex(indexName, value) as KubeObject[];
  }

  async enqueue(gvk: GroupVersionKind, namespace: string, name: string): Promise<void> {
    (await this.#watcherFor(gvk, 'enqueue', undefined)).controller.enqueue(namespace, name);
  }

  async enqueueAfter(
    gvk: GroupVersionKind,
    namespace: string,
    name: string,
    delayMs: number,
  ): Promise<void> {
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs)) {
      throw new RangeError(
        `DynamicController.enqueueAfter: delayMs must be a finite number, got ${String(delayMs)}`,
      );
    }
    const watcher = await this.#watcherFor(gvk, 'enqueueAfter', undefined);
    watcher.controller.enqueueAfter(namespace, name, delayMs);
  }

  async update(object: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const client = await this.#clients.forObject(object, { signal: options.signal });
    return (await client.update(object.metadata?.namespace, object, options)) as KubeObject;
  }

  async updateStatus(object: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const client = await this.#clients.forObject(object, { signal: options.signal });
    return (await client.updateStatus(object.metadata?.namespace, object, options)) as KubeObject;
  }

  watched(): WatchedKind[] {
    const run = this.#liveRun();
    if (run === undefined) return [];
    return [...run.watchers.values()].map((watcher) => ({
      gvk: watcher.kind.gvk,
      key: watcher.key,
      metadataOnly: watcher.metadataOnly,
      reused: watcher.reused,
      synced: watcher.hasSynced(),
    }));
  }

  refreshes(): number {
    return this.#run?.refresher.refreshes ?? 0;
  }

  #liveRun(): Run | undefined {
    const run = this.#run;
    return run !== undefined && !run.signal.aborted ? run : undefined;
  }

  // Brings the watchers in line with what is served and wanted. Synchronous: no lock, lookups never wait on it.
  #reconcile(run: Run): void {
    if (run.signal.aborted) return;
    const served = new Map<string, ServedKind>();
    for (const kind of run.snapshot?.kinds ?? []) served.set(gvkString(kind.gvk), kind);
    for (const [key, kind] of run.onDemand) if (!served.has(key)) served.set(key, kind);
    const failed = run.snapshot?.failed ?? new Set<string>();
    for (const [key, watcher] of run.watchers) {
      if (served.has(key) || failed.has(groupVersionOf(watcher.kind.gvk))) continue;
      run.onDemand.delete(key);
      this.#cancel(run, watcher, 'kind left discovery');
    }
    for (const [key, kind] of served) {
      if (run.syncFailed.has(key)) continue;
      const mode = this.#wanted(run, key, kind.gvk);
      const existing = run.watchers.get(key);
      if (mode === undefined) {
        if (existing !== undefined) this.#cancel(run, existing, 'no handler matches the kind');
        continue;
      }
      if (existing !== undefined && existing.metadataOnly === (mode === 'metadata')) continue;
      if (existing !== undefined) this.#cancel(run, existing, 'watch mode changed');
      this.#watch(run, kind, mode === 'metadata');
    }
  }

  #wanted(run: Run, key: string, gvk: GroupVersionKind): WatchMode {
    return run.onDemand.has(key) ? 'full' : this.#handlers.wanted(gvk);
  }

  #watch(run: Run, kind: ServedKind, metadataOnly: boolean): Watcher {
    const gvk = kind.gvk;
    const watcher = new Watcher(
      {
        factory: this.#factory,
        clients: this.#clients,
        clock: this.#clock,
        logger: this.#logger,
        metrics: this.#options.metrics,
        workers: this.#options.workers,
        rateLimiter: this.#options.rateLimiter,
        gracefulShutdownTimeoutMs: this.#options.gracefulShutdownTimeoutMs,
        syncTimeoutMs: this.#options.syncTimeoutMs,
        onSyncFailed: (failed, error) => this.#syncFailed(run, failed, error),
      },
      kind,
      metadataOnly,
      (signal) => {
        const shared = this.#handlers.forKind(gvk, signal, {
          clock: this.#clock,
          logger: this.#logger.child({ gvk: gvkString(gvk) }),
          metrics: this.#options.metrics,
        });
        return (key, object, context) => shared.onChange(key, object, context);
      },
      run.signal,
    );
    run.watchers.set(watcher.key, watcher);
    this.#addIndexers(watcher);
    return watcher;
  }

  // lasso: "failed to sync cache for <kind>" after 15 minutes; the kind is dropped until the next refresh.
  #syncFailed(run: Run, watcher: Watcher, error: DynamicSyncFailedError): void {
    if (run.signal.aborted || run.watchers.get(watcher.key) !== watcher) return;
    run.syncFailed.set(watcher.key, error);
    this.#logger.warn(`failed to sync cache for ${watcher.key}`, {
      gvk: watcher.key,
      timeoutMs: error.timeoutMs,
      error: error.message,
      retry: `at the next discovery refresh, in ${syncRetryMs} ms at the latest`,
    });
    this.#cancel(run, watcher, 'cache did not sync');
    // lasso waits for the next CRD/APIService event, which may never come (an RBAC rule fixed, a server back
    // after an outage longer than the bound): a refresh is asked for after a minute at the latest.
    run.syncRetry ??= this.#clock.schedule(syncRetryMs, () => {
      run.syncRetry = undefined;
      run.refresher.markDirty();
    });
  }

  // A discovery refresh gives every kind dropped for not syncing another chance (lasso's next setGVKs).
  #retrySyncFailed(run: Run): void {
    if (run.syncFailed.size === 0) return;
    this.#logger.info('watching again the kinds whose cache did not sync', {
      kinds: [...run.syncFailed.keys()].join(', '),
    });
    run.syncFailed.clear();
    run.syncRetry?.cancel();
    run.syncRetry = undefined;
  }

  #cancel(run: Run, watcher: Watcher, reason: string): void {
    if (run.watchers.get(watcher.key) === watcher) run.watchers.delete(watcher.key);
    const ending = watcher.cancel(reason);
    run.ending.add(ending);
    void ending.finally(() => run.ending.delete(ending));
  }

  // The watcher of a kind asked for on demand: lazily created after checking the server serves the kind.
  async #watcherFor(
    gvk: GroupVersionKind,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<Watcher> {
    if (this.#closed) throw new DynamicClosedError();
    const run = this.#liveRun();
    if (run === undefined) throw new DynamicNotRunningError(`DynamicController.${what}`);
    const key = gvkString(gvk);
    const failed = run.syncFailed.get(key);
    if (failed !== undefined) throw failed;
    const existing = run.watchers.get(key);
    if (existing !== undefined && !existing.metadataOnly) return existing;
    let kind = run.snapshot?.kinds.find((served) => gvkString(served.gvk) === key);
    if (kind === undefined) {
      const mapping = await this.#clients.resourceForGVK(gvk, { signal });
      kind = { gvk: { ...gvk }, gvr: mapping.gvr, namespaced: mapping.namespaced };
    }
    if (run.signal.aborted) throw new DynamicNotRunningError(`DynamicController.${what}`);
    const failedMeanwhile = run.syncFailed.get(key);
    if (failedMeanwhile !== undefined) throw failedMeanwhile;
    run.onDemand.set(key, kind);
    const now = run.watchers.get(key);
    if (now !== undefined && !now.metadataOnly) return now;
    if (now !== undefined) this.#cancel(run, now, 'watch mode changed');
    return this.#watch(run, kind, false);
  }

  #endRun(run: Run): void {
    run.syncRetry?.cancel();
    run.syncRetry = undefined;
    for (const registration of run.discoveryHandlers.splice(0)) registration.remove();
    for (const watcher of [...run.watchers.values()]) this.#cancel(run, watcher, 'stopped');
    const names = (): string[] => [...run.watchers.keys()];
    const ending = Promise.all([...run.ending]);
    run.result = drainWithin(
      this.#clock,
      ending,
      this.#options.gracefulShutdownTimeoutMs,
      names,
    ).then((result) => {
      run.ended = true;
      return result;
    });
  }
}

/**
 * Create lasso's dynamic controller on a shared controller factory (lasso `New(discovery)` + `Register(ctx,
 * factory)`): handlers for kinds unknown when the program was built (CRDs installed at run time included).
 *
 * @example
 * ```ts
 * declare const factory: SharedControllerFactory;
 * const dynamic = createDynamicController(factory);
 * const stop = new AbortController();
 * dynamic.onChange(stop.signal, 'log-widgets', (gvk) => gvk.group === 'example.com', (gvk, key, object) => {
 *   console.log(gvk.kind, key, object === undefined ? 'deleted' : object.metadata?.resourceVersion);
 * });
 * await dynamic.start(stop.signal);
 * stop.abort();
 * await dynamic.stopped();
 * await dynamic.close();
 * ```
 */
export function createDynamicController(
  factory: SharedControllerFactory,
  options: DynamicControllerOptions = {},
): DynamicController {
  if (typeof factory?.sharedCacheFactory !== 'function') {
    throw new TypeError('createDynamicController: factory must be a SharedControllerFactory');
  }
  checkOptions(options);
  return new DynamicControllerImpl(factory, options);
}
