// What an authorizer decides on: kube-apiserver's authorizer.Attributes, derived from the request the way
// its RequestInfoFactory does (k8s.io/apiserver pkg/endpoints/request/requestinfo.go), before any routing:
// a request is authorized even when its resource does not exist, so a denied user sees 403, not 404.
import type { UserInfo } from '../auth.ts';

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

const namespaceSubresources = new Set(['status', 'finalize']);

/** Go's strconv.ParseBool, which decodes `?watch=`. */
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** The name a field selector pins with `metadata.name=<name>` (or `==`), as RequiresExactMatch finds it. */
function exactName(fieldSelector: string | null): string | undefined {
  if (fieldSelector === null) return undefined;
  for (const term of fieldSelector.split(',')) {
    const match = /^metadata\.name(==|=)(.*)$/.exec(term.trim());
    if (match === null) continue;
    const name = match[2]!;
    // path.IsValidPathSegmentName: a name that could not be a URL segment is not used.
    if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined;
    return name;
  }
  return undefined;
}

/** The authorization attributes of a request, as kube-apiserver's request-info filter derives them. */
export function requestAttributes(
  method: string,
  url: URL,
  user: UserInfo,
): AuthorizationAttributes {
  const nonResource: NonResourceAttributes = {
    user,
    verb: method.toLowerCase(),
    path: url.pathname,
  };
  let parts = url.pathname.split('/').filter((part) => part !== '');
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  let group = '';
  if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource;
    group = parts[1]!;
    parts = parts.slice(2);
  } else {
    parts = parts.slice(1);
  }
  const version = parts[0]!;
  parts = parts.slice(1);
  let verb: string;
  if ((parts[0] === 'watch' || parts[0] === 'proxy') && parts.length >= 2) {
    verb = parts[0];
    parts = parts.slice(1);
  } else {
    verb =
      (
        {
          POST: 'create',
          GET: 'get',
          HEAD: 'get',
          PUT: 'update',
          PATCH: 'patch',
          DELETE: 'delete',
        } as Record<string, string>
      )[method] ?? '';
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
  }
  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts.length >= 3 && verb !== 'proxy' ? parts[2]! : '';
  if (name === '' && verb === 'get') {
    const watch = url.searchParams.get('watch');
    verb = watch !== null && parseBool(watch) === true ? 'watch' : 'list';
    if (watch !== null && parseBool(watch) === undefined) {
      // An undecodable query falls back to list, or watch when ?watch= is anything but false.
      verb = watch.toLowerCase() === 'false' || watch === '0' ? 'list' : 'watch';
    } else {
      name = exactName(url.searchParams.get('fieldSelector')) ?? '';
    }
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { user, verb, group, version, resource, subresource, namespace, name };
}
