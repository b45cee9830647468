// WATCH of a collection (or of one object through the deprecated /watch/ path).

import { tableWatchPlan } from '../../printers/table-negotiation.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import { planWatch } from '../../registry/watch.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { metadataTarget, metadataWatchPlan } from '../partial-metadata.ts';

/** Answer a watch: a plan the transport streams. */
export function handleWatch(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const plan = planWatch(context, request.info, request.namespace, request.query, request.name);
  const metadata = metadataTarget(raw);
  if (metadata !== undefined) return { type: 'watch', plan: metadataWatchPlan(metadata, plan) };
  return { type: 'watch', plan: tableWatchPlan(context, request, raw, plan) ?? plan };
}
