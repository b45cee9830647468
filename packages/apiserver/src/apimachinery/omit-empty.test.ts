import { describe, expect, it } from 'vitest';
import { omitEmpty } from './omit-empty.ts';

describe('omitEmpty', () => {
  it('drops what omitempty drops from a built-in kind and keeps pointer zeros', () => {
    const deployment = omitEmpty({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: {}, annotations: { a: '' }, finalizers: [] },
      spec: {
        replicas: 0,
        paused: false,
        minReadySeconds: 0,
        template: {
          metadata: { creationTimestamp: null },
          spec: { containers: [{ name: 'main', image: '', env: [], ports: null }] },
        },
      },
    });
    expect(deployment).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      // A map entry is data, not a field: an empty annotation value stays.
      metadata: { name: 'd', annotations: { a: '' } },
      spec: {
        replicas: 0,
        template: {
          metadata: { creationTimestamp: null },
          spec: { containers: [{ name: 'main' }] },
        },
      },
    });
  });

  it('touches only the metadata of a custom resource, and never a CRD schema', () => {
    const custom = omitEmpty({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', annotations: {} },
      spec: { tags: [], count: 0 },
    });
    expect(custom).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { tags: [], count: 0 },
    });
    const schema = { type: 'number', minimum: 0, exclusiveMinimum: false };
    const crd = omitEmpty({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }] },
    });
    expect(crd.spec.versions[0]!.schema.openAPIV3Schema).toEqual(schema);
  });

  it('leaves a kind the type table does not describe alone', () => {
    const object = { apiVersion: 'v1', kind: 'Unknown', metadata: { labels: {} }, spec: {} };
    expect(omitEmpty(structuredClone(object))).toEqual(object);
  });
});
