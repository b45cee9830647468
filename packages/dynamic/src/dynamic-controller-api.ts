// The public types of the dynamic controller (split from dynamic-controller.ts, which implements them).
import type { SharedIndexInformer } from '@lasso/cache';
import type { GroupVersionKind, KubeObject, KubeObjectLike, WriteOptions } from '@lasso/client';
import type { LabelSelectorInput, ReconcileContext } from '@lasso/controller';
import type { Clock, Lifecycle, Logger, MetricsProvider } from '@lasso/core';
import type { RateLimiter } from '@lasso/workqueue';
import type { DiscoverySource } from './discovery-refresher.ts';

/** Whether a handler wants a kind: lasso's `GVKMatcher`. */
export type GvkMatcher = (gvk: GroupVersionKind) => boolean;

/** A matcher that can ask for metadata only (the kind is then watched with a metadata-only informer). */
export interface DynamicMatcher {
  /** Whether the handler wants a kind. */
  readonly gvk: GvkMatcher;
  /**
   * Watch with `PartialObjectMetadata` (no spec, no status) when every handler matching a kind says so; one
   * handler wanting full objects, or an on-demand lookup, makes the kind's watch full. Default false.
   */
  readonly metadataOnly?: boolean | undefined;
}

/**
 * A handler of every matching kind: the kind, the object's `namespace/name` key, the cached object
 * (`undefined` once deleted) and the reconcile's context. A rejection retries the key with backoff. An object it
 * returns (one with a `metadata.uid`, typically what it wrote) is what the next handler of the kind receives
 * (lasso chains `Handler func(obj) (runtime.Object, error)` so); `undefined` passes the object it got on.
 */
export type DynamicHandler = (
  gvk: GroupVersionKind,
  key: string,
  object: KubeObject | undefined,
  context: ReconcileContext,
) => DynamicHandlerResult | Promise<DynamicHandlerResult>;

/** What a {@link DynamicHandler} may return: an object for the next handler, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing are plain (async) functions
export type DynamicHandlerResult = KubeObject | undefined | void;

/**
 * An index function of {@link DynamicController.addIndexer}: the index values of a cached object of any matched
 * kind (lasso's `func(obj runtime.Object) ([]string, error)`; throw instead of returning an error).
 */
export type DynamicIndexFunc = (object: KubeObject) => readonly string[];

/** Options of {@link createDynamicController}. */
export interface DynamicControllerOptions {
  /** Where served kinds come from. Default: a `DiscoveryClient` on the factory's transport. */
  discovery?: DiscoverySource | undefined;
  /** Delay between the first CRD/APIService event of a burst and the discovery refresh. Default 500 (lasso's). */
  debounceMs?: number | undefined;
  /** Backoff between retries of a failed refresh. Default 1 s doubling to 60 s. */
  refreshRetry?: { initialMs?: number | undefined; maxMs?: number | undefined } | undefined;
  /** Workers of each watched kind's controller. Default 5 (lasso's). */
  workers?: number | undefined;
  /** Builds each kind's rate limiter. Default: the controller's (`defaultLassoRateLimiter()`). */
  rateLimiter?: (() => RateLimiter<string>) | undefined;
  /**
   * How long a newly watched kind's informer may take to sync (lasso: 15 minutes). After it, the kind is dropped
   * (its list and watch stop), one warning says `failed to sync cache for <kind>` with the last list or watch error,
   * and reads of the kind reject with a `DynamicSyncFailedError` (`LASSO_DYNAMIC_SYNC_FAILED`) until the next
   * discovery refresh watches it again (a CRD or APIService change, or 1 minute after the drop at the latest).
   * `Infinity`: wait forever. Default 900 000.
   */
  syncTimeoutMs?: number | undefined;
  /** Bound of `stopped()` after the start signal aborted. Default 30 000. */
  gracefulShutdownTimeoutMs?: number | undefined;
  /** Time source of the debounce, retries, informers and queues. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where the controller logs. Default `defaultLogger`. */
  logger?: Logger | undefined;
  /** Where informers and queues count. */
  metrics?: MetricsProvider | undefined;
}

/** One watched kind in {@link DynamicController.watched}. */
export interface WatchedKind {
  readonly gvk: GroupVersionKind;
  /** {@link gvkString} of the kind. */
  readonly key: string;
  readonly metadataOnly: boolean;
  /** True when the informer is the factory's (already running and synced when the kind was watched). */
  readonly reused: boolean;
  readonly synced: boolean;
}

/** Options of the on-demand reads. */
export interface DynamicReadOptions {
  /**
   * Stop waiting (for the kind's check against discovery and its informer's sync). Without it, a kind that does
   * not sync is given up after the controller's `syncTimeoutMs` (15 minutes by default).
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@link DynamicController.list}. */
export interface DynamicListOptions extends DynamicReadOptions {
  /** Only objects carrying every one of these labels (equality). */
  labels?: Readonly<Record<string, string>> | undefined;
  /**
   * Only objects matching this selector (lasso's `labels.Selector`): the string syntax of `labels.Parse`
   * (`app=web,tier!=db,env in (a,b),!legacy`) or a metav1 `LabelSelector`. A selector that does not parse
   * rejects with a RangeError naming it. Both `labels` and `selector` must match when both are given.
   */
  selector?: LabelSelectorInput | undefined;
}

/**
 * lasso's dynamic controller with the lifecycle shape: one handler registry for every kind the server serves.
 * While it runs, a kind is watched (its own controller, 5 workers) when a handler's matcher accepts it or when it
 * was asked for on demand; discovery is read again 500 ms after CRDs or APIServices change (and with backoff
 * after a failure), and kinds that leave it stop being watched.
 */
export interface DynamicController extends Lifecycle {
  /**
   * Register `handler` for every kind `matcher` accepts, until `signal` aborts (lasso `OnChange`). While
   * running, matching kinds are watched at once. Deletions reach the handler as `(gvk, key, undefined)`.
   */
  onChange(
    signal: AbortSignal,
    name: string,
    matcher: GvkMatcher | DynamicMatcher,
    handler: DynamicHandler,
  ): void;
  /**
   * Start: read discovery, watch the kinds handlers match, refresh when CRDs or APIServices change (through
   * the factory's cache factory, which this starts with `signal` when it does not run). Resolves once the first
   * refresh ended. Idempotent while running; startable again after a stop; rejects after `close()`.
   */
  start(signal: AbortSignal): Promise<void>;
  /** The kind's informer, watched on demand (after checking that the server serves it), once synced. */
  getCache(
    gvk: GroupVersionKind,
    options?: DynamicReadOptions,
  ): Promise<SharedIndexInformer<KubeObjectLike>>;
  /** The cached object; rejects with a NotFound `ApiError` when it is not in the cache. */
  get(
    gvk: GroupVersionKind,
    namespace: string,
    name: string,
    options?: DynamicReadOptions,
  ): Promise<KubeObject>;
  /**
   * Add the index `name` to the informer of every kind `matcher` accepts, now and whenever a matching kind is
   * watched later (lasso `AddIndexer`), for {@link DynamicController.getByIndex}. Throws a TypeError for an empty
   * or already added name or an index function that is not a function. An informer that already has an index of
   * that name (the factory's, shared with other code) keeps its own, with one warning.
   */
  addIndexer(name: string, matcher: GvkMatcher, index: DynamicIndexFunc): void;
  /** The cached objects of a namespace (`''`/undefined: all), optionally with these labels or this selector. */
  list(
    gvk: GroupVersionKind,
    namespace?: string | undefined,
    options?: DynamicListOptions,
  ): Promise<KubeObject[]>;
  /** The cached objects whose `indexName` values include `value`. */
  getByIndex(
    gvk: GroupVersionKind,
    indexName: string,
    value: string,
    options?: DynamicReadOptions,
  ): Promise<KubeObject[]>;
  /** Queue `namespace/name` of the kind through its rate limiter. */
  enqueue(gvk: GroupVersionKind, namespace: string, name: string): Promise<void>;
  /** Queue `namespace/name` of the kind after `delayMs` (<= 0: now). */
  enqueueAfter(
    gvk: GroupVersionKind,
    namespace: string,
    name: string,
    delayMs: number,
  ): Promise<void>;
  /** Replace an object (its kind from `apiVersion`/`kind`) through the factory's client. */
  update(object: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** Replace an object's status subresource through the factory's client. */
  updateStatus(object: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** The kinds watched now. */
  watched(): WatchedKind[];
  /** How many discovery refreshes the current run has finished (successful or not): a readiness signal. */
  refreshes(): number;
}
