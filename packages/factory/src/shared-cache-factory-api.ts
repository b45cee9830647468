// The public shapes of a shared cache factory: its options, the status of one kind, and the factory itself.
import type { InitialListStrategy, TweakListOptionsFunc } from '@lasso/cache';
import type { GroupVersionKind } from '@lasso/client';
import type { Clock, Lifecycle, Logger, MetricsProvider, StopResult } from '@lasso/core';
import type { KindRef } from './kind.ts';
import type { KindLookups } from './kind-lookups.ts';
import type { KindState } from './kind-supervisor.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/** Options of {@link createSharedCacheFactory} (lasso `SharedCacheFactoryOptions`). */
export interface SharedCacheFactoryOptions {
  /** Namespace every informer watches; `''`/undefined = all. Ignored for cluster-scoped kinds. */
  defaultNamespace?: string | undefined;
  /**
   * Resync period of every informer; `0` = never. Default `CATTLE_RESYNC_DEFAULT` minutes when that variable is
   * set (as lasso; a value that is not whole minutes throws a RangeError naming it), else 10 hours (600 minutes).
   */
  defaultResyncMs?: number | undefined;
  /** Applied to every list and watch (label/field selectors). */
  defaultTweakList?: TweakListOptionsFunc | undefined;
  /** Per-kind namespace, e.g. `new Map([[{ apiVersion: 'v1', kind: 'Secret' }, 'cattle-system']])`. */
  kindNamespace?: Iterable<readonly [KindRef, string]> | undefined;
  /** Per-kind resync period in ms (`0` = never). */
  kindResyncMs?: Iterable<readonly [KindRef, number]> | undefined;
  /**
   * How every informer reads the state before it watches (lasso's `DefaultDisableWatchList`): `'streaming'`
   * (default: a streaming list, falling back to `'cached'` where the server refuses it), `'cached'` (client-go's
   * lists at `"0"`) or `'consistent'` (lasso with watch lists disabled: pages of a consistent read at `""`). See
   * `InitialListStrategy` in `@lasso/cache`.
   */
  defaultInitialList?: InitialListStrategy | undefined;
  /** Per-kind initial list, replacing `defaultInitialList` for that kind (lasso's `KindDisableWatchList`). */
  kindInitialList?: Iterable<readonly [KindRef, InitialListStrategy]> | undefined;
  /** Per-kind list/watch tweak; replaces `defaultTweakList` for that kind. */
  kindTweakList?: Iterable<readonly [KindRef, TweakListOptionsFunc]> | undefined;
  /** Told the outcome of every health ping (lasso's `HealthCallback`). */
  healthCallback?: ((healthy: boolean) => void) | undefined;
  /**
   * Bound on the first start's wait for the API server to answer `/version`: past it, `start` rejects with an
   * `ApiServerUnavailableError` (`LASSO_API_SERVER_UNAVAILABLE`) naming the server and the last failure's cause.
   * Default none: the start waits until its signal aborts (which rejects with the same error), warning meanwhile.
   */
  startTimeoutMs?: number | undefined;
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
   * When the factory follows (lists and watches, through its own informers) CustomResourceDefinitions and
   * APIServices, to start a kind as soon as it is served and to notice at once a kind no longer served:
   * - `'auto'` (default): only while one of its kinds is not served; it stops once every kind is served;
   * - `true`: for the whole run;
   * - `false`: never.
   *
   * Following needs verbs list and watch on `customresourcedefinitions.apiextensions.k8s.io` (and
   * `apiservices.apiregistration.k8s.io` for aggregated APIs). Without them (a 403) the factory says once which
   * permission would enable it and stops asking. Unserved kinds are retried from discovery on the
   * `unservedRetry` backoff in every case, and a running kind whose list or watch answers 404 is rechecked.
   */
  watchDiscovery?: boolean | 'auto' | undefined;
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
  /**
   * True for the factory's own CRD and APIService informers (see `watchDiscovery`): `running` while followed,
   * `stopped` when not.
   */
  readonly internal: boolean;
}

/**
 * One informer per kind over a {@link SharedClientFactory} (lasso `SharedCacheFactory`), with the lifecycle
 * shape of `@lasso/core`'s {@link Lifecycle}. Informers are created deferred: none lists or watches before the
 * factory runs. While it runs, every informer created is started at once.
 */
export interface SharedCacheFactory extends KindLookups<'informer'>, Lifecycle {
  /**
   * Run every informer created, and every one created later, until `signal` aborts. The first start waits
   * until the API server answers `/version` (retrying with backoff, 800 ms doubling to 3.2 s, +0..25 %; a warning
   * naming the server and the cause, repeated after 5 s, 10 s, 20 s, 40 s, then every 60 s). An abort during that
   * wait, or `startTimeoutMs` passing, rejects with an `ApiServerUnavailableError` (`LASSO_API_SERVER_UNAVAILABLE`);
   * a signal already aborted rejects with its reason. Resolves once every kind was checked against discovery: the
   * served ones run (not necessarily synced: see {@link whenSynced}), the others are `unserved` in
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
   * Resolves once every informer running now has synced (informers started meanwhile are not waited for, as
   * lasso); the informer's `whenSynced({ signal })`, for the whole factory. Rejects with a `CacheNotSyncedError`
   * (`LASSO_CACHE_NOT_SYNCED`, the signal's reason as `cause`) naming each kind ({@link gvkString}) that had not
   * synced when `signal` aborted, with its last list or watch error.
   */
  whenSynced(options?: { signal?: AbortSignal | undefined } | undefined): Promise<void>;
  /**
   * Wait until every running informer has synced, or `signal` aborts: the result maps each kind
   * ({@link gvkString}, e.g. `apps/v1, Kind=Deployment`) to whether it synced. Never rejects on abort.
   *
   * @deprecated Use {@link whenSynced}, the one "wait for sync" of the informer and both factories. It still
   * works.
   */
  waitForCacheSync(signal?: AbortSignal | undefined): Promise<Map<string, boolean>>;
  /** Every kind of the factory and where it is: a health/readiness report. */
  status(): KindStatus[];
  /** The client factory the informers list and watch through. */
  sharedClientFactory(): SharedClientFactory;
}
