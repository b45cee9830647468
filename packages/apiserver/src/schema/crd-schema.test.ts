import { beforeAll, describe, expect, it } from 'vitest';
import { loadCelEngine } from './cel/rules.ts';
import { validateCrdSchema } from './crd-schema.ts';

beforeAll(() => loadCelEngine());

const base = 'spec.validation.openAPIV3Schema';

// Messages as kube-apiserver 1.20.2 words them (CEL compilation: as kube 1.25+ does).
describe('validateCrdSchema', () => {
  it('refuses a default that does not validate, relative to the default itself', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            n: { type: 'integer', default: 'five' },
            m: { type: 'integer', maximum: 10, default: 50 },
            z: { type: 'object', properties: { q: { type: 'string' } }, default: { q: 1 } },
          },
        },
      },
    };
    expect(
      validateCrdSchema(schema, base).map((cause) => `${cause.field}: ${cause.message}`),
    ).toEqual([
      `${base}.properties[spec].properties[n].default: Invalid value: "string":  in body must be of type integer: "string"`,
      `${base}.properties[spec].properties[m].default: Invalid value: 50:  in body should be less than or equal to 10`,
      `${base}.properties[spec].properties[z].default.q: Invalid value: "integer": q in body must be of type string: "integer"`,
    ]);
  });

  it('refuses a default with fields pruning would drop', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' } },
      default: { a: 'x', b: 2 },
    };
    expect(validateCrdSchema(schema, base)).toEqual([
      {
        type: 'FieldValueInvalid',
        message:
          'Invalid value: map[string]interface {}{"a":"x", "b":2}: must not have unknown fields',
        field: `${base}.default`,
      },
    ]);
  });

  it('refuses uniqueItems and a pattern that does not compile', () => {
    const schema = {
      type: 'object',
      properties: {
        list: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '(' } },
      },
    };
    const causes = validateCrdSchema(schema, base);
    expect(causes.map((cause) => [cause.type, cause.field])).toEqual([
      ['FieldValueForbidden', `${base}.properties[list].uniqueItems`],
      ['FieldValueInvalid', `${base}.properties[list].items.pattern`],
    ]);
    expect(causes[1]?.message).toMatch(
      /^Invalid value: "\(": must be a valid regular expression, but isn't: /,
    );
  });

  it('refuses a CEL rule that does not compile, showing the rule as kube prints it', () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a +' }] };
    expect(validateCrdSchema(schema, base)).toEqual([
      {
        type: 'FieldValueInvalid',
        message:
          'Invalid value: apiextensions.ValidationRule{Rule:"self.a +", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:8: found + but expecting end of input',
        field: `${base}.x-kubernetes-validations[0].rule`,
      },
    ]);
  });

  it('accepts a valid schema with valid defaults and rules', () => {
    const schema = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.n > 0' }],
      properties: {
        n: { type: 'integer', default: 1, minimum: 0 },
        s: { type: 'string', pattern: '^a' },
      },
    };
    expect(validateCrdSchema(schema, base)).toEqual([]);
  });

  it('reports the structural-schema violations kube-apiserver 1.20.2 reports, in its words', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { properties: { x: { type: 'string' } } },
        b: {
          type: 'object',
          properties: { x: { type: 'string' } },
          additionalProperties: { type: 'string' },
        },
        c: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } },
        d: { type: 'array' },
        f: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } },
        h: { type: 'object', 'x-kubernetes-embedded-resource': true },
        i: { type: 'array', 'x-kubernetes-list-type': 'bogus', items: { type: 'string' } },
        ok: { 'x-kubernetes-int-or-string': true },
        free: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    const p = `${base}.properties`;
    expect(
      validateCrdSchema(schema, base).map((cause) => `${cause.field}: ${cause.message}`),
    ).toEqual([
      `${p}[a].type: Required value: must not be empty for specified object fields`,
      `${p}[b].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${p}[c].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${p}[d].items: Required value: must be specified`,
      `${p}[f].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      `${p}[h].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${p}[i].x-kubernetes-list-type: Unsupported value: "bogus": supported values: "atomic", "set", "map"`,
    ]);
  });

  it('lets the root metadata restrict only name and generateName, without defaults', () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: {
          type: 'object',
          properties: {
            labels: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
          },
        },
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
              properties: { metadata: { type: 'object', default: { name: 'x' } } },
            },
          },
        },
      },
    };
    expect(
      validateCrdSchema(schema, base).map((cause) => `${cause.field}: ${cause.message}`),
    ).toEqual([
      `${base}.properties[metadata].properties[labels].default: Forbidden: must not be set in top-level metadata`,
      `${base}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
  });
});
