// How a reflector gets the state: a streaming list where the server offers it, else client-go's list rules
// (first list at resourceVersion "0" from the watch cache, paging from etcd, "" when the last version is gone).
import {
  isApiError,
  isGone,
  type KubeObjectLike,
  type ListOptions,
  type ObjectList,
} from '@lasso/client';
import {
  anySignal,
  type Clock,
  type Counter,
  errorMessage,
  LassoError,
  type Logger,
  type MetricsProvider,
  raceSignal,
  timeoutSignal,
} from '@lasso/core';
import type { ListerWatcher } from './lister-watcher.ts';
import { isStreamingRefusal, type OpenWatch, streamList } from './watch-list.ts';

/**
 * How a reflector gets the state before it watches (see the cache README's "Lists"):
 * - `'streaming'` (default): a streaming list (a watch with `sendInitialEvents=true`, KEP-3157; client-go 1.35's
 *   default) where the server offers it: the state arrives as events, neither side holds a whole list, and the
 *   same request goes on as the watch. Any refusal or error falls back to `'cached'` lists.
 * - `'cached'`: client-go's lists: the first at resourceVersion `"0"`, answered by the API server's watch cache
 *   (no etcd read; the cache ignores `limit`, so one response carries every object).
 * - `'consistent'`: Lasso (Go)'s lists: the first at `""`, a consistent read from etcd in pages of `pageSize`
 *   (bounded responses, at the price of an etcd read of the whole resource).
 *
 * @example
 * ```ts
 * declare const configMaps: Client;
 * // Lasso Go's lists: consistent reads from etcd in pages of 500, no streaming list.
 * const informer = createCache(configMaps, { initialList: 'consistent', resyncMs: 0 });
 * await informer.start(signal);
 * ```
 */
export type InitialListStrategy = 'streaming' | 'cached' | 'consistent';

/** @internal The label of `lasso_reflector_lists_by_strategy_total`: how one list was served. */
export type ListKind = 'streaming' | 'cached' | 'consistent' | 'not-older-than';

/** @internal What {@link ListStrategy} needs of its reflector. */
export interface ListStrategyInit<T extends KubeObjectLike> {
  name: string;
  listerWatcher: ListerWatcher<T>;
  strategy: InitialListStrategy;
  pageSize: number;
  /** True when the user set `pageSize`: relists at a resourceVersion page too (client-go's WatchListPageSize). */
  pageSizeSet: boolean;
  listPageTimeoutMs: number;
  streamingListSilenceMs: number;
  minWatchTimeoutMs: number;
  clock: Clock;
  logger: Logger;
  metrics: MetricsProvider;
  random: () => number;
  /**
   * Applied to each listed object as it arrives (each page, each event of a streaming list), so that only the
   * transformed copies are kept until the list ends (see {@link ReflectorStore.transform}).
   */
  transform?: ((object: T) => T) | undefined;
}

/** @internal The state of one list, and the streaming list's open watch when there was one. */
export interface ListResult<T extends KubeObjectLike> {
  items: T[];
  resourceVersion: string;
  kind: ListKind;
  stream?: OpenWatch<T>;
}

/**
 * @internal The list half of a reflector. `list(at)` lists at `at` (`undefined`: the first list; `""`: a consistent
 * read after the last version became unavailable; else not older than `at`) and returns the state; it throws
 * the list's error (a 410 or a too-large resourceVersion at `at` makes the reflector list again at `""`).
 */
export class ListStrategy<T extends KubeObjectLike> {
  readonly #init: ListStrategyInit<T>;
  /** Still trying streaming lists (false after the server refused one). */
  #streaming: boolean;
  /** The first list at "0" came back in pages: the watch cache is off, etcd serves, so relists page too. */
  #paginatedResult = false;
  readonly #byKind: Record<ListKind, Counter>;
  readonly #fallbacks: Counter;
  /** `init.transform`, noting that it threw: its error fails the list as it is (no fallback, no restart). */
  readonly #transform: ((object: T) => T) | undefined;
  #transformFailed = false;

  constructor(init: ListStrategyInit<T>) {
    this.#init = init;
    this.#streaming = init.strategy === 'streaming';
    const counter = (kind: ListKind): Counter =>
      init.metrics.counter({
        name: 'lasso_reflector_lists_by_strategy_total',
        help: 'Lists completed by the reflector, by how the server served them.',
        labels: { name: init.name, strategy: kind },
      });
    this.#byKind = {
      streaming: counter('streaming'),
      cached: counter('cached'),
      consistent: counter('consistent'),
      'not-older-than': counter('not-older-than'),
    };
    this.#fallbacks = init.metrics.counter({
      name: 'lasso_reflector_streaming_list_fallbacks_total',
      help: 'Streaming lists refused or failed, replaced by a list.',
      labels: { name: init.name },
    });
    const { transform } = init;
    this.#transform =
      transform === undefined
        ? undefined
        : (object) => {
            try {
              return transform(object);
            } catch (error) {
              this.#transformFailed = true;
              throw error;
            }
          };
  }

  async list(at: string | undefined, signal: AbortSignal): Promise<ListResult<T>> {
    this.#transformFailed = false;
    if (this.#streaming) {
      const resourceVersion = at ?? '';
      try {
        const streamed = await streamList({
          listerWatcher: this.#init.listerWatcher,
          resourceVersion,
          timeoutSeconds: Math.floor(
            (this.#init.minWatchTimeoutMs / 1000) * (1 + this.#init.random()),
          ),
          silenceMs: this.#init.streamingListSilenceMs,
          clock: this.#init.clock,
          signal,
          transform: this.#transform,
        });
        this.#byKind.streaming.inc();
        return { ...streamed, kind: 'streaming' };
      } catch (error) {
        if (signal.aborted || this.#transformFailed) throw error;
        // The server forgot that version or has not reached it: stream again at "" (client-go's watchList sets
        // isLastSyncResourceVersionUnavailable and retries); the reflector does that.
        if ((isGone(error) || isTooLargeResourceVersion(error)) && resourceVersion !== '')
          throw error;
        this.#fallback(error);
      }
    }
    return this.#pagedList(at, signal);
  }

  #fallback(error: unknown): void {
    this.#fallbacks.inc();
    const refused = isStreamingRefusal(error);
    const attributes = {
      error: errorMessage(error),
      status: isApiError(error) ? error.status : undefined,
    };
    if (refused) {
      this.#streaming = false;
      // A 4xx answer is the server saying it has no streaming lists (every kube-apiserver before 1.27, and later ones
      // with the WatchList gate off): expected on most clusters, so info, once per informer; a stream that broke
      // KEP-3157's protocol is a fault worth a warning.
      const log = isApiError(error) ? this.#init.logger.info : this.#init.logger.warn;
      log.call(
        this.#init.logger,
        'the server refused the streaming list (sendInitialEvents): listing instead, for good',
        attributes,
      );
    } else {
      this.#init.logger.warn(
        'the streaming list failed: listing instead this time (streaming again on the next list)',
        attributes,
      );
    }
  }

  async #pagedList(at: string | undefined, signal: AbortSignal): Promise<ListResult<T>> {
    const { pageSize, pageSizeSet, strategy, listerWatcher } = this.#init;
    const resourceVersion = at ?? (strategy === 'consistent' ? '' : '0');
    // client-go reflector.list: page when the user asked, when a list at "0" came back paginated (etcd serves), and
    // for lists at "" or "0"; a list at a specific version goes unpaginated so the watch cache can answer it (it
    // serves only `limit`-less lists at a version) instead of every relist reading etcd. `'consistent'` always pages.
    const paged =
      strategy === 'consistent' ||
      pageSizeSet ||
      this.#paginatedResult ||
      resourceVersion === '' ||
      resourceVersion === '0';
    let restarts = 0;
    let atVersion = resourceVersion;
    for (;;) {
      const items: T[] = [];
      let listVersion = '';
      let continueToken: string | undefined;
      let pages = 0;
      try {
        do {
          // A progress deadline, not a total one: a page (at "0", the whole list) still arriving is never cut; the
          // client fails it only when no bytes arrived for this long (@lasso/client's list timeout policy).
          // A lister-watcher that cannot tell progress gets a total deadline per page instead.
          const deadline = this.#init.listerWatcher.listProgressDeadline
            ? undefined
            : timeoutSignal(
                this.#init.clock,
                this.#init.listPageTimeoutMs,
                `list page not answered within ${this.#init.listPageTimeoutMs} ms`,
              );
          const pageSignal =
            deadline === undefined ? undefined : anySignal([signal, deadline.signal]);
          const options: ListOptions & { transformItem?: ((item: T) => T) | undefined } = {
            signal: pageSignal?.signal ?? signal,
            progressTimeoutMs: this.#init.listPageTimeoutMs,
          };
          if (paged) options.limit = pageSize;
          const decodes =
            this.#transform !== undefined && listerWatcher.listTransformsItems === true;
          if (decodes) options.transformItem = this.#transform;
          if (continueToken !== undefined) {
            options.continue = continueToken;
          } else {
            options.resourceVersion = atVersion;
            if (atVersion !== '' && atVersion !== '0')
              options.resourceVersionMatch = 'NotOlderThan';
          }
          let page: ObjectList<T>;
          try {
            page = await raceSignal(
              this.#init.listerWatcher.list(options),
              options.signal ?? signal,
            );
          } finally {
            deadline?.clear();
            pageSignal?.dispose();
          }
          if (typeof page !== 'object' || page === null || !Array.isArray(page.items)) {
            throw new LassoError('LASSO_WATCH_DECODE', 'list response has no items array');
          }
          pages++;
          // Transformed page by page: a page's raw objects are garbage once it is copied, not at the list's end.
          const transform = decodes ? undefined : this.#transform;
          if (transform === undefined) for (const item of page.items) items.push(item);
          else for (const item of page.items) items.push(transform(item));
          listVersion = page.metadata?.resourceVersion ?? '';
          continueToken = page.metadata?.continue || undefined;
        } while (continueToken !== undefined);
      } catch (error) {
        // An expired continue token: the snapshot is gone, start a fresh consistent list (client-go's pager lists
        // once more without `limit`; paging again keeps responses bounded).
        if (
          continueToken !== undefined &&
          isGone(error) &&
          restarts < 3 &&
          !signal.aborted &&
          !this.#transformFailed
        ) {
          restarts++;
          atVersion = '';
          this.#init.logger.info('list continuation expired, listing again', { attempt: restarts });
          continue;
        }
        throw error;
      }
      // No resourceVersion (kube-apiserver's componentstatuses, metrics APIs: resources that cannot be watched) is
      // returned as "": there is nothing to watch from, and the reflector lists such a resource on an interval.
      // Only a list at "0" tells whether the watch cache serves this resource: later lists at "" page even when
      // it does (client-go sets paginatedResult only for the initial list).
      if (resourceVersion === '0' && pages > 1) this.#paginatedResult = true;
      const kind: ListKind =
        atVersion === '0' ? 'cached' : atVersion === '' ? 'consistent' : 'not-older-than';
      this.#byKind[kind].inc();
      return { items, resourceVersion: listVersion, kind };
    }
  }
}

/**
 * kube-apiserver's answer to a request at a resourceVersion it has not reached yet: 504 Timeout with cause
 * `ResourceVersionTooLarge` (older servers only say so in the message), as client-go's
 * isTooLargeResourceVersionError detects it.
 */
export function isTooLargeResourceVersion(error: unknown): boolean {
  if (!isApiError(error)) return false;
  // On the wire the cause type is `reason` (Go's `Type CauseType \`json:"reason"\``); accept `type` too.
  const causes = error.causes as ReadonlyArray<{ reason?: unknown; type?: unknown }>;
  if (causes.some((cause) => (cause.reason ?? cause.type) === 'ResourceVersionTooLarge'))
    return true;
  return error.status === 504 && error.message.includes('Too large resource version');
}
