// The RFC 6902 JSON Patch a mutating webhook answers with: the operations that turn the request's object into the
// object the handler returned. Objects are compared key by key; arrays of equal length element by element, arrays
// whose length changed are replaced whole (no index shifting, so no remove/add ordering to get wrong).

/** A JSON value as `JSON.parse` gives it. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** One RFC 6902 operation of the kinds {@link createJsonPatch} emits. */
export type JsonPatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'replace'; readonly path: string; readonly value: JsonValue };

/**
 * The RFC 6901 reference token of `key`: `~` becomes `~0` and `/` becomes `~1` (in that order, so `~1` in a key
 * stays distinguishable from `/`).
 *
 * @example
 * ```ts
 * escapeJsonPointerToken('example.com/team'); // 'example.com~1team'
 * ```
 */
export function escapeJsonPointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The JSON Patch (RFC 6902) that turns `from` into `to`, both JSON values (what `JSON.parse` returns).
 *
 * - Objects are diffed by key: `remove` for a key only in `from`, `add` for a key only in `to`, recursion for a key
 *   in both whose values differ.
 * - Arrays of the same length are diffed by index; an array whose length changed is replaced whole (one
 *   `replace`), which keeps every path valid whatever the order the operations are applied in.
 * - Anything else that differs (a number, a string, a type change) is one `replace`; a change of the whole
 *   document is a `replace` at the root path `''`.
 *
 * Equal inputs give `[]`. Paths escape `~` and `/` in keys as RFC 6901 says.
 *
 * @example
 * ```ts
 * const patch = createJsonPatch({ metadata: { labels: { a: '1' } } }, { metadata: { labels: { a: '1', 'x/y': '2' } } });
 * // [{ op: 'add', path: '/metadata/labels/x~1y', value: '2' }]
 * ```
 */
export function createJsonPatch(from: JsonValue, to: JsonValue): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  diff(from, to, '', operations);
  return operations;
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const hasOwn = (object: object, key: string): boolean => Object.hasOwn(object, key);

function diff(from: JsonValue, to: JsonValue, path: string, out: JsonPatchOperation[]): void {
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      const child = `${path}/${escapeJsonPointerToken(key)}`;
      if (!hasOwn(to, key)) out.push({ op: 'remove', path: child });
      else diff(from[key] as JsonValue, to[key] as JsonValue, child, out);
    }
    for (const key of Object.keys(to)) {
      if (!hasOwn(from, key)) {
        out.push({
          op: 'add',
          path: `${path}/${escapeJsonPointerToken(key)}`,
          value: to[key] as JsonValue,
        });
      }
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    for (let index = 0; index < from.length; index++) {
      diff(from[index] as JsonValue, to[index] as JsonValue, `${path}/${index}`, out);
    }
    return;
  }
  if (!jsonEqual(from, to)) out.push({ op: 'replace', path, value: to });
}

/** Deep equality of two JSON values (key order ignored). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => jsonEqual(item, b[index] as JsonValue))
    );
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every(
      (key) => hasOwn(b, key) && jsonEqual(a[key] as JsonValue, b[key] as JsonValue),
    );
  }
  return false;
}
