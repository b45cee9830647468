// What an authorizer decides on: kube-apiserver's authorizer.Attributes, taken from the request's
// RequestInfo (request-info.ts) before any routing: a request is authorized even when its resource does
// not exist, so a denied user sees 403, not 404. Access reviews build them from their spec instead.
import type { UserInfo } from '../authentication/authenticate.ts';
import type { RequestInfo } from '../request/request-info.ts';

/** A request for an API object (`/api/...` or `/apis/...` with a resource). Absent values are ''. */
export interface ResourceAttributes {
  user: UserInfo;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path?: undefined;
}

/** A request for any other path (`/version`, `/healthz`, `/api`, `/openapi/v3`, ...). */
export interface NonResourceAttributes {
  user: UserInfo;
  /** The lowercased HTTP method (`get`, `post`, `head`, ...). */
  verb: string;
  path: string;
}

/** Either kind of request, told apart by `path`. */
export type AuthorizationAttributes = ResourceAttributes | NonResourceAttributes;

/**
 * The attributes an authorizer decides `request` of `user` on, as kube's GetAuthorizerAttributes takes them
 * from the request context: the user and the RequestInfo (a list or watch with a `metadata.name` field
 * selector carries that name).
 */
export function authorizationAttributes(
  request: RequestInfo,
  user: UserInfo,
): AuthorizationAttributes {
  const { verb } = request;
  if (!request.isResourceRequest) return { user, verb, path: request.path };
  return {
    user,
    verb,
    group: request.apiGroup,
    version: request.apiVersion,
    resource: request.resource,
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
  };
}
