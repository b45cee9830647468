// ListerWatcher: the two calls a reflector makes (client-go tools/cache ListerWatcher), with what the reflector may
// leave to them.
import type {
  KubeObject,
  KubeObjectLike,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '@lasso/client';

/**
 * The two calls a reflector makes. `createCache` adapts a `Client`; tests pass a fake
 * (`FakeListerWatcher` from `@lasso/cache/testing`).
 */
export interface ListerWatcher<T extends KubeObjectLike = KubeObject> {
  /**
   * One page of the list. `options.transformItem` is passed only to a lister-watcher with
   * {@link ListerWatcher.listTransformsItems}; the others get it undefined.
   */
  list(
    options: ListOptions & { transformItem?: ((item: T) => T) | undefined },
  ): Promise<ObjectList<T>>;
  /**
   * A watch from `options.resourceVersion`. Ends normally when the server closes the stream; throws an
   * `ApiError` for HTTP errors and ERROR events (410 -> `isGone`); must stop when `options.signal` aborts.
   * An ERROR event yielded instead of thrown is handled as if it had been thrown.
   */
  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /**
   * The same watch as `watch`, read a body chunk at a time: each value is the events of one chunk, in order, never
   * empty; errors as `watch` throws them, after the events before them. Optional: when present, the reflector and
   * the streaming list read watches through it (one promise turn per chunk instead of one per event), as
   * `createClientListerWatcher` offers through `Client.watchBatches`.
   */
  watchBatches?(options: WatchOptions): AsyncIterable<WatchEvent<T>[]>;
  /**
   * True when `list` enforces `options.progressTimeoutMs` itself (a page fails only when no bytes of it arrived for
   * that long), as `createClientListerWatcher` over `@lasso/client` does: the reflector then puts no total deadline
   * on a page, so a page still arriving (a big list at `"0"`) is never cut. Otherwise each page gets
   * `listPageTimeoutMs` in total.
   */
  readonly listProgressDeadline?: boolean;
  /**
   * True when `list` applies `options.transformItem` to each item as it decodes it and returns its results, as
   * `createClientListerWatcher` over `@lasso/client`'s `Client` does (the page never exists as raw objects).
   * Otherwise the reflector applies the transform to each page it receives.
   */
  readonly listTransformsItems?: boolean | undefined;
}
