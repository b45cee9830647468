// WATCH of a collection (or of one object through the deprecated /watch/ path).
import type { ApiResult, ServerContext } from '../context.ts';
import type { ResourceRequestInfo } from '../request-info.ts';

/** Answer a watch: a plan the transport streams. */
export function handleWatch(context: ServerContext, request: ResourceRequestInfo): ApiResult {
  const plan = context.watches.plan(
    context,
    request.info,
    request.namespace,
    request.query,
    request.name,
  );
  return { type: 'watch', plan };
}
