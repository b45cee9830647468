// Argument checks shared by the factories: each throws a TypeError or RangeError naming the caller and the option.
import type { GroupVersionResource } from '@lasso/client';
import { type KindRef, resolveKindRef } from './kind.ts';
import { gvkKey } from './names.ts';

/** @internal Throws a TypeError naming `where` and the bad field unless `gvr` is a usable GVR. */
export function checkGvr(gvr: unknown, where: string): GroupVersionResource {
  const value = gvr as Partial<GroupVersionResource> | null | undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`${where}: gvr must be { group, version, resource }, got ${String(gvr)}`);
  }
  if (typeof value.group !== 'string') {
    throw new TypeError(`${where}: gvr.group must be a string ('' for the core group)`);
  }
  if (typeof value.version !== 'string' || value.version === '') {
    throw new TypeError(`${where}: gvr.version must be a non-empty string`);
  }
  if (typeof value.resource !== 'string' || value.resource === '') {
    throw new TypeError(`${where}: gvr.resource must be a non-empty string`);
  }
  return { group: value.group, version: value.version, resource: value.resource };
}

/** @internal Throws a TypeError naming `where` unless `namespaced` is a boolean. */
export function checkNamespaced(namespaced: unknown, where: string): boolean {
  // A missing flag would silently make a namespaced resource cluster-scoped.
  if (typeof namespaced !== 'boolean') {
    throw new TypeError(`${where}: namespaced must be true or false, got ${String(namespaced)}`);
  }
  return namespaced;
}

/** @internal Throws a TypeError naming `where` unless `kind` is a non-empty string. */
export function checkKind(kind: unknown, where: string): string {
  if (typeof kind !== 'string' || kind === '') {
    throw new TypeError(`${where}: kind must be a non-empty string, got ${JSON.stringify(kind)}`);
  }
  return kind;
}

/** @internal Throws a TypeError naming `where` unless `options` is an object (a factory's options argument). */
export function checkOptionsObject(options: unknown, where: string): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${where}: options must be an object`);
  }
}

/** @internal Throws a TypeError naming `where` unless `signal` is an AbortSignal. */
export function checkSignal(signal: unknown, where: string): AbortSignal {
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError(`${where}: signal must be an AbortSignal, got ${typeof signal}`);
  }
  return signal;
}

/** @internal Throws a RangeError naming `name` unless `value` is a number of ms >= 0 (Infinity allowed). */
export function checkTimeout(value: unknown, name: string): number {
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new RangeError(`${name} must be a number of ms >= 0, got ${String(value)}`);
  }
  return value;
}

/**
 * @internal Per-kind settings as a map keyed by {@link gvkString}, from any iterable of `[kind, value]` pairs
 * (a `Map` or an array of pairs; the kind in either spelling, or a token). `check` validates each value; the
 * errors name `option`.
 */
export function kindMap<V>(
  entries: Iterable<readonly [KindRef, V]> | undefined,
  option: string,
  check: (value: V, name: string) => void,
): Map<string, V> {
  const map = new Map<string, V>();
  if (entries === undefined) return map;
  if (typeof (entries as Partial<Iterable<unknown>>)?.[Symbol.iterator] !== 'function') {
    throw new TypeError(`${option} must be an iterable of [kind, value] pairs (e.g. a Map)`);
  }
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) {
      throw new TypeError(`${option} must hold [kind, value] pairs`);
    }
    const [kind, value] = entry as readonly [KindRef, V];
    const key = gvkKey(resolveKindRef(kind, option).gvk);
    check(value, `${option}[${key}]`);
    map.set(key, value);
  }
  return map;
}
