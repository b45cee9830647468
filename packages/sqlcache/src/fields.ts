// Field paths and their values: which column an indexed field fills and what text it holds (lasso's
// listoption_indexer.go getField and its callers).

/**
 * One step of a field path: a map key or an array index.
 *
 * @example
 * ```ts
 * const segments: FieldSegment[] = parseFieldPath('spec.containers[0].image');
 * ```
 */
export type FieldSegment = { readonly key: string } | { readonly index: number };

/**
 * A value a computed field may return; stored as text like a field read from the object.
 *
 * @example
 * ```ts
 * const ready = (pod: KubeObject): FieldValue => pod.metadata?.labels?.ready === 'true';
 * ```
 */
export type FieldValue = string | number | boolean | null | undefined | readonly string[];

const simpleKey = /^[A-Za-z0-9_-]+$/;

/**
 * Parse a field path: dot-separated keys, `[key]` for a key containing dots or slashes
 * (`metadata.labels[app.kubernetes.io/name]`) and `[N]` for an array index (`spec.containers[0].image`).
 * Throws a TypeError naming the path when it is malformed.
 *
 * @example
 * ```ts
 * parseFieldPath('metadata.annotations[example.com/owner]');
 * // [{ key: 'metadata' }, { key: 'annotations' }, { key: 'example.com/owner' }]
 * ```
 */
export function parseFieldPath(path: string): FieldSegment[] {
  if (typeof path !== 'string' || path === '') {
    throw new TypeError(`field path must be a non-empty string, got ${JSON.stringify(path)}`);
  }
  const segments: FieldSegment[] = [];
  let i = 0;
  let expectKey = true;
  while (i < path.length) {
    const char = path[i];
    if (char === '[') {
      const end = path.indexOf(']', i + 1);
      if (end < 0 || end === i + 1) throw malformed(path);
      const inner = path.slice(i + 1, end);
      segments.push(/^\d+$/.test(inner) ? { index: Number(inner) } : { key: inner });
      i = end + 1;
      expectKey = false;
      continue;
    }
    if (char === '.') {
      if (expectKey) throw malformed(path);
      i++;
      expectKey = true;
      continue;
    }
    if (!expectKey) throw malformed(path);
    let end = i;
    while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
    segments.push({ key: path.slice(i, end) });
    i = end;
    expectKey = false;
  }
  if (expectKey) throw malformed(path);
  return segments;
}

function malformed(path: string): TypeError {
  return new TypeError(
    `malformed field path ${JSON.stringify(path)}: use a.b, a[key.with.dots] and a[0]`,
  );
}

/**
 * The canonical spelling of a path: simple keys dotted, other keys and indices in brackets. Two spellings of
 * one field (`metadata.labels.app`, `metadata.labels[app]`) name the same column.
 *
 * @example
 * ```ts
 * canonicalFieldPath('metadata.labels[app]'); // 'metadata.labels.app'
 * ```
 */
export function canonicalFieldPath(path: string | readonly FieldSegment[]): string {
  const segments = typeof path === 'string' ? parseFieldPath(path) : path;
  let out = '';
  for (const segment of segments) {
    if ('index' in segment) out += `[${segment.index}]`;
    else if (simpleKey.test(segment.key)) out += out === '' ? segment.key : `.${segment.key}`;
    else out += `[${segment.key}]`;
  }
  return out;
}

/**
 * The text stored for `segments` of `object`: missing and null give `""`; strings, numbers and booleans their
 * text; an array of scalars is joined with `|`; a last key over an array of maps collects that key from every
 * element. Throws a TypeError for a map or a nested array (the write is cancelled).
 */
export function extractField(object: unknown, segments: readonly FieldSegment[]): string {
  let current: unknown = object;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as FieldSegment;
    if (current === undefined || current === null) return '';
    if ('index' in segment) {
      current = Array.isArray(current) ? current[segment.index] : undefined;
      continue;
    }
    if (Array.isArray(current)) {
      // lasso: a last segment over an array of maps collects that key from every element.
      if (i !== segments.length - 1) return '';
      const maps = current.filter(
        (element) => typeof element === 'object' && element !== null && !Array.isArray(element),
      ) as Record<string, unknown>[];
      if (maps.length === 0) return '';
      return fieldText(
        maps.map((element) =>
          Object.hasOwn(element, segment.key) ? element[segment.key] : undefined,
        ),
      );
    }
    if (typeof current !== 'object') return '';
    current = Object.hasOwn(current, segment.key)
      ? (current as Record<string, unknown>)[segment.key]
      : undefined;
  }
  return fieldText(current);
}

/** The stored text of a field value (see {@link extractField}). */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      break;
  }
  if (Array.isArray(value)) {
    return value
      .map((element) => {
        if (element === undefined || element === null) return '';
        if (typeof element === 'object') throw unsupported(element);
        return String(element);
      })
      .join('|');
  }
  throw unsupported(value);
}

function unsupported(value: unknown): TypeError {
  return new TypeError(
    `an indexed field holds ${Array.isArray(value) ? 'a nested array' : typeof value}; only scalars and arrays of scalars can be indexed`,
  );
}

/** The label key of a `metadata.labels[key]` / `metadata.labels.key` path, or undefined for another field. */
export function labelKeyOf(segments: readonly FieldSegment[]): string | undefined {
  if (segments.length !== 3) return undefined;
  const [first, second, third] = segments as [FieldSegment, FieldSegment, FieldSegment];
  if (!('key' in first) || first.key !== 'metadata') return undefined;
  if (!('key' in second) || second.key !== 'labels') return undefined;
  return 'key' in third ? third.key : undefined;
}
