import { describe, expect, it } from 'vitest';
import { jsonTypeOf, validateValue } from './structural-validation.ts';

// The wording is the newest released kube-apiserver's (1.37): kube-openapi's texts as 1.20.2 answers them,
// except TooLong, TooMany and TypeInvalid (kubernetes#108996, 1.24), the property count as minProperties'
// value (kube-openapi#297, 1.24), indexed item paths (kube-openapi#273, 1.24), the fields of an object
// checked past a property-count failure (kube-openapi#412, 1.28) and TooLong's bytes (kubernetes#128553,
// 1.32). tooling/conformance/test/crd-validation.test.ts holds each release's own wording.
function messages(value: unknown, schema: Record<string, unknown>, path = 'spec.x'): string[] {
  return validateValue(value, schema, path).map((cause) => `${cause.field}: ${cause.message}`);
}

describe('validateValue', () => {
  it.for([
    {
      name: 'maximum',
      schema: { type: 'integer', maximum: 10 },
      value: 11,
      expected: ['spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10'],
    },
    {
      name: 'exclusiveMaximum',
      schema: { type: 'number', maximum: 10, exclusiveMaximum: true },
      value: 10,
      expected: ['spec.x: Invalid value: 10: spec.x in body should be less than 10'],
    },
    {
      name: 'minimum',
      schema: { type: 'integer', minimum: 1 },
      value: 0,
      expected: ['spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1'],
    },
    {
      name: 'exclusiveMinimum',
      schema: { type: 'number', minimum: 1, exclusiveMinimum: true },
      value: 1,
      expected: ['spec.x: Invalid value: 1: spec.x in body should be greater than 1'],
    },
    {
      name: 'multipleOf before maximum, as kube orders them',
      schema: { type: 'integer', maximum: 10, multipleOf: 2 },
      value: 11,
      expected: [
        'spec.x: Invalid value: 11: spec.x in body should be a multiple of 2',
        'spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10',
      ],
    },
    {
      name: 'multipleOf with a fraction',
      schema: { type: 'number', multipleOf: 0.1 },
      value: 0.3,
      expected: [],
    },
    {
      name: 'minLength counting characters',
      schema: { type: 'string', minLength: 3 },
      value: 'äö',
      expected: ['spec.x: Invalid value: "äö": spec.x in body should be at least 3 chars long'],
    },
    {
      name: 'maxLength',
      schema: { type: 'string', maxLength: 2 },
      value: 'abc',
      expected: ['spec.x: Too long: may not be more than 2 bytes'],
    },
    {
      name: 'pattern',
      schema: { type: 'string', pattern: '^a' },
      value: 'bb',
      expected: [`spec.x: Invalid value: "bb": spec.x in body should match '^a'`],
    },
    {
      name: 'format',
      schema: { type: 'string', format: 'ipv4' },
      value: '1.2.3',
      expected: ['spec.x: Invalid value: "1.2.3": spec.x in body must be of type ipv4: "1.2.3"'],
    },
    {
      name: 'an unknown format',
      schema: { type: 'string', format: 'bogus' },
      value: 'anything',
      expected: [],
    },
    {
      name: 'enum with strings',
      schema: { type: 'string', enum: ['a', 'b'] },
      value: 'c',
      expected: ['spec.x: Unsupported value: "c": supported values: "a", "b"'],
    },
    {
      name: 'enum with numbers',
      schema: { type: 'integer', enum: [1, 2] },
      value: 3,
      expected: ['spec.x: Unsupported value: 3: supported values: "1", "2"'],
    },
    {
      name: 'minItems',
      schema: { type: 'array', minItems: 1, items: { type: 'string' } },
      value: [],
      expected: ['spec.x: Invalid value: 0: spec.x in body should have at least 1 items'],
    },
    {
      name: 'maxItems',
      schema: { type: 'array', maxItems: 2, items: { type: 'string' } },
      value: ['a', 'b', 'c'],
      expected: ['spec.x: Too many: 3: must have at most 2 items'],
    },
    {
      name: 'uniqueItems',
      schema: { type: 'array', uniqueItems: true },
      value: [{ a: 1 }, { a: 1 }],
      expected: [`spec.x: Invalid value: "": spec.x in body shouldn't contain duplicates`],
    },
    {
      name: 'items by index',
      schema: { type: 'array', items: { type: 'integer', minimum: 0 } },
      value: [1, -1],
      expected: [
        'spec.x[1]: Invalid value: -1: spec.x[1] in body should be greater than or equal to 0',
      ],
    },
    {
      name: 'minProperties (the count is the value)',
      schema: { type: 'object', minProperties: 2 },
      value: { a: 1 },
      expected: ['spec.x: Invalid value: 1: spec.x in body should have at least 2 properties'],
    },
    {
      name: 'maxProperties, the object’s other checks still run, one item in the singular',
      schema: { type: 'object', maxProperties: 1, required: ['z'] },
      value: { a: 1, b: 2 },
      expected: ['spec.x: Too many: 2: must have at most 1 item', 'spec.x.z: Required value'],
    },
    {
      name: 'maxLength 1 in the singular',
      schema: { type: 'string', maxLength: 1 },
      value: 'ab',
      expected: ['spec.x: Too long: may not be more than 1 byte'],
    },
    {
      name: 'maxItems 1 in the singular',
      schema: { type: 'array', maxItems: 1 },
      value: [1, 2],
      expected: ['spec.x: Too many: 2: must have at most 1 item'],
    },
    {
      name: 'additionalProperties',
      schema: { type: 'object', additionalProperties: { type: 'integer', maximum: 5 } },
      value: { 'a.b': 7 },
      expected: [
        'spec.x.a.b: Invalid value: 7: spec.x.a.b in body should be less than or equal to 5',
      ],
    },
    {
      name: 'required',
      schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      value: {},
      expected: ['spec.x.name: Required value'],
    },
    {
      name: 'a wrong type, then the checks of the value’s own kind',
      schema: { type: 'integer', multipleOf: 2 },
      value: 2.5,
      expected: [
        'spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"',
        'spec.x: Invalid value: 2.5: spec.x in body should be a multiple of 2',
      ],
    },
    {
      name: 'an integer where a number is expected',
      schema: { type: 'number' },
      value: 3,
      expected: [],
    },
    {
      name: 'int-or-string',
      schema: { 'x-kubernetes-int-or-string': true },
      value: 1.5,
      expected: [
        'spec.x: Invalid value: "number": spec.x in body must be of type integer,string: "number"',
      ],
    },
    {
      name: 'null where not nullable',
      schema: { type: 'string' },
      value: null,
      expected: ['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"'],
    },
    {
      name: 'null where nullable',
      schema: { type: 'string', nullable: true },
      value: null,
      expected: [],
    },
    {
      name: 'anyOf keeps the best alternative’s errors',
      schema: { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 1 }] },
      value: 3,
      expected: [
        '<nil>: Invalid value: "": "spec.x" must validate at least one schema (anyOf)',
        'spec.x: Invalid value: 3: spec.x in body should be greater than or equal to 5',
      ],
    },
    {
      name: 'oneOf with two matches',
      schema: { type: 'integer', oneOf: [{ minimum: 5 }, { minimum: 7 }] },
      value: 8,
      expected: [
        '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      ],
    },
    {
      name: 'oneOf with none',
      schema: { type: 'integer', oneOf: [{ minimum: 5 }, { minimum: 7 }] },
      value: 3,
      expected: [
        '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
        'spec.x: Invalid value: 3: spec.x in body should be greater than or equal to 5',
      ],
    },
    {
      name: 'allOf lists the failures, then itself',
      schema: { type: 'integer', allOf: [{ minimum: 5 }, { maximum: 7 }] },
      value: 9,
      expected: [
        'spec.x: Invalid value: 9: spec.x in body should be less than or equal to 7',
        '<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf)',
      ],
    },
    {
      name: 'not',
      schema: { type: 'integer', not: { minimum: 5 } },
      value: 6,
      expected: ['<nil>: Invalid value: "": "spec.x" must not validate the schema (not)'],
    },
  ])('reports $name as kube does', ({ schema, value, expected }) => {
    expect(messages(value, schema)).toEqual(expected);
  });

  it('reports the type error with FieldValueTypeInvalid and the rest with their reasons', () => {
    const causes = validateValue(
      { spec: { n: 'x', s: 'abc', e: 'z' } },
      {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              n: { type: 'integer' },
              s: { type: 'string', maxLength: 1 },
              e: { type: 'string', enum: ['y'] },
            },
          },
        },
      },
    );
    expect(causes.map((cause) => [cause.field, cause.type])).toEqual([
      ['spec.n', 'FieldValueTypeInvalid'],
      ['spec.s', 'FieldValueTooLong'],
      ['spec.e', 'FieldValueNotSupported'],
    ]);
  });

  it('checks only name and generateName of the root metadata', () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: {
          type: 'object',
          properties: {
            name: { type: 'string', pattern: '^a' },
            labels: { type: 'object', maxProperties: 0 },
          },
        },
      },
    };
    expect(
      validateValue({ metadata: { name: 'bee', labels: { a: 'b' } } }, schema).map(
        (cause) => `${cause.field}: ${cause.message}`,
      ),
    ).toEqual([`metadata.name: Invalid value: "bee": metadata.name in body should match '^a'`]);
  });

  it('requires apiVersion and kind of an embedded resource', () => {
    const schema = {
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    };
    expect(validateValue({ template: { kind: '' } }, schema, 'spec')).toEqual([
      {
        type: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field: 'spec.template.apiVersion',
      },
      {
        type: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field: 'spec.template.kind',
      },
    ]);
  });
});

describe('jsonTypeOf', () => {
  it.for([
    { name: 'integer', value: 1, expected: 'integer' },
    { name: 'number', value: 1.5, expected: 'number' },
    { name: 'null', value: null, expected: 'null' },
    { name: 'array', value: [], expected: 'array' },
    { name: 'object', value: {}, expected: 'object' },
  ])('names $name', ({ value, expected }) => {
    expect(jsonTypeOf(value)).toBe(expected);
  });
});
