// The Scale subresource (autoscaling/v1) of workloads and custom resources: a view of the object's
// replica count, and a write of it that goes through the object's own update.

import {
  getPath,
  isRecord,
  type Json,
  metaOf,
  setPath,
  stringOf,
} from '../apimachinery/objects.ts';
import { invalid } from '../apimachinery/status.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { updateObject } from './generic-registry.ts';
import type { ServerContext } from './server-context.ts';
import type { ScalePaths } from './strategy.ts';

function scalePaths(context: Pick<ServerContext, 'strategyFor'>, info: ResourceInfo): ScalePaths {
  return (
    context.strategyFor(info).scalePaths?.(info) ?? {
      spec: 'spec.replicas',
      status: 'status.replicas',
    }
  );
}

/** The Scale of a stored object. */
export function toScale(
  context: Pick<ServerContext, 'strategyFor'>,
  info: ResourceInfo,
  object: KubeObject,
): Json {
  const metadata = metaOf(object);
  const paths = scalePaths(context, info);
  let selector: string | undefined;
  if (paths.selector !== undefined) selector = stringOf(getPath(object, paths.selector));
  else {
    const matchLabels = getPath(object, 'spec.selector.matchLabels');
    if (isRecord(matchLabels)) {
      selector = Object.entries(matchLabels)
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(',');
    }
  }
  const status: Json = { replicas: Number(getPath(object, paths.status) ?? 0) };
  if (selector !== undefined) status.selector = selector;
  const scaleMeta: Json = {
    name: metadata.name,
    uid: metadata.uid,
    resourceVersion: metadata.resourceVersion,
    creationTimestamp: metadata.creationTimestamp,
  };
  if (metadata.namespace !== undefined) scaleMeta.namespace = metadata.namespace;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: scaleMeta,
    spec: { replicas: Number(getPath(object, paths.spec) ?? 0) },
    status,
  };
}

/** Write `scale`'s replicas into `existing` (with its resourceVersion as precondition). */
export function applyScale(
  context: ServerContext,
  info: ResourceInfo,
  existing: KubeObject,
  scale: Json,
  fieldManager: string,
): KubeObject {
  const scaleMeta = isRecord(scale.metadata) ? scale.metadata : {};
  const replicas = isRecord(scale.spec) ? scale.spec.replicas : undefined;
  const name = stringOf(metaOf(existing).name) ?? '';
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
      {
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
        field: 'spec.replicas',
      },
    ]);
  }
  const next = structuredClone(existing);
  setPath(next, scalePaths(context, info).spec, replicas);
  const nextMeta = metaOf(next);
  const rv = stringOf(scaleMeta.resourceVersion);
  if (rv !== undefined && rv !== '') nextMeta.resourceVersion = rv;
  return updateObject(context, info, existing, next, {
    subresource: undefined,
    fieldManager,
    requireResourceVersion: false,
  });
}
