// What a request asks for, read from its method and path the way kube-apiserver's RequestInfoFactory
// does (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go), for error messages.
import type { ApiRequest } from '../errors.ts';
import type { QueryParams } from './rest-request.ts';

/** Subresources of a namespace that are not namespaced resources (`/namespaces/x/status`). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * The {@link ApiRequest} of `method` on API path `path`: `/api/<version>/...` or
 * `/apis/<group>/<version>/...`, optionally `namespaces/<ns>/`, then `<resource>[/<name>[/<sub>]]`.
 * A GET is `watch` with `watch=true` (or under the legacy `/watch/` prefix), else `get` with a
 * name and `list` without; a DELETE without a name is `deletecollection`. Any other path is a
 * non-resource request whose verb is the lowercase method.
 */
export function requestInfoFor(
  method: string,
  path: string,
  query: QueryParams | undefined,
): ApiRequest {
  const parts = path.split('/').filter((part) => part !== '');
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    rest = parts.slice(1);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] as string;
    rest = parts.slice(2);
  } else {
    return { verb: method.toLowerCase(), path };
  }
  const version = rest[0] as string;
  rest = rest.slice(1);
  let watch = isTrue(query?.watch);
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (
    rest[0] === 'namespaces' &&
    rest.length > 2 &&
    !NAMESPACE_SUBRESOURCES.has(rest[2] as string)
  ) {
    namespace = decode(rest[1] as string);
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (resource === undefined) return { verb: method.toLowerCase(), path };
  return {
    verb: verbOf(method, name !== undefined, watch),
    path,
    group,
    version,
    resource,
    ...(subresource !== undefined ? { subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name: decode(name) } : {}),
  };
}

function verbOf(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

function isTrue(value: string | number | boolean | undefined): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
