// apiextensions pruning: fields the structural schema does not specify are dropped, and so are nulls of
// fields that are not nullable (apiextensions-apiserver/pkg/apiserver/schema/pruning and defaulting).
import { isRecord } from '../apimachinery/objects.ts';

type Json = Record<string, unknown>;

/**
 * Drop, in place, the fields of `object` its schema does not know (except apiVersion, kind and metadata at
 * the root and in embedded resources, and anything under x-kubernetes-preserve-unknown-fields).
 */
export function pruneUnknownFields(object: Json, schema: Json): void {
  pruneProperties(object, schema, true);
}

function pruneProperties(value: Json, schema: Json, root: boolean): void {
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const additional = isRecord(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  for (const key of Object.keys(value)) {
    if ((root || embedded) && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
      continue;
    }
    const childSchema = isRecord(properties?.[key]) ? (properties[key] as Json) : additional;
    if (childSchema === undefined) {
      if (!preserve && schema.additionalProperties !== true) delete value[key];
      continue;
    }
    pruneValue(value[key], childSchema);
  }
}

function pruneValue(value: unknown, schema: Json): void {
  if (isRecord(value)) pruneProperties(value, schema, false);
  else if (Array.isArray(value) && isRecord(schema.items)) {
    for (const item of value) pruneValue(item, schema.items);
  }
}

/**
 * Drop, in place, null values of object fields whose schema is not nullable and has no default (kube does
 * this after defaulting, so a default replaces such a null instead).
 */
export function pruneNonNullableNulls(value: unknown, schema: Json): void {
  if (Array.isArray(value)) {
    if (isRecord(schema.items)) for (const item of value) pruneNonNullableNulls(item, schema.items);
    return;
  }
  if (!isRecord(value)) return;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const key of Object.keys(value)) {
    const childSchema = isRecord(properties[key])
      ? (properties[key] as Json)
      : isRecord(schema.additionalProperties)
        ? schema.additionalProperties
        : undefined;
    if (childSchema === undefined) continue;
    if (value[key] === null) {
      if (childSchema.nullable !== true && childSchema.default === undefined) delete value[key];
      continue;
    }
    pruneNonNullableNulls(value[key], childSchema);
  }
}
