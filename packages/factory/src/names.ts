// GVK / GVR keys and argument checks shared by the three factories. The strings are apimachinery's
// `GroupVersionKind.String()` / `GroupVersionResource.String()`, which lasso uses as map keys and metric labels.
import type { GroupVersionKind, GroupVersionResource } from '@lasso/client';

/**
 * A GVK as apimachinery prints it, e.g. `apps/v1, Kind=Deployment`; the core group prints as
 * `/v1, Kind=ConfigMap` (Go's leading slash kept, so metric labels match lasso's). Keys the results of
 * {@link SharedCacheFactory.waitForCacheSync} and names each controller's workqueue.
 */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/**
 * A GVR as apimachinery prints it, e.g. `apps/v1, Resource=deployments` (core group: `/v1, Resource=configmaps`).
 * The `controller_name` label of the handler metrics of each shared controller.
 */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

/** @internal Throws a TypeError naming `where` and the bad field unless `gvk` is a usable GVK. */
export function checkGvk(gvk: unknown, where: string): GroupVersionKind {
  const value = gvk as Partial<GroupVersionKind> | null | undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`${where}: gvk must be { group, version, kind }, got ${String(gvk)}`);
  }
  if (typeof value.group !== 'string') {
    throw new TypeError(`${where}: gvk.group must be a string ('' for the core group)`);
  }
  if (typeof value.version !== 'string' || value.version === '') {
    throw new TypeError(`${where}: gvk.version must be a non-empty string`);
  }
  if (typeof value.kind !== 'string' || value.kind === '') {
    throw new TypeError(`${where}: gvk.kind must be a non-empty string`);
  }
  return { group: value.group, version: value.version, kind: value.kind };
}

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

/**
 * @internal The GVK of an object from its `apiVersion` and `kind`. Throws a TypeError naming `where` when
 * either is missing or malformed (objects must carry their type: TypeScript has no scheme to look it up).
 */
export function gvkOfObject(object: unknown, where: string): GroupVersionKind {
  const value = object as { apiVersion?: unknown; kind?: unknown } | null | undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`${where}: object must be a Kubernetes object, got ${String(object)}`);
  }
  const { apiVersion, kind } = value;
  const parts = typeof apiVersion === 'string' ? apiVersion.split('/') : [];
  const [first, second] = parts;
  let group: string;
  let version: string;
  if (parts.length === 1 && first) {
    group = '';
    version = first;
  } else if (parts.length === 2 && first && second) {
    group = first;
    version = second;
  } else {
    throw new TypeError(
      `${where}: object.apiVersion must be "version" or "group/version", got ${JSON.stringify(apiVersion)}`,
    );
  }
  return { group, version, kind: checkKind(kind, `${where}: object`) };
}

/** @internal Throws a TypeError naming `where` unless `signal` is an AbortSignal. */
export function checkSignal(signal: unknown, where: string): AbortSignal {
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError(`${where}: signal must be an AbortSignal, got ${typeof signal}`);
  }
  return signal;
}

/**
 * @internal Per-kind settings as a map keyed by {@link gvkString}, from any iterable of `[gvk, value]` pairs
 * (a `Map<GroupVersionKind, V>` or an array of pairs). `check` validates each value; the errors name
 * `option`.
 */
export function kindMap<V>(
  entries: Iterable<readonly [GroupVersionKind, V]> | undefined,
  option: string,
  check: (value: V, name: string) => void,
): Map<string, V> {
  const map = new Map<string, V>();
  if (entries === undefined) return map;
  if (typeof (entries as Partial<Iterable<unknown>>)?.[Symbol.iterator] !== 'function') {
    throw new TypeError(`${option} must be an iterable of [gvk, value] pairs (e.g. a Map)`);
  }
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) {
      throw new TypeError(`${option} must hold [gvk, value] pairs`);
    }
    const [gvk, value] = entry as readonly [GroupVersionKind, V];
    const key = gvkString(checkGvk(gvk, option));
    check(value, `${option}[${key}]`);
    map.set(key, value);
  }
  return map;
}
