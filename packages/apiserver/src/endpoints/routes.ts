// The routes kube-apiserver's API installer registers for each served resource, checked against a
// classified request (request-info.ts) after authorization: which resource paths exist (404 otherwise)
// and which methods each takes (405 otherwise).

import { methodNotAllowed, notFound, pathNotFound } from '../apimachinery/status.ts';
import type { ApiResult } from '../registry/server-context.ts';
import type { RequestInfo, ResourceRequestInfo, Verb } from '../request/request-info.ts';
import { builtinResources } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import { createOnlyResource } from '../strategies/create-only.ts';

/**
 * What kube-apiserver answers for a path no server of its delegation chain (aggregator, kube-apiserver,
 * apiextensions) serves: Go's `http.NotFound`, plain text and no Status, up to 1.37 (1.20-1.22 listed the
 * served paths instead for a path outside /apis, until kubernetes#104748 ended the chain with a handler
 * that answers this in 1.23). kubernetes#138219 makes it a 404 Status in 1.38, which is not released yet.
 */
export const pageNotFound: ApiResult = {
  type: 'raw',
  code: 404,
  contentType: 'text/plain; charset=utf-8',
  headers: { 'X-Content-Type-Options': 'nosniff' },
  body: '404 page not found\n',
};

const builtinGroups = new Set(builtinResources().map((info) => info.group));

/**
 * Whether `/apis/{group}[/{version}[/{resource}...]]` falls through every server of kube-apiserver's chain:
 * its group is none of the built-in APIs' (those answer a 404 Status from go-restful) and no custom
 * resource serves its group, version and resource (apiextensions then hands the request on). Without a
 * version or resource, the path is discovery: served while a custom resource serves the group (version).
 */
export function unservedApiPath(
  registry: Registry,
  group: string,
  version?: string,
  resource?: string,
): boolean {
  if (builtinGroups.has(group)) return false;
  if (version !== undefined && resource !== undefined) {
    return registry.lookup(group, version, resource) === undefined;
  }
  const served = registry.groups().find((candidate) => candidate.name === group);
  return served === undefined || (version !== undefined && !served.versions.includes(version));
}

/**
 * The route of a resource request (`info.isResourceRequest`): the served resource its path names and
 * the handler verb its method selects. Throws the 404 (no such path) or 405 (no such method on it)
 * kube-apiserver answers.
 */
export function routeResource(
  info: RequestInfo,
  method: string,
  registry: Registry,
): ResourceRequestInfo {
  const { parts, apiGroup, apiVersion, resource } = info;
  // No proxy routes are installed any more.
  if (info.verb === 'proxy' || resource === '') throw pathNotFound();
  const namespace = pathNamespace(info);
  const name = parts[1];
  const subresource = parts[2];
  const served = registry.lookup(apiGroup, apiVersion, resource);
  if (served === undefined) throw pathNotFound();
  if (!served.namespaced && namespace !== undefined) throw pathNotFound();
  if (served.namespaced && namespace === undefined && name !== undefined) throw pathNotFound();
  if (
    subresource !== undefined &&
    (parts.length > 3 || !served.subresources.includes(subresource))
  ) {
    // apiextensions' handler answers a subresource its CRD does not enable (or a longer path) as the
    // object not found; built-in routes are at most resource, name and subresource.
    if (!served.builtin && name !== undefined) throw notFound(served, name);
    throw pathNotFound();
  }
  // Create-only subresources (TokenRequest, Eviction) take POST alone, a pod's log GET alone;
  // binding, proxy and ephemeralcontainers are listed by discovery but answer 405.
  const createOnly =
    subresource !== undefined && createOnlyResource(apiGroup, resource, subresource) !== undefined;
  if (
    subresource !== undefined &&
    subresource !== 'status' &&
    subresource !== 'scale' &&
    subresource !== 'finalize' &&
    !(subresource === 'log' && apiGroup === '' && resource === 'pods') &&
    !createOnly
  ) {
    throw methodNotAllowed();
  }
  const verb = handlerVerb(info, method, name);
  if (verb === 'create' && name !== undefined && !createOnly) throw methodNotAllowed();
  if (createOnly && verb !== 'create') throw methodNotAllowed();
  if (subresource !== undefined && !createOnly && !['get', 'update', 'patch'].includes(verb)) {
    throw methodNotAllowed();
  }
  if (subresource === 'finalize' && verb !== 'update') throw methodNotAllowed();
  // A pod's log is read alone (handlers/get.ts hands it to pod-log.ts).
  if (subresource === 'log' && verb !== 'get') throw methodNotAllowed();
  // The all-namespaces path of a namespaced resource only serves list and watch.
  if (served.namespaced && namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw methodNotAllowed();
  }
  if (!served.verbs.includes(verb)) throw methodNotAllowed();
  return {
    isResourceRequest: true,
    verb,
    apiGroup,
    apiVersion,
    resource,
    subresource,
    namespace,
    name,
    query: info.query,
    path: info.path,
    info: served,
  };
}

/**
 * The namespace a path scopes its resource to (`.../namespaces/{namespace}/{resource}...`). The
 * RequestInfo of `/api/v1/namespaces/{name}` names that namespace too, but as the object, not as a
 * scope: the path is scoped when `namespaces/{namespace}` stands between the version (and a verb such
 * as `watch`) and the resource's parts.
 */
function pathNamespace(info: RequestInfo): string | undefined {
  const segments = info.path.replace(/^\/+|\/+$/g, '').split('/');
  const versionEnd = info.apiPrefix === 'api' ? 2 : 3;
  // What stands between: nothing, the verb (1), namespaces/{namespace} (2) or both (3).
  return segments.length - versionEnd - info.parts.length >= 2 ? info.namespace : undefined;
}

/** The handler serving `method` on the path: its RequestInfo verb, with the path's name alone deciding. */
function handlerVerb(info: RequestInfo, method: string, name: string | undefined): Verb {
  // Reads are installed for GET alone: HEAD classifies as a read (authorization) but has no route, and
  // the /watch/ paths take no other method.
  if (method !== 'GET' && ['get', 'list', 'watch'].includes(info.verb)) throw methodNotAllowed();
  switch (info.verb) {
    case 'get':
    case 'list':
    case 'watch':
    case 'create':
    case 'delete':
    case 'deletecollection':
      return info.verb;
    case 'update':
    case 'patch':
      // No collection route takes PUT or PATCH.
      if (name === undefined) throw methodNotAllowed();
      return info.verb;
    default:
      throw methodNotAllowed();
  }
}
