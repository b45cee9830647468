// The routes kube-apiserver's API installer registers for each served resource, checked against a
// classified request (request-info.ts) after authorization: which resource paths exist (404 otherwise)
// and which methods each takes (405 otherwise).
import type { Registry } from './registry.ts';
import type { RequestInfo, ResourceRequestInfo, Verb } from './request-info.ts';
import { methodNotAllowed, pathNotFound } from './status.ts';
import { createOnlyResource } from './strategies/create-only.ts';

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
  // No proxy routes are installed any more; resources, names and subresources are at most three segments.
  if (info.verb === 'proxy' || resource === '' || parts.length > 3) throw pathNotFound();
  const namespace = pathNamespace(info);
  const name = parts[1];
  const subresource = parts[2];
  const served = registry.lookup(apiGroup, apiVersion, resource);
  if (served === undefined) throw pathNotFound();
  if (!served.namespaced && namespace !== undefined) throw pathNotFound();
  if (served.namespaced && namespace === undefined && name !== undefined) throw pathNotFound();
  if (subresource !== undefined && !served.subresources.includes(subresource)) {
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
    user: info.user,
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
