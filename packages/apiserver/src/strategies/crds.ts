// CustomResourceDefinitions: validation, serving the resources a CRD defines (with the status kube's
// CRD controllers write), and deletion of a CRD with every object of it.

import { canonical, type Json, metaOf } from '../apimachinery/objects.ts';
import {
  crdResources,
  establishedStatus,
  validateCrd,
} from '../registry/custom-resource-definitions.ts';
import { toVersion } from '../registry/generic-registry.ts';
import type { ServerContext } from '../registry/server-context.ts';
import type { Strategy } from '../registry/strategy.ts';
import { type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';

const crdKey = storageKey({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' });
const cleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

/** CRD strategy. */
export const crdStrategy: Strategy = {
  ...builtinStrategy,
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    delete object.status;
  },
  // apiextensions types are not pruned by a typed decode here; validateCrd reports what matters.
  canonicalize() {},
  validate: (_context, _info, object) => validateCrd(object),
  afterCreate: establish,
  afterUpdate: establish,
  delete: (context, info, existing) => deleteCrd(context, info, existing),
};

/** Serve a CRD's resources and write the status kube's CRD controllers would write. */
function establish(context: ServerContext, crd: KubeObject): void {
  // A dry run stores no CRD, so nothing is served for it.
  if (context.dryRun) return;
  const { infos, versionOrder } = crdResources(crd);
  const spec = crd.spec as Json;
  const plural = (spec.names as Json).plural as string;
  context.registry.removeResource(spec.group as string, plural);
  for (const info of infos) context.registry.add(info, versionOrder);
  const next = structuredClone(crd);
  next.status = establishedStatus(crd, context.now());
  if (canonical(next.status) !== canonical(crd.status)) context.store.update(crdKey, next);
}

/** CRD deletion as kube's finalizer controller does it: delete every custom object, stop serving, remove. */
function deleteCrd(context: ServerContext, info: ResourceInfo, crd: KubeObject): unknown {
  const { store } = context;
  const metadata = metaOf(crd);
  const terminating = structuredClone(crd);
  const terminatingMeta = metaOf(terminating);
  terminatingMeta.deletionTimestamp = context.now();
  terminatingMeta.deletionGracePeriodSeconds = 0;
  terminatingMeta.finalizers = [
    ...(Array.isArray(metadata.finalizers) ? metadata.finalizers : []),
    cleanupFinalizer,
  ];
  const response = store.update(crdKey, terminating);
  // A dry run answers the terminating CRD and removes nothing.
  if (context.dryRun) return toVersion(context, info, response);
  const spec = crd.spec as Json;
  const group = spec.group as string;
  const plural = (spec.names as Json).plural as string;
  const key = `${group}/${plural}`;
  for (const object of store.list(key, undefined)) store.delete(key, object);
  context.registry.removeResource(group, plural);
  context.watches.endAll(key);
  const final = store.get(crdKey, '', String(metadata.name))!;
  const finalMeta = metaOf(final);
  finalMeta.finalizers = (finalMeta.finalizers as string[]).filter(
    (finalizer) => finalizer !== cleanupFinalizer,
  );
  if ((finalMeta.finalizers as string[]).length === 0) {
    delete finalMeta.finalizers;
    store.delete(crdKey, final);
  } else {
    store.update(crdKey, final);
  }
  return toVersion(context, info, response);
}
