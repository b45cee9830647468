import { describe, expect, it } from 'vitest';
import { closure, referencedNames, toV2, toV3 } from './schema.ts';

describe('schema rendering', () => {
  const schema = {
    type: 'object',
    properties: {
      metadata: { description: 'meta', $ref: 'a.ObjectMeta' },
      items: { type: 'array', items: { $ref: 'a.Item' } },
      // A property named like a keyword is a property, and data under `default` is data.
      default: { type: 'string', default: { $ref: 'not.a.reference' } },
    },
  };

  it('finds references in nested schemas but not in data', () => {
    expect([...referencedNames(schema)].sort()).toEqual(['a.Item', 'a.ObjectMeta']);
  });

  it('points v2 references into #/definitions and keeps siblings next to them', () => {
    const v2 = toV2(schema) as any;
    expect(v2.properties.metadata).toEqual({
      description: 'meta',
      $ref: '#/definitions/a.ObjectMeta',
    });
    expect(v2.properties.items.items).toEqual({ $ref: '#/definitions/a.Item' });
    expect(v2.properties.default.default).toEqual({ $ref: 'not.a.reference' });
  });

  it('wraps v3 references with siblings in allOf, as kube-openapi does', () => {
    const v3 = toV3(schema) as any;
    expect(v3.properties.metadata).toEqual({
      description: 'meta',
      allOf: [{ $ref: '#/components/schemas/a.ObjectMeta' }],
    });
    expect(v3.properties.items.items).toEqual({ $ref: '#/components/schemas/a.Item' });
  });

  it('closes over references and fills missing names with the fallback, sorted by name', () => {
    const definitions = new Map([
      ['b.Kind', { type: 'object', properties: { x: { $ref: 'a.Missing' } } }],
    ]);
    const result = closure(['b.Kind'], definitions, () => ({ type: 'object' }));
    expect([...result.keys()]).toEqual(['a.Missing', 'b.Kind']);
    expect(result.get('a.Missing')).toEqual({ type: 'object' });
  });
});
