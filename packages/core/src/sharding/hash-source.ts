// Which string of an object a sharded replica hashes: one function, so the ring, the informer's filter and the
// soak's checker put every object in the same range.
import type { ShardKey } from './selector.ts';
import { shardKeyValue } from './selector.ts';

/** Options of {@link shardHashSource}. */
export interface ShardHashSourceOptions {
  /**
   * Hash an object that has a controller ownerReference (`controller: true`) by that owner's `uid` instead of
   * its own, so an owner and what it owns land in the same range. Only with the `object.metadata.uid` key; a
   * server cannot filter this way (KEP-5866 hashes the object's own field), so it is a client-side filter.
   */
  readonly byOwner?: boolean | undefined;
}

/**
 * The string whose 64-bit FNV-1a hash ({@link fnv1a64}) places `object` in a shard range:
 * - key `object.metadata.namespace`: the namespace (`''` for a cluster-scoped object);
 * - key `object.metadata.uid`: with `byOwner`, the `uid` of the ownerReference marked `controller: true` when
 *   there is one with a non-empty uid; otherwise `metadata.uid`.
 * A missing or non-string field reads as `''` (as the server resolves it), which hashes like any other value:
 * such an object still lands in exactly one range.
 *
 * @example
 * ```ts
 * import { shardHashSource } from '@lasso/core/sharding';
 *
 * const pod = {
 *   metadata: {
 *     uid: 'pod-uid',
 *     ownerReferences: [{ uid: 'replicaset-uid', controller: true }],
 *   },
 * };
 * shardHashSource(pod, 'object.metadata.uid', { byOwner: true }); // 'replicaset-uid'
 * shardHashSource(pod, 'object.metadata.uid'); // 'pod-uid'
 * ```
 */
export function shardHashSource(
  object: { metadata?: unknown },
  key: ShardKey,
  options: ShardHashSourceOptions = {},
): string {
  if (options.byOwner === true && key === 'object.metadata.uid') {
    const owner = controllerOwnerUid(object.metadata);
    if (owner !== undefined) return owner;
  }
  return shardKeyValue(object, key);
}

function controllerOwnerUid(metadata: unknown): string | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const references = (metadata as { ownerReferences?: unknown }).ownerReferences;
  if (!Array.isArray(references)) return undefined;
  for (const reference of references) {
    if (typeof reference !== 'object' || reference === null) continue;
    const { controller, uid } = reference as { controller?: unknown; uid?: unknown };
    // The API server allows one controller reference per object; the first one wins should a fake have more.
    if (controller === true && typeof uid === 'string' && uid !== '') return uid;
  }
  return undefined;
}
