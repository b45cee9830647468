// CRD conversion by hub and spokes (controller-runtime's conversion.Hub / Convertible idea): every version converts
// to and from one hub version, so n versions need n-1 pairs of functions instead of n*(n-1).
import type { KubeObject } from '@lasso/client';

/** The two functions of a spoke version: to the hub and back. */
export interface SpokeConversion {
  /** The object of this version (a copy of the request's) as the hub version. */
  toHub(object: KubeObject): KubeObject | Promise<KubeObject>;
  /** The hub object (a copy) as this version. */
  fromHub(object: KubeObject): KubeObject | Promise<KubeObject>;
}

/** Options of {@link createConversion}. */
export interface ConversionOptions {
  /** The hub version (e.g. `v2`): the one every other converts through; usually the storage version. */
  hub: string;
  /** One entry per other served version. */
  spokes: Readonly<Record<string, SpokeConversion>>;
}

/** The conversion of one kind between its versions: what `WebhookServer.conversion` serves. */
export interface Conversion {
  readonly group: string;
  readonly kind: string;
  readonly hub: string;
  /** The hub and every spoke version. */
  readonly versions: readonly string[];
  /**
   * `object` (of any of {@link versions}) as `desiredAPIVersion`: through the hub, with `apiVersion` set and
   * `metadata` kept as it came except `labels` and `annotations` (what kube-apiserver accepts back). Throws a
   * `TypeError` for a group, kind or version this conversion does not know.
   */
  convert(object: KubeObject, desiredAPIVersion: string): Promise<KubeObject>;
}

function splitApiVersion(apiVersion: unknown, what: string): { group: string; version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    throw new TypeError(
      `${what} must be a non-empty apiVersion, got ${JSON.stringify(apiVersion)}`,
    );
  }
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The conversion of the kind `kind.kind` of group `kind.group` between its versions, by hub and spokes.
 *
 * **Round-trip rule**: each spoke must be lossless both ways, `fromHub(toHub(x))` equal to `x` for an object of
 * the spoke version and `toHub(fromHub(h))` equal to `h` for a hub object; a field a version has no place for is
 * kept in an annotation. Then every A -> B -> A conversion gives back A, which kube-apiserver relies on (it stores
 * one version and serves all). Test it with {@link Conversion.convert} on your objects.
 *
 * Throws a `TypeError` when the group, kind or a version is not a non-empty string or the hub is also a spoke.
 *
 * @example
 * ```ts
 * // v1 has spec.size (a number); v2, the hub, has spec.resources.size (a string).
 * const widgets = createConversion({ group: 'example.com', kind: 'Widget' }, {
 *   hub: 'v2',
 *   spokes: {
 *     v1: {
 *       toHub: (o) => ({ ...o, spec: { resources: { size: String((o.spec as { size: number }).size) } } }),
 *       fromHub: (o) => ({ ...o, spec: { size: Number((o.spec as { resources: { size: string } }).resources.size) } }),
 *     },
 *   },
 * });
 * const v2 = await widgets.convert({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { size: 3 } }, 'example.com/v2');
 * ```
 */
export function createConversion(
  kind: { readonly group: string; readonly kind: string },
  options: ConversionOptions,
): Conversion {
  if (typeof kind?.group !== 'string')
    throw new TypeError('createConversion: kind.group must be a string');
  if (typeof kind.kind !== 'string' || kind.kind === '') {
    throw new TypeError('createConversion: kind.kind must be a non-empty string');
  }
  const hub = options?.hub;
  if (typeof hub !== 'string' || hub === '') {
    throw new TypeError('createConversion: options.hub must be a non-empty string');
  }
  const spokes = new Map<string, SpokeConversion>();
  for (const [version, spoke] of Object.entries(options.spokes ?? {})) {
    if (version === hub)
      throw new TypeError(`createConversion: options.spokes.${version} is the hub version`);
    if (typeof spoke?.toHub !== 'function' || typeof spoke.fromHub !== 'function') {
      throw new TypeError(
        `createConversion: options.spokes.${version} must have toHub and fromHub functions`,
      );
    }
    spokes.set(version, spoke);
  }
  const group = kind.group;
  const apiVersionOf = (version: string): string =>
    group === '' ? version : `${group}/${version}`;
  const spokeOf = (version: string, what: string): SpokeConversion => {
    const spoke = spokes.get(version);
    if (spoke === undefined) {
      throw new TypeError(
        `${what} ${apiVersionOf(version)} is not a version of ${kind.kind} this webhook converts`,
      );
    }
    return spoke;
  };
  return Object.freeze({
    group,
    kind: kind.kind,
    hub,
    versions: Object.freeze([hub, ...spokes.keys()]),
    async convert(object: KubeObject, desiredAPIVersion: string): Promise<KubeObject> {
      const from = splitApiVersion(object?.apiVersion, 'object.apiVersion');
      const to = splitApiVersion(desiredAPIVersion, 'desiredAPIVersion');
      if (from.group !== group || to.group !== group || object.kind !== kind.kind) {
        throw new TypeError(
          `cannot convert ${String(object.kind)} ${object.apiVersion} to ${desiredAPIVersion}: this webhook converts ${kind.kind} of group ${JSON.stringify(group)}`,
        );
      }
      const copy = structuredClone(object);
      if (from.version === to.version) return copy;
      // Check both ends before running user code, so an unknown version fails the same way whichever it is.
      const fromSpoke =
        from.version === hub ? undefined : spokeOf(from.version, 'the object version');
      const toSpoke = to.version === hub ? undefined : spokeOf(to.version, 'the desired version');
      const hubObject = fromSpoke === undefined ? copy : await fromSpoke.toHub(copy);
      const converted =
        toSpoke === undefined ? hubObject : await toSpoke.fromHub(structuredClone(hubObject));
      return finish(object, converted, desiredAPIVersion);
    },
  });
}

// kube-apiserver rejects a converted object whose metadata changed other than in labels and annotations, or
// whose kind changed; set them here, so a converter that forgot to copy them still answers correctly.
function finish(original: KubeObject, converted: KubeObject, apiVersion: string): KubeObject {
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) {
    throw new TypeError('a conversion function must return an object');
  }
  const result = JSON.parse(JSON.stringify(converted)) as KubeObject;
  const metadata = { ...(structuredClone(original.metadata) ?? {}) };
  const labels = result.metadata?.labels;
  const annotations = result.metadata?.annotations;
  delete metadata.labels;
  delete metadata.annotations;
  if (labels !== undefined && labels !== null) metadata.labels = labels;
  if (annotations !== undefined && annotations !== null) metadata.annotations = annotations;
  return { ...result, apiVersion, kind: original.kind as string, metadata };
}
