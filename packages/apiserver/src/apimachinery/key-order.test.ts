import { describe, expect, it } from 'vitest';
import { isBuiltinGroup, orderKeys, sortKeysDeep } from './key-order.ts';

const keys = (value: unknown): string[] => Object.keys(value as object);

describe('orderKeys', () => {
  it('sorts the maps of a ConfigMap and keeps its struct fields in declaration order', () => {
    const ordered = orderKeys({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { b: '1', a: '2', C: '3' },
      metadata: {
        labels: { z: '1', a: '2' },
        annotations: { zz: 'x', aa: 'y' },
        resourceVersion: '7',
        name: 'c',
        uid: 'u',
        namespace: 'ns',
      },
    });
    expect(keys(ordered)).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(keys(ordered.metadata)).toEqual([
      'name',
      'namespace',
      'uid',
      'resourceVersion',
      'labels',
      'annotations',
    ]);
    expect(keys(ordered.metadata.labels)).toEqual(['a', 'z']);
    expect(keys(ordered.metadata.annotations)).toEqual(['aa', 'zz']);
    // Go sorts bytewise: upper case before lower case.
    expect(keys(ordered.data)).toEqual(['C', 'a', 'b']);
  });

  it('sorts maps nested in structs and lists (a Deployment template, resource lists)', () => {
    const ordered = orderKeys({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { z: '1', a: '2' } },
        template: {
          metadata: { labels: { z: '1', a: '2' }, name: 't' },
          spec: {
            nodeSelector: { zz: 'a', aa: 'b' },
            containers: [
              { name: 'm', image: 'x', resources: { limits: { memory: '1', cpu: '1' } } },
            ],
          },
        },
      },
    }) as any;
    expect(keys(ordered.spec)).toEqual(['selector', 'template']);
    expect(keys(ordered.spec.selector.matchLabels)).toEqual(['a', 'z']);
    expect(keys(ordered.spec.template.metadata)).toEqual(['name', 'labels']);
    expect(keys(ordered.spec.template.metadata.labels)).toEqual(['a', 'z']);
    expect(keys(ordered.spec.template.spec)).toEqual(['nodeSelector', 'containers']);
    expect(keys(ordered.spec.template.spec.nodeSelector)).toEqual(['aa', 'zz']);
    expect(keys(ordered.spec.template.spec.containers[0])).toEqual(['name', 'image', 'resources']);
    expect(keys(ordered.spec.template.spec.containers[0].resources.limits)).toEqual([
      'cpu',
      'memory',
    ]);
  });

  it('sorts a custom resource at every depth, metadata and top level included', () => {
    const ordered = orderKeys({
      kind: 'Widget',
      apiVersion: 'example.com/v1',
      spec: { zeta: 1, alpha: { y: 1, b: [{ d: 1, c: 2 }] } },
      metadata: { name: 'w', labels: { z: '1', a: '2' }, generation: 1 },
    }) as any;
    expect(keys(ordered)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(keys(ordered.metadata)).toEqual(['generation', 'labels', 'name']);
    expect(keys(ordered.metadata.labels)).toEqual(['a', 'z']);
    expect(keys(ordered.spec)).toEqual(['alpha', 'zeta']);
    expect(keys(ordered.spec.alpha)).toEqual(['b', 'y']);
    expect(keys(ordered.spec.alpha.b[0])).toEqual(['c', 'd']);
  });

  it('sorts the schema maps of a CRD, which the type table does not describe', () => {
    const ordered = orderKeys({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', annotations: { b: '', a: '' } },
      spec: {
        group: 'example.com',
        versions: [
          {
            name: 'v1',
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { replicas: { type: 'integer' }, message: { type: 'string' } },
                    default: { z: 1, a: 2 },
                  },
                  status: { type: 'object' },
                },
              },
            },
          },
        ],
      },
    }) as any;
    const schema = ordered.spec.versions[0].schema.openAPIV3Schema;
    expect(keys(schema)).toEqual(['type', 'properties']);
    expect(keys(schema.properties)).toEqual(['spec', 'status']);
    expect(keys(schema.properties.spec.properties)).toEqual(['message', 'replicas']);
    expect(keys(schema.properties.spec.default)).toEqual(['a', 'z']);
    expect(keys(ordered.metadata.annotations)).toEqual(['a', 'b']);
  });

  it('tells built-in API groups from custom ones', () => {
    expect(isBuiltinGroup('')).toBe(true);
    expect(isBuiltinGroup('apps')).toBe(true);
    expect(isBuiltinGroup('rbac.authorization.k8s.io')).toBe(true);
    expect(isBuiltinGroup('example.com')).toBe(false);
  });

  it('leaves values alone when it sorts', () => {
    expect(sortKeysDeep({ b: [3, 1, { y: null, x: 'v' }], a: 'z' })).toEqual({
      a: 'z',
      b: [3, 1, { x: 'v', y: null }],
    });
  });
});
