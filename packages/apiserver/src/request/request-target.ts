// A request's target as kube-apiserver reads it: Go's net/http keeps the path as sent (no dot-segment
// removal, no merging of slashes: only an http.ServeMux cleans paths, and kube-apiserver routes without
// one) and url.Parse percent-decodes it, `%2F` included. WHATWG URL parsing (`new URL`) instead resolves
// `.` and `..` segments, `%2e` spellings included, so `DELETE .../configmaps/..` would address the
// Namespace: the server never builds its request paths that way.

/** What the chain and the handlers read of a request's target. A `URL` is one (for in-process requests). */
export interface RequestTarget {
  /** The path, percent-decoded as Go's `url.URL.Path` is, with `.` and `..` segments and empty segments kept. */
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
}

/**
 * Parse an HTTP request target (origin form `/path?query`; the absolute form `http://host/path?query`
 * too) without resolving dot segments: the pathname of `/api/v1/namespaces/ns/configmaps/..?watch=1` is
 * `/api/v1/namespaces/ns/configmaps/..`. Internal to the server (not exported by the package).
 */
export function parseRequestTarget(target: string): RequestTarget {
  let rest = target;
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(rest);
  if (absolute !== null) rest = rest.slice(absolute[0].length);
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  const rawPath = question >= 0 ? rest.slice(0, question) : rest;
  const query = question >= 0 ? rest.slice(question + 1) : '';
  const path = rawPath === '' ? '/' : rawPath;
  return { pathname: unescapePath(path), searchParams: new URLSearchParams(query) };
}

/**
 * Go's `url.PathUnescape`: every `%XX` becomes its byte. A malformed escape is left as sent (Go refuses
 * the request with 400; Node's parser lets it through, and no served name can hold a `%` anyway).
 */
function unescapePath(path: string): string {
  if (!path.includes('%')) return path;
  const bytes: number[] = [];
  let index = 0;
  while (index < path.length) {
    const hex = path.slice(index + 1, index + 3);
    if (path[index] === '%' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      index += 3;
      continue;
    }
    const codePoint = path.codePointAt(index) ?? 0;
    const char = String.fromCodePoint(codePoint);
    bytes.push(...Buffer.from(char, 'utf8'));
    index += char.length;
  }
  return Buffer.from(bytes).toString('utf8');
}
