// Names that go into a request path (apimachinery's path.IsValidPathSegmentName, checked by client-go's
// rest.Request.Name / Namespace / SubResource before anything is sent).

const FORBIDDEN_NAMES = ['.', '..'];
const FORBIDDEN_PARTS = ['/', '%'];
/** At most this many characters of a refused value are quoted in a message. */
const QUOTED_CHARS = 100;

/**
 * Why `value` cannot be one segment of a request path, in apimachinery's words (`may not be '..'`,
 * `may not contain '/'`), or `undefined` when it can. A `.` or `..` segment would address the parent
 * (`delete('victim', '..')` is a DELETE of the Namespace `victim`), a `/` another path and a `%`
 * an escaped one: client-go refuses all of them before sending. The empty string passes here: whether
 * a part may be empty depends on the part (see {@link checkPathSegment}).
 *
 * @example
 * ```ts
 * pathSegmentProblem('..'); // "may not be '..'"
 * pathSegmentProblem('web-1'); // undefined
 * ```
 */
export function pathSegmentProblem(value: string): string | undefined {
  const problems: string[] = [];
  for (const name of FORBIDDEN_NAMES) {
    if (value === name) problems.push(`may not be '${name}'`);
  }
  for (const part of FORBIDDEN_PARTS) {
    if (value.includes(part)) problems.push(`may not contain '${part}'`);
  }
  return problems.length === 0 ? undefined : problems.join(', ');
}

/**
 * `value` when it is a non-empty string that can be one request path segment; else a TypeError
 * naming `where` (the call), `what` (`name`, `namespace`, `subresource`, ...) and the value, as
 * client-go's `invalid resource name "..": [may not be '..']`.
 *
 * @example
 * ```ts
 * checkPathSegment('web-1', 'name', 'Client(pods).get'); // 'web-1'
 * checkPathSegment('..', 'name', 'Client(pods).get'); // TypeError: Client(pods).get: invalid name "..": may not be '..'
 * ```
 */
export function checkPathSegment(value: unknown, what: string, where: string): string {
  if (typeof value !== 'string') {
    throw new TypeError(`${where}: ${what} must be a string, got ${describe(value)}`);
  }
  if (value === '') throw new TypeError(`${where}: ${what} must not be empty`);
  const problem = pathSegmentProblem(value);
  if (problem !== undefined) {
    throw new TypeError(`${where}: invalid ${what} ${quote(value)}: ${problem}`);
  }
  return value;
}

function quote(value: string): string {
  return value.length > QUOTED_CHARS
    ? `${JSON.stringify(value.slice(0, QUOTED_CHARS))}… (${value.length} characters)`
    : JSON.stringify(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
