// Public API of @lasso/factory: lasso's shared client, cache and controller factories.
export { ApiServerUnavailableError } from './api-server-failure.ts';
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
export type { ApiVersionOf, GroupVersionKindType, ObjectKindType } from './kind-types.ts';
export { gvkString, gvrString } from './names.ts';
export {
  createSharedCacheFactory,
  defaultGracefulShutdownTimeoutMs,
  type KindState,
  type KindStatus,
  type SharedCacheFactory,
  type SharedCacheFactoryOptions,
} from './shared-cache-factory.ts';
export {
  createSharedClientFactory,
  type SharedClientFactory,
  type SharedClientFactoryOptions,
} from './shared-client-factory.ts';
export {
  type ControllerKindStatus,
  createSharedControllerFactory,
  createSharedControllerFactoryFromConfig,
  defaultControllerWorkers,
  type SharedControllerFactory,
  type SharedControllerFactoryFromConfigOptions,
  type SharedControllerFactoryOptions,
} from './shared-controller-factory.ts';
