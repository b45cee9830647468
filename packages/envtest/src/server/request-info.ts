// The request parsed once, as kube-apiserver's RequestInfoFactory does, plus the routes its API installer
// registers: which paths exist (404) and which methods each path takes (405).
import type { UserInfo } from './auth.ts';
import type { ApiRequest } from './context.ts';
import { truthy } from './objects.ts';
import type { Registry } from './registry.ts';
import type { ResourceInfo } from './resources.ts';
import { methodNotAllowed, pathNotFound } from './status.ts';
import { createOnlyResource } from './strategies/create-only.ts';

/** A verb as kube's authorizers and audit name it. */
export type Verb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection';

/** A request for something that is not a resource: /version, /healthz, discovery documents. */
export interface NonResourceRequestInfo {
  isResourceRequest: false;
  /** The path without trailing slashes (`/` for the root). */
  path: string;
  /** The path's segments (`['apis', 'apps']`). */
  segments: string[];
}

/** A request for a served resource, with the resource looked up. */
export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: Verb;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string | undefined;
  /** The namespace in the path; undefined for cluster-scoped resources and all-namespaces lists. */
  namespace: string | undefined;
  name: string | undefined;
  query: URLSearchParams;
  user: UserInfo;
  path: string;
  /** The served resource the path names. */
  info: ResourceInfo;
}

/** Either kind of request. */
export type RequestInfo = NonResourceRequestInfo | ResourceRequestInfo;

/**
 * Parse `request`: non-resource paths come back as such; resource paths are looked up in `registry`
 * and checked against the routes kube-apiserver installs for them. Throws the 404 (no such path) or
 * 405 (no such method on it) kube-apiserver answers.
 */
export function requestInfo(request: ApiRequest, registry: Registry): RequestInfo {
  const path = request.url.pathname.replace(/\/+$/, '') || '/';
  const segments = path.split('/').filter((segment) => segment !== '');
  // /api/{version}/... and /apis/{group}/{version}/... with something after the version are resources;
  // the shorter ones are discovery documents.
  const prefixLength = segments[0] === 'api' ? 2 : segments[0] === 'apis' ? 3 : undefined;
  if (prefixLength === undefined || segments.length <= prefixLength) {
    return { isResourceRequest: false, path, segments };
  }
  const apiGroup = segments[0] === 'api' ? '' : segments[1]!;
  const apiVersion = segments[prefixLength - 1]!;
  let rest = segments.slice(prefixLength);
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  let resource: string;
  let name: string | undefined;
  let subresource: string | undefined;
  const namespaceSubresource =
    apiGroup === '' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
    if (rest.length > 5) throw pathNotFound();
    namespace = rest[1]!;
    resource = rest[2]!;
    name = rest[3];
    subresource = rest[4];
  } else {
    if (rest.length > 3) throw pathNotFound();
    resource = rest[0]!;
    name = rest[1];
    subresource = rest[2];
  }
  const info = registry.lookup(apiGroup, apiVersion, resource);
  if (info === undefined) throw pathNotFound();
  if (info.namespaced === false && namespace !== undefined) throw pathNotFound();
  if (info.namespaced && namespace === undefined && name !== undefined) throw pathNotFound();
  if (subresource !== undefined && !info.subresources.includes(subresource)) {
    throw pathNotFound();
  }
  // Create-only subresources (TokenRequest, Eviction) take POST alone; log, binding, proxy and
  // ephemeralcontainers are listed by discovery but answer 405.
  const createOnly =
    subresource !== undefined && createOnlyResource(apiGroup, resource, subresource) !== undefined;
  if (
    subresource !== undefined &&
    subresource !== 'status' &&
    subresource !== 'scale' &&
    subresource !== 'finalize' &&
    !createOnly
  ) {
    throw methodNotAllowed();
  }
  const query = request.url.searchParams;
  const verb = verbOf(request.method, name, watchPath || truthy(query.get('watch')), watchPath);
  if (verb === 'create' && name !== undefined && !createOnly) throw methodNotAllowed();
  if (createOnly && verb !== 'create') throw methodNotAllowed();
  if (subresource !== undefined && !createOnly && !['get', 'update', 'patch'].includes(verb)) {
    throw methodNotAllowed();
  }
  if (subresource === 'finalize' && verb !== 'update') throw methodNotAllowed();
  // The all-namespaces path of a namespaced resource only serves list and watch.
  if (info.namespaced && namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw methodNotAllowed();
  }
  if (!info.verbs.includes(verb)) throw methodNotAllowed();
  return {
    isResourceRequest: true,
    verb,
    apiGroup,
    apiVersion,
    resource,
    subresource,
    namespace: info.namespaced ? namespace : undefined,
    name,
    query,
    user: request.user,
    path,
    info,
  };
}

function verbOf(
  method: string,
  name: string | undefined,
  watch: boolean,
  watchPath: boolean,
): Verb {
  switch (method) {
    case 'GET':
    case 'HEAD':
      // kube-apiserver honours ?watch only on collections: a named GET answers the object even with it
      // (only the deprecated /watch/ path prefix watches one object).
      if (watchPath || (watch && name === undefined)) return 'watch';
      return name === undefined ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      if (name === undefined) throw methodNotAllowed();
      return 'update';
    case 'PATCH':
      if (name === undefined) throw methodNotAllowed();
      return 'patch';
    case 'DELETE':
      return name === undefined ? 'deletecollection' : 'delete';
    default:
      throw methodNotAllowed();
  }
}
