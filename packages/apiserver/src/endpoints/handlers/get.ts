// GET of one object (or its Scale).

import type { ResourceRequestInfo } from '../../filters/request-info.ts';
import { tableResponse } from '../../printers/table-negotiation.ts';
import { mustGet, toVersion } from '../../registry/generic-registry.ts';
import { toScale } from '../../registry/scale.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import { requireReached } from '../list-options.ts';
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
  const object = mustGet(context, info, request.namespace ?? '', request.name ?? '');
  if (request.subresource === 'scale') {
    return { type: 'json', code: 200, body: toScale(context, info, object) };
  }
  const body = toVersion(context, info, object);
  return { type: 'json', code: 200, body: tableResponse(context, request, raw, body) ?? body };
}
