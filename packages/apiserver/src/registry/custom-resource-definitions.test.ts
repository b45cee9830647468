import { beforeAll, describe, expect, it } from 'vitest';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import { loadCelEngine } from '../schema/cel/rules.ts';
import {
  crdResources,
  defaultObject,
  pruneObject,
  servedSchema,
  validateAgainstSchema,
  validateCrd,
  validateTransitionRules,
  versionPriorityOrder,
} from './custom-resource-definitions.ts';

beforeAll(() => loadCelEngine());

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
      message: 'Too long: may not be more than 2 bytes',
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

describe('pruneObject defaulting', () => {
  it('prunes, applies defaults (also over non-nullable nulls), then drops the nulls left', () => {
    const root = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer', default: 1 },
            mode: { type: 'string', default: 'a' },
            note: { type: 'string' },
          },
        },
      },
    };
    const object = { spec: { mode: null, note: null, unknown: 1 } };
    pruneObject(object, root);
    expect(object).toEqual({ spec: { size: 1, mode: 'a' } });
  });
});

describe('defaultObject', () => {
  it('applies defaults to an object read from storage', () => {
    const root = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } },
      },
    };
    const object = { spec: {} };
    defaultObject(object, root);
    expect(object.spec).toEqual({ size: 3 });
  });
});

describe('validateAgainstSchema with rules', () => {
  const root = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.size > 0' }],
        properties: {
          size: {
            type: 'integer',
            'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'may not shrink' }],
          },
          set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        },
      },
    },
  };

  it('reports schema, list-type and plain rule failures in kube’s order, leaving transition rules out', () => {
    const causes = validateAgainstSchema({ spec: { size: 'x', set: ['a', 'a'] } }, root);
    expect(causes.map((cause) => `${cause.field}: ${cause.type}`)).toEqual([
      'spec.size: FieldValueTypeInvalid',
      'spec.set[1]: FieldValueDuplicate',
      'spec: FieldValueInvalid',
    ]);
  });

  it('evaluates only transition rules in validateTransitionRules', () => {
    expect(validateTransitionRules({ spec: { size: 0 } }, root, { spec: { size: 5 } })).toEqual([
      {
        type: 'FieldValueInvalid',
        message: 'Invalid value: 0: may not shrink',
        field: 'spec.size',
      },
    ]);
  });
});

describe('validateCrd schema checks', () => {
  it('reports a bad default under spec.validation when every version shares the schema', () => {
    const bad = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { n: { type: 'integer', default: 'x' } } },
      },
    };
    const crd = definition({
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: bad } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: bad } },
      ],
    });
    expect(validateCrd(crd).map((cause) => cause.field)).toEqual([
      'spec.validation.openAPIV3Schema.properties[spec].properties[n].default',
    ]);
  });

  it('reports under spec.versions[i] when the schemas differ', () => {
    const bad = { type: 'object', properties: { n: { type: 'integer', default: 'x' } } };
    const crd = definition({
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: bad } },
      ],
    });
    expect(validateCrd(crd).map((cause) => cause.field)).toEqual([
      'spec.versions[1].schema.openAPIV3Schema.properties[n].default',
    ]);
  });
});

describe('servedSchema', () => {
  it('returns the schema each served version was registered with', () => {
    const { infos } = crdResources(definition());
    expect(servedSchema(infos[0] as ResourceInfo)).toBe(schema);
  });
});
