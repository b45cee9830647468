// A small built-in type table for the OpenAPI unit tests (the real one is server/types/index.ts).
import type { TypeDefinition } from '../../types/type-definition.ts';

const objectMeta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** ConfigMap, Pod (with the containers merge key) and ObjectMeta, as the shared table describes them. */
export const testTypes: ReadonlyMap<string, TypeDefinition> = new Map<string, TypeDefinition>(
  [
    {
      name: 'io.k8s.api.core.v1.ConfigMap',
      description: 'ConfigMap holds configuration data for pods to consume.',
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
      fields: [
        { json: 'metadata', number: 1, type: { message: objectMeta } },
        { json: 'data', number: 2, type: { map: 'string' }, description: 'Data contains the configuration data.' },
        { json: 'binaryData', number: 3, type: { map: 'bytes' } },
        { json: 'immutable', number: 4, type: 'bool', keepZero: true },
      ],
    },
    {
      name: 'io.k8s.api.core.v1.Pod',
      gvk: { group: '', version: 'v1', kind: 'Pod' },
      fields: [
        { json: 'metadata', number: 1, type: { message: objectMeta } },
        { json: 'spec', number: 2, type: { message: 'io.k8s.api.core.v1.PodSpec' } },
      ],
    },
    {
      name: 'io.k8s.api.core.v1.PodSpec',
      fields: [
        {
          json: 'containers',
          number: 2,
          type: { message: 'io.k8s.api.core.v1.Container' },
          repeated: true,
          required: true,
          patchStrategy: 'merge',
          patchMergeKey: 'name',
          listType: 'map',
          listMapKeys: ['name'],
        },
        { json: 'restartPolicy', number: 3, type: 'string', enum: ['Always', 'Never', 'OnFailure'] },
      ],
    },
    {
      name: 'io.k8s.api.core.v1.Container',
      fields: [
        { json: 'name', number: 1, type: 'string', required: true },
        { json: 'image', number: 2, type: 'string' },
        { json: 'cpu', number: 3, type: 'quantity' },
        { json: 'port', number: 4, type: 'intOrString' },
      ],
    },
    {
      name: objectMeta,
      fields: [
        { json: 'name', number: 1, type: 'string' },
        { json: 'labels', number: 11, type: { map: 'string' } },
        { json: 'creationTimestamp', number: 8, type: 'time' },
      ],
    },
  ].map((type) => [type.name, type as TypeDefinition]),
);
