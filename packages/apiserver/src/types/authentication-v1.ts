// Built-in type definitions of authentication.k8s.io/v1 (k8s.io/api): TokenRequest, the body of serviceaccounts/token.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The authentication-v1 types, top-level kinds first. */
export const authenticationV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.authentication.v1.TokenRequest',
    description: 'Asks for a token of a service account, optionally bound to an object.',
    gvk: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.authentication.v1.TokenRequestSpec' },
        description: 'The desired state.',
        required: true,
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.authentication.v1.TokenRequestStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.authentication.v1.BoundObjectReference',
    fields: [
      { json: 'kind', number: 1, type: 'string' },
      { json: 'apiVersion', number: 2, type: 'string' },
      { json: 'name', number: 3, type: 'string' },
      { json: 'uid', number: 4, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.authentication.v1.TokenRequestSpec',
    fields: [
      {
        json: 'audiences',
        number: 1,
        type: 'string',
        description: 'Audiences the token is valid for.',
        repeated: true,
        keepZero: true,
        required: true,
      },
      {
        json: 'boundObjectRef',
        number: 3,
        type: { message: 'io.k8s.api.authentication.v1.BoundObjectReference' },
        description: 'Object the token is bound to; it stops working when that object is deleted.',
      },
      {
        json: 'expirationSeconds',
        number: 4,
        type: 'int64',
        description: 'Requested lifetime of the token.',
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.authentication.v1.TokenRequestStatus',
    fields: [
      {
        json: 'token',
        number: 1,
        type: 'string',
        description: 'The issued token.',
        keepZero: true,
        required: true,
      },
      {
        json: 'expirationTimestamp',
        number: 2,
        type: 'time',
        description: 'When the token expires.',
        keepZero: true,
        required: true,
      },
    ],
  },
];
