// Server-side apply and managedFields bookkeeping (FieldsV1), a simplified but honest port of
// sigs.k8s.io/structured-merge-diff as k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager uses it:
// field sets per manager, conflicts, forced ownership transfer, removal of fields a manager stopped applying.
import {
  childPath,
  FieldSets,
  formatPath,
  hasMember,
  insert,
  isKeyField,
  isObject,
  type JsonObject,
  members,
  nodeAt,
  removeAt,
  removeMember,
  toFieldSet,
  valueAt,
} from './field-set.ts';
import {
  type ManagedFieldsEntry,
  type Owner,
  readEntries,
  sameOwner,
  writeEntries,
} from './managed-fields.ts';
import { jsonEqual } from './patch-error.ts';
import type { StrategicSchema } from './strategic-merge-patch.ts';

/** A field another manager owns with a different value; `field` is a structured-merge-diff path. */
export interface ApplyConflict {
  /** The other manager's name (`kubectl`, `controller`). */
  manager: string;
  /** `.spec.replicas`, `.spec.containers[name="app"].image`, `.metadata.finalizers[="x"]`. */
  field: string;
  /** The other manager's operation; kube names the apiVersion of `Update` managers in messages. */
  operation?: 'Apply' | 'Update';
  /** The apiVersion of the other manager's entry. */
  apiVersion?: string;
}

/** Options of {@link serverSideApply}. */
export interface ServerSideApplyOptions {
  /** The `fieldManager` query parameter (required for apply). */
  fieldManager: string;
  /** `force=true`: take ownership of conflicting fields instead of reporting them. */
  force: boolean;
  /** RFC 3339 timestamp for the managedFields entry. */
  time: string;
  /** List merge keys of built-in types (`strategicSchemaFor`); without it every list is atomic. */
  schema?: StrategicSchema | undefined;
  /** The subresource applied to (`status`): only that top-level field is applied and owned. */
  subresource?: string | undefined;
  /** Top-level fields of `configuration` to ignore (e.g. `['status']` on a resource with a status subresource). */
  ignoredFields?: string[] | undefined;
}

// ---- apply ----

function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, entry] of Object.entries(value))
    if (entry !== null) result[key] = stripNulls(entry);
  return result;
}

function mergeApplied(live: unknown, config: unknown, path: string, sets: FieldSets): unknown {
  if (isObject(config)) {
    const result: JsonObject = isObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(config)) {
      result[key] = mergeApplied(result[key], value, childPath(path, key), sets);
    }
    return result;
  }
  if (Array.isArray(config) && Array.isArray(live)) {
    const kind = sets.listKind(path);
    if (kind === 'set') {
      const result = [...live];
      for (const item of config)
        if (!result.some((existing) => jsonEqual(existing, item)))
          result.push(structuredClone(item));
      return result;
    }
    if (kind !== 'atomic') {
      const { mergeKey } = kind;
      const result = [...live];
      for (const item of config) {
        const index = isObject(item)
          ? result.findIndex(
              (existing) => isObject(existing) && jsonEqual(existing[mergeKey], item[mergeKey]),
            )
          : -1;
        if (index >= 0) result[index] = mergeApplied(result[index], item, path, sets);
        else result.push(structuredClone(item));
      }
      return result;
    }
  }
  return structuredClone(config);
}

/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`): merge `configuration` into `live`
 * and record in `metadata.managedFields` that `fieldManager` owns exactly the fields it applied.
 *
 * - A field another manager owns with a different live value is a conflict: with `force: false` the
 *   result holds the conflicts and `object` is `live` unchanged; with `force: true` ownership moves.
 * - Applying the value another manager already set shares ownership.
 * - Fields this manager applied before but omits now are removed, unless another manager owns them.
 * - apiVersion, kind and metadata name/namespace/uid/resourceVersion/generation/creationTimestamp/
 *   managedFields are never owned. `null` in the configuration means "not applied".
 */
export function serverSideApply(
  live: Record<string, unknown> | undefined,
  configuration: Record<string, unknown>,
  options: ServerSideApplyOptions,
): { object: Record<string, unknown>; conflicts: ApplyConflict[] } {
  if (typeof options.fieldManager !== 'string' || options.fieldManager === '') {
    throw new TypeError('fieldManager must be a non-empty string');
  }
  if (!isObject(configuration)) throw new TypeError('configuration must be an object');
  const sets = new FieldSets(options.schema ?? {});
  const ignored = new Set(options.ignoredFields ?? []);
  const subresource = options.subresource;
  const applies = (key: string): boolean =>
    !ignored.has(key) && (subresource === undefined || key === subresource);
  const config = stripNulls(configuration) as JsonObject;
  const applied: JsonObject = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata' || applies(key))
      applied[key] = value;
  }
  // A subresource apply changes nothing but that subresource.
  if (subresource !== undefined) delete applied.metadata;
  const appliedSet = sets.ofObject(applied, applies);

  const owners: Owner[] = readEntries(live).map((entry) => ({
    entry,
    set: toFieldSet(entry.fieldsV1),
  }));
  const mine = owners.find((owner) =>
    sameOwner(owner.entry, options.fieldManager, 'Apply', subresource),
  );
  const others = owners.filter((owner) => owner !== mine);

  const conflicts: Array<ApplyConflict & { path: string[] }> = [];
  for (const path of members(appliedSet)) {
    const isItem = nodeAt(appliedSet, path)?.has('.') ?? false;
    if (isItem) continue; // list items conflict through their fields
    const wanted = valueAt(applied, path);
    const current = valueAt(live, path);
    if (!current.found || jsonEqual(current.value, wanted.value)) continue;
    for (const other of others) {
      if (!hasMember(other.set, path)) continue;
      conflicts.push({
        manager: other.entry.manager,
        field: formatPath(path),
        operation: other.entry.operation,
        apiVersion: other.entry.apiVersion,
        path,
      });
    }
  }
  if (conflicts.length > 0 && !options.force) {
    return {
      object: structuredClone(live ?? {}),
      conflicts: conflicts.map(({ path: _, ...conflict }) => conflict),
    };
  }
  for (const conflict of conflicts) {
    for (const other of others) {
      if (other.entry.manager === conflict.manager && hasMember(other.set, conflict.path)) {
        removeMember(other.set, conflict.path, false);
      }
    }
  }

  // Merge, but keep the server-owned metadata of the live object.
  const object = mergeApplied(structuredClone(live ?? {}), applied, '', sets) as JsonObject;
  if (live !== undefined && isObject(live.metadata) && isObject(object.metadata)) {
    for (const key of [
      'uid',
      'resourceVersion',
      'generation',
      'creationTimestamp',
      'managedFields',
      'deletionTimestamp',
    ]) {
      if (Object.hasOwn(live.metadata, key))
        object.metadata[key] = structuredClone(live.metadata[key]);
      else delete object.metadata[key];
    }
  }

  if (mine !== undefined) {
    const removed = members(mine.set)
      .filter((path) => !hasMember(appliedSet, path))
      .filter((path) => !others.some((other) => hasMember(other.set, path)))
      .sort((a, b) => a.length - b.length);
    for (const path of removed) {
      const isItem = nodeAt(mine.set, path)?.has('.') ?? false;
      // An item another manager still has fields in stays; only this manager's fields go.
      if (isItem && others.some((other) => (nodeAt(other.set, path)?.size ?? 0) > 0)) continue;
      // Items are removed before their fields (shorter paths first); a key field stays with its item.
      if (isKeyField(path)) continue;
      removeAt(object, path);
    }
  }

  const entry: ManagedFieldsEntry = {
    manager: options.fieldManager,
    operation: 'Apply',
    apiVersion:
      typeof config.apiVersion === 'string' ? config.apiVersion : (mine?.entry.apiVersion ?? ''),
    time: options.time,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  };
  if (subresource !== undefined) entry.subresource = subresource;
  writeEntries(object, [...others, { entry, set: appliedSet }]);
  return { object, conflicts: [] };
}

// ---- update ----

/**
 * Record an Update (create, update, non-apply patch) by `fieldManager`: every field whose value
 * `next` adds or changes relative to `previous` becomes owned by that manager's `Update` entry (for
 * `subresource`) and stops being owned by anyone else; fields `next` drops leave every set. Returns a
 * copy of `next` with `metadata.managedFields` rewritten (the previous object's entries are the base;
 * an explicit empty list in `next` resets them, as kube-apiserver does).
 */
export function trackUpdate(
  previous: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  options: {
    fieldManager: string;
    operation: 'Update';
    time: string;
    subresource?: string;
    schema?: StrategicSchema;
  },
): Record<string, unknown> {
  if (typeof options.fieldManager !== 'string' || options.fieldManager === '') {
    throw new TypeError('fieldManager must be a non-empty string');
  }
  const sets = new FieldSets(options.schema ?? {});
  const object = structuredClone(next);
  const nextMeta = isObject(next.metadata) ? next.metadata : undefined;
  const reset = Array.isArray(nextMeta?.managedFields) && nextMeta.managedFields.length === 0;
  const owners: Owner[] = reset
    ? []
    : readEntries(previous).map((entry) => ({ entry, set: toFieldSet(entry.fieldsV1) }));

  const nextSet = sets.ofObject(next);
  const changed = members(nextSet).filter((path) => {
    const before = valueAt(previous, path);
    if (!before.found) return true;
    const isItem = nodeAt(nextSet, path)?.has('.') ?? false;
    return !isItem && !jsonEqual(before.value, valueAt(next, path).value);
  });
  const dropped =
    previous === undefined
      ? []
      : members(sets.ofObject(previous)).filter((path) => !valueAt(next, path).found);

  let mine = owners.find((owner) =>
    sameOwner(owner.entry, options.fieldManager, 'Update', options.subresource),
  );
  for (const owner of owners) {
    for (const path of dropped)
      removeMember(owner.set, path, nodeAt(owner.set, path)?.has('.') ?? false);
    if (owner === mine) continue;
    for (const path of changed) {
      const isItem = nodeAt(nextSet, path)?.has('.') ?? false;
      if (hasMember(owner.set, path) && !isItem) removeMember(owner.set, path, false);
    }
  }
  if (changed.length > 0) {
    if (mine === undefined) {
      const entry: ManagedFieldsEntry = {
        manager: options.fieldManager,
        operation: 'Update',
        apiVersion: typeof next.apiVersion === 'string' ? next.apiVersion : '',
        time: options.time,
        fieldsType: 'FieldsV1',
        fieldsV1: {},
      };
      if (options.subresource !== undefined) entry.subresource = options.subresource;
      mine = { entry, set: new Map() };
      owners.push(mine);
    }
    mine.entry.time = options.time;
    if (typeof next.apiVersion === 'string') mine.entry.apiVersion = next.apiVersion;
    for (const path of changed) insert(mine.set, path, nodeAt(nextSet, path)?.has('.') ?? false);
  }
  writeEntries(object, owners);
  return object;
}

// ---- Status helpers ----

function printManager(conflict: ApplyConflict): string {
  const name = JSON.stringify(conflict.manager);
  return conflict.operation === 'Update' && conflict.apiVersion
    ? `${name} using ${conflict.apiVersion}`
    : name;
}

/**
 * The `message` of kube-apiserver's 409 for apply conflicts:
 * `Apply failed with 1 conflict: conflict with "kubectl" using v1: .spec.replicas`, and for several,
 * `Apply failed with 2 conflicts: conflicts with "a":\n- .x\n- .y` grouped by sorted manager.
 */
export function applyConflictMessage(conflicts: readonly ApplyConflict[]): string {
  const [first] = conflicts;
  if (conflicts.length === 1 && first !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${printManager(first)}: ${first.field}`;
  }
  const byManager = new Map<string, { label: string; fields: string[] }>();
  for (const conflict of conflicts) {
    const key = printManager(conflict);
    const group = byManager.get(key) ?? { label: key, fields: [] };
    group.fields.push(conflict.field);
    byManager.set(key, group);
  }
  const lines: string[] = [];
  for (const key of [...byManager.keys()].sort()) {
    const group = byManager.get(key);
    if (group === undefined) continue;
    lines.push(`conflicts with ${group.label}:`, ...group.fields.map((field) => `- ${field}`));
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** The `details.causes` of that 409: one `FieldManagerConflict` cause per conflicting field. */
export function applyConflictCauses(
  conflicts: readonly ApplyConflict[],
): Array<{ type: 'FieldManagerConflict'; message: string; field: string }> {
  return conflicts.map((conflict) => ({
    type: 'FieldManagerConflict',
    message: `conflict with ${printManager(conflict)}`,
    field: conflict.field,
  }));
}
