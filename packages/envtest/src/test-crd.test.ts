import { describe, expect, it } from 'vitest';
import { testCrd } from './test-crd.ts';

describe('testCrd', () => {
  it('builds a namespaced Widget CRD of the group, v1 served and stored, with spec.size', () => {
    const crd = testCrd({ group: 'test.lasso.dev' });
    expect(crd.metadata.name).toBe('widgets.test.lasso.dev');
    expect(crd.spec.names).toEqual({
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
    });
    expect(crd.spec.versions).toEqual([
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ]);
  });

  it('takes another kind, schema and the status subresource', () => {
    const schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const crd = testCrd({
      group: 'g.example.com',
      kind: 'Gadget',
      schema,
      statusSubresource: true,
    });
    expect(crd.metadata.name).toBe('gadgets.g.example.com');
    expect(crd.spec.names.listKind).toBe('GadgetList');
    expect(crd.spec.versions[0]?.subresources).toEqual({ status: {} });
    expect(crd.spec.versions[0]?.schema.openAPIV3Schema).toBe(schema);
  });
});
