// JSON values as CEL sees them in x-kubernetes-validations, typed by the schema as kube's CEL binding
// (k8s.io/apiserver/pkg/cel/common) types them: integers are CEL int, numbers double, objects maps.
import type { CelInput } from '@bufbuild/cel';
import { isRecord } from '../../apimachinery/objects.ts';

type Json = Record<string, unknown>;

/**
 * `value` as a CEL input: `integer` (and the integer side of int-or-string) becomes an int (bigint),
 * `number` a double, objects maps keyed by property name (so `has(self.x)` tests presence), arrays lists.
 * At the root and in embedded resources, metadata shows only name and generateName, as in kube.
 */
export function toCel(value: unknown, schema: Json | undefined, root = false): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    const integer =
      schema?.type === 'integer' ||
      (schema?.['x-kubernetes-int-or-string'] === true && Number.isInteger(value)) ||
      (schema?.type === undefined && Number.isInteger(value));
    return integer && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = isRecord(schema?.items) ? schema.items : undefined;
    return value.map((item) => toCel(item, items));
  }
  if (!isRecord(value)) return null;
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const additional = isRecord(schema?.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  const embedded = root || schema?.['x-kubernetes-embedded-resource'] === true;
  const entries = new Map<string, CelInput>();
  for (const [key, child] of Object.entries(value)) {
    if (embedded && key === 'metadata' && isRecord(child)) {
      const metadata = new Map<string, CelInput>();
      if (typeof child.name === 'string') metadata.set('name', child.name);
      if (typeof child.generateName === 'string') metadata.set('generateName', child.generateName);
      entries.set(key, metadata);
      continue;
    }
    const childSchema = isRecord(properties[key]) ? (properties[key] as Json) : additional;
    entries.set(key, toCel(child, childSchema));
  }
  return entries;
}

/**
 * The bad value kube shows for a rule that could not be evaluated: the schema's type (`Invalid value:
 * "object": ...`), empty for int-or-string and other untyped nodes.
 */
export function celTypeName(schema: Json): string {
  return typeof schema.type === 'string' ? schema.type : '';
}
