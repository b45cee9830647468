// GVK / GVR keys of the factories. The strings are apimachinery's `GroupVersionKind.String()` /
// `GroupVersionResource.String()`, which lasso uses as map keys and metric labels.
import type { GroupVersionKind, GroupVersionResource } from '@lasso/client';
import { type KindRef, resolveKindRef } from './kind.ts';

/**
 * A GVK as apimachinery prints it, e.g. `apps/v1, Kind=Deployment`; the core group prints as
 * `/v1, Kind=ConfigMap` (Go's leading slash kept, so metric labels match lasso's). Keys the results of
 * {@link SharedCacheFactory.waitForCacheSync} and {@link SharedCacheFactory.status}, and names each
 * controller's workqueue. Takes a kind in either spelling.
 *
 * @example
 * ```ts
 * gvkString({ apiVersion: 'apps/v1', kind: 'Deployment' }); // 'apps/v1, Kind=Deployment'
 * gvkString({ group: '', version: 'v1', kind: 'ConfigMap' }); // '/v1, Kind=ConfigMap'
 * ```
 */
export function gvkString(kind: KindRef): string {
  const { gvk } = resolveKindRef(kind, 'gvkString');
  return gvkKey(gvk);
}

/**
 * A GVR as apimachinery prints it, e.g. `apps/v1, Resource=deployments` (core group: `/v1, Resource=configmaps`).
 * The `controller_name` label of the handler metrics of each shared controller.
 *
 * @example
 * ```ts
 * gvrString({ group: 'apps', version: 'v1', resource: 'deployments' }); // 'apps/v1, Resource=deployments'
 * ```
 */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

/** @internal {@link gvkString} of an already checked GVK. */
export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}
