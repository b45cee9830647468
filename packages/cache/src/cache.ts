// createCache: lasso's NewCache (an informer over a deferred lister-watcher) and waitForCacheSync.
// Ports rancher/lasso pkg/cache/cache.go and client-go's WaitForCacheSync.
import type {
  GroupVersionResource,
  KubeObject,
  KubeObjectLike,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '@lasso/client';
import {
  abortReason,
  defaultLogger,
  errorMessage,
  guardLogger,
  isLassoError,
  type Logger,
} from '@lasso/core';
import { CacheNotSyncedError } from './errors.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import {
  createSharedIndexInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
} from './shared-informer.ts';
import { createSharedPrefixKeyFunc } from './shared-key.ts';
import { metaNamespaceIndexFunc, namespaceIndex } from './store.ts';

/** A transform of listed items whose parameter is checked both ways (the type of a method). */
type BivariantTransform<T> = { transform(item: T): T }['transform'];

/** The part of `@lasso/client`'s `Client` a cache uses (structural, so fakes and wrappers fit). */
export interface CacheClient<T extends KubeObjectLike = KubeObject> {
  readonly gvr: GroupVersionResource;
  readonly kind: string;
  readonly namespaced: boolean;
  // `transformItem` typed as a method's type: its parameter is checked both ways, so a `Client<KubeObject>` still
  // is a `CacheClient<KubeObjectLike>` (a plain function type would make the interface invariant in T).
  list(
    namespace: string | undefined,
    options?: ListOptions & { transformItem?: BivariantTransform<T> | undefined },
  ): Promise<ObjectList<T>>;
  /** True when `list` honours `transformItem` (`Client` does); the cache then leaves listed objects to it. */
  readonly listTransformsItems?: boolean | undefined;
  watch(namespace: string | undefined, options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** The same watch a body chunk at a time (`Client.watchBatches`); optional, read through when present. */
  watchBatches?(
    namespace: string | undefined,
    options?: WatchOptions,
  ): AsyncIterable<WatchEvent<T>[]>;
}

/** Mutates the options of every list and watch (label/field selectors), lasso's `TweakListOptionsFunc`. */
export type TweakListOptionsFunc = (options: ListOptions | WatchOptions) => void;

/** Options of {@link createCache}: lasso's `cache.Options` plus the informer's. */
export interface CacheOptions<T> extends Omit<SharedIndexInformerOptions<T>, 'resyncPeriodMs'> {
  /** Watch one namespace; `''`/undefined = all. Ignored for cluster-scoped kinds. */
  namespace?: string | undefined;
  /**
   * Resync period of handlers; `0` = never. Default `CATTLE_RESYNC_DEFAULT` minutes when set, else 10 hours
   * (lasso's 600 minutes); see {@link defaultResyncMsFromEnv}.
   */
  resyncMs?: number | undefined;
  /** Applied to every list and watch request. */
  tweakList?: TweakListOptionsFunc | undefined;
  /**
   * Called after a failed list, and after a watch that could not connect (`LASSO_CONNECTION_FAILED`), before the
   * error is reported: lasso blocks here until the API server is healthy, so an outage costs the informer no
   * request of its own (the gate's pings stand for all of them).
   */
  waitHealthy?: WaitHealthyFunc | undefined;
}

/** Blocks until the API server is healthy again (lasso's health gate); must honour `signal`. */
export type WaitHealthyFunc = (options: { signal?: AbortSignal }) => Promise<void>;

/** Options of {@link createClientListerWatcher}. */
export interface ClientListerWatcherOptions {
  /** Namespace to list and watch; ignored for cluster-scoped kinds. */
  namespace?: string | undefined;
  tweakList?: TweakListOptionsFunc | undefined;
  waitHealthy?: WaitHealthyFunc | undefined;
  /** Where a failing `waitHealthy` is reported (the list error is still the one thrown). */
  logger?: Logger | undefined;
}

/** lasso's default resync (`Options.Resync == 0` in Go, which could not mean "never"). */
export const defaultCacheResyncMs = 600 * 60 * 1000;

/** The environment variable lasso reads its default resync from: whole minutes, `0` = never. */
export const resyncDefaultEnvName = 'CATTLE_RESYNC_DEFAULT';

/**
 * The default resync of caches: `CATTLE_RESYNC_DEFAULT` minutes when set (lasso's `init` reads it, Rancher sets
 * it), else {@link defaultCacheResyncMs}. An explicit `resyncMs` (or a factory's `defaultResyncMs`) wins over it.
 * Throws a RangeError naming the variable when it is set to anything but a whole number of minutes >= 0 (lasso
 * ignores such a value without a word; a misspelt setting should not quietly mean 10 hours).
 *
 * @example
 * ```ts
 * import { defaultResyncMsFromEnv } from '@lasso/cache';
 *
 * console.log(defaultResyncMsFromEnv({ CATTLE_RESYNC_DEFAULT: '30' })); // 1800000
 * ```
 */
export function defaultResyncMsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  const raw = env[resyncDefaultEnvName];
  if (raw === undefined || raw.trim() === '') return defaultCacheResyncMs;
  const text = raw.trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new RangeError(
      `${resyncDefaultEnvName} must be a whole number of minutes >= 0 (0 = never resync), got ${JSON.stringify(raw.slice(0, 40))}`,
    );
  }
  return Number(text) * 60_000;
}

/**
 * Create an informer for `client`'s resource: lasso's `NewCache`. The lister-watcher is deferred: no API
 * call happens before `run`. A namespaced kind gets the {@link namespaceIndex} index. How it lists is the
 * reflector's `initialList` (default: a streaming list, falling back to client-go's list at `"0"`; Lasso Go's
 * rewrite of `"0"` to `""` is `initialList: 'consistent'`).
 *
 * @example
 * ```ts
 * const configMaps = new Client({ gvr: { group: '', version: 'v1', resource: 'configmaps' }, kind: 'ConfigMap', namespaced: true, rest });
 * const informer = createCache(configMaps, { namespace: 'default', resyncMs: 0 });
 * informer.addEventHandler({ onAdd: (cm) => console.log('added', cm.metadata?.name) });
 * const controller = new AbortController();
 * await informer.start(controller.signal);
 * await informer.whenSynced({ signal: controller.signal });
 * controller.abort();
 * await informer.stopped();
 * ```
 */
export function createCache<T extends KubeObjectLike = KubeObject>(
  client: CacheClient<T>,
  options: CacheOptions<T> = {},
): SharedIndexInformer<T> {
  const { namespace, resyncMs, tweakList, waitHealthy, ...informerOptions } = options;
  if (resyncMs !== undefined && !(resyncMs >= 0)) {
    throw new RangeError(`createCache: resyncMs must be >= 0 (0 = never), got ${resyncMs}`);
  }
  const { group, version } = client.gvr;
  const name = informerOptions.name ?? `${group ? `${group}/` : ''}${version}, Kind=${client.kind}`;
  const indexers = { ...(informerOptions.indexers ?? {}) };
  // A given indexer may have its own namespace index already (adding a second one would be a name clash).
  const existing = informerOptions.indexer?.getIndexers?.() ?? {};
  if (client.namespaced && !(namespaceIndex in indexers) && !(namespaceIndex in existing)) {
    indexers[namespaceIndex] = metaNamespaceIndexFunc as (object: T) => string[];
  }
  const deferredOptions: ClientListerWatcherOptions = {};
  if (namespace !== undefined) deferredOptions.namespace = namespace;
  if (tweakList !== undefined) deferredOptions.tweakList = tweakList;
  if (waitHealthy !== undefined) deferredOptions.waitHealthy = waitHealthy;
  if (informerOptions.logger !== undefined)
    deferredOptions.logger = informerOptions.logger.child({ informer: name });
  return createSharedIndexInformer<T>(createClientListerWatcher(client, deferredOptions), {
    ...informerOptions,
    name,
    indexers,
    gvk: informerOptions.gvk ?? { group, version, kind: client.kind },
    // metaNamespaceKeyFunc's keys, sharing the `namespace/` prefix: 32 bytes less per cached object.
    keyFunc: informerOptions.keyFunc ?? createSharedPrefixKeyFunc(),
    resyncPeriodMs: resyncMs ?? defaultResyncMsFromEnv(),
  });
}

/**
 * The lister-watcher `createCache` uses: `client.list`/`client.watch` in `namespace` (none for cluster-scoped
 * kinds) with `tweakList` applied, and `waitHealthy` awaited after a failed list and after a watch (or streaming
 * list) that failed to connect (`LASSO_CONNECTION_FAILED`: refused, reset, DNS, TLS); the error is thrown
 * afterwards even when `waitHealthy` rejects (that rejection is logged). The reflector's backoff counts from the
 * start of the failed attempt, so once the gate opens the informer retries at once.
 */
export function createClientListerWatcher<T extends KubeObjectLike = KubeObject>(
  client: CacheClient<T>,
  options: ClientListerWatcherOptions = {},
): ListerWatcher<T> {
  const namespace = client.namespaced && options.namespace ? options.namespace : undefined;
  const { tweakList, waitHealthy } = options;
  const logger = guardLogger(options.logger ?? defaultLogger);
  const watchBatches = client.watchBatches?.bind(client);
  return {
    // @lasso/client's Client fails a list page when no bytes arrived for `progressTimeoutMs`, or a window that long
    // brought less than its throughput floor (1 KiB/s).
    listProgressDeadline: true,
    listTransformsItems: client.listTransformsItems === true,
    async list(listOptions) {
      const tweaked: ListOptions & { transformItem?: ((item: T) => T) | undefined } = {
        ...listOptions,
      };
      tweakList?.(tweaked);
      try {
        return await client.list(namespace, tweaked);
      } catch (error) {
        if (waitHealthy !== undefined && !listOptions.signal?.aborted) {
          const signal = listOptions.signal;
          try {
            await waitHealthy(signal === undefined ? {} : { signal });
          } catch (healthError) {
            // The list error decides how the reflector recovers (410 -> relist at ""): it stays the one thrown.
            if (!signal?.aborted) {
              logger.warn('waitHealthy failed after a failed list', {
                error: errorMessage(healthError),
                listError: errorMessage(error),
              });
            }
          }
        }
        throw error;
      }
    },
    watch(watchOptions) {
      return gated(watchOptions, (tweaked) => client.watch(namespace, tweaked));
    },
    ...(watchBatches === undefined
      ? {}
      : {
          watchBatches: (watchOptions: WatchOptions) =>
            gated(watchOptions, (tweaked) => watchBatches(namespace, tweaked)),
        }),
  };

  /** A watch with `tweakList` applied and, with `waitHealthy`, every failed step passed through the gate. */
  function gated<V>(
    watchOptions: WatchOptions,
    open: (tweaked: WatchOptions) => AsyncIterable<V>,
  ): AsyncIterable<V> {
    const tweaked: WatchOptions = { ...watchOptions };
    tweakList?.(tweaked);
    const source = open(tweaked);
    if (waitHealthy === undefined) return source;
    const gate = waitHealthy;
    const signal = watchOptions.signal;
    return gateWatch(source, async (error) => {
      if (!isLassoError(error, 'LASSO_CONNECTION_FAILED') || signal?.aborted) throw error;
      try {
        await gate(signal === undefined ? {} : { signal });
      } catch (healthError) {
        if (!signal?.aborted) {
          logger.warn('waitHealthy failed after a failed watch', {
            error: errorMessage(healthError),
            watchError: errorMessage(error),
          });
        }
      }
      throw error;
    });
  }
}

/** `source`, with every failed step first passed through `onFailure` (which rethrows, possibly after waiting). */
function gateWatch<T>(
  source: AsyncIterable<T>,
  onFailure: (error: unknown) => Promise<never>,
): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const inner = source[Symbol.asyncIterator]();
      return {
        next: () => inner.next().then(undefined, onFailure),
        return: (value?: unknown) =>
          inner.return !== undefined
            ? inner.return(value as T)
            : Promise.resolve({ done: true, value: value as T }),
      };
    },
  };
}

/**
 * Wait until every informer has synced. Rejects with a {@link CacheNotSyncedError} naming the informers that
 * had not synced, with the last list or watch error of each (its `cause`, and shortened in the message), when
 * `signal` aborts (its reason is the `cause` when no informer had an error) or when one of them stops first.
 */
export async function waitForCacheSync(
  signal: AbortSignal | undefined,
  ...informers: ReadonlyArray<
    Pick<SharedIndexInformer, 'name' | 'hasSynced' | 'whenSynced' | 'lastWatchError'>
  >
): Promise<void> {
  const pending = informers.filter((informer) => !informer.hasSynced());
  if (pending.length === 0) return;
  if (signal?.aborted) throw notSynced(pending, abortReason(signal));
  try {
    await Promise.all(
      pending.map((informer) => informer.whenSynced(signal === undefined ? {} : { signal })),
    );
  } catch (error) {
    throw notSynced(
      informers.filter((informer) => !informer.hasSynced()),
      error,
    );
  }
}

function notSynced(
  informers: ReadonlyArray<Pick<SharedIndexInformer, 'name' | 'lastWatchError'>>,
  cause: unknown,
): CacheNotSyncedError {
  const lastErrors = new Map<string, unknown>();
  for (const informer of informers) {
    const error = informer.lastWatchError?.();
    if (error !== undefined) lastErrors.set(informer.name, error);
  }
  return new CacheNotSyncedError(
    informers.map((informer) => informer.name),
    { cause, lastErrors },
  );
}
