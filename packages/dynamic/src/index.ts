// Public API of @lasso/dynamic: lasso's dynamic controller (handlers for every kind, by matcher).
export type { DiscoverySource, ServedKind } from './discovery-refresher.ts';
export { createDynamicController } from './dynamic-controller.ts';
export type {
  DynamicController,
  DynamicControllerOptions,
  DynamicHandler,
  DynamicHandlerResult,
  DynamicIndexFunc,
  DynamicListOptions,
  DynamicMatcher,
  DynamicReadOptions,
  GvkMatcher,
  WatchedKind,
} from './dynamic-controller-api.ts';
export { DynamicClosedError, DynamicNotRunningError, DynamicSyncFailedError } from './errors.ts';
