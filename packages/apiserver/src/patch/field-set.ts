// Field sets of server-side apply (structured-merge-diff's fieldpath.Set as FieldsV1 trees) and the values
// they address in an object.
import { jsonEqual } from './patch-error.ts';
import type { StrategicSchema } from './strategic-merge-patch.ts';

export type FieldsV1 = { [element: string]: FieldsV1 };
/** A field set as a tree of path elements (`f:name`, `k:{"name":"x"}`, `v:"x"`, `.`). */
export type FieldSet = Map<string, FieldSet>;
export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// structured-merge-diff's stripped set: never owned by anyone.
const strippedMetadata = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'clusterName',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

export const childPath = (path: string, key: string): string =>
  path === '' ? key : `${path}.${key}`;

// ---- field sets ----

function keyElement(mergeKey: string, value: unknown): string {
  return `k:${JSON.stringify({ [mergeKey]: value })}`;
}

export class FieldSets {
  readonly #schema: StrategicSchema;
  constructor(schema: StrategicSchema) {
    this.#schema = schema;
  }

  /** The fields of a whole object, minus the stripped ones. */
  ofObject(object: JsonObject, only?: (key: string) => boolean): FieldSet {
    const set: FieldSet = new Map();
    for (const [key, value] of Object.entries(object)) {
      if (key === 'apiVersion' || key === 'kind' || (only !== undefined && !only(key))) continue;
      if (key === 'metadata' && isObject(value)) {
        const meta: FieldSet = new Map();
        for (const [metaKey, metaValue] of Object.entries(value)) {
          if (!strippedMetadata.has(metaKey))
            meta.set(`f:${metaKey}`, this.#ofValue(metaValue, `metadata.${metaKey}`));
        }
        if (meta.size > 0) set.set('f:metadata', meta);
        continue;
      }
      set.set(`f:${key}`, this.#ofValue(value, key));
    }
    return set;
  }

  #ofMap(object: JsonObject, path: string): FieldSet {
    const set: FieldSet = new Map();
    for (const [key, value] of Object.entries(object))
      set.set(`f:${key}`, this.#ofValue(value, childPath(path, key)));
    return set;
  }

  #ofValue(value: unknown, path: string): FieldSet {
    if (isObject(value) && Object.keys(value).length > 0) return this.#ofMap(value, path);
    if (Array.isArray(value) && value.length > 0) {
      const meta = this.#schema[path];
      if (meta?.strategy === 'merge') {
        const mergeKey = meta.mergeKey;
        if (
          mergeKey !== undefined &&
          value.every((item) => isObject(item) && Object.hasOwn(item, mergeKey))
        ) {
          const set: FieldSet = new Map();
          for (const item of value as JsonObject[]) {
            const itemSet = this.#ofMap(item, path);
            set.set(keyElement(mergeKey, item[mergeKey]), new Map([['.', new Map()], ...itemSet]));
          }
          return set;
        }
        if (
          mergeKey === undefined &&
          value.every((item) => !isObject(item) && !Array.isArray(item))
        ) {
          return new Map(value.map((item) => [`v:${JSON.stringify(item)}`, new Map()]));
        }
      }
    }
    return new Map();
  }

  /** Where list items merge by key or as a set (the same rules the field sets use). */
  listKind(path: string): { mergeKey: string } | 'set' | 'atomic' {
    const meta = this.#schema[path];
    if (meta?.strategy !== 'merge') return 'atomic';
    return meta.mergeKey === undefined ? 'set' : { mergeKey: meta.mergeKey };
  }
}

/** Every member path of a set: its leaves and the `.` markers of list items (as the item's path). */
export function members(set: FieldSet, prefix: string[] = [], out: string[][] = []): string[][] {
  for (const [element, child] of set) {
    if (element === '.') {
      out.push(prefix);
      continue;
    }
    if (child.size === 0) out.push([...prefix, element]);
    else members(child, [...prefix, element], out);
  }
  return out;
}

export function nodeAt(set: FieldSet, path: readonly string[]): FieldSet | undefined {
  let node: FieldSet | undefined = set;
  for (const element of path) {
    node = node.get(element);
    if (node === undefined) return undefined;
  }
  return node;
}

export function hasMember(set: FieldSet, path: readonly string[]): boolean {
  const node = nodeAt(set, path);
  if (node === undefined) return false;
  return node.size === 0 || node.has('.');
}

export function insert(set: FieldSet, path: readonly string[], isItem: boolean): void {
  let node = set;
  for (const element of path) {
    let next = node.get(element);
    if (next === undefined) {
      next = new Map();
      node.set(element, next);
    }
    node = next;
  }
  if (isItem) node.set('.', new Map());
}

/** Remove a member; prune parents that become empty so they do not turn into leaves. */
export function removeMember(set: FieldSet, path: readonly string[], isItem: boolean): void {
  const chain: FieldSet[] = [set];
  for (const element of path) {
    const next = chain[chain.length - 1]?.get(element);
    if (next === undefined) return;
    chain.push(next);
  }
  const target = chain[chain.length - 1];
  if (target === undefined) return;
  if (isItem) target.delete('.');
  // A node that still has children is not (or no longer) a member itself: leave it.
  if (target.size > 0) return;
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const parent = chain[depth];
    const element = path[depth];
    if (parent === undefined || element === undefined) return;
    parent.delete(element);
    if (parent.size > 0) return;
  }
}

export function toFieldSet(fields: unknown): FieldSet {
  const set: FieldSet = new Map();
  if (!isObject(fields)) return set;
  for (const [element, child] of Object.entries(fields)) set.set(element, toFieldSet(child));
  return set;
}

const elementRank = (element: string): number =>
  ['.', 'f', 'k', 'v', 'i'].indexOf(element === '.' ? '.' : element.charAt(0));

export function toFieldsV1(set: FieldSet): FieldsV1 {
  const fields: FieldsV1 = {};
  const elements = [...set.keys()].sort(
    (a, b) => elementRank(a) - elementRank(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const element of elements) fields[element] = toFieldsV1(set.get(element) ?? new Map());
  return fields;
}

// ---- values at paths ----

function parseElement(element: string): {
  kind: 'field' | 'key' | 'value' | 'index';
  value: unknown;
} {
  const body = element.slice(2);
  switch (element.charAt(0)) {
    case 'f':
      return { kind: 'field', value: body };
    case 'k':
      return { kind: 'key', value: JSON.parse(body) as unknown };
    case 'v':
      return { kind: 'value', value: JSON.parse(body) as unknown };
    default:
      return { kind: 'index', value: Number(body) };
  }
}

function findItem(list: unknown[], element: string): number {
  const { kind, value } = parseElement(element);
  if (kind === 'key' && isObject(value)) {
    return list.findIndex(
      (item) => isObject(item) && Object.entries(value).every(([k, v]) => jsonEqual(item[k], v)),
    );
  }
  if (kind === 'value') return list.findIndex((item) => jsonEqual(item, value));
  if (kind === 'index') return typeof value === 'number' && value < list.length ? value : -1;
  return -1;
}

export function valueAt(
  document: unknown,
  path: readonly string[],
): { found: boolean; value: unknown } {
  let current = document;
  for (const element of path) {
    if (element.startsWith('f:')) {
      const key = element.slice(2);
      if (!isObject(current) || !Object.hasOwn(current, key))
        return { found: false, value: undefined };
      current = current[key];
    } else if (Array.isArray(current)) {
      const index = findItem(current, element);
      if (index < 0) return { found: false, value: undefined };
      current = current[index];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: current };
}

export function removeAt(document: JsonObject, path: readonly string[]): void {
  const last = path[path.length - 1];
  if (last === undefined) return;
  const parent = valueAt(document, path.slice(0, -1));
  if (!parent.found) return;
  if (last.startsWith('f:')) {
    if (isObject(parent.value)) delete parent.value[last.slice(2)];
  } else if (Array.isArray(parent.value)) {
    const index = findItem(parent.value, last);
    if (index >= 0) parent.value.splice(index, 1);
  }
}

/** True for `[..., k:{"name":"x"}, f:name]`: the field that identifies its list item. */
export function isKeyField(path: readonly string[]): boolean {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (
    last === undefined ||
    parent === undefined ||
    !last.startsWith('f:') ||
    !parent.startsWith('k:')
  )
    return false;
  const key = parseElement(parent).value;
  return isObject(key) && Object.hasOwn(key, last.slice(2));
}

/** structured-merge-diff's Path.String(): `.spec.containers[name="app"].image`, `[="x"]` for set values. */
export function formatPath(path: readonly string[]): string {
  return path
    .map((element) => {
      const { kind, value } = parseElement(element);
      if (kind === 'field') return `.${String(value)}`;
      if (kind === 'key' && isObject(value)) {
        return `[${Object.entries(value)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
      }
      if (kind === 'value') return `[=${JSON.stringify(value)}]`;
      return `[${String(value)}]`;
    })
    .join('');
}
