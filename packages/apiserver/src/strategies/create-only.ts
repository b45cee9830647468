// Resources and subresources that are only ever created and never stored as themselves (kube's
// "virtual" REST storage: TokenRequest, Eviction, and the authorization reviews). Each is one table
// entry and one function; the create handler and the routes in endpoints/routes.ts find them here.

import type { ApiRequest, ApiResult, ServerContext } from '../registry/server-context.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import { createEviction } from './pods.ts';
import { reviewResources } from './review-resources.ts';
import { createTokenRequest } from './service-accounts.ts';

/** A create-only resource (no subresource) or subresource of a stored resource. */
export interface CreateOnlyResource {
  group: string;
  /** The resource in the URL (for a subresource: the parent, e.g. `pods`). */
  resource: string;
  /** The subresource (`eviction`); undefined for a create-only resource of its own. */
  subresource: string | undefined;
  /** Answer one POST; throws StatusError like any handler. */
  create(context: ServerContext, request: ResourceRequestInfo, raw: ApiRequest): ApiResult;
}

/**
 * Every create-only resource served. A resource listed here must also be in the resource table
 * (registry/builtin-resources.ts) with the `create` verb, so that discovery and routing know it.
 */
export const createOnlyResources: readonly CreateOnlyResource[] = [
  { group: '', resource: 'serviceaccounts', subresource: 'token', create: createTokenRequest },
  { group: '', resource: 'pods', subresource: 'eviction', create: createEviction },
  ...reviewResources,
];

/** The create-only entry for group/resource[/subresource], if any. */
export function createOnlyResource(
  group: string,
  resource: string,
  subresource: string | undefined,
): CreateOnlyResource | undefined {
  return createOnlyResources.find(
    (entry) =>
      entry.group === group && entry.resource === resource && entry.subresource === subresource,
  );
}
