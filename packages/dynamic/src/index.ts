// Public API of @lasso/dynamic: lasso's dynamic controller (handlers for every kind, by matcher).
export type { DiscoverySource, ServedKind } from './discovery-refresher.ts';
export {
  createDynamicController,
  type DynamicController,
  type DynamicControllerOptions,
  type DynamicHandler,
  type DynamicListOptions,
  type DynamicMatcher,
  type DynamicReadOptions,
  type GvkMatcher,
  type WatchedKind,
} from './dynamic-controller.ts';
export { DynamicClosedError, DynamicNotRunningError, DynamicSyncFailedError } from './errors.ts';
