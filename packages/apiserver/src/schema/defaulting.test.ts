import { describe, expect, it } from 'vitest';
import { applyDefaults } from './defaulting.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: { a: 'x' },
      properties: {
        a: { type: 'string', default: 'da' },
        n: { type: 'integer', default: 5 },
        nullable: { type: 'string', nullable: true, default: 'dn' },
        list: {
          type: 'array',
          items: { type: 'object', properties: { p: { type: 'integer', default: 1 } } },
        },
        byName: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { z: { type: 'string', default: 'dz' } },
          },
        },
        tags: { type: 'array', items: { type: 'string', default: 'dt' } },
      },
    },
  },
};

// Outputs match what kube-apiserver 1.20.2 stored for the same bodies.
describe('applyDefaults', () => {
  it('defaults a missing object, then that object’s own properties', () => {
    const object: Record<string, unknown> = {};
    applyDefaults(object, schema);
    expect(object).toEqual({ spec: { a: 'x', n: 5, nullable: 'dn' } });
  });

  it('keeps a null of a nullable field and replaces one that is not nullable', () => {
    const object = { spec: { a: null, nullable: null } };
    applyDefaults(object, schema);
    expect(object.spec).toEqual({ a: 'da', n: 5, nullable: null });
  });

  it('defaults inside list items, additionalProperties values and null items', () => {
    const object = { spec: { list: [{}, { p: 3 }], byName: { k: {} }, tags: [null, 'x'] } };
    applyDefaults(object, schema);
    expect(object.spec).toMatchObject({
      list: [{ p: 1 }, { p: 3 }],
      byName: { k: { z: 'dz' } },
      tags: ['dt', 'x'],
    });
  });

  it('copies a default so two objects never share it', () => {
    const first: Record<string, any> = {};
    const second: Record<string, any> = {};
    applyDefaults(first, schema);
    applyDefaults(second, schema);
    first.spec.a = 'changed';
    expect(second.spec.a).toBe('x');
    expect(schema.properties.spec.default).toEqual({ a: 'x' });
  });
});
