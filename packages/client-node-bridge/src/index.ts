// Public API of @lasso/client-node-bridge: client-node's informer interface over a lasso shared informer.
export {
  type BridgeOptions,
  type ClientNodeInformer,
  type ErrorCallback,
  fromLassoInformer,
  type KubeConfigLike,
  type KubernetesObject,
  makeInformer,
  type ObjectCallback,
} from './informer.ts';
export { parseWatchPath, type WatchPath } from './watch-path.ts';
