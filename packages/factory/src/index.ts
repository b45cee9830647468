// Public API of @lasso/factory: lasso's shared client, cache and controller factories.
export { ApiServerUnavailableError } from './api-server-failure.ts';
export {
  type ClientMutator,
  sharedClientFactoryWithAgent,
  sharedClientFactoryWithImpersonation,
  sharedControllerFactoryWithAgent,
  sharedControllerWithAgent,
  withClientMutator,
} from './client-mutators.ts';
export {
  type ControllerKindStatus,
  defaultControllerWorkers,
  type SharedControllerFactory,
  type SharedControllerFactoryFromConfigOptions,
  type SharedControllerFactoryOptions,
} from './controller-factory-api.ts';
export { FactoryClosedError, FactoryStartError, type KindStartFailure } from './errors.ts';
export {
  type HealthFailure,
  HealthGate,
  type HealthGateOptions,
  healthCheckIntervalMs,
  healthWarningMaxIntervalMs,
  sharedHealthGate,
} from './health-gate.ts';
export {
  type Kind,
  type KindRef,
  type KindRefType,
  type KindServedAs,
  kindFor,
  kindOf,
} from './kind.ts';
export type {
  FactoryProduct,
  FactoryProducts,
  KindLookups,
  LookupOptions,
  ResolvedKind,
} from './kind-lookups.ts';
export type { KindState } from './kind-supervisor.ts';
export type { ApiVersionOf, GroupVersionKindType, ObjectKindType } from './kind-types.ts';
export { gvkString, gvrString } from './names.ts';
export type { ShardHandoff, ShardRingStatus } from './sharding/ring-api.ts';
export { ShardMovedError } from './sharding/shard-coordinator.ts';
export type { ShardingOptions, ShardingStatus } from './sharding/sharding-options.ts';
export {
  createSharedCacheFactory,
  defaultGracefulShutdownTimeoutMs,
} from './shared-cache-factory.ts';
export type {
  KindStatus,
  SharedCacheFactory,
  SharedCacheFactoryOptions,
} from './shared-cache-factory-api.ts';
export {
  createSharedClientFactory,
  type SharedClientFactory,
  type SharedClientFactoryOptions,
} from './shared-client-factory.ts';
export {
  createSharedControllerFactory,
  createSharedControllerFactoryFromConfig,
} from './shared-controller-factory.ts';
