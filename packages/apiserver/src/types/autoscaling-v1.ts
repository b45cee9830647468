// Built-in type definitions of autoscaling/v1 (k8s.io/api): Scale, the body of the scale subresource.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The autoscaling-v1 types, top-level kinds first. */
export const autoscalingV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.autoscaling.v1.Scale',
    description: 'The desired and observed replica count of a scalable resource.',
    gvk: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
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
        type: { message: 'io.k8s.api.autoscaling.v1.ScaleSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.autoscaling.v1.ScaleStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.autoscaling.v1.ScaleSpec',
    fields: [
      { json: 'replicas', number: 1, type: 'int32', description: 'Desired number of replicas.' },
    ],
  },
  {
    name: 'io.k8s.api.autoscaling.v1.ScaleStatus',
    fields: [
      {
        json: 'replicas',
        number: 1,
        type: 'int32',
        description: 'Observed number of replicas.',
        keepZero: true,
        required: true,
      },
      {
        json: 'selector',
        number: 2,
        type: 'string',
        description: 'Label selector of the pods, as a string.',
      },
    ],
  },
];
