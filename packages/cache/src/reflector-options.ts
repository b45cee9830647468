// The options of a Reflector (also the informer's and createCache's, which extend them), and their validation.
import type { Clock, Logger, MetricsProvider } from '@lasso/core';
import type { WatchError } from './errors.ts';
import type { InitialListStrategy } from './list-strategy.ts';
import type { ShardFilterSource } from './shard-filter.ts';

/** Receives every failure of the list/watch cycle (after the reflector has decided how to recover). */
export type WatchErrorHandler = (error: WatchError) => void;

/** Options of {@link Reflector}. */
export interface ReflectorOptions {
  /** Name in logs, metrics (`name` label) and errors; usually the GVK. Default `'reflector'`. */
  name?: string | undefined;
  /**
   * Page size of lists. Default 500, used as client-go uses it: lists at `"0"` and `""` ask for pages, a relist at
   * a specific resourceVersion does not (so the watch cache answers it) unless this option is set or the first
   * list at `"0"` came back paginated (the watch cache is off for the resource: etcd serves, in pages).
   */
  pageSize?: number | undefined;
  /**
   * How the state is read before watching: `'streaming'` (default; falls back to `'cached'` when the server
   * refuses), `'cached'` (client-go: first list at `"0"`) or `'consistent'` (Lasso Go: at `""`, always paged).
   * See {@link InitialListStrategy} and the cache README's "Lists".
   */
  initialList?: InitialListStrategy | undefined;
  /** First backoff delay. Default 800 ms. */
  initialBackoffMs?: number | undefined;
  /** Cap of the un-jittered backoff delay. Default 3.2 s (client-go: 30 s; see the cache README's policy). */
  maxBackoffMs?: number | undefined;
  /** Backoff restarts from `initialBackoffMs` after this long without failures. Default 2 min. */
  backoffResetMs?: number | undefined;
  /** Jitter factor of the backoff (delay d is drawn from [d, d * (1 + jitter))). Default 0.25. */
  backoffJitter?: number | undefined;
  /**
   * A watch that stayed open this long, or ended normally after delivering something newer than what the
   * reflector had, is healthy: the backoff and the 410 streak restart. A watch that ends normally sooner without
   * anything newer counts as a failure. Default 10 s.
   */
  healthyWatchMs?: number | undefined;
  /** The server timeout of each watch is drawn from [min, 2 * min). Default 5 min. */
  minWatchTimeoutMs?: number | undefined;
  /**
   * The reflector gives up on a silent watch (no event, bookmarks included) this long after its server timeout
   * should have ended it, then resumes it after the backoff. Default 30 s.
   */
  inactivityMarginMs?: number | undefined;
  /**
   * Give up on a list page when no bytes of it arrived for this long, or when a window this long brought less than
   * 1 KiB/s (passed to the lister-watcher as `progressTimeoutMs`: a page arriving at a useful speed, like a big list
   * at `"0"`, is never cut; this catches a server or proxy that stopped answering or drips its answer). A lister-watcher without `listProgressDeadline` gets it as a total deadline
   * per page. Default 2 min.
   */
  listPageTimeoutMs?: number | undefined;
  /**
   * A streaming list that receives nothing but plain bookmarks for this long before its
   * `k8s.io/initial-events-end` bookmark is taken as a server that ignores `sendInitialEvents`: the reflector
   * lists instead, for good. kube-apiserver sends the first initial event, or the end bookmark of an empty
   * resource, within a few seconds. Default 10 s.
   */
  streamingListSilenceMs?: number | undefined;
  /**
   * False for a resource that can be listed but not watched (`watch` is not among its discovery verbs): the
   * reflector then never watches it and lists it every `pollIntervalMs` instead, each list replacing the store as a
   * relist does. A resource whose watch answers 405 MethodNotAllowed is switched to that at run time. Default true.
   */
  watchable?: boolean | undefined;
  /** How often a resource that cannot be watched is listed, from the start of one list to the next. Default 30 s. */
  pollIntervalMs?: number | undefined;
  /** Called with every failure (also logged and counted). */
  watchErrorHandler?: WatchErrorHandler | undefined;
  /**
   * Keep only the objects of this replica's shard ranges (sharded controllers, KEP-5866): sent to the server as
   * `shardSelector` when it can filter (`byOwner` false), checked client-side with the identical hash otherwise
   * (and on every watch event); objects dropped client-side count in `lasso_shard_objects_filtered_total{kind}`.
   * A change that gains ranges lists again with the new selector (in an informer, one that only gives ranges up
   * lists nothing: the informer evicts, the open watch checks events against the new ranges); no range owned: no request at all (state `idle`), the
   * store is replaced by an empty list. See the cache README's "Sharded informers".
   */
  shard?: ShardFilterSource | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsProvider | undefined;
  /** Randomness in [0, 1) for watch timeouts and jitter. Default `Math.random`. */
  random?: (() => number) | undefined;
}

/** @internal */
export function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`Reflector: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

/** @internal */
export function positiveNumber(value: number, name: string): number {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`Reflector: ${name} must be a positive number, got ${value}`);
  }
  return value;
}

/** @internal */
export function nonNegative(value: number, name: string): number {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`Reflector: ${name} must be >= 0, got ${value}`);
  }
  return value;
}
