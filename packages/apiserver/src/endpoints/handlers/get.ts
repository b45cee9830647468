// GET of one object (or its Scale).

import { notFound } from '../../apimachinery/status.ts';
import { tableResponse } from '../../printers/table-negotiation.ts';
import { mustGet, toVersion } from '../../registry/generic-registry.ts';
import { toScale } from '../../registry/scale.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { storageKey } from '../../resources/builtin-resources.ts';
import { requireReached } from '../../selection/list-options.ts';
import { metadataOfObject, metadataTarget } from '../partial-metadata.ts';
import { podLog } from './pod-log.ts';

/** Answer a get: the object in the requested version, or its Scale. */
export function handleGet(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const { info } = request;
  if (request.subresource === 'log') return podLog(context, request);
  requireReached(context, request.query.get('resourceVersion') ?? '');
  if (request.subresource === 'scale') {
    // kube's ScaleREST.Get answers any failure to read the object as NotFound of `<resource>/scale`.
    const name = request.name ?? '';
    const found = context.store.get(storageKey(info), request.namespace ?? '', name);
    if (found === undefined)
      throw notFound({ group: info.group, resource: `${info.resource}/scale` }, name);
    const scale = toScale(context, info, found);
    const metadata = metadataTarget(raw);
    if (metadata !== undefined) {
      return { type: 'json', code: 200, body: metadataOfObject(info, metadata, scale) };
    }
    return { type: 'json', code: 200, body: scale };
  }
  const object = mustGet(context, info, request.namespace ?? '', request.name ?? '');
  const body = toVersion(context, info, object);
  const metadata = metadataTarget(raw);
  if (metadata !== undefined) {
    return { type: 'json', code: 200, body: metadataOfObject(info, metadata, body) };
  }
  return { type: 'json', code: 200, body: tableResponse(context, request, raw, body) ?? body };
}
