import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createCompactTransform, dropManagedFields, maxCompactLayouts } from './compact.ts';
import { createInternTable } from './intern.ts';

type Loose = Record<string, unknown>;

// V8's own test hook: whether two objects have the same hidden class (map). Read at parse time, so the flag is set
// before the function is compiled.
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: unknown,
  b: unknown,
) => boolean;

/** What the default transform must return: `object` minus `metadata.managedFields`, nothing else changed. */
function expected(object: Loose): Loose {
  const { managedFields: _dropped, ...metadata } = object.metadata as Loose;
  return { ...object, metadata };
}

const configMap = (name: string): Loose => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'team-a',
    uid: '6421caad-60a7-46e2-8d16-db321b2f8c4e',
    resourceVersion: '19625',
    creationTimestamp: '2026-11-26T05:24:30Z',
    labels: { 'app.kubernetes.io/name': 'bench', tier: 'odd' },
    annotations: { note: 'x'.repeat(300) },
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true },
    ],
    managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': {} } }],
  },
  data: { key: 'value' },
});

const fixtures: Record<string, Loose> = {
  'a ConfigMap from the wire': JSON.parse(JSON.stringify(configMap('a'))) as Loose,
  'managedFields first and null': {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { managedFields: null, name: 's' },
    type: 'Opaque',
  },
  'metadata keys in an unusual order': {
    spec: { replicas: 1 },
    metadata: { managedFields: [], labels: {}, name: 'b', generateName: 'b-' },
    kind: 'Deployment',
    apiVersion: 'apps/v1',
  },
  'own __proto__ keys (JSON)': JSON.parse(
    '{"__proto__":{"polluted":true},"kind":"X","metadata":{"name":"p","__proto__":{"polluted":true},"managedFields":[],"labels":{"__proto__":"v"}}}',
  ) as Loose,
  'non-string values where strings are expected': {
    apiVersion: 1,
    kind: null,
    metadata: {
      name: 'n',
      namespace: 7,
      creationTimestamp: { at: 0 },
      labels: { a: 1, b: null, c: ['x'] },
      managedFields: 'not-a-list',
    },
  },
  'many metadata fields (more than the inline slots)': {
    metadata: {
      ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, i])),
      managedFields: [],
    },
  },
};

describe('the default transform (createCompactTransform, dropManagedFields)', () => {
  for (const [title, input] of Object.entries(fixtures)) {
    it(`returns the input minus managedFields: ${title}`, () => {
      const before = structuredClone(input);
      const transform = createCompactTransform();
      for (let round = 0; round < 12; round++) {
        // several rounds: V8 settles the objects' layout after the first few (in-object slack tracking)
        const output = transform(input as never) as Loose;
        expect(output).toStrictEqual(expected(input));
        expect(Object.keys(output)).toEqual(Object.keys(input));
        expect(Object.keys(output.metadata as Loose)).toEqual(
          Object.keys(input.metadata as Loose).filter((key) => key !== 'managedFields'),
        );
        expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
        expect(Object.getPrototypeOf(output.metadata)).toBe(Object.prototype);
        expect(output).not.toBe(input);
        expect(JSON.stringify(output)).toBe(JSON.stringify(expected(input)));
      }
      expect(input).toStrictEqual(before);
      expect(dropManagedFields(input as never)).toStrictEqual(expected(input));
    });
  }

  it('keeps an own __proto__ key as data and never changes the prototype', () => {
    const input = fixtures['own __proto__ keys (JSON)'] as Loose;
    const output = createCompactTransform()(input as never) as Loose;
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(Object.hasOwn(output.metadata as Loose, '__proto__')).toBe(true);
    expect((output as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('returns objects without an object metadata or without managedFields as they are', () => {
    const transform = createCompactTransform();
    for (const input of [
      null,
      undefined,
      {},
      { metadata: null },
      { metadata: 'x' },
      { metadata: ['managedFields'] },
      { kind: 'X', metadata: 3 },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'team-a' },
        type: 'Opaque',
      },
    ]) {
      expect(transform(input as never)).toBe(input);
    }
  });

  it('shares everything below metadata with the input', () => {
    const input = configMap('c');
    const output = createCompactTransform()(input as never) as Loose;
    const metadata = output.metadata as Loose;
    const source = input.metadata as Loose;
    expect(output.data).toBe(input.data);
    expect(metadata.labels).toBe(source.labels);
    expect(metadata.ownerReferences).toBe(source.ownerReferences);
  });

  it('puts the repeated strings through the intern table, and only those', () => {
    const strings = createInternTable();
    const transform = createCompactTransform(strings);
    transform(configMap('d') as never);
    transform(configMap('e') as never);
    expect(strings.has('team-a')).toBe(true);
    expect(strings.has('2026-11-26T05:24:30Z')).toBe(true);
    expect(strings.has('v1')).toBe(true);
    expect(strings.has('ConfigMap')).toBe(true);
    expect(strings.has('d')).toBe(false);
    expect(strings.has('19625')).toBe(false);
    expect(strings.has('6421caad-60a7-46e2-8d16-db321b2f8c4e')).toBe(false);
    expect(strings.size).toBe(4);
  });
});

describe('the layouts of the compact copies', () => {
  const served = (kind: string, name: string): Loose => ({
    ...configMap(name),
    kind,
  });

  it('are the same for a kind whichever transform made the copy (one per informer)', () => {
    const first = createCompactTransform()(served('ConfigMap', 'a') as never) as Loose;
    const second = createCompactTransform()(served('ConfigMap', 'b') as never) as Loose;
    const third = dropManagedFields(served('ConfigMap', 'c') as never) as Loose;
    expect(second).toEqual({ ...first, metadata: { ...(first.metadata as Loose), name: 'b' } });
    for (const other of [second, third]) {
      expect(haveSameMap(first, other)).toBe(true);
      expect(haveSameMap(first.metadata, other.metadata)).toBe(true);
    }
  });

  it('are per kind, also within one transform', () => {
    const transform = createCompactTransform();
    const configMap = transform(served('ConfigMap', 'a') as never) as Loose;
    const widget = transform(served('Widget', 'a') as never) as Loose;
    const again = transform(served('ConfigMap', 'b') as never) as Loose;
    expect(haveSameMap(configMap, widget)).toBe(false);
    expect(haveSameMap(configMap.metadata, widget.metadata)).toBe(false);
    expect(haveSameMap(configMap, again)).toBe(true);
    expect(widget).toEqual(expected(served('Widget', 'a')));
  });

  it(`are kept for at most ${maxCompactLayouts} kinds, the kinds past that share one`, () => {
    const transform = createCompactTransform();
    const copies = Array.from(
      { length: maxCompactLayouts + 2 },
      (_, index) => transform(served(`Kind${index}`, 'a') as never) as Loose,
    );
    const [last, beforeLast] = [copies.at(-1), copies.at(-2)];
    expect(haveSameMap(last, beforeLast)).toBe(true);
    expect(haveSameMap(copies[0], copies[1])).toBe(false);
    expect(last).toEqual(expected(served(`Kind${maxCompactLayouts + 1}`, 'a')));
    // A kind seen before the bound keeps its own.
    const configMaps = createCompactTransform();
    expect(
      haveSameMap(
        configMaps(served('ConfigMap', 'x') as never),
        configMaps(served('ConfigMap', 'y') as never),
      ),
    ).toBe(true);
  });
});
