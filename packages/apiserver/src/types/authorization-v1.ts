// Built-in type definitions of authorization.k8s.io/v1 (k8s.io/api): the access reviews `kubectl auth can-i`
// sends. Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the
// protobuf body decoder and the OpenAPI publisher both read this table. SubjectAccessReviewSpec.extra
// (a map of string lists, field 5) is left out: the table has no map-of-repeated type yet.
import type { TypeDefinition } from './type-definition.ts';

const objectMeta = { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } as const;
const reviewStatus = { message: 'io.k8s.api.authorization.v1.SubjectAccessReviewStatus' } as const;

/** The authorization-v1 types, top-level kinds first. */
export const authorizationV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
    description: 'Asks whether the requesting user may perform an action.',
    gvk: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' },
    fields: [
      { json: 'metadata', number: 1, type: objectMeta },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec' },
        keepZero: true,
        required: true,
      },
      { json: 'status', number: 3, type: reviewStatus },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SelfSubjectRulesReview',
    description: 'Lists the actions the requesting user may perform in a namespace.',
    gvk: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview' },
    fields: [
      { json: 'metadata', number: 1, type: objectMeta },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.SelfSubjectRulesReviewSpec' },
        keepZero: true,
        required: true,
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.authorization.v1.SubjectRulesReviewStatus' },
      },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SubjectAccessReview',
    description: 'Asks whether a user or group may perform an action.',
    gvk: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' },
    fields: [
      { json: 'metadata', number: 1, type: objectMeta },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.SubjectAccessReviewSpec' },
        keepZero: true,
        required: true,
      },
      { json: 'status', number: 3, type: reviewStatus },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.LocalSubjectAccessReview',
    description: 'Asks whether a user or group may perform an action in one namespace.',
    gvk: { group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview' },
    fields: [
      { json: 'metadata', number: 1, type: objectMeta },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.SubjectAccessReviewSpec' },
        keepZero: true,
        required: true,
      },
      { json: 'status', number: 3, type: reviewStatus },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec',
    description: 'The action asked about: exactly one of the two attribute sets.',
    fields: [
      {
        json: 'resourceAttributes',
        number: 1,
        type: { message: 'io.k8s.api.authorization.v1.ResourceAttributes' },
      },
      {
        json: 'nonResourceAttributes',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.NonResourceAttributes' },
      },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SubjectAccessReviewSpec',
    description: 'The action asked about and the user it is asked for.',
    fields: [
      {
        json: 'resourceAttributes',
        number: 1,
        type: { message: 'io.k8s.api.authorization.v1.ResourceAttributes' },
      },
      {
        json: 'nonResourceAttributes',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.NonResourceAttributes' },
      },
      { json: 'user', number: 3, type: 'string' },
      { json: 'groups', number: 4, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'uid', number: 6, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SelfSubjectRulesReviewSpec',
    fields: [
      {
        json: 'namespace',
        number: 1,
        type: 'string',
        description: 'The namespace to list rules for.',
      },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.ResourceAttributes',
    description: 'The attributes of a resource request.',
    fields: [
      { json: 'namespace', number: 1, type: 'string' },
      { json: 'verb', number: 2, type: 'string' },
      { json: 'group', number: 3, type: 'string' },
      { json: 'version', number: 4, type: 'string' },
      { json: 'resource', number: 5, type: 'string' },
      { json: 'subresource', number: 6, type: 'string' },
      { json: 'name', number: 7, type: 'string' },
      {
        json: 'fieldSelector',
        number: 8,
        type: { message: 'io.k8s.api.authorization.v1.FieldSelectorAttributes' },
      },
      {
        json: 'labelSelector',
        number: 9,
        type: { message: 'io.k8s.api.authorization.v1.LabelSelectorAttributes' },
      },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.NonResourceAttributes',
    description: 'The attributes of a request to a non-resource path.',
    fields: [
      { json: 'path', number: 1, type: 'string' },
      { json: 'verb', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.FieldSelectorAttributes',
    fields: [
      { json: 'rawSelector', number: 1, type: 'string' },
      {
        json: 'requirements',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.FieldSelectorRequirement' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.FieldSelectorRequirement',
    fields: [
      { json: 'key', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'operator', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'values', number: 3, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.LabelSelectorAttributes',
    fields: [
      { json: 'rawSelector', number: 1, type: 'string' },
      {
        json: 'requirements',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SubjectAccessReviewStatus',
    description: 'The answer: allowed, denied, or no opinion.',
    fields: [
      { json: 'allowed', number: 1, type: 'bool', keepZero: true, required: true },
      { json: 'denied', number: 4, type: 'bool' },
      { json: 'reason', number: 2, type: 'string' },
      { json: 'evaluationError', number: 3, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.SubjectRulesReviewStatus',
    description: 'The rules the user has; possibly incomplete.',
    fields: [
      {
        json: 'resourceRules',
        number: 1,
        type: { message: 'io.k8s.api.authorization.v1.ResourceRule' },
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
      },
      {
        json: 'nonResourceRules',
        number: 2,
        type: { message: 'io.k8s.api.authorization.v1.NonResourceRule' },
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
      },
      { json: 'incomplete', number: 3, type: 'bool', keepZero: true, required: true },
      { json: 'evaluationError', number: 4, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.ResourceRule',
    fields: [
      {
        json: 'verbs',
        number: 1,
        type: 'string',
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
      },
      { json: 'apiGroups', number: 2, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'resources', number: 3, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'resourceNames', number: 4, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: 'io.k8s.api.authorization.v1.NonResourceRule',
    fields: [
      {
        json: 'verbs',
        number: 1,
        type: 'string',
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
      },
      { json: 'nonResourceURLs', number: 2, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
];
