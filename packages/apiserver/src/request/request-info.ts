// A request classified once, as kube-apiserver's RequestInfoFactory classifies it (k8s.io/apiserver
// pkg/endpoints/request/requestinfo.go): resource or non-resource, verb, group, version, namespace,
// resource, name, subresource. Classification never fails, whatever the path or method: authorization
// reads it first (a denied user sees 403 even for a path that does not exist), and only then does routing
// (endpoints/routes.ts) answer 404 for a path nothing serves and 405 for a method a path does not take.

import {
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from '../apimachinery/selectors.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { RequestTarget } from './request-target.ts';

/** A verb a resource handler serves (handlers/*.ts), as kube's authorizers and audit name it. */
export type Verb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection';

/**
 * What kube's RequestInfo holds for one request, plus its query. Absent values are ''. Who asks is not part
 * of it: the user travels beside it (the `user` of the exchange and of ApiRequest), as kube's request
 * context holds the user (request.WithUser) apart from the RequestInfo (request.WithRequestInfo).
 */
export interface RequestInfo {
  /** True for `/api/{version}/...` and `/apis/{group}/{version}/...` with something after the version. */
  isResourceRequest: boolean;
  /** The URL path as sent. */
  path: string;
  /**
   * Resource requests: the kube verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
   * `deletecollection`, `proxy`), '' for a method no verb stands for. Other requests: the lowercased method.
   */
  verb: string;
  /** `api` or `apis` for resource requests. */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  /** The namespace the path names (for `/api/v1/namespaces/{name}`: that namespace itself). */
  namespace: string;
  resource: string;
  subresource: string;
  /**
   * The object's name: from the path, or for a list or watch from a `metadata.name` field selector
   * (so that RBAC `resourceNames` can allow a list or watch of one object).
   */
  name: string;
  /** The path segments from the resource on: `[resource, name, subresource, ...]`. */
  parts: string[];
  query: URLSearchParams;
}

/**
 * A resource request routing matched to a served resource: what the handlers read. Unlike
 * {@link RequestInfo}, `name` is the path's alone and `verb` is the handler that serves it.
 */
export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: Verb;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string | undefined;
  /** The namespace in the path; undefined for cluster-scoped resources and all-namespaces lists. */
  namespace: string | undefined;
  /** The name in the path; undefined for collections. */
  name: string | undefined;
  query: URLSearchParams;
  path: string;
  /** The served resource the path names. */
  info: ResourceInfo;
}

/** Path words that are verbs (`/api/v1/watch/...`); `proxy` takes no subresource. */
const specialVerbs = new Set(['watch', 'proxy']);

/** Words after `namespaces/{name}/` that are the namespace's subresources rather than a resource in it. */
const namespaceSubresources = new Set(['status', 'finalize']);

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Classify one request (see the file comment). `method` is the upper-case HTTP method. */
export function requestInfo(method: string, url: RequestTarget): RequestInfo {
  const query = url.searchParams;
  const info: RequestInfo = {
    isResourceRequest: false,
    path: url.pathname,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    query,
  };
  let parts = splitPath(url.pathname);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  if (parts[0] === 'apis' && parts.length < 4) return info;
  info.isResourceRequest = true;
  info.apiPrefix = parts[0];
  if (parts[0] === 'apis') {
    info.apiGroup = parts[1]!;
    parts = parts.slice(1);
  }
  info.apiVersion = parts[1]!;
  parts = parts.slice(2);
  // kube fails `/api/v1/watch` with nothing after the verb (its filter answers 500); read as the plain
  // path it is instead, which routing answers 404.
  if (specialVerbs.has(parts[0]!) && parts.length >= 2) {
    info.verb = parts[0]!;
    parts = parts.slice(1);
  } else {
    info.verb = methodVerbs[method] ?? '';
  }
  if (parts[0] === 'namespaces' && parts.length > 1) {
    info.namespace = parts[1]!;
    if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
  }
  info.parts = parts;
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = parts[2]!;
  if (info.name === '' && info.verb === 'get') {
    info.verb = isWatch(query) ? 'watch' : 'list';
    info.name = selectedName(query) ?? '';
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

/** The segments of a path with its leading and trailing slashes dropped (inner empty segments kept). */
function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** `?watch=`: only `0` and `false` (any case) are false, even the empty value is true. */
export function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * The name a list or watch selects with `fieldSelector=metadata.name=<name>` (or `==`), as kube finds
 * it: only when the whole query decodes as ListOptions (both selectors parse, the integer options are
 * integers) and the name could be a path segment.
 */
function selectedName(query: URLSearchParams): string | undefined {
  for (const option of ['limit', 'timeoutSeconds']) {
    const value = query.get(option);
    if (value !== null && !isInt64(value)) return undefined;
  }
  let fields: ReturnType<typeof parseFieldSelector>;
  try {
    parseLabelSelector(query.get('labelSelector') ?? '');
    fields = parseFieldSelector(query.get('fieldSelector') ?? '');
  } catch (error) {
    if (error instanceof SelectorParseError) return undefined;
    throw error;
  }
  // The terms come back sorted, as kube's parser sorts them: the first exact match wins.
  const term = fields.find(({ field, operator }) => field === 'metadata.name' && operator !== '!=');
  if (term === undefined) return undefined;
  const name = term.value;
  if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined;
  return name;
}

/** Go's strconv.ParseInt(value, 10, 64) succeeds. */
function isInt64(value: string): boolean {
  if (!/^[+-]?\d+$/.test(value)) return false;
  const number = BigInt(value);
  return number >= -(2n ** 63n) && number < 2n ** 63n;
}
