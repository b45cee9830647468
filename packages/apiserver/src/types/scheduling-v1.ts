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
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'value',
        number: 2,
        type: 'int32',
        description: 'The priority pods of this class receive.',
        keepZero: true,
        required: true,
      },
      {
        json: 'globalDefault',
        number: 3,
        type: 'bool',
        description: 'Use this class for pods that name none.',
      },
      { json: 'description', number: 4, type: 'string', description: 'When to use this class.' },
      {
        json: 'preemptionPolicy',
        number: 5,
        type: 'string',
        description: 'Whether pods of this class may preempt lower-priority pods.',
        keepZero: true,
        enum: ['Never', 'PreemptLowerPriority'],
      },
    ],
  },
];
