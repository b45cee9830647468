import { describe, expect, it } from 'vitest';
import { testTypes } from './__fixtures__/types.ts';
import { builtinDefinitions, names, typeDefinitionSchema } from './builtin-definitions.ts';

describe('built-in definitions from the type table', () => {
  const definitions = builtinDefinitions(testTypes);

  it('publishes a kind with its GVK, apiVersion/kind, sorted properties and metadata by reference', () => {
    const configMap = definitions.get('io.k8s.api.core.v1.ConfigMap')!;
    expect(configMap['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'ConfigMap' },
    ]);
    expect(Object.keys(configMap.properties as object)).toEqual([
      'apiVersion',
      'binaryData',
      'data',
      'immutable',
      'kind',
      'metadata',
    ]);
    const properties = configMap.properties as any;
    expect(properties.metadata).toEqual({ $ref: names.objectMeta });
    expect(properties.data).toEqual({
      description: 'Data contains the configuration data.',
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(properties.binaryData.additionalProperties).toEqual({ type: 'string', format: 'byte' });
  });

  it('carries the patch metadata and list type kubectl and server-side apply read', () => {
    const spec = definitions.get('io.k8s.api.core.v1.PodSpec')!;
    expect(spec.required).toEqual(['containers']);
    expect((spec.properties as any).containers).toEqual({
      type: 'array',
      items: { $ref: 'io.k8s.api.core.v1.Container' },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect((spec.properties as any).restartPolicy.enum).toEqual(['Always', 'Never', 'OnFailure']);
  });

  it('refers to the apimachinery types kube publishes as formatted strings', () => {
    const container = typeDefinitionSchema(testTypes.get('io.k8s.api.core.v1.Container')!);
    expect((container.properties as any).cpu).toEqual({ $ref: names.quantity });
    expect((container.properties as any).port).toEqual({ $ref: names.intOrString });
    expect(definitions.get(names.intOrString)).toMatchObject({
      type: 'string',
      format: 'int-or-string',
    });
    expect(definitions.get(names.time)).toMatchObject({ type: 'string', format: 'date-time' });
  });
});

describe('inline-embedded structs', () => {
  it('lift their fields into the parent, as Go JSON flattens them', () => {
    const table = new Map([
      [
        'x.Volume',
        {
          name: 'x.Volume',
          fields: [
            { json: 'name', number: 1, type: 'string' as const, required: true },
            { json: '', number: 2, type: { message: 'x.VolumeSource' }, inline: true },
          ],
        },
      ],
      [
        'x.VolumeSource',
        {
          name: 'x.VolumeSource',
          fields: [{ json: 'emptyDir', number: 1, type: 'string' as const }],
        },
      ],
    ]);
    const volume = builtinDefinitions(table).get('x.Volume')!;
    expect(Object.keys(volume.properties as object)).toEqual(['emptyDir', 'name']);
    expect(volume.required).toEqual(['name']);
  });
});
