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

  it.for([
    {
      name: 'minimum',
      schema: { type: 'integer', minimum: 0 },
      value: -1,
      message: 'Invalid value: -1: spec.n in body should be greater than or equal to 0',
    },
    {
      name: 'exclusive minimum',
      schema: { type: 'integer', minimum: 0, exclusiveMinimum: true },
      value: 0,
      message: 'Invalid value: 0: spec.n in body should be greater than 0',
    },
    {
      name: 'maximum',
      schema: { type: 'integer', maximum: 10 },
      value: 11,
      message: 'Invalid value: 11: spec.n in body should be less than or equal to 10',
    },
    {
      name: 'exclusive maximum',
      schema: { type: 'number', maximum: 10, exclusiveMaximum: true },
      value: 10,
      message: 'Invalid value: 10: spec.n in body should be less than 10',
    },
    {
      name: 'multipleOf',
      schema: { type: 'integer', multipleOf: 3 },
      value: 4,
      message: 'Invalid value: 4: spec.n in body should be a multiple of 3',
    },
    {
      name: 'minLength',
      schema: { type: 'string', minLength: 2 },
      value: 'a',
      message: 'Invalid value: "a": spec.n in body should be at least 2 chars long',
    },
    {
      name: 'maxLength',
      schema: { type: 'string', maxLength: 2 },
      value: 'abc',
      message: 'Too long: may not be longer than 2',
    },
    {
      name: 'pattern',
      schema: { type: 'string', pattern: '^[a-z]+$' },
      value: 'A1',
      message: 'Invalid value: "A1": spec.n in body should match \'^[a-z]+$\'',
    },
  ])('refuses a value that breaks $name', ({ schema: child, value, message }) => {
    const root = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { n: child } } },
    };
    expect(
      validateAgainstSchema({ spec: { n: value } }, root).map((cause) => cause.message),
    ).toEqual([message]);
  });

  it('accepts values within every bound', () => {
    const root = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            n: { type: 'integer', minimum: 0, maximum: 10, multipleOf: 2 },
            s: { type: 'string', minLength: 1, maxLength: 3, pattern: '^[a-z]+$' },
          },
        },
      },
    };
    expect(validateAgainstSchema({ spec: { n: 4, s: 'ab' } }, root)).toEqual([]);
  });
});
