// @lasso/core/sharding: the hash, ranges and selector text of Kubernetes' server-side sharded list and
// watch (KEP-5866, kube-apiserver 1.36), the same bytes in and the same answer out as the server.
export { fnv1a64, fnv1a64Hex } from './hash.ts';
export { type ShardHashSourceOptions, shardHashSource } from './hash-source.ts';
export {
  createShardMatcher,
  formatShardBound,
  formatShardSelector,
  parseShardSelector,
  type ShardKey,
  type ShardRange,
  type ShardSelector,
  ShardSelectorError,
  shardHashSpaceEnd,
  shardKeyValue,
  shardRangesContain,
} from './selector.ts';
