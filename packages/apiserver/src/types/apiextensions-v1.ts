// Built-in type definitions of apiextensions.k8s.io/v1 (k8s.io/apiextensions-apiserver): the
// CustomResourceDefinition and its structural schema. Field numbers and JSON names follow the published
// generated.proto and Go struct tags of the API; the protobuf body decoder and the OpenAPI publisher both read
// this table. `JSON` and the JSONSchemaPropsOr* unions have their own JSON forms (any value; a schema or a
// bool/array): the OpenAPI publisher publishes them without a type, as apiextensions does.
import type { FieldDefinition, TypeDefinition } from './type-definition.ts';

const prefix = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const props = { message: `${prefix}.JSONSchemaProps` } as const;
const json = { message: `${prefix}.JSON` } as const;
// JSONSchemaProps' Go pointers (bounds, lengths, counts, default): a `minimum: 0` or `maxLength: 0` is a real
// bound, so its zero must survive decoding and omitempty.
const pointer = { keepZero: true } as const;

function schemaField(
  name: string,
  number: number,
  type: FieldDefinition['type'],
  extra: Partial<FieldDefinition> = {},
): FieldDefinition {
  return { json: name, number, type, ...extra };
}

/** The apiextensions-v1 types, top-level kinds first. */
export const apiextensionsV1Types: readonly TypeDefinition[] = [
  {
    name: `${prefix}.CustomResourceDefinition`,
    description: 'Defines a custom resource the API server serves; its name is `<plural>.<group>`.',
    gvk: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      {
        json: 'spec',
        number: 2,
        type: { message: `${prefix}.CustomResourceDefinitionSpec` },
        keepZero: true,
        required: true,
        description: 'How the resource is served.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: `${prefix}.CustomResourceDefinitionStatus` },
        description: 'The state the API server reports.',
      },
    ],
  },
  {
    name: `${prefix}.CustomResourceDefinitionSpec`,
    description: 'How the custom resource is named, scoped, versioned and converted.',
    fields: [
      {
        json: 'group',
        number: 1,
        type: 'string',
        keepZero: true,
        required: true,
        description: 'The API group of the resource.',
      },
      {
        json: 'names',
        number: 3,
        type: { message: `${prefix}.CustomResourceDefinitionNames` },
        keepZero: true,
        required: true,
      },
      {
        json: 'scope',
        number: 4,
        type: 'string',
        keepZero: true,
        required: true,
        description: '`Cluster` or `Namespaced`.',
      },
      {
        json: 'versions',
        number: 7,
        type: { message: `${prefix}.CustomResourceDefinitionVersion` },
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
        description: 'Every version of the resource, with its schema and subresources.',
      },
      { json: 'conversion', number: 9, type: { message: `${prefix}.CustomResourceConversion` } },
      { json: 'preserveUnknownFields', number: 10, type: 'bool' },
    ],
  },
  {
    name: `${prefix}.CustomResourceDefinitionNames`,
    description: 'The names the resource is served under.',
    fields: [
      { json: 'plural', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'singular', number: 2, type: 'string' },
      { json: 'shortNames', number: 3, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'kind', number: 4, type: 'string', keepZero: true, required: true },
      { json: 'listKind', number: 5, type: 'string' },
      { json: 'categories', number: 6, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: `${prefix}.CustomResourceDefinitionVersion`,
    description: 'One version of the resource.',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'served', number: 2, type: 'bool', keepZero: true, required: true },
      { json: 'storage', number: 3, type: 'bool', keepZero: true, required: true },
      { json: 'schema', number: 4, type: { message: `${prefix}.CustomResourceValidation` } },
      {
        json: 'subresources',
        number: 5,
        type: { message: `${prefix}.CustomResourceSubresources` },
      },
      {
        json: 'additionalPrinterColumns',
        number: 6,
        type: { message: `${prefix}.CustomResourceColumnDefinition` },
        repeated: true,
        listType: 'atomic',
      },
      { json: 'deprecated', number: 7, type: 'bool' },
      { json: 'deprecationWarning', number: 8, type: 'string', keepZero: true },
      {
        json: 'selectableFields',
        number: 9,
        type: { message: `${prefix}.SelectableField` },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: `${prefix}.CustomResourceColumnDefinition`,
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'type', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'format', number: 3, type: 'string' },
      { json: 'description', number: 4, type: 'string' },
      { json: 'priority', number: 5, type: 'int32' },
      { json: 'jsonPath', number: 6, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: `${prefix}.SelectableField`,
    fields: [{ json: 'jsonPath', number: 1, type: 'string', keepZero: true, required: true }],
  },
  {
    name: `${prefix}.CustomResourceValidation`,
    fields: [{ json: 'openAPIV3Schema', number: 1, type: props }],
  },
  {
    name: `${prefix}.CustomResourceSubresources`,
    fields: [
      { json: 'status', number: 1, type: { message: `${prefix}.CustomResourceSubresourceStatus` } },
      { json: 'scale', number: 2, type: { message: `${prefix}.CustomResourceSubresourceScale` } },
    ],
  },
  { name: `${prefix}.CustomResourceSubresourceStatus`, fields: [] },
  {
    name: `${prefix}.CustomResourceSubresourceScale`,
    fields: [
      { json: 'specReplicasPath', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'statusReplicasPath', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'labelSelectorPath', number: 3, type: 'string' },
    ],
  },
  {
    name: `${prefix}.CustomResourceConversion`,
    fields: [
      { json: 'strategy', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'webhook', number: 2, type: { message: `${prefix}.WebhookConversion` } },
    ],
  },
  {
    name: `${prefix}.WebhookConversion`,
    fields: [
      { json: 'clientConfig', number: 2, type: { message: `${prefix}.WebhookClientConfig` } },
      {
        json: 'conversionReviewVersions',
        number: 3,
        type: 'string',
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: `${prefix}.WebhookClientConfig`,
    fields: [
      { json: 'url', number: 3, type: 'string' },
      { json: 'service', number: 1, type: { message: `${prefix}.ServiceReference` } },
      { json: 'caBundle', number: 2, type: 'bytes' },
    ],
  },
  {
    name: `${prefix}.ServiceReference`,
    fields: [
      { json: 'namespace', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'name', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'path', number: 3, type: 'string' },
      { json: 'port', number: 4, type: 'int32' },
    ],
  },
  {
    name: `${prefix}.CustomResourceDefinitionStatus`,
    fields: [
      {
        json: 'conditions',
        number: 1,
        type: { message: `${prefix}.CustomResourceDefinitionCondition` },
        repeated: true,
        listType: 'map',
        listMapKeys: ['type'],
      },
      {
        json: 'acceptedNames',
        number: 2,
        type: { message: `${prefix}.CustomResourceDefinitionNames` },
      },
      { json: 'storedVersions', number: 3, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: `${prefix}.CustomResourceDefinitionCondition`,
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'lastTransitionTime', number: 3, type: 'time' },
      { json: 'reason', number: 4, type: 'string' },
      { json: 'message', number: 5, type: 'string' },
    ],
  },
  {
    name: `${prefix}.JSONSchemaProps`,
    description:
      'A JSON Schema (draft 4 subset with Kubernetes extensions) describing custom objects.',
    fields: [
      schemaField('id', 1, 'string'),
      schemaField('$schema', 2, 'string'),
      schemaField('$ref', 3, 'string'),
      schemaField('description', 4, 'string'),
      schemaField('type', 5, 'string'),
      schemaField('format', 6, 'string'),
      schemaField('title', 7, 'string'),
      schemaField('default', 8, json, pointer),
      schemaField('maximum', 9, 'double', pointer),
      schemaField('exclusiveMaximum', 10, 'bool'),
      schemaField('minimum', 11, 'double', pointer),
      schemaField('exclusiveMinimum', 12, 'bool'),
      schemaField('maxLength', 13, 'int64', pointer),
      schemaField('minLength', 14, 'int64', pointer),
      schemaField('pattern', 15, 'string'),
      schemaField('maxItems', 16, 'int64', pointer),
      schemaField('minItems', 17, 'int64', pointer),
      schemaField('uniqueItems', 18, 'bool'),
      schemaField('multipleOf', 19, 'double', pointer),
      schemaField('enum', 20, json, { repeated: true, listType: 'atomic' }),
      schemaField('maxProperties', 21, 'int64', pointer),
      schemaField('minProperties', 22, 'int64', pointer),
      schemaField('required', 23, 'string', { repeated: true, listType: 'atomic' }),
      schemaField('items', 24, { message: `${prefix}.JSONSchemaPropsOrArray` }),
      schemaField('allOf', 25, props, { repeated: true, listType: 'atomic' }),
      schemaField('oneOf', 26, props, { repeated: true, listType: 'atomic' }),
      schemaField('anyOf', 27, props, { repeated: true, listType: 'atomic' }),
      schemaField('not', 28, props),
      schemaField('properties', 29, { map: props }),
      schemaField('additionalProperties', 30, { message: `${prefix}.JSONSchemaPropsOrBool` }),
      schemaField('patternProperties', 31, { map: props }),
      schemaField('dependencies', 32, {
        map: { message: `${prefix}.JSONSchemaPropsOrStringArray` },
      }),
      schemaField('additionalItems', 33, { message: `${prefix}.JSONSchemaPropsOrBool` }),
      schemaField('definitions', 34, { map: props }),
      schemaField('externalDocs', 35, { message: `${prefix}.ExternalDocumentation` }),
      schemaField('example', 36, json, pointer),
      schemaField('nullable', 37, 'bool'),
      schemaField('x-kubernetes-preserve-unknown-fields', 38, 'bool', pointer),
      schemaField('x-kubernetes-embedded-resource', 39, 'bool'),
      schemaField('x-kubernetes-int-or-string', 40, 'bool'),
      schemaField('x-kubernetes-list-map-keys', 41, 'string', {
        repeated: true,
        listType: 'atomic',
      }),
      schemaField('x-kubernetes-list-type', 42, 'string', pointer),
      schemaField('x-kubernetes-map-type', 43, 'string', pointer),
      schemaField(
        'x-kubernetes-validations',
        44,
        { message: `${prefix}.ValidationRule` },
        {
          repeated: true,
          patchStrategy: 'merge',
          patchMergeKey: 'rule',
          listType: 'map',
          listMapKeys: ['rule'],
        },
      ),
    ],
  },
  {
    name: `${prefix}.ValidationRule`,
    description: 'A CEL rule custom objects must satisfy.',
    fields: [
      { json: 'rule', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'message', number: 2, type: 'string' },
      { json: 'messageExpression', number: 3, type: 'string' },
      { json: 'reason', number: 4, type: 'string' },
      { json: 'fieldPath', number: 5, type: 'string' },
      { json: 'optionalOldSelf', number: 6, type: 'bool' },
    ],
  },
  {
    name: `${prefix}.ExternalDocumentation`,
    fields: [
      { json: 'description', number: 1, type: 'string' },
      { json: 'url', number: 2, type: 'string' },
    ],
  },
  // The unions below are one JSON value on the wire; their messages exist for protobuf only.
  { name: `${prefix}.JSON`, fields: [{ json: 'raw', number: 1, type: 'bytes' }] },
  {
    name: `${prefix}.JSONSchemaPropsOrArray`,
    fields: [
      { json: 'schema', number: 1, type: props },
      { json: 'jSONSchemas', number: 2, type: props, repeated: true },
    ],
  },
  {
    name: `${prefix}.JSONSchemaPropsOrBool`,
    fields: [
      { json: 'allows', number: 1, type: 'bool' },
      { json: 'schema', number: 2, type: props },
    ],
  },
  {
    name: `${prefix}.JSONSchemaPropsOrStringArray`,
    fields: [
      { json: 'schema', number: 1, type: props },
      { json: 'property', number: 2, type: 'string', repeated: true },
    ],
  },
];
