// Fields of an object its published schema does not declare: what kube-apiserver's strict decoding reports
// for `fieldValidation=Strict` (400) and `Warn` (a Warning header per field). Typed built-in kinds are
// decoded against their Go struct, custom resources pruned against their structural schema; both amount
// to walking the object along the published schema, which this does.

import { isRecord } from '../apimachinery/objects.ts';
import type { Schema } from './schema.ts';

/**
 * The paths of `value`'s fields that `schema` does not declare, in kube's notation (`spec.bogus`,
 * `spec.containers[0].bogus`), in document order. `definitions` resolves `$ref`s (bare names). An object
 * schema with `x-kubernetes-preserve-unknown-fields`, `additionalProperties` or no `properties` at all
 * accepts any field, as does a reference the definitions cannot resolve.
 */
export function unknownFields(
  schema: Schema,
  value: unknown,
  definitions: ReadonlyMap<string, Schema>,
): string[] {
  const found: string[] = [];
  walk(schema, value, '', definitions, found, 0);
  return found;
}

function resolve(schema: Schema, definitions: ReadonlyMap<string, Schema>): Schema | undefined {
  let current: Schema | undefined = schema;
  for (let depth = 0; current !== undefined && typeof current.$ref === 'string'; depth++) {
    if (depth > 32) return undefined;
    current = definitions.get(current.$ref);
  }
  return current;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function walk(
  input: Schema,
  value: unknown,
  path: string,
  definitions: ReadonlyMap<string, Schema>,
  found: string[],
  depth: number,
): void {
  // Objects nest a few dozen levels at most; a deeper walk is a cycle in a hand-written schema.
  if (depth > 100) return;
  const schema = resolve(input, definitions);
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    if (isRecord(schema.items)) {
      value.forEach((item, index) => {
        walk(schema.items as Schema, item, `${path}[${index}]`, definitions, found, depth + 1);
      });
    }
    return;
  }
  if (!isRecord(value)) return;
  if (isRecord(schema.additionalProperties)) {
    for (const [key, item] of Object.entries(value)) {
      walk(schema.additionalProperties, item, `${path}[${key}]`, definitions, found, depth + 1);
    }
    return;
  }
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const open =
    schema['x-kubernetes-preserve-unknown-fields'] === true ||
    schema.additionalProperties === true ||
    properties === undefined;
  // An embedded resource always has its type and object metadata, declared or not.
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  for (const [key, item] of Object.entries(value)) {
    const property = properties?.[key];
    if (isRecord(property)) {
      walk(property, item, join(path, key), definitions, found, depth + 1);
    } else if (
      !open &&
      !(embedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata'))
    ) {
      found.push(join(path, key));
    }
  }
}

/** The message of a 400 for `fieldValidation=Strict`, as kube-apiserver's decoding words it. */
export function strictDecodingMessage(kind: string, version: string, paths: string[]): string {
  const fields = paths.map((path) => `unknown field "${path}"`).join(', ');
  return `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${fields}`;
}
