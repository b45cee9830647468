// The schema shape the OpenAPI publisher works in before a document is rendered: a JSON Schema object whose
// references carry the bare definition name (`{ $ref: 'io.k8s.api.core.v1.ConfigMap' }`). Rendering turns
// them into `#/definitions/...` for OpenAPI v2 and `#/components/schemas/...` for v3, so one definition
// table serves both documents.
import { isRecord } from '../apimachinery/objects.ts';

/** A JSON Schema object (OpenAPI flavour) with bare-name `$ref`s. */
export type Schema = Record<string, unknown>;

/** The definitions of one document, keyed by definition name. */
export type Definitions = Map<string, Schema>;

/** A group/version/kind as the `x-kubernetes-group-version-kind` extension spells it. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** `{ $ref }` to the definition `name`. */
export function ref(name: string, siblings: Schema = {}): Schema {
  return { ...siblings, $ref: name };
}

// Keywords whose value is a schema, a list of schemas, or a map of name to schema. Everything else
// (enum, default, example, extensions) is data and left alone, even where it looks like a schema.
const schemaKeys = new Set(['items', 'additionalProperties', 'not']);
const schemaListKeys = new Set(['allOf', 'anyOf', 'oneOf']);
const schemaMapKeys = new Set(['properties', 'patternProperties']);

function mapSchemas(schema: Schema, rewrite: (node: Schema) => Schema): Schema {
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (schemaKeys.has(key) && isRecord(value)) copy[key] = mapSchemas(value, rewrite);
    else if (schemaListKeys.has(key) && Array.isArray(value)) {
      copy[key] = value.map((item) => (isRecord(item) ? mapSchemas(item, rewrite) : item));
    } else if (schemaMapKeys.has(key) && isRecord(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [
          name,
          isRecord(item) ? mapSchemas(item, rewrite) : item,
        ]),
      );
    } else copy[key] = value;
  }
  return rewrite(copy);
}

/** Every definition name `schema` references, directly or in nested schemas. */
export function referencedNames(schema: Schema, into: Set<string> = new Set()): Set<string> {
  mapSchemas(schema, (node) => {
    if (typeof node.$ref === 'string') into.add(node.$ref);
    return node;
  });
  return into;
}

/**
 * The closure of `roots` in `definitions`: the roots and every definition they reach. A name missing from
 * `definitions` is answered by `missing(name)` (a permissive schema), so a document never dangles.
 */
export function closure(
  roots: Iterable<string>,
  definitions: ReadonlyMap<string, Schema>,
  missing: (name: string) => Schema,
): Definitions {
  const result: Definitions = new Map();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (result.has(name)) continue;
    const schema = definitions.get(name) ?? missing(name);
    result.set(name, schema);
    for (const next of referencedNames(schema)) if (!result.has(next)) pending.push(next);
  }
  return new Map([...result.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `schema` for an OpenAPI v2 document: references point into `#/definitions/`. */
export function toV2(schema: Schema): Schema {
  return mapSchemas(schema, (node) =>
    typeof node.$ref === 'string' ? { ...node, $ref: `#/definitions/${node.$ref}` } : node,
  );
}

/**
 * `schema` for an OpenAPI v3 document: references point into `#/components/schemas/`, and a reference
 * with siblings (a field's description next to its type) is wrapped in `allOf`, since OpenAPI 3.0 ignores
 * siblings of `$ref`; kube-openapi publishes them the same way.
 */
export function toV3(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    if (typeof node.$ref !== 'string') return node;
    const { $ref, ...siblings } = node;
    const target = `#/components/schemas/${$ref}`;
    if (Object.keys(siblings).length === 0) return { $ref: target };
    return { ...siblings, allOf: [{ $ref: target }] };
  });
}
