import { beforeAll, describe, expect, it } from 'vitest';
import { compileRule, evaluateRules, isTransitionRule, loadCelEngine } from './rules.ts';

beforeAll(() => loadCelEngine());

function objectWith(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n', labels: { a: 'b' } }, spec };
}

function schemaWith(spec: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', properties: { spec } };
}

function failures(
  spec: Record<string, unknown>,
  value: Record<string, unknown>,
  old?: unknown,
): string[] {
  const oldObject = old === undefined ? undefined : objectWith(old as Record<string, unknown>);
  return evaluateRules(objectWith(value), schemaWith(spec), oldObject).map(
    (cause) => `${cause.field}: ${cause.message} (${cause.type})`,
  );
}

describe('evaluateRules', () => {
  it('reports a failed rule with kube’s default message and no value for an object (1.35+)', () => {
    const spec = {
      type: 'object',
      properties: { min: { type: 'integer' }, max: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.min <= self.max' }],
    };
    expect(failures(spec, { min: 2, max: 1 })).toEqual([
      'spec: Invalid value: failed rule: self.min <= self.max (FieldValueInvalid)',
    ]);
    expect(failures(spec, { min: 1, max: 2 })).toEqual([]);
  });

  it('uses message, messageExpression, reason and fieldPath', () => {
    const spec = {
      type: 'object',
      properties: { mode: { type: 'string' }, size: { type: 'integer' } },
      'x-kubernetes-validations': [
        { rule: "self.mode != 'off'", message: 'mode off is not allowed' },
        {
          rule: 'self.size < 10',
          messageExpression: "'size ' + string(self.size) + ' is too big'",
          reason: 'FieldValueForbidden',
          fieldPath: '.size',
        },
        { rule: 'has(self.owner)', reason: 'FieldValueRequired', fieldPath: "['owner']" },
        { rule: 'false', reason: 'FieldValueDuplicate' },
      ],
    };
    expect(failures(spec, { mode: 'off', size: 12 })).toEqual([
      'spec: Invalid value: mode off is not allowed (FieldValueInvalid)',
      'spec.size: Forbidden: size 12 is too big (FieldValueForbidden)',
      'spec.owner: Required value: failed rule: has(self.owner) (FieldValueRequired)',
      'spec: Duplicate value (FieldValueDuplicate)',
    ]);
  });

  it('types integers as int, numbers as double and int-or-string as either', () => {
    const spec = {
      type: 'object',
      properties: {
        count: {
          type: 'integer',
          'x-kubernetes-validations': [{ rule: 'self == 3 && type(self) == int' }],
        },
        ratio: {
          type: 'number',
          'x-kubernetes-validations': [{ rule: 'self > 0.5 && type(self) == double' }],
        },
        port: {
          'x-kubernetes-int-or-string': true,
          'x-kubernetes-validations': [
            { rule: "type(self) == int ? self > 0 : self.startsWith('p')" },
          ],
        },
      },
    };
    expect(failures(spec, { count: 3, ratio: 0.75, port: 80 })).toEqual([]);
    expect(failures(spec, { count: 3, ratio: 0.75, port: 'http' })).toEqual([
      'spec.port: Invalid value: "http": failed rule: type(self) == int ? self > 0 : self.startsWith(\'p\') (FieldValueInvalid)',
    ]);
  });

  it('shows only name and generateName of the root metadata', () => {
    const schema = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: "self.metadata.name == 'n' && !has(self.metadata.labels)" },
      ],
    };
    expect(evaluateRules(objectWith({}), schema)).toEqual([]);
  });

  it('evaluates transition rules only with an old value, correlating map-list items by key', () => {
    const spec = {
      type: 'object',
      properties: {
        size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, number: { type: 'integer' } },
            'x-kubernetes-validations': [
              { rule: 'self.number == oldSelf.number', message: 'immutable' },
            ],
          },
        },
      },
    };
    const next = {
      size: 1,
      ports: [
        { name: 'b', number: 2 },
        { name: 'a', number: 9 },
      ],
    };
    expect(failures(spec, next)).toEqual([]);
    expect(failures(spec, next, { size: 5, ports: [{ name: 'a', number: 1 }] })).toEqual([
      'spec.size: Invalid value: 1: failed rule: self >= oldSelf (FieldValueInvalid)',
      'spec.ports[1]: Invalid value: immutable (FieldValueInvalid)',
    ]);
  });

  it('reports evaluation errors in cel-go’s words, naming the rule', () => {
    const spec = {
      type: 'object',
      properties: { port: { 'x-kubernetes-int-or-string': true } },
      'x-kubernetes-validations': [
        { rule: 'self.missing == 1' },
        { rule: 'self.port + 1 > 0', message: 'port must be positive' },
        { rule: '1 / (self.port - self.port) == 1' },
      ],
    };
    expect(
      evaluateRules(objectWith({ port: 'http' }), schemaWith(spec)).map((cause) => cause.message),
    ).toEqual([
      'Invalid value: "object": no such key: missing evaluating rule: self.missing == 1',
      'Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: port must be positive',
      'Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: 1 / (self.port - self.port) == 1',
    ]);
    expect(
      evaluateRules(objectWith({ port: 3 }), schemaWith(spec)).map((cause) => cause.message),
    ).toEqual([
      'Invalid value: "object": no such key: missing evaluating rule: self.missing == 1',
      'Invalid value: "object": division by zero evaluating rule: 1 / (self.port - self.port) == 1',
    ]);
  });

  it('skips null values, runs allOf rules, trims messages and falls back from a bad messageExpression', () => {
    const spec = {
      type: 'object',
      properties: {
        note: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: 'false' }] },
        n: {
          type: 'integer',
          allOf: [
            { 'x-kubernetes-validations': [{ rule: 'self < 5', message: '  small only  ' }] },
          ],
        },
        m: {
          type: 'integer',
          'x-kubernetes-validations': [
            { rule: 'self < 5', messageExpression: "''", message: 'fallback' },
          ],
        },
      },
    };
    expect(failures(spec, { note: null, n: 7, m: 7 })).toEqual([
      'spec.n: Invalid value: 7: small only (FieldValueInvalid)',
      'spec.m: Invalid value: 7: fallback (FieldValueInvalid)',
    ]);
  });

  it('gives the fields of an atomic map no old self', () => {
    const spec = {
      type: 'object',
      properties: {
        atomic: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          properties: {
            n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
          },
        },
      },
    };
    expect(failures(spec, { atomic: { n: 2 } }, { atomic: { n: 1 } })).toEqual([]);
  });

  it('reports a root rule at <nil>, as kube’s nil field path prints', () => {
    const schema = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: "self.metadata.name == 'other'" }],
    };
    expect(evaluateRules(objectWith({}), schema)).toEqual([
      {
        type: 'FieldValueInvalid',
        message: `Invalid value: failed rule: self.metadata.name == 'other'`,
        field: '<nil>',
      },
    ]);
  });
});

describe('kube CEL library', () => {
  it.for([
    { name: 'isSorted', rule: 'self.nums.isSorted() && !self.words.isSorted()' },
    { name: 'sum', rule: 'self.nums.sum() == 6' },
    { name: 'min and max', rule: 'self.nums.min() == 1 && self.nums.max() == 3' },
    { name: 'list indexOf', rule: 'self.nums.indexOf(2) == 1 && self.nums.lastIndexOf(7) == -1' },
    { name: 'regex find', rule: "self.text.find('[0-9]+') == '42'" },
    {
      name: 'regex findAll',
      rule: "self.text.findAll('[a-z]') == ['a', 'b'] && self.text.findAll('[a-z]', 1) == ['a']",
    },
    {
      name: 'strings extension',
      rule: "self.text.lowerAscii().split(' ').size() == 2 && self.text.indexOf('b') == 4",
    },
    { name: 'matches', rule: "self.text.matches('^a')" },
    {
      name: 'url',
      rule: "isURL(self.link) && url(self.link).getHost() == 'example.com:8080' && url(self.link).getPort() == '8080'",
    },
    {
      name: 'url scheme and path',
      rule: "url(self.link).getScheme() == 'https' && url(self.link).getEscapedPath() == '/a%20b'",
    },
  ])('provides $name', ({ rule }) => {
    const schema = {
      type: 'object',
      properties: {
        nums: { type: 'array', items: { type: 'integer' } },
        words: { type: 'array', items: { type: 'string' } },
        text: { type: 'string' },
        link: { type: 'string' },
      },
      'x-kubernetes-validations': [{ rule }],
    };
    const value = {
      nums: [1, 2, 3],
      words: ['b', 'a'],
      text: 'a 42b',
      link: 'https://example.com:8080/a%20b',
    };
    expect(evaluateRules(objectWith(value), schemaWith(schema))).toEqual([]);
  });
});

describe('compileRule', () => {
  it('returns the syntax error of a rule that does not parse', () => {
    expect(compileRule('self.a +')).toBeInstanceOf(Error);
    expect(compileRule('self.a + 1 > 2')).not.toBeInstanceOf(Error);
  });
});

describe('isTransitionRule', () => {
  it('spots oldSelf outside string literals', () => {
    expect(isTransitionRule('self == oldSelf')).toBe(true);
    expect(isTransitionRule("self != 'oldSelf'")).toBe(false);
  });
});
