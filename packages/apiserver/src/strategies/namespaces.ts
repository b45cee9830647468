// Namespaces: the name label, the `kubernetes` finalizer, Terminating on delete, and /finalize.

import { isRecord, metaOf } from '../apimachinery/objects.ts';
import { toVersion } from '../registry/generic-registry.ts';
import type { Strategy } from '../registry/strategy.ts';
import { storageKey } from '../resources/builtin-resources.ts';
import { builtinStrategy } from './builtin-strategy.ts';

/**
 * Namespace strategy. A deleted Namespace turns Terminating and waits for spec.finalizers, emptied
 * through /finalize (by the namespace controller on a real cluster, by a test here).
 */
export const namespaceStrategy: Strategy = {
  ...builtinStrategy,
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    const metadata = metaOf(object);
    const labels = isRecord(metadata.labels) ? metadata.labels : {};
    labels['kubernetes.io/metadata.name'] = metadata.name;
    metadata.labels = labels;
    object.spec = { finalizers: ['kubernetes'], ...(isRecord(object.spec) ? object.spec : {}) };
    object.status = { phase: 'Active' };
  },
  prepareForUpdate(context, info, existing, next) {
    builtinStrategy.prepareForUpdate(context, info, existing, next);
    // spec.finalizers change only through /finalize.
    next.spec = existing.spec;
  },
  updateSubresource(_subresource, existing, incoming) {
    // The only subresource besides status: finalize replaces spec.finalizers alone.
    const next = structuredClone(existing);
    const spec = isRecord(next.spec) ? next.spec : {};
    spec.finalizers = isRecord(incoming.spec) ? incoming.spec.finalizers : undefined;
    next.spec = spec;
    return next;
  },
  // ShouldDeleteNamespaceDuringUpdate: a namespace also waits for its spec.finalizers.
  holdsDeletion: (object) =>
    isRecord(object.spec) &&
    Array.isArray(object.spec.finalizers) &&
    object.spec.finalizers.length > 0,
  delete(context, info, existing) {
    if (metaOf(existing).deletionTimestamp !== undefined) return toVersion(context, info, existing);
    const next = structuredClone(existing);
    const nextMeta = metaOf(next);
    // The namespace storage sets deletionTimestamp alone (no deletionGracePeriodSeconds).
    nextMeta.deletionTimestamp = context.now();
    next.status = { ...(isRecord(next.status) ? next.status : {}), phase: 'Terminating' };
    return toVersion(context, info, context.store.update(storageKey(info), next));
  },
};
