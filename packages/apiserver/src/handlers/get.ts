// GET of one object (or its Scale).
import type { ApiRequest, ApiResult, ServerContext } from '../context.ts';
import { mustGet, toVersion } from '../generic-registry.ts';
import { requireReached } from '../list-options.ts';
import { podLog } from '../pod-log.ts';
import type { ResourceRequestInfo } from '../request-info.ts';
import { toScale } from '../scale.ts';
import { tableResponse } from '../table-response.ts';

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
    return { type: 'json', code: 200, body: toScale(info, object) };
  }
  const body = toVersion(info, object);
  return { type: 'json', code: 200, body: tableResponse(context, request, raw, body) ?? body };
}
