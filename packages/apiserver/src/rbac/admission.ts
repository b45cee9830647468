// RBAC's checks on writes of RBAC objects, run once a request is routed (the policy-based REST storage
// of kube's rbac registry): a create or update that would grant more than the writer holds is refused.

import type { UserInfo } from '../authentication/authenticate.ts';
import { type DecodeContext, type DecodeRequest, decodeObject } from '../decoding/decode.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import type { Store } from '../storage/store.ts';
import { Authorizer } from './authorizer.ts';
import { checkEscalation } from './escalation.ts';

/**
 * Throws kube's 403 when a create or update of a Role, ClusterRole or binding escalates (see
 * escalation.ts). Patches are checked by the patch handler, on the object the patch produces.
 */
export function admitRbacWrite(
  context: Pick<DecodeContext, 'strategyFor'> & { readonly store: Pick<Store, 'get' | 'snapshot'> },
  request: ResourceRequestInfo,
  raw: DecodeRequest & { readonly user: UserInfo },
): void {
  if (request.apiGroup !== 'rbac.authorization.k8s.io' || request.subresource !== undefined) return;
  if (request.verb !== 'create' && request.verb !== 'update') return;
  checkEscalation({
    authorizer: new Authorizer(context.store),
    user: raw.user,
    resource: request.resource,
    namespace: request.namespace ?? '',
    object: decodeObject(context, request.info, raw),
  });
}
