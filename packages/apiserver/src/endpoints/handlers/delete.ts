// DELETE of one object.

import { decodeDeleteOptions } from '../../decoding/decode.ts';
import { deleteIsDryRun, withDryRun } from '../../registry/dry-run.ts';
import { deleteObject, mustGet } from '../../registry/generic-registry.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';

/** Answer a delete: DeleteOptions, then the generic registry's finalizer-aware delete. */
export function handleDelete(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const options = decodeDeleteOptions(raw);
  const dryRun = deleteIsDryRun(options, raw.body, request.query);
  const serving = dryRun ? withDryRun(context) : context;
  const existing = mustGet(serving, request.info, request.namespace ?? '', request.name ?? '');
  return { type: 'json', code: 200, body: deleteObject(serving, request.info, existing, options) };
}
