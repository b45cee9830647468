// The key order kube-apiserver writes objects in. Go's encoding/json writes a map's keys sorted and a
// struct's fields in declaration order, so after any write a real server answers `data`, `labels`,
// `annotations` and every other Go map sorted by key, whatever order the client sent; a custom resource is
// all maps (unstructured), so every key of it, at every depth, comes back sorted.

import { objectMetaFieldOrder, typeDefinitionFor, typeDefinitions } from '../types/index.ts';
import type { FieldType, TypeDefinition } from '../types/type-definition.ts';
import { isRecord } from './objects.ts';

type Json = Record<string, unknown>;

const objectMetaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** OwnerReference's fields in Go declaration order. */
const ownerReferenceOrder = [
  'apiVersion',
  'kind',
  'name',
  'uid',
  'controller',
  'blockOwnerDeletion',
];

/** Go's order for map keys: bytewise, which is UTF-16 code unit order for the BMP keys kube allows. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A copy of `record` with its own keys sorted (values untouched). */
function sortedKeys(record: Json): Json {
  const result: Json = {};
  for (const key of Object.keys(record).sort(byteOrder)) result[key] = record[key];
  return result;
}

/** A copy of `value` with every object's keys sorted, at every depth (Go's map[string]interface{}). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (!isRecord(value)) return value;
  const result: Json = {};
  for (const key of Object.keys(value).sort(byteOrder)) result[key] = sortKeysDeep(value[key]);
  return result;
}

/** A copy of `record` with `order`'s keys first, in that order, then the others as they were. */
function inOrder(record: Json, order: readonly string[]): Json {
  const result: Json = {};
  for (const key of order) if (key in record) result[key] = record[key];
  for (const key of Object.keys(record)) if (!(key in result)) result[key] = record[key];
  return result;
}

function orderObjectMeta(metadata: Json): Json {
  const result = inOrder(metadata, objectMetaFieldOrder);
  if (isRecord(result.labels)) result.labels = sortedKeys(result.labels);
  if (isRecord(result.annotations)) result.annotations = sortedKeys(result.annotations);
  if (Array.isArray(result.ownerReferences)) {
    result.ownerReferences = result.ownerReferences.map((reference) =>
      isRecord(reference) ? inOrder(reference, ownerReferenceOrder) : reference,
    );
  }
  return result;
}

/** `value` (of Go type `type`) with its maps sorted; structs keep their field order. */
function orderTyped(value: unknown, type: FieldType): unknown {
  if (typeof type === 'string') return value;
  if ('map' in type) {
    if (!isRecord(value)) return value;
    const result = sortedKeys(value);
    if (typeof type.map !== 'string') {
      for (const key of Object.keys(result)) result[key] = orderTyped(result[key], type.map);
    }
    return result;
  }
  if (!isRecord(value)) return value;
  if (type.message === objectMetaName) return orderObjectMeta(value);
  const definition = typeDefinitions.get(type.message);
  return definition === undefined ? value : orderStruct(value, definition);
}

function orderStruct(value: Json, definition: TypeDefinition): Json {
  for (const field of definition.fields) {
    const current = value[field.json];
    if (current === undefined || current === null) continue;
    // Assigning an existing key keeps its position: the struct's order is untouched.
    value[field.json] =
      field.repeated === true && Array.isArray(current)
        ? current.map((item) => orderTyped(item, field.type))
        : orderTyped(current, field.type);
  }
  return value;
}

/** JSONSchemaProps fields that are Go maps of schemas. */
const schemaMaps = ['properties', 'patternProperties', 'definitions', 'dependencies'];
/** JSONSchemaProps fields holding one schema, or (items, additionalProperties) a schema among other forms. */
const schemaChildren = ['items', 'additionalProperties', 'additionalItems', 'not'];
/** JSONSchemaProps fields holding lists of schemas. */
const schemaLists = ['allOf', 'anyOf', 'oneOf'];
/** JSONSchemaProps fields of free JSON, decoded into interface{} on the way to storage. */
const schemaJson = ['default', 'example', 'enum'];

/** A CRD's openAPIV3Schema with its Go maps (and its free JSON values) sorted. */
function orderSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(orderSchema);
  if (!isRecord(value)) return value;
  for (const field of schemaMaps) {
    const map = value[field];
    if (!isRecord(map)) continue;
    const sorted = sortedKeys(map);
    for (const key of Object.keys(sorted)) sorted[key] = orderSchema(sorted[key]);
    value[field] = sorted;
  }
  for (const field of [...schemaChildren, ...schemaLists]) {
    if (value[field] !== undefined) value[field] = orderSchema(value[field]);
  }
  for (const field of schemaJson) {
    if (value[field] !== undefined) value[field] = sortKeysDeep(value[field]);
  }
  return value;
}

/**
 * What the type table (`types/`) cannot order, by `group/Kind`: a CRD's schemas (JSONSchemaProps and its
 * free JSON values, which apiextensions decodes into Go maps on the way to storage). Orders in place.
 */
const untypedValues: Record<string, (object: Json) => void> = {
  'apiextensions.k8s.io/CustomResourceDefinition': (crd) => {
    const spec = isRecord(crd.spec) ? crd.spec : undefined;
    for (const version of Array.isArray(spec?.versions) ? spec.versions : []) {
      if (isRecord(version) && isRecord(version.schema)) {
        version.schema.openAPIV3Schema = orderSchema(version.schema.openAPIV3Schema);
      }
    }
    if (spec !== undefined && isRecord(spec.validation)) {
      spec.validation.openAPIV3Schema = orderSchema(spec.validation.openAPIV3Schema);
    }
  },
};

/**
 * True for API groups kube-apiserver serves itself (the core group, the dotless groups and `*.k8s.io`); a
 * CRD can claim a `*.k8s.io` group only with an API review approval, so the rest are custom resources.
 */
export function isBuiltinGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/**
 * A copy of `object` in the key order kube-apiserver would write it in: a custom resource sorted at every
 * depth; a built-in kind with `kind` and `apiVersion` first, ObjectMeta in its declaration order and every
 * Go map (labels, annotations, data, selectors, resource lists, ...) sorted by key.
 */
export function orderKeys<T extends Json>(object: T): T {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const kind = typeof object.kind === 'string' ? object.kind : '';
  if (!isBuiltinGroup(group)) return sortKeysDeep(object) as T;
  const result = inOrder(object, ['kind', 'apiVersion', 'metadata']);
  const definition = typeDefinitionFor(group, version, kind);
  if (definition !== undefined) orderStruct(result, definition);
  else if (isRecord(result.metadata)) result.metadata = orderObjectMeta(result.metadata);
  untypedValues[`${group}/${kind}`]?.(result);
  return result as T;
}
