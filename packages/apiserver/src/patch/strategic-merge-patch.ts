// Strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch) for the built-in types, driven by a
// table of patchMergeKey / patchStrategy tags.
import { goValueString } from '../apimachinery/go-format.ts';
import { clone, isObject, type JsonObject, jsonEqual, PatchError } from './patch-error.ts';

/**
 * Patch metadata per field path (dotted, list items take the list's path: `spec.containers.ports`).
 * `mergeKey` + `strategy: 'merge'` merges a list of objects by that key; `strategy: 'merge'` without a
 * key merges a list of scalars as a set; `replace` replaces a map whole; lists without an entry are
 * replaced whole (kube's atomic default); `retainKeys` marks where `$retainKeys` is expected.
 */
export type StrategicSchema = {
  [path: string]: { mergeKey?: string; strategy?: 'merge' | 'replace' | 'retainKeys' };
};

const metadataSchema: StrategicSchema = {
  'metadata.finalizers': { strategy: 'merge' },
  'metadata.ownerReferences': { mergeKey: 'uid', strategy: 'merge' },
};

function podSpecSchema(prefix: string): StrategicSchema {
  const schema: StrategicSchema = {
    [`${prefix}.volumes`]: { mergeKey: 'name', strategy: 'merge' },
    [`${prefix}.imagePullSecrets`]: { mergeKey: 'name', strategy: 'merge' },
    [`${prefix}.hostAliases`]: { mergeKey: 'ip', strategy: 'merge' },
    [`${prefix}.topologySpreadConstraints`]: { mergeKey: 'topologyKey', strategy: 'merge' },
    [`${prefix}.schedulingGates`]: { mergeKey: 'name', strategy: 'merge' },
    [`${prefix}.resourceClaims`]: { mergeKey: 'name', strategy: 'merge' },
  };
  for (const containers of ['containers', 'initContainers', 'ephemeralContainers']) {
    const path = `${prefix}.${containers}`;
    schema[path] = { mergeKey: 'name', strategy: 'merge' };
    schema[`${path}.ports`] = { mergeKey: 'containerPort', strategy: 'merge' };
    schema[`${path}.env`] = { mergeKey: 'name', strategy: 'merge' };
    schema[`${path}.volumeMounts`] = { mergeKey: 'mountPath', strategy: 'merge' };
    schema[`${path}.volumeDevices`] = { mergeKey: 'devicePath', strategy: 'merge' };
  }
  return schema;
}

const conditionsSchema: StrategicSchema = {
  'status.conditions': { mergeKey: 'type', strategy: 'merge' },
};

const workloadSchema: StrategicSchema = {
  ...metadataSchema,
  ...podSpecSchema('spec.template.spec'),
  'spec.template.metadata.finalizers': { strategy: 'merge' },
  'spec.template.metadata.ownerReferences': { mergeKey: 'uid', strategy: 'merge' },
  ...conditionsSchema,
};

const builtinSchemas: Readonly<Record<string, StrategicSchema>> = {
  'v1/Pod': {
    ...metadataSchema,
    ...podSpecSchema('spec'),
    ...conditionsSchema,
    'status.podIPs': { mergeKey: 'ip', strategy: 'merge' },
    'status.hostIPs': { mergeKey: 'ip', strategy: 'merge' },
  },
  'v1/ConfigMap': metadataSchema,
  'v1/Secret': metadataSchema,
  'v1/Service': {
    ...metadataSchema,
    'spec.ports': { mergeKey: 'port', strategy: 'merge' },
    ...conditionsSchema,
  },
  'v1/ServiceAccount': { ...metadataSchema, secrets: { mergeKey: 'name', strategy: 'merge' } },
  'v1/Namespace': { ...metadataSchema, ...conditionsSchema },
  'v1/Event': metadataSchema,
  'apps/v1/Deployment': { ...workloadSchema, 'spec.strategy': { strategy: 'retainKeys' } },
  'apps/v1/ReplicaSet': workloadSchema,
  'apps/v1/StatefulSet': workloadSchema,
  'apps/v1/DaemonSet': workloadSchema,
  'coordination.k8s.io/v1/Lease': metadataSchema,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': metadataSchema,
};

/**
 * The strategic-merge metadata of a built-in type (v1 Pod, ConfigMap, Secret, Service,
 * ServiceAccount, Namespace, Event; apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet;
 * coordination.k8s.io/v1 Lease; apiextensions.k8s.io/v1 CustomResourceDefinition), or undefined for
 * anything else: kube-apiserver refuses strategic merge on custom resources with 415.
 */
export function strategicSchemaFor(apiVersion: string, kind: string): StrategicSchema | undefined {
  return builtinSchemas[`${apiVersion}/${kind}`];
}

const directive = '$patch';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList/';
const setElementOrderPrefix = '$setElementOrder/';

const childPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

// kube discards nulls from values it copies in whole (IgnoreUnmatchedNulls on the server).
function discardNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(discardNulls);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== null) result[key] = discardNulls(entry);
  }
  return result;
}

class StrategicMerger {
  readonly #schema: StrategicSchema;
  constructor(schema: StrategicSchema) {
    this.#schema = schema;
  }

  mergeMap(original: JsonObject, patch: JsonObject, path: string): JsonObject {
    if (Object.hasOwn(patch, directive)) {
      const value = patch[directive];
      if (value === 'replace') {
        const { [directive]: _, ...rest } = patch;
        return this.mergeMap({}, rest, path);
      }
      if (value === 'delete') return {};
      throw new PatchError(
        422,
        `unknown patch type: ${String(value)} in map: ${goValueString(patch)}`,
      );
    }
    const pending: JsonObject = { ...patch };
    if (Object.hasOwn(pending, retainKeysDirective)) {
      const retain = pending[retainKeysDirective];
      delete pending[retainKeysDirective];
      if (!Array.isArray(retain)) throw new PatchError(400, 'invalid patch format of retainKeys');
      // Every field the patch sets must be retained, or the patch contradicts itself.
      for (const [key, value] of Object.entries(pending)) {
        if (
          value === null ||
          key.startsWith(deleteFromPrimitiveListPrefix) ||
          key.startsWith(setElementOrderPrefix)
        ) {
          continue;
        }
        if (!retain.includes(key)) throw new PatchError(400, 'invalid patch format of retainKeys');
      }
      for (const key of Object.keys(original)) {
        if (!retain.includes(key)) delete original[key];
      }
    }
    // $setElementOrder/<list>: merge that list here, ordered by the directive.
    for (const key of Object.keys(pending)) {
      if (!key.startsWith(setElementOrderPrefix)) continue;
      const field = key.slice(setElementOrderPrefix.length);
      const order = pending[key];
      delete pending[key];
      if (!Array.isArray(order)) {
        throw new PatchError(400, 'invalid patch format of setElementOrder list');
      }
      const fieldPath = childPath(path, field);
      const patchList = pending[field];
      // Only merged lists have an order to set; elsewhere the directive is tolerated and ignored.
      if (this.#schema[fieldPath]?.strategy !== 'merge') continue;
      if (patchList === null || (patchList !== undefined && !Array.isArray(patchList))) continue;
      delete pending[field];
      const deletionKey = `${deleteFromPrimitiveListPrefix}${field}`;
      const deletions = pending[deletionKey];
      delete pending[deletionKey];
      const originalList = original[field];
      if (!Array.isArray(originalList) && patchList === undefined) continue;
      let base = Array.isArray(originalList) ? originalList : [];
      if (Array.isArray(deletions))
        base = base.filter((item) => !deletions.some((d) => jsonEqual(d, item)));
      original[field] = this.mergeList(base, patchList ?? [], fieldPath, order);
    }
    for (const [rawKey, patchValue] of Object.entries(pending)) {
      if (rawKey.startsWith(deleteFromPrimitiveListPrefix)) {
        const key = rawKey.slice(deleteFromPrimitiveListPrefix.length);
        const current = original[key];
        if (!Array.isArray(current)) continue;
        if (!Array.isArray(patchValue)) {
          throw new PatchError(400, 'invalid patch format of primitive list');
        }
        original[key] = current.filter((item) => !patchValue.some((d) => jsonEqual(d, item)));
        continue;
      }
      const key = rawKey;
      const fieldPath = childPath(path, key);
      if (patchValue === null) {
        delete original[key];
        continue;
      }
      const current = original[key];
      if (isObject(patchValue)) {
        if (this.#schema[fieldPath]?.strategy === 'replace') {
          original[key] = this.mergeMap({}, patchValue, fieldPath);
        } else {
          original[key] = this.mergeMap(isObject(current) ? current : {}, patchValue, fieldPath);
        }
      } else if (Array.isArray(patchValue)) {
        original[key] = this.mergeList(
          Array.isArray(current) ? current : [],
          patchValue,
          fieldPath,
          undefined,
        );
      } else {
        original[key] = clone(patchValue);
      }
    }
    return original;
  }

  mergeList(
    original: unknown[],
    patch: unknown[],
    path: string,
    order: unknown[] | undefined,
  ): unknown[] {
    const meta = this.#schema[path];
    if (meta?.strategy !== 'merge') return discardNulls(clone(patch)) as unknown[];
    if (original.length === 0 && patch.length === 0) return original;
    const mergeKey = meta.mergeKey;
    const isMapList = [...original, ...patch].some(isObject);
    if (!isMapList) {
      const merged: unknown[] = [];
      for (const item of [...original, ...patch]) {
        if (!merged.some((existing) => jsonEqual(existing, item))) merged.push(clone(item));
      }
      return this.#order(merged, order ?? patch, original, (a, b) => jsonEqual(a, b));
    }
    if (mergeKey === undefined) {
      throw new PatchError(422, `cannot merge lists without merge key for ${path}`);
    }
    let base = original;
    const items: JsonObject[] = [];
    let replace = false;
    for (const item of patch) {
      if (!isObject(item)) {
        throw new PatchError(
          422,
          `unable to find api field in struct ${path} for the json field ${JSON.stringify(item)}`,
        );
      }
      if (!Object.hasOwn(item, directive)) {
        items.push(item);
        continue;
      }
      const kind = item[directive];
      if (kind === 'delete') {
        if (!Object.hasOwn(item, mergeKey)) {
          throw new PatchError(
            422,
            `map: ${goValueString(item)} does not contain declared merge key: ${mergeKey}`,
          );
        }
        base = base.filter(
          (entry) => !(isObject(entry) && jsonEqual(entry[mergeKey], item[mergeKey])),
        );
      } else if (kind === 'replace') {
        replace = true;
      } else if (kind === 'merge') {
        throw new PatchError(422, 'merging lists cannot yet be specified in the patch');
      } else {
        throw new PatchError(
          422,
          `unknown patch type: ${String(kind)} in map: ${goValueString(item)}`,
        );
      }
    }
    if (replace) return items.map((item) => this.mergeMap({}, item, path));
    const merged = [...base];
    for (const item of items) {
      if (!Object.hasOwn(item, mergeKey)) {
        throw new PatchError(
          422,
          `map: ${goValueString(item)} does not contain declared merge key: ${mergeKey}`,
        );
      }
      const index = merged.findIndex(
        (entry) => isObject(entry) && jsonEqual(entry[mergeKey], item[mergeKey]),
      );
      if (index >= 0) merged[index] = this.mergeMap(merged[index] as JsonObject, item, path);
      else merged.push(this.mergeMap({}, item, path));
    }
    const sameKey = (a: unknown, b: unknown): boolean =>
      isObject(a) && isObject(b) && jsonEqual(a[mergeKey], b[mergeKey]);
    return this.#order(merged, order ?? items, original, sameKey);
  }

  // strategicpatch normalizeElementOrder + mergeSortedSlice: items named by the patch (or by
  // $setElementOrder) in that order, server-only items in their original order. A server-only item
  // goes first only when the original list had it before the next patch item; otherwise the patch
  // item does, so items new to the list come before the server-only ones that follow them.
  #order(
    merged: unknown[],
    patchOrder: unknown[],
    serverOrder: unknown[],
    same: (a: unknown, b: unknown) => boolean,
  ): unknown[] {
    const indexIn = (list: unknown[], item: unknown): number =>
      list.findIndex((entry) => same(entry, item));
    const patchItems = merged
      .filter((item) => indexIn(patchOrder, item) >= 0)
      .sort((a, b) => indexIn(patchOrder, a) - indexIn(patchOrder, b));
    const serverOnly = merged
      .filter((item) => indexIn(patchOrder, item) < 0)
      .sort((a, b) => indexIn(serverOrder, a) - indexIn(serverOrder, b));
    const result: unknown[] = [];
    let i = 0;
    let j = 0;
    while (i < patchItems.length || j < serverOnly.length) {
      if (i >= patchItems.length) result.push(serverOnly[j++]);
      else if (j >= serverOnly.length) result.push(patchItems[i++]);
      else {
        const server = indexIn(serverOrder, serverOnly[j]);
        const patched = indexIn(serverOrder, patchItems[i]);
        if (server >= 0 && patched >= 0 && server < patched) result.push(serverOnly[j++]);
        else result.push(patchItems[i++]);
      }
    }
    return result;
  }
}

/**
 * Apply a strategic merge patch to a built-in object: like a merge patch, but lists named in
 * `schema` merge by their key (`containers` by `name`, ...) or as sets (`finalizers`), and the
 * directives `$patch: replace | delete` (maps and list items), `$retainKeys`,
 * `$deleteFromPrimitiveList/<list>` and `$setElementOrder/<list>` are honoured. Returns a new document.
 *
 * Throws {@link PatchError}: 400 when the patch is not a JSON object or a directive is malformed,
 * 422 when a list item lacks its merge key or a directive value is unknown.
 */
export function applyStrategicMergePatch(
  document: unknown,
  patch: unknown,
  schema: StrategicSchema,
): unknown {
  if (!isObject(patch)) {
    const kind = Array.isArray(patch) ? 'array' : patch === null ? 'null' : typeof patch;
    throw new PatchError(
      400,
      `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
    );
  }
  const original = isObject(document) ? clone(document) : {};
  return new StrategicMerger(schema).mergeMap(original, patch, '');
}
