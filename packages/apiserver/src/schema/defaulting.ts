// Schema defaulting of custom objects, as apiextensions' structural defaulting does it
// (apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go).
import { isRecord } from '../apimachinery/objects.ts';

type Json = Record<string, unknown>;

function isNonNullableNull(value: unknown, schema: Json): boolean {
  return value === null && schema.nullable !== true;
}

/**
 * Apply, in place, the `default` of every property missing from `value` (or null where the property is not
 * nullable), then recurse, so a defaulted object gets its own properties' defaults too; list items and
 * additionalProperties values that are non-nullable nulls take their schema's default.
 *
 * Gotchas: kube defaults request bodies after pruning and before validation, and objects read from
 * storage (not written back); a default is copied, never shared between objects.
 */
export function applyDefaults(value: unknown, schema: Json): void {
  if (Array.isArray(value)) {
    if (!isRecord(schema.items)) return;
    const items = schema.items;
    value.forEach((item, index) => {
      if (items.default !== undefined && isNonNullableNull(item, items)) {
        value[index] = structuredClone(items.default);
      }
      applyDefaults(value[index], items);
    });
    return;
  }
  if (!isRecord(value)) return;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, property] of Object.entries(properties)) {
    if (!isRecord(property) || property.default === undefined) continue;
    if (!(key in value) || isNonNullableNull(value[key], property)) {
      value[key] = structuredClone(property.default);
    }
  }
  const additional = isRecord(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  for (const key of Object.keys(value)) {
    const property = properties[key];
    if (isRecord(property)) {
      applyDefaults(value[key], property);
    } else if (additional !== undefined) {
      if (additional.default !== undefined && isNonNullableNull(value[key], additional)) {
        value[key] = structuredClone(additional.default);
      }
      applyDefaults(value[key], additional);
    }
  }
}
