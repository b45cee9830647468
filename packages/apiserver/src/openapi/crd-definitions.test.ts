import { describe, expect, it } from 'vitest';
import { customDefinitionName, customDefinitions, customVersions } from './crd-definitions.ts';

const crd = {
  spec: {
    group: 'demo.example.com',
    names: { plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget.',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 1 },
                  port: {
                    'x-kubernetes-int-or-string': true,
                    anyOf: [{ type: 'integer' }, { type: 'string' }],
                  },
                  note: { type: 'string', nullable: true },
                },
              },
            },
          },
        },
      },
      { name: 'v0', served: false, storage: false },
    ],
  },
};

describe('CRD definitions', () => {
  it('names definitions with the group reversed', () => {
    expect(customDefinitionName('demo.example.com', 'v1', 'Widget')).toBe(
      'com.example.demo.v1.Widget',
    );
  });

  it('publishes only served versions', () => {
    expect(customVersions(crd).map((version) => version.version)).toEqual(['v1']);
  });

  it('publishes the structural schema with metadata by reference and the GVK, and a list kind', () => {
    const definitions = customDefinitions(customVersions(crd)[0]!, 'v3');
    expect([...definitions.keys()]).toEqual([
      'com.example.demo.v1.Widget',
      'com.example.demo.v1.WidgetList',
    ]);
    const widget = definitions.get('com.example.demo.v1.Widget') as any;
    expect(widget.description).toBe('A widget.');
    expect(Object.keys(widget.properties)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(widget.properties.metadata.$ref).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(widget.properties.spec.properties.size).toEqual({ type: 'integer', minimum: 1 });
    expect(widget['x-kubernetes-group-version-kind']).toEqual([
      { group: 'demo.example.com', version: 'v1', kind: 'Widget' },
    ]);
    const list = definitions.get('com.example.demo.v1.WidgetList') as any;
    expect(list.properties.items.items).toEqual({ $ref: 'com.example.demo.v1.Widget' });
    expect(list['x-kubernetes-group-version-kind']).toEqual([
      { group: 'demo.example.com', version: 'v1', kind: 'WidgetList' },
    ]);
  });

  it('drops what OpenAPI v2 cannot say from the v2 schema', () => {
    const widget = customDefinitions(customVersions(crd)[0]!, 'v2').get(
      'com.example.demo.v1.Widget',
    ) as any;
    expect(widget.properties.spec.properties.port).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(widget.properties.spec.properties.note).toEqual({});
    expect(widget.properties.spec.properties.size).toEqual({ type: 'integer', minimum: 1 });
  });
});
