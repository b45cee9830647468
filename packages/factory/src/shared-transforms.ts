// The default transform of a factory's informers, one per kind for the whole process: the objects of a kind then
// have the same hidden classes in every factory, however many factories the process creates.
import { createCompactTransform, type TransformFunc } from '@lasso/cache';
import type { KubeObjectLike } from '@lasso/client';

/** Kinds whose transform is kept; past this, a kind gets a transform of its own (as without this file). */
export const maxSharedTransforms = 1024;

const transforms = new Map<string, TransformFunc<KubeObjectLike>>();

/**
 * @internal The compact transform (`createCompactTransform`, the informers' default) for the kind `gvkKey`, the same
 * function for every informer of that kind in the process.
 *
 * Each compact transform lays out its objects with constructors of its own, so the objects of two transforms have
 * different V8 hidden classes even when their properties are the same. With one transform per informer, every new
 * factory (a factory per cluster, a factory per test, or a new one after a restart) adds hidden classes for the same
 * kind; the code that reads the cached objects (key functions, indexers, the controller, the handlers) then sees
 * several and turns polymorphic, then megamorphic past four, and V8 deoptimizes and recompiles it each time: the
 * W4 bench (a new factory per round) measured its consumer's CPU rising round after round from that alone. A
 * transform holds no objects (only its two constructors and the last four strings it interned), so sharing it per
 * kind keeps the per-kind layout (see the cache README, Memory) at the cost of one entry per kind, at most
 * {@link maxSharedTransforms}.
 */
export function sharedCompactTransform(gvkKey: string): TransformFunc<KubeObjectLike> {
  const known = transforms.get(gvkKey);
  if (known !== undefined) return known;
  const transform = createCompactTransform<KubeObjectLike>();
  if (transforms.size < maxSharedTransforms) transforms.set(gvkKey, transform);
  return transform;
}
