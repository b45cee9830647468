import { describe, expect, it } from 'vitest';
import { validateListTypes } from './list-types.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        atomic: { type: 'array', items: { type: 'string' } },
        map: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string' },
              inner: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } },
            },
          },
        },
      },
    },
  },
};

// Messages as kube-apiserver 1.20.2 words them.
describe('validateListTypes', () => {
  it('reports every repeated entry of a set at its index', () => {
    expect(validateListTypes({ spec: { set: ['x', 'y', 'x', 'x'] } }, schema)).toEqual([
      { type: 'FieldValueDuplicate', message: 'Duplicate value: "x"', field: 'spec.set[2]' },
      { type: 'FieldValueDuplicate', message: 'Duplicate value: "x"', field: 'spec.set[3]' },
    ]);
  });

  it('reports a repeated map key with the key fields in Go syntax', () => {
    const causes = validateListTypes(
      {
        spec: {
          map: [
            { name: 'a', protocol: 'TCP' },
            { name: 'a', protocol: 'UDP' },
            { name: 'a', protocol: 'TCP', inner: [1, 1] },
          ],
        },
      },
      schema,
    );
    expect(causes).toEqual([
      {
        type: 'FieldValueDuplicate',
        message: 'Duplicate value: map[string]interface {}{"name":"a", "protocol":"TCP"}',
        field: 'spec.map[2]',
      },
      { type: 'FieldValueDuplicate', message: 'Duplicate value: 1', field: 'spec.map[2].inner[1]' },
    ]);
  });

  it('accepts repeats in an atomic list', () => {
    expect(validateListTypes({ spec: { atomic: ['x', 'x'] } }, schema)).toEqual([]);
  });
});
