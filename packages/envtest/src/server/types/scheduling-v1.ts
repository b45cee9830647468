// Built-in type definitions of scheduling.k8s.io/v1 (k8s.io/api): PriorityClass.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The scheduling-v1 types, top-level kinds first. */
export const schedulingV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.scheduling.v1.PriorityClass',
    description: 'Maps a priority class name to the integer priority pods receive.',
    gvk: { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'value', number: 2, type: 'int32', keepZero: true, required: true },
      { json: 'globalDefault', number: 3, type: 'bool' },
      { json: 'description', number: 4, type: 'string' },
      {
        json: 'preemptionPolicy',
        number: 5,
        type: 'string',
        keepZero: true,
        enum: ['Never', 'PreemptLowerPriority'],
      },
    ],
  },
];
