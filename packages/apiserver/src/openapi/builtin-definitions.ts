// OpenAPI definitions of the built-in types, generated from the shared TypeDefinition table (the one the
// protobuf decoder reads), plus the apimachinery types whose JSON form is not their Go struct (Quantity,
// IntOrString, Time, ...), which kube-openapi publishes as formatted strings or free-form objects.
import type { FieldDefinition, FieldType, TypeDefinition } from '../types/type-definition.ts';
import { type GroupVersionKind, ref, type Schema } from './schema.ts';

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Definition names of the apimachinery types every kind refers to. */
export const names = {
  objectMeta: `${meta}.ObjectMeta`,
  listMeta: `${meta}.ListMeta`,
  status: `${meta}.Status`,
  deleteOptions: `${meta}.DeleteOptions`,
  patch: `${meta}.Patch`,
  watchEvent: `${meta}.WatchEvent`,
  time: `${meta}.Time`,
  microTime: `${meta}.MicroTime`,
  fieldsV1: `${meta}.FieldsV1`,
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
  scale: 'io.k8s.api.autoscaling.v1.Scale',
} as const;

/** The description of `apiVersion` on every kind. */
export const apiVersionDescription =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
/** The description of `kind` on every kind. */
export const kindDescription =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.';

/**
 * Types whose JSON form differs from their struct: these schemas win over table entries of the same name
 * (a Quantity is a string on the wire, whatever its protobuf message holds).
 */
export const wellKnownDefinitions: ReadonlyMap<string, Schema> = new Map<string, Schema>([
  [
    names.quantity,
    {
      description:
        'Quantity is a fixed-point number with an optional SI or binary suffix, e.g. `100m`, `1.5Gi`.',
      type: 'string',
    },
  ],
  [
    names.intOrString,
    {
      description: 'IntOrString holds either an int32 or a string.',
      type: 'string',
      format: 'int-or-string',
    },
  ],
  [
    names.time,
    {
      description: 'Time is an RFC 3339 date-time, serialised at second precision.',
      type: 'string',
      format: 'date-time',
    },
  ],
  [
    names.microTime,
    {
      description: 'MicroTime is an RFC 3339 date-time with microsecond precision.',
      type: 'string',
      format: 'date-time',
    },
  ],
  [
    names.fieldsV1,
    {
      description:
        'FieldsV1 is the set of fields a manager owns, in the structured-merge-diff format.',
      type: 'object',
    },
  ],
  [
    names.rawExtension,
    { description: 'RawExtension holds an embedded object of any kind.', type: 'object' },
  ],
  ...[
    ['JSON', 'JSON is any JSON value.'],
    ['JSONSchemaPropsOrArray', 'A schema, or a list of schemas.'],
    ['JSONSchemaPropsOrBool', 'A schema, or a boolean (true allows anything).'],
    ['JSONSchemaPropsOrStringArray', 'A schema, or a list of property names.'],
  ].map(([name, description]): [string, Schema] => [
    `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.${name}`,
    { description },
  ]),
  [
    names.patch,
    {
      description: 'Patch is the body of a PATCH request.',
      type: 'object',
    },
  ],
]);

/** The schema of a type the table does not describe yet: any object is accepted. */
export function permissiveDefinition(name: string): Schema {
  return {
    description: `${name.slice(name.lastIndexOf('.') + 1)} is served without a published schema.`,
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  };
}

function scalarSchema(type: FieldType): Schema {
  if (typeof type === 'object') {
    if ('message' in type) return ref(type.message);
    return { type: 'object', additionalProperties: scalarSchema(type.map) };
  }
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'double':
      return { type: 'number', format: 'double' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'duration':
      return { type: 'string' };
    case 'quantity':
      return ref(names.quantity);
    case 'intOrString':
      return ref(names.intOrString);
    case 'time':
      return ref(names.time);
    case 'microTime':
      return ref(names.microTime);
    case 'rawExtension':
      return ref(names.rawExtension);
  }
}

function fieldSchema(field: FieldDefinition): Schema {
  const element = scalarSchema(field.type);
  if (field.enum !== undefined && element.$ref === undefined) element.enum = [...field.enum];
  let schema: Schema = field.repeated === true ? { type: 'array', items: element } : element;
  const extras: Schema = {};
  if (field.description !== undefined) extras.description = field.description;
  if (field.listType !== undefined) extras['x-kubernetes-list-type'] = field.listType;
  if (field.listMapKeys !== undefined)
    extras['x-kubernetes-list-map-keys'] = [...field.listMapKeys];
  if (field.mapType !== undefined) extras['x-kubernetes-map-type'] = field.mapType;
  if (field.patchMergeKey !== undefined)
    extras['x-kubernetes-patch-merge-key'] = field.patchMergeKey;
  if (field.patchStrategy !== undefined)
    extras['x-kubernetes-patch-strategy'] = field.patchStrategy;
  schema = { ...extras, ...schema };
  return schema;
}

/**
 * The fields `type` shows in JSON: its own, with those of inline-embedded structs (`json:",inline"`) lifted
 * into it, as Go's encoding/json (and kube-openapi) flattens them.
 */
function jsonFields(
  type: TypeDefinition,
  table: ReadonlyMap<string, TypeDefinition>,
  seen: Set<string> = new Set(),
): FieldDefinition[] {
  const result: FieldDefinition[] = [];
  for (const field of type.fields) {
    if (field.inline !== true) {
      result.push(field);
      continue;
    }
    const embedded =
      typeof field.type === 'object' && 'message' in field.type
        ? table.get(field.type.message)
        : undefined;
    if (embedded === undefined || seen.has(embedded.name)) continue;
    result.push(...jsonFields(embedded, table, new Set([...seen, embedded.name])));
  }
  return result;
}

/** The OpenAPI definition of one table entry (`table` resolves its inline-embedded structs). */
export function typeDefinitionSchema(
  type: TypeDefinition,
  table: ReadonlyMap<string, TypeDefinition> = new Map(),
): Schema {
  const fields = jsonFields(type, table).sort((a, b) =>
    a.json < b.json ? -1 : a.json > b.json ? 1 : 0,
  );
  const properties: Record<string, Schema> = {};
  for (const field of fields) properties[field.json] = fieldSchema(field);
  if (type.gvk !== undefined) {
    properties.apiVersion ??= { description: apiVersionDescription, type: 'string' };
    properties.kind ??= { description: kindDescription, type: 'string' };
  }
  const schema: Schema = {};
  if (type.description !== undefined) schema.description = type.description;
  schema.type = 'object';
  const required = fields.filter((field) => field.required === true).map((field) => field.json);
  if (required.length > 0) schema.required = required;
  schema.properties = Object.fromEntries(
    Object.entries(properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  if (type.gvk !== undefined) schema['x-kubernetes-group-version-kind'] = [{ ...type.gvk }];
  return schema;
}

/** The `<Kind>List` definition of a kind whose items are `itemName`. */
export function listDefinition(
  itemName: string,
  listGvk: GroupVersionKind,
  plural: string,
): Schema {
  return {
    description: `${listGvk.kind} is a list of ${listGvk.kind.replace(/List$/, '')} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: apiVersionDescription, type: 'string' },
      items: { description: `List of ${plural}.`, type: 'array', items: ref(itemName) },
      kind: { description: kindDescription, type: 'string' },
      metadata: ref(names.listMeta, { description: 'Standard list metadata.' }),
    },
    'x-kubernetes-group-version-kind': [{ ...listGvk }],
  };
}

/**
 * Every definition the table yields, keyed by name: table entries converted, then the well-known types
 * laid over them.
 */
export function builtinDefinitions(
  table: ReadonlyMap<string, TypeDefinition>,
): Map<string, Schema> {
  const result = new Map<string, Schema>();
  for (const [name, type] of table) result.set(name, typeDefinitionSchema(type, table));
  for (const [name, schema] of wellKnownDefinitions) result.set(name, schema);
  return result;
}
