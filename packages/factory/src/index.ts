// Public API of @lasso/factory: lasso's shared client, cache and controller factories.
export { FactoryStartError, type KindStartFailure } from './errors.ts';
export { healthCheckIntervalMs } from './health-gate.ts';
export type { ApiVersionOf, GroupVersionKindType, ObjectKindType } from './kind-types.ts';
export { gvkString, gvrString } from './names.ts';
export {
  createSharedCacheFactory,
  type SharedCacheFactory,
  type SharedCacheFactoryOptions,
} from './shared-cache-factory.ts';
export {
  createSharedClientFactory,
  type LookupOptions,
  type SharedClientFactory,
  type SharedClientFactoryOptions,
} from './shared-client-factory.ts';
export {
  createSharedControllerFactory,
  createSharedControllerFactoryFromConfig,
  defaultControllerWorkers,
  type SharedControllerFactory,
  type SharedControllerFactoryFromConfigOptions,
  type SharedControllerFactoryOptions,
} from './shared-controller-factory.ts';
