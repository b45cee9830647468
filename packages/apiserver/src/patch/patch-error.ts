// The error every PATCH format throws, and the JSON helpers they share.
/** A patch kube-apiserver would refuse; `status` is the HTTP code it answers with, `message` its wording. */
export class PatchError extends Error {
  /** 400 for a malformed patch document, 422 when it cannot be applied, 409 for a conflict. */
  readonly status: 422 | 400 | 409;
  constructor(status: 422 | 400 | 409, message: string) {
    super(message);
    this.name = 'PatchError';
    this.status = status;
  }
}

/** A JSON object. */
export type JsonObject = { [key: string]: unknown };

/** True for a JSON object (not null, not an array). */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A deep copy (undefined stays undefined). */
export const clone = <T>(value: T): T => (value === undefined ? value : structuredClone(value));

/** Deep JSON equality (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => jsonEqual(item, b[index]))
    );
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}
