import type { GiveUp } from '@lasso/controller';
import type {
  Clock,
  Lifecycle,
  Logger,
  MetricsProvider,
  StopResult,
  TracerProvider,
} from '@lasso/core';
import type { RateLimiter } from '@lasso/workqueue';
import type { KindRef } from './kind.ts';
import type { KindLookups } from './kind-lookups.ts';
import type { ShardingOptions, ShardingStatus } from './sharding/sharding-options.ts';
import type {
  KindStatus,
  SharedCacheFactory,
  SharedCacheFactoryOptions,
} from './shared-cache-factory-api.ts';
import type { SharedClientFactory, SharedClientFactoryOptions } from './shared-client-factory.ts';

/** lasso's `DefaultWorkers`: workers per controller when neither `start` nor `kindWorkers` says otherwise. */
export const defaultControllerWorkers = 5;

/** Options of {@link createSharedControllerFactory} (lasso `SharedControllerFactoryOptions`). */
export interface SharedControllerFactoryOptions {
  /** Workers per controller when `start` is given none (or 0). Default 5. */
  defaultWorkers?: number | undefined;
  /** Per-kind workers; wins over `start`'s argument and `defaultWorkers`. */
  kindWorkers?: Iterable<readonly [KindRef, number]> | undefined;
  /**
   * Builds the rate limiter of each controller without one in `kindRateLimiter`. Default: the controller's
   * own default (`defaultLassoRateLimiter()`). A function, not an instance: a limiter counts failures per
   * key, and `namespace/name` keys of different kinds would share one backoff.
   */
  defaultRateLimiter?: (() => RateLimiter<string>) | undefined;
  /** Per-kind rate limiter. */
  kindRateLimiter?: Iterable<readonly [KindRef, RateLimiter<string>]> | undefined;
  /**
   * How long {@link SharedControllerFactory.stopped} waits after the start signal aborted for the reconciles
   * in flight to finish (passed to every controller, as controller-runtime's manager option). Once it passes,
   * `stopped()` settles with `drained: false` naming each reconcile still running (`<kind> <key>`), and each
   * is logged as an error by kind and key. Default 30 000.
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /** Abort each reconcile's `context.signal` after this long (every controller's `reconcileTimeoutMs`). */
  reconcileTimeoutMs?: number | undefined;
  /**
   * Every controller's `maxRetries`: a key is given up (logged, counted in `lasso_controller_give_ups_total`,
   * `onGiveUp` told) after this many failed retries in a row. Default `Infinity`: retried forever, as lasso.
   */
  maxRetries?: number | undefined;
  /**
   * lasso's context id (`WithContextID`): a `ctx` label with this value on every metric of this factory's
   * controllers, and, from `createSharedControllerFactoryFromConfig`, of its informers and clients too, so the
   * series of factories on several clusters in one process count apart. Default: no `ctx` label.
   */
  contextId?: string | undefined;
  /**
   * Every controller's `tracerProvider`: where the span of each reconcile goes (a request made with the reconcile's
   * signal is its child). From `createSharedControllerFactoryFromConfig` it is the client's too (the config's
   * `tracerProvider`, unless the config names one). Default: the global provider of `@opentelemetry/api` when
   * installed; without it nothing is traced.
   */
  tracerProvider?: TracerProvider | undefined;
  /** Every controller's `onGiveUp`: told of each key given up after `maxRetries` (`{ controller, key, error, retries }`). */
  onGiveUp?: ((giveUp: GiveUp) => void) | undefined;
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
  /**
   * Shard every controller of this factory across the replicas of a ring (issue 32; the package README,
   * "Sharding", has the protocol): each replica holds a Lease in `leaseNamespace`, the replicas split 256 hash
   * ranges among themselves, and each acts only on the objects of its ranges, with unchanged handler code. Its
   * informers hold only those objects (the server filters when it serves KEP-5866 `shardSelector`, else they
   * filter themselves). A range moves only after its previous owner stopped every reconcile of it. Needs a cache
   * factory made by `createSharedCacheFactory`, used by this factory alone.
   */
  sharding?: ShardingOptions | undefined;
}

/** Options of {@link createSharedControllerFactoryFromConfig}: the controller factory's and the layers below. */
export interface SharedControllerFactoryFromConfigOptions extends SharedControllerFactoryOptions {
  /** Options of the cache factory; `clock`, `logger` and `metrics` default to the controller factory's. */
  cache?: SharedCacheFactoryOptions | undefined;
  /** Options of the client factory; `clock`, `logger` and `metrics` default to the controller factory's. */
  client?: SharedClientFactoryOptions | undefined;
}

/** One kind in {@link SharedControllerFactory.status}: its cache's status, and whether its workers run. */
export interface ControllerKindStatus extends KindStatus {
  /** True while the kind's controller runs workers (false on a standby, or for a kind only cached). */
  readonly workers: boolean;
  /**
   * With the `sharding` option, for a sharded kind: the ring (its live members, how many of its ranges this
   * replica owns, the moves in and out so far), the objects of this kind held in owned ranges, and whether it is
   * hashed by controller owner. {@link SharedControllerFactory.shardStatus} has the whole ring.
   */
  readonly shard?:
    | {
        readonly ring: string;
        readonly members: readonly string[];
        readonly ownedRanges: number;
        readonly rangeCount: number;
        readonly moves: { readonly in: number; readonly out: number };
        readonly objectsOwned: number;
        readonly byOwner: boolean;
      }
    | undefined;
}

/**
 * One {@link SharedController} per resource (lasso `SharedControllerFactory`): the single entry point to
 * clients, caches and handlers, with the lifecycle shape of `@lasso/core`'s {@link Lifecycle}. Controllers are
 * deferred: a kind is listed and watched only once somebody registers a handler on it, enqueues into it or
 * asks for its informer. While the factory runs, a controller used for the first time starts by itself once
 * its cache syncs (a CRD installed later included).
 */
export interface SharedControllerFactory extends KindLookups<'controller'>, Lifecycle {
  /** The cache factory the controllers' informers come from. */
  sharedCacheFactory(): SharedCacheFactory;
  /**
   * The client factory under the cache factory (`sharedCacheFactory().sharedClientFactory()`): a client of any
   * kind over this factory's transport, e.g. the Lease client of leader election or of a sharding ring, the
   * Event client of a recorder (`forResourceKind(gvr, kind, namespaced)`, sync). It is closed with this factory
   * when this factory created it ({@link createSharedControllerFactoryFromConfig}), else left to its creator.
   */
  sharedClientFactory(): SharedClientFactory;
  /**
   * Resolves once every informer of the cache factory running now has synced: its
   * {@link SharedCacheFactory.whenSynced}, and the informer's `whenSynced({ signal })`, for the whole factory.
   */
  whenSynced(options?: { signal?: AbortSignal | undefined } | undefined): Promise<void>;
  /**
   * Start the caches when they do not run (the first start waits for a healthy API server), then every
   * controller that has been used, each with `kindWorkers` for its kind, else `workers` when > 0, else
   * `defaultWorkers`, once its cache synced. Resolves once they run, except controllers of kinds the server
   * does not serve yet: those start once served (see {@link status}). Controllers used later start by
   * themselves. Workers run until `signal` aborts; caches this start started stop with it, caches started
   * before (warm standby: `sharedCacheFactory().start(processSignal)`) keep running. Idempotent while
   * running; after a stop, starts again. Rejects with a {@link FactoryStartError} naming controllers that
   * could not be built (after starting all the others), with the signal's reason when it aborts first, and
   * with a `LASSO_FACTORY_CLOSED` error after `close()`.
   */
  start(signal: AbortSignal, workers?: number): Promise<void>;
  /**
   * Settles once the controllers (and the caches this factory's start started) have stopped after the start
   * signal aborted, at once when not running; bounded by `gracefulShutdownTimeoutMs`, after which `drained`
   * is false and `pending` names every reconcile still running as `<kind> <key>`.
   */
  stopped(): Promise<StopResult>;
  /** True from a start until the stop that follows its signal's abort has finished. */
  isRunning(): boolean;
  /**
   * Stop (aborting the run), close every controller (their queues and timers), and close the cache and client
   * factories when this factory created them ({@link createSharedControllerFactoryFromConfig}). A closed
   * factory cannot start again. Idempotent.
   */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
  /** Every kind with a cache, where it is, and whether its controller's workers run: a readiness report. */
  status(): ControllerKindStatus[];
  /**
   * With the `sharding` option: the ring as this replica sees it (members, the ranges it owns, desired,
   * releasing and waiting, moves in and out, the last hand-off) and the objects it holds per kind; undefined
   * without it.
   *
   * @example
   * ```ts
   * declare const factory: SharedControllerFactory;
   * const ring = factory.shardStatus();
   * console.log(ring?.members, ring?.owned.length, ring?.moves);
   * ```
   */
  shardStatus(): ShardingStatus | undefined;
}
