import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createJsonPatch,
  escapeJsonPointerToken,
  type JsonPatchOperation,
  type JsonValue,
} from './json-patch.ts';

// An RFC 6902 applier of our own for the property below, written from the RFC (sections 4.1-4.3, RFC 6901 4)
// and independent of the diff: it fails on a path that does not exist, as kube-apiserver's applier does.
function applyPatch(document: JsonValue, patch: readonly JsonPatchOperation[]): JsonValue {
  let root = structuredClone(document);
  for (const operation of patch) {
    if (operation.path === '') {
      if (operation.op === 'remove') throw new Error('cannot remove the root');
      root = structuredClone(operation.value);
      continue;
    }
    const tokens = operation.path
      .slice(1)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop() as string;
    let parent: JsonValue = root;
    for (const token of tokens) {
      if (typeof parent !== 'object' || parent === null)
        throw new Error(`no parent at ${operation.path}`);
      const next: JsonValue | undefined = Array.isArray(parent)
        ? parent[Number(token)]
        : Object.hasOwn(parent, token)
          ? parent[token]
          : undefined;
      if (next === undefined) throw new Error(`missing ${token} in ${operation.path}`);
      parent = next;
    }
    if (typeof parent !== 'object' || parent === null)
      throw new Error(`no parent at ${operation.path}`);
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (!Number.isInteger(index) || index < 0 || index >= parent.length) {
        throw new Error(`bad index ${last} in ${operation.path}`);
      }
      if (operation.op === 'remove') parent.splice(index, 1);
      else parent[index] = structuredClone(operation.value);
      continue;
    }
    const exists = Object.hasOwn(parent, last);
    if (operation.op === 'add') {
      Object.defineProperty(parent, last, {
        value: structuredClone(operation.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else if (!exists) {
      throw new Error(`${operation.op} of a missing member ${operation.path}`);
    } else if (operation.op === 'remove') {
      delete parent[last];
    } else {
      parent[last] = structuredClone(operation.value);
    }
  }
  return root;
}

// JSON text with keys sorted: equality as JSON, whatever the key order or prototype (fast-check's dictionaries
// may have a null prototype or an own `__proto__` key).
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// Keys include the characters RFC 6901 escapes, and keys that look like escapes.
const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('~', '/', '~0', '~1', '/~', 'a/b', 'x~y', '', '0', '__proto__'),
);
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4 },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
})).value;
// A mutation of a value: pairs that share structure exercise the recursive paths more than two random values.
const pair = json.chain((from) =>
  fc.tuple(fc.constant(from), fc.oneof(json, fc.constant(structuredClone(from)), mutate(from))),
);
function mutate(value: JsonValue): fc.Arbitrary<JsonValue> {
  if (Array.isArray(value)) {
    return fc.oneof(
      fc.constant(value.slice(1)),
      json.map((item) => [...value, item]),
      value.length === 0
        ? fc.constant(value)
        : fc
            .nat(value.length - 1)
            .chain((index) =>
              mutate(value[index] as JsonValue).map((item) =>
                value.map((v, i) => (i === index ? item : v)),
              ),
            ),
    );
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    return fc.oneof(
      fc.tuple(key, json).map(([k, v]) => ({ ...structuredClone(value), [k]: v })),
      keys.length === 0
        ? fc.constant(value)
        : fc.constantFrom(...keys).chain((k) =>
            fc.oneof(
              fc.constant(Object.fromEntries(Object.entries(value).filter(([name]) => name !== k))),
              mutate(value[k] as JsonValue).map((v) => {
                const copy = structuredClone(value);
                copy[k] = v;
                return copy;
              }),
            ),
          ),
    );
  }
  return json;
}

describe('createJsonPatch', () => {
  it('gives a patch that turns the input into the output (property)', () => {
    fc.assert(
      fc.property(pair, ([from, to]) => {
        const patch = createJsonPatch(from, to);
        expect(canonical(applyPatch(from, patch))).toBe(canonical(to));
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives an empty patch for equal values whatever the key order', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(createJsonPatch(value, structuredClone(value))).toEqual([]);
      }),
    );
    expect(createJsonPatch({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual([]);
  });

  it.for([
    {
      name: 'adds a label whose key has a slash',
      from: { metadata: { labels: { a: '1' } } },
      to: { metadata: { labels: { a: '1', 'example.com/team': 'x' } } },
      patch: [{ op: 'add', path: '/metadata/labels/example.com~1team', value: 'x' }],
    },
    {
      name: 'removes a key with a tilde',
      from: { metadata: { annotations: { 'a~b': '1' } } },
      to: { metadata: { annotations: {} } },
      patch: [{ op: 'remove', path: '/metadata/annotations/a~0b' }],
    },
    {
      name: 'diffs arrays of equal length by index',
      from: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }] } },
      to: { spec: { containers: [{ name: 'a', image: 'y' }, { name: 'b' }] } },
      patch: [{ op: 'replace', path: '/spec/containers/0/image', value: 'y' }],
    },
    {
      name: 'replaces an array whose length changed whole',
      from: { spec: { args: ['a', 'b'] } },
      to: { spec: { args: ['a'] } },
      patch: [{ op: 'replace', path: '/spec/args', value: ['a'] }],
    },
    {
      name: 'replaces a value whose type changed',
      from: { spec: { size: 1 } },
      to: { spec: { size: '1' } },
      patch: [{ op: 'replace', path: '/spec/size', value: '1' }],
    },
    {
      name: 'replaces the root when it is not an object on both sides',
      from: [1],
      to: { a: 1 },
      patch: [{ op: 'replace', path: '', value: { a: 1 } }],
    },
  ] as const)('$name', ({ from, to, patch }) => {
    expect(createJsonPatch(from as unknown as JsonValue, to as unknown as JsonValue)).toEqual(
      patch,
    );
  });
});

describe('escapeJsonPointerToken', () => {
  it.for([
    { name: 'plain', key: 'spec', token: 'spec' },
    { name: 'slash', key: 'a/b', token: 'a~1b' },
    { name: 'tilde', key: 'a~b', token: 'a~0b' },
    { name: 'tilde before one', key: '~1', token: '~01' },
    { name: 'empty', key: '', token: '' },
  ])('escapes $name', ({ key: input, token }) => {
    expect(escapeJsonPointerToken(input)).toBe(token);
  });
});
