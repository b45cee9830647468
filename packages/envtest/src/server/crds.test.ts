import { describe, expect, it } from 'vitest';
import {
  crdResources,
  pruneObject,
  validateAgainstSchema,
  validateCrd,
  versionPriorityOrder,
} from './crds.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer' },
        mode: { type: 'string', enum: ['a', 'b'] },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
    },
  },
};

function definition(overrides: Record<string, unknown> = {}) {
  return {
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'things', kind: 'Thing' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' },
          },
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: schema } },
        { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: schema } },
      ],
      ...overrides,
    },
  };
}

describe('versionPriorityOrder', () => {
  it('orders GA before beta before alpha, higher first, then other names alphabetically', () => {
    expect(
      versionPriorityOrder([
        'v1alpha1',
        'foo',
        'v2beta1',
        'v1',
        'v2',
        'v11alpha2',
        'bar',
        'v1beta1',
      ]),
    ).toEqual(['v2', 'v1', 'v2beta1', 'v1beta1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
  });
});

describe('validateCrd', () => {
  it('accepts a valid definition', () => {
    expect(validateCrd(definition())).toEqual([]);
  });

  it('names a wrong metadata.name and a missing storage version', () => {
    const causes = validateCrd({
      ...definition({
        versions: [
          { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: schema } },
        ],
      }),
      metadata: { name: 'wrong' },
    });
    expect(causes.map((cause) => cause.field)).toEqual(['metadata.name', 'spec.versions']);
  });
});

describe('crdResources', () => {
  it('serves each served version with the storage version and subresources', () => {
    const { infos, versionOrder } = crdResources(definition());
    expect(infos.map((info) => info.version)).toEqual(['v1', 'v1beta1']);
    expect(versionOrder).toEqual(['v1', 'v1beta1']);
    expect(infos[0]).toMatchObject({
      resource: 'things',
      kind: 'Thing',
      listKind: 'ThingList',
      singularName: 'thing',
      namespaced: true,
      storageVersion: 'v1',
      subresources: ['status', 'scale'],
      scale: { specReplicasPath: '.spec.size' },
    });
    expect(infos[1]?.subresources).toEqual([]);
  });
});

describe('pruneObject', () => {
  it('drops unknown fields but keeps apiVersion, kind, metadata and preserved subtrees', () => {
    const object = {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 'a', anything: 1 },
      extra: true,
      spec: { size: 1, unknown: 2, free: { x: { y: 1 } }, items: [{ name: 'n', other: 1 }] },
    };
    pruneObject(object, schema);
    expect(object).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 'a', anything: 1 },
      spec: { size: 1, free: { x: { y: 1 } }, items: [{ name: 'n' }] },
    });
  });
});

describe('validateAgainstSchema', () => {
  it('reports type, enum and required violations with field paths', () => {
    const causes = validateAgainstSchema(
      { spec: { size: 'big', mode: 'c', items: [{ name: 3 }] } },
      schema,
    );
    expect(causes.map((cause) => [cause.type, cause.field])).toEqual([
      ['FieldValueTypeInvalid', 'spec.size'],
      ['FieldValueNotSupported', 'spec.mode'],
      ['FieldValueTypeInvalid', 'spec.items[0].name'],
    ]);
    expect(validateAgainstSchema({ spec: {} }, schema)).toEqual([
      { type: 'FieldValueRequired', message: 'Required value', field: 'spec.size' },
    ]);
  });
});
