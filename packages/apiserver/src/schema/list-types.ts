// x-kubernetes-list-type set/map uniqueness of a custom object, as apiextensions' listtype validation
// (apiextensions-apiserver/pkg/apiserver/schema/listtype) reports it after the schema validation.

import { isRecord } from '../apimachinery/objects.ts';
import { duplicateValue, type SchemaCause } from './field-errors.ts';
import { jsonEqual } from './structural-validation.ts';

type Json = Record<string, unknown>;

/**
 * `Duplicate value` errors for repeated entries of `set` lists and repeated keys of `map` lists, anywhere
 * in `value`; `path` is the field path of `value` (empty for the object root).
 */
export function validateListTypes(value: unknown, schema: Json, path = ''): SchemaCause[] {
  const causes: SchemaCause[] = [];
  walk(value, schema, path, causes);
  return causes;
}

function walk(value: unknown, schema: Json, path: string, causes: SchemaCause[]): void {
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') {
      value.forEach((item, index) => {
        if (value.slice(0, index).some((earlier) => jsonEqual(earlier, item))) {
          causes.push(duplicateValue(`${path}[${index}]`, item));
        }
      });
    } else if (listType === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])) {
      const keys = schema['x-kubernetes-list-map-keys'].map(String);
      const keyOf = (item: unknown): Json => {
        const record = isRecord(item) ? item : {};
        return Object.fromEntries(
          keys.filter((key) => key in record).map((key) => [key, record[key]]),
        );
      };
      value.forEach((item, index) => {
        const key = keyOf(item);
        if (value.slice(0, index).some((earlier) => jsonEqual(keyOf(earlier), key))) {
          causes.push(duplicateValue(`${path}[${index}]`, key));
        }
      });
    }
    if (isRecord(schema.items)) {
      const items = schema.items;
      value.forEach((item, index) => {
        walk(item, items, `${path}[${index}]`, causes);
      });
    }
    return;
  }
  if (!isRecord(value)) return;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = properties[key];
    if (isRecord(childSchema)) {
      walk(child, childSchema, path === '' ? key : `${path}.${key}`, causes);
    } else if (isRecord(schema.additionalProperties)) {
      walk(child, schema.additionalProperties, `${path}[${key}]`, causes);
    }
  }
}
