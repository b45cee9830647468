// How Go writes a JSON document decoded into interface{} values, as kube's messages embed it: fmt's `%v`
// (`map[a:1 b:[x y]]`) and encoding/json's compact form. One place, so every message prints alike.
import { byteOrder, sortKeysDeep } from './key-order.ts';
import { isRecord } from './objects.ts';

/** `value` as Go's fmt prints a decoded JSON value with `%+v` (`map[a:1 b:[x y]]`). */
export function goValueString(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValueString).join(' ')}]`;
  if (isRecord(value)) {
    const entries = Object.keys(value)
      .sort(byteOrder)
      .map((key) => `${key}:${goValueString(value[key])}`);
    return `map[${entries.join(' ')}]`;
  }
  if (typeof value === 'number' && !Number.isInteger(value)) {
    // strconv's shortest 'g' form: an exponent from 1e21 up and below 1e-4, with a signed two-digit exponent.
    const text = String(value);
    return text.replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(value);
}

/** `value` as Go's encoding/json writes a map-decoded document: compact, keys sorted, HTML-safe. */
export function goCompactJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value))
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}
