// The resource a client-node informer path names: `/api/v1/namespaces/default/pods`, `/api/v1/pods`,
// `/apis/apps/v1/namespaces/x/deployments`, `/apis/apps/v1/deployments`.

/**
 * What a watch path of `makeInformer` names: a group, version and plural resource, and a namespace when it is
 * a namespace's collection.
 *
 * @example
 * ```ts
 * const target = parseWatchPath('/apis/apps/v1/namespaces/default/deployments');
 * // { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'default' }
 * ```
 */
export interface WatchPath {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
}

/**
 * Parse a collection path as client-node's `makeInformer` takes it. A path with a query, a name after the
 * resource, or any other shape throws a TypeError quoting it (it holds no secret: it is a URL path).
 *
 * @example
 * ```ts
 * parseWatchPath('/api/v1/pods'); // { group: '', version: 'v1', resource: 'pods' }
 * ```
 */
export function parseWatchPath(path: string): WatchPath {
  if (typeof path !== 'string') {
    throw new TypeError(`makeInformer: path must be a string, got ${typeof path}`);
  }
  const fail = (): never => {
    throw new TypeError(
      `makeInformer: path must be a collection (/api/<version>/[namespaces/<namespace>/]<resource> or /apis/<group>/<version>/[namespaces/<namespace>/]<resource>), got ${JSON.stringify(path.slice(0, 200))}`,
    );
  };
  if (path.includes('?') || path.includes('#')) fail();
  const parts = path.split('/').filter((part) => part !== '');
  let group = '';
  let rest: string[];
  if (parts[0] === 'api') rest = parts.slice(1);
  else if (parts[0] === 'apis' && parts.length > 1) {
    group = parts[1] as string;
    rest = parts.slice(2);
  } else return fail();
  const [version, ...tail] = rest;
  if (version === undefined) return fail();
  if (tail.length === 1) return { group, version, resource: decode(tail[0] as string, fail) };
  if (tail.length === 3 && tail[0] === 'namespaces') {
    return {
      group,
      version,
      resource: decode(tail[2] as string, fail),
      namespace: decode(tail[1] as string, fail),
    };
  }
  return fail();
}

function decode(segment: string, fail: () => never): string {
  try {
    const decoded = decodeURIComponent(segment);
    if (decoded === '' || decoded === '.' || decoded === '..' || decoded.includes('/')) fail();
    return decoded;
  } catch {
    return fail();
  }
}
