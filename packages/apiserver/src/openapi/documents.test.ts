import { describe, expect, it } from 'vitest';
import { crdResources } from '../registry/custom-resource-definitions.ts';
import { Registry } from '../resources/served-resources.ts';
import { testTypes } from './__fixtures__/types.ts';
import { documentHash, OpenApiPublisher } from './documents.ts';

function widgetCrd(resourceVersion: string, extra: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.demo.example.com', uid: 'u1', resourceVersion },
    spec: {
      group: 'demo.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer', ...extra } } },
              },
            },
          },
        },
      ],
    },
  };
}

function source(crds: any[]) {
  const registry = new Registry();
  for (const crd of crds) {
    const { infos, versionOrder } = crdResources(crd);
    for (const info of infos) registry.add(info, versionOrder);
  }
  return { registry, crds: () => crds };
}

function patchOperation(document: any, kind: string): any {
  return Object.values(document.paths)
    .map((item: any) => item.patch)
    .find((operation: any) => operation?.['x-kubernetes-group-version-kind']?.kind === kind);
}

describe('OpenApiPublisher', () => {
  const publisher = () => new OpenApiPublisher({ types: testTypes, version: 'v1.33.0' });

  it('lists every served group-version in the root with the hash of its document', () => {
    const instance = publisher();
    const input = source([widgetCrd('5')]);
    const root = JSON.parse(instance.root(input).json);
    expect(Object.keys(root.paths)).toContain('api/v1');
    expect(Object.keys(root.paths)).toContain('apis/apps/v1');
    expect(Object.keys(root.paths)).toContain('apis/demo.example.com/v1');
    const coreDocument = instance.groupVersion(input, 'api/v1')!;
    expect(coreDocument.hash).toBe(documentHash(coreDocument.json));
    expect(coreDocument.hash).toMatch(/^[0-9A-F]{128}$/);
    expect(root.paths['api/v1'].serverRelativeURL).toBe(
      `/openapi/v3/api/v1?hash=${coreDocument.hash}`,
    );
  });

  it('publishes built-in kinds with PATCH parameters, strategic merge and schemas', () => {
    const instance = publisher();
    const document = JSON.parse(instance.groupVersion(source([]), 'api/v1')!.json);
    expect(document.openapi).toBe('3.0.0');
    const patch = patchOperation(document, 'ConfigMap');
    expect(patch.parameters.map((parameter: any) => parameter.name)).toEqual([
      'dryRun',
      'fieldManager',
      'fieldValidation',
      'force',
    ]);
    expect(Object.keys(patch.requestBody.content)).toContain(
      'application/strategic-merge-patch+json',
    );
    const configMap = document.components.schemas['io.k8s.api.core.v1.ConfigMap'];
    expect(configMap.properties.metadata).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    expect(document.components.schemas['io.k8s.api.core.v1.ConfigMapList']).toBeDefined();
    expect(document.components.schemas['io.k8s.api.core.v1.Container']).toBeDefined();
    // A served kind the table does not describe yet is published permissively, without strategic merge.
    const secret = document.components.schemas['io.k8s.api.core.v1.Secret'];
    expect(secret['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(Object.keys(patchOperation(document, 'Secret').requestBody.content)).not.toContain(
      'application/strategic-merge-patch+json',
    );
  });

  it('publishes a CRD kind with its schema, status path and no strategic merge', () => {
    const instance = publisher();
    const document = JSON.parse(
      instance.groupVersion(source([widgetCrd('5')]), 'apis/demo.example.com/v1')!.json,
    );
    expect(Object.keys(document.paths)).toEqual([
      '/apis/demo.example.com/v1/namespaces/{namespace}/widgets',
      '/apis/demo.example.com/v1/namespaces/{namespace}/widgets/{name}',
      '/apis/demo.example.com/v1/namespaces/{namespace}/widgets/{name}/status',
      '/apis/demo.example.com/v1/widgets',
    ]);
    const patch = patchOperation(document, 'Widget');
    expect(patch.parameters.map((parameter: any) => parameter.name)).toContain('fieldValidation');
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
    ]);
    const widget = document.components.schemas['com.example.demo.v1.Widget'];
    expect(widget.properties.spec.properties.size).toEqual({ type: 'integer' });
    expect(
      document.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'],
    ).toBeDefined();
  });

  it('keeps the text and hash while nothing changes and rebuilds when a CRD changes', () => {
    const instance = publisher();
    const first = instance.groupVersion(source([widgetCrd('5')]), 'apis/demo.example.com/v1')!;
    const again = instance.groupVersion(source([widgetCrd('5')]), 'apis/demo.example.com/v1')!;
    expect(again).toBe(first);
    const updated = instance.groupVersion(
      source([widgetCrd('6', { minimum: 1 })]),
      'apis/demo.example.com/v1',
    )!;
    expect(updated.hash).not.toBe(first.hash);
    expect(updated.json).toContain('"minimum":1');
    expect(instance.groupVersion(source([]), 'apis/demo.example.com/v1')).toBeUndefined();
  });

  it('publishes one v2 document with definitions and body parameters', () => {
    const document = JSON.parse(publisher().v2(source([widgetCrd('5')])).json);
    expect(document.swagger).toBe('2.0');
    expect(
      document.definitions['com.example.demo.v1.Widget']['x-kubernetes-group-version-kind'],
    ).toEqual([{ group: 'demo.example.com', version: 'v1', kind: 'Widget' }]);
    const post = document.paths['/api/v1/namespaces/{namespace}/configmaps'].post;
    expect(post.parameters[0]).toEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' },
    });
    expect(post.parameters.map((parameter: any) => parameter.name)).toContain('fieldValidation');
    expect(document.definitions['io.k8s.api.core.v1.ConfigMap'].properties.metadata).toEqual({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
  });
});
