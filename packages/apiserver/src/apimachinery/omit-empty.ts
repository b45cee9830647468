// The fields kube-apiserver never writes back: its objects go through Go structs, and encoding/json drops a
// field tagged omitempty when it holds its zero value. So after any write a built-in object has no
// `annotations: {}` left by removing the last annotation, no `env: []`, no `paused: false`; what the client
// sent that way comes back without it. Custom resources are unstructured maps, kept as sent, except their
// metadata, which apiextensions round-trips through ObjectMeta.

import { typeDefinitionFor, typeDefinitions } from '../types/index.ts';
import type { FieldDefinition, FieldType, TypeDefinition } from '../types/type-definition.ts';
import { isBuiltinGroup } from './key-order.ts';
import { isRecord } from './objects.ts';

type Json = Record<string, unknown>;

const schemaPrefix = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
const objectMetaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** Scalar kinds whose Go type is a plain value (not a struct such as Quantity or Time, never omitted). */
const plainScalars = new Set<FieldType>(['string', 'bool', 'int32', 'int64', 'double', 'bytes']);

/** True when encoding/json's omitempty drops `value` for a field declared as `field`. */
function omitted(field: FieldDefinition, value: unknown): boolean {
  const type = field.type;
  // A null decodes to the zero value: nil for maps and slices, which omitempty drops; a struct (Time,
  // Quantity, a nested type) is written even when zero (a zero Time as null).
  if (field.repeated === true) {
    return value === null || (Array.isArray(value) && value.length === 0);
  }
  if (typeof type !== 'string') {
    if (!('map' in type)) return false;
    return value === null || (isRecord(value) && Object.keys(value).length === 0);
  }
  if (!plainScalars.has(type)) return false;
  return value === null || value === '' || value === 0 || value === false;
}

function omitInType(value: unknown, type: FieldType): void {
  if (typeof type === 'string') return;
  if ('map' in type) {
    if (!isRecord(value) || typeof type.map === 'string') return;
    for (const item of Object.values(value)) omitInType(item, type.map);
    return;
  }
  // A CRD's schemas are left as sent: the table does not mark JSONSchemaProps' pointer fields
  // (minimum, maxLength, ...), whose zero values Go keeps.
  if (type.message.startsWith(schemaPrefix)) return;
  const definition = typeDefinitions.get(type.message);
  if (definition !== undefined && isRecord(value)) omitInStruct(value, definition);
}

function omitInStruct(value: Json, definition: TypeDefinition): void {
  for (const field of definition.fields) {
    if (field.inline === true) {
      // An embedded struct's members sit in this object.
      omitInType(value, field.type);
      continue;
    }
    if (!Object.hasOwn(value, field.json)) continue;
    const current = value[field.json];
    if (field.keepZero !== true && omitted(field, current)) {
      delete value[field.json];
      continue;
    }
    if (field.repeated === true && Array.isArray(current)) {
      for (const item of current) omitInType(item, field.type);
    } else {
      omitInType(current, field.type);
    }
  }
}

/**
 * Drop, in place, the fields of a built-in object that Go's omitempty would not write: empty maps and
 * slices and zero scalars of non-pointer fields, and nulls, as the type table (`types/`) declares them.
 * Fields the table does not describe are left alone, and of a custom resource only its metadata is
 * touched. Returns `object`.
 */
export function omitEmpty<T extends Json>(object: T): T {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (!isBuiltinGroup(group)) {
    omitInType(object.metadata, { message: objectMetaName });
    return object;
  }
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const definition = typeDefinitionFor(group, version, kind);
  if (definition !== undefined) omitInStruct(object, definition);
  return object;
}
