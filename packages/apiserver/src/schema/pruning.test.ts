import { describe, expect, it } from 'vitest';
import { pruneNonNullableNulls, pruneUnknownFields } from './pruning.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        keep: { type: 'string' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object' } },
        },
        items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        maybe: { type: 'string', nullable: true },
        never: { type: 'string' },
        withDefault: { type: 'string', default: 'x' },
      },
    },
  },
};

describe('pruneUnknownFields', () => {
  it('drops unknown fields, keeping root and embedded apiVersion/kind/metadata and preserved subtrees', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'K',
      metadata: { name: 'n' },
      extra: 1,
      spec: {
        keep: 'k',
        drop: 1,
        free: { anything: { goes: true } },
        embedded: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: {}, status: {} },
        items: [{ a: 'x', b: 'y' }],
      },
    };
    pruneUnknownFields(object, schema);
    expect(object).toEqual({
      apiVersion: 'v1',
      kind: 'K',
      metadata: { name: 'n' },
      spec: {
        keep: 'k',
        free: { anything: { goes: true } },
        embedded: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: {} },
        items: [{ a: 'x' }],
      },
    });
  });
});

describe('pruneNonNullableNulls', () => {
  it('drops nulls of fields that are neither nullable nor defaulted', () => {
    const object = { spec: { maybe: null, never: null, withDefault: null } };
    pruneNonNullableNulls(object, schema);
    expect(object.spec).toEqual({ maybe: null, withDefault: null });
  });
});
