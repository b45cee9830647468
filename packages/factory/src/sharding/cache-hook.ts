// How a sharded controller factory gives the informers of its cache factory their shard filters: an internal
// method on the cache factory this package builds, so a filter is set when the informer is created.
import type { ShardFilterSource } from '@lasso/cache';

/** @internal The shard filter of a kind's informer (by {@link gvkKey}); undefined: unfiltered. */
export type ShardFilterResolver = (kind: string) => ShardFilterSource | undefined;

/** @internal Installs a {@link ShardFilterResolver} on a cache factory of this package (once). */
export const setShardFilters: unique symbol = Symbol('lasso.factory.setShardFilters') as never;

/** @internal A cache factory that takes shard filters. */
export interface ShardableCacheFactory {
  [setShardFilters](resolver: ShardFilterResolver): void;
}

/** @internal Whether `factory` takes shard filters (one built by `createSharedCacheFactory`). */
export function isShardableCacheFactory(factory: unknown): factory is ShardableCacheFactory {
  return (
    typeof factory === 'object' &&
    factory !== null &&
    typeof (factory as Partial<ShardableCacheFactory>)[setShardFilters] === 'function'
  );
}
