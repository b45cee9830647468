// Small helpers for the plain-JSON objects the server handles (decoded bodies, stored objects).

/** A JSON object. */
export type Json = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `object.metadata`, created empty when absent so callers can write to it. */
export function metaOf(object: Json): Json {
  if (!isRecord(object.metadata)) object.metadata = {};
  return object.metadata as Json;
}

/** `value` when it is a string. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** JSON with sorted keys, for "did anything change" comparisons. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The value at a dotted path (`spec.replicas`), undefined when any step is missing. */
export function getPath(object: unknown, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}

/** Set the value at a dotted path, creating the objects on the way. */
export function setPath(object: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = object;
  for (const part of parts.slice(0, -1)) {
    if (!isRecord(current[part])) current[part] = {};
    current = current[part] as Json;
  }
  current[parts[parts.length - 1]!] = value;
}

/** A query flag as kube-apiserver's parameter codec reads a bool. */
export function truthy(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/** The JSON type name Go's decoder prints in "cannot unmarshal X into ..." errors. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
