// Public API of @lasso/cache: stores, DeltaFIFO, reflector, shared informers and lasso's createCache.
export { type Backoff, type BackoffOptions, createBackoff } from './backoff.ts';
export {
  type CacheClient,
  type CacheOptions,
  type ClientListerWatcherOptions,
  createCache,
  createClientListerWatcher,
  defaultCacheResyncMs,
  defaultResyncMsFromEnv,
  resyncDefaultEnvName,
  type TweakListOptionsFunc,
  type WaitHealthyFunc,
  waitForCacheSync,
} from './cache.ts';
export { createCompactTransform, dropManagedFields } from './compact.ts';
export {
  DeletedFinalStateUnknown,
  type Delta,
  DeltaFIFO,
  type DeltaFIFOOptions,
  type DeltaType,
  isDeletedFinalStateUnknown,
  type KnownObjects,
  type PoppedDeltas,
  type TransformFunc,
} from './delta-fifo.ts';
export { CacheNotSyncedError, WatchError, type WatchErrorPhase } from './errors.ts';
export { createInternTable, type InternTable, type InternTableOptions } from './intern.ts';
export type { InitialListStrategy } from './list-strategy.ts';
export type { ListerWatcher } from './lister-watcher.ts';
export {
  createMetadataCache,
  type MetadataCacheClient,
  metadataCacheClient,
  type PartialObjectMetadata,
} from './metadata-cache.ts';
export type {
  EventHandlerOptions,
  EventHandlerRegistration,
  ResourceEventHandler,
} from './processor-listener.ts';
export { Reflector, type ReflectorState, type ReflectorStore } from './reflector.ts';
export type { ReflectorOptions, WatchErrorHandler } from './reflector-options.ts';
export {
  createShardFilterSource,
  type SettableShardFilterSource,
  type ShardFilter,
  type ShardFilterSource,
} from './shard-filter.ts';
export {
  createSharedIndexInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
} from './shared-informer.ts';
export {
  type CacheGroupVersionKind,
  type CacheStaleness,
  cacheStaleness,
  stalenessMetricNames,
} from './staleness.ts';
export {
  createIndexer,
  createStore,
  type Indexer,
  type IndexerOptions,
  type IndexerReader,
  type Indexers,
  type IndexFunc,
  indexerView,
  type KeyFunc,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  namespaceIndex,
  type Store,
  type StoreReader,
  splitMetaNamespaceKey,
} from './store.ts';
