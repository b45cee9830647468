import type { KubeObject } from '@lasso/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConversion } from './conversion.ts';

// Three versions of a Widget: v1 { size: number }, v2 (hub) { resources: { size: string }, color? },
// v3 { sizes: string[], color? }. v1 has no place for color: it keeps it in an annotation, as the round-trip rule asks.
const colorAnnotation = 'widgets.example.com/color';
type Spec = Record<string, unknown>;
const spec = (object: KubeObject): Spec => (object.spec ?? {}) as Spec;

const widgets = createConversion(
  { group: 'example.com', kind: 'Widget' },
  {
    hub: 'v2',
    spokes: {
      v1: {
        toHub(object) {
          const { [colorAnnotation]: color, ...annotations } = object.metadata?.annotations ?? {};
          const { annotations: _dropped, ...rest } = object.metadata ?? {};
          const metadata = Object.keys(annotations).length === 0 ? rest : { ...rest, annotations };
          return {
            ...object,
            metadata,
            spec: {
              resources: { size: String(spec(object).size) },
              ...(color === undefined ? {} : { color }),
            },
          };
        },
        fromHub(object) {
          const { resources, color } = spec(object) as {
            resources: { size: string };
            color?: string;
          };
          const annotations = { ...object.metadata?.annotations };
          if (color !== undefined) annotations[colorAnnotation] = color;
          return {
            ...object,
            metadata: {
              ...object.metadata,
              ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
            },
            spec: { size: Number(resources.size) },
          };
        },
      },
      v3: {
        toHub: (object) => {
          const { sizes, color } = spec(object) as { sizes: string[]; color?: string };
          return {
            ...object,
            spec: { resources: { size: sizes[0] }, ...(color === undefined ? {} : { color }) },
          };
        },
        fromHub: (object) => {
          const { resources, color } = spec(object) as {
            resources: { size: string };
            color?: string;
          };
          return {
            ...object,
            spec: { sizes: [resources.size], ...(color === undefined ? {} : { color }) },
          };
        },
      },
    },
  },
);

const metadata = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  namespace: fc.constant('default'),
  uid: fc.uuid(),
  resourceVersion: fc.nat().map(String),
  labels: fc.option(fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.string({ maxLength: 5 })), {
    nil: undefined,
  }),
});
const size = fc.integer({ min: 0, max: 1_000_000 });
const color = fc.option(fc.constantFrom('red', 'blue'), { nil: undefined });
const strip = (value: object): KubeObject => JSON.parse(JSON.stringify(value)) as KubeObject;
const objectOf: Record<string, fc.Arbitrary<KubeObject>> = {
  v1: fc.record({ metadata, size, color }).map(({ metadata, size, color }) =>
    strip({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        ...metadata,
        ...(color === undefined ? {} : { annotations: { [colorAnnotation]: color } }),
      },
      spec: { size },
    }),
  ),
  v2: fc.record({ metadata, size, color }).map(({ metadata, size, color }) =>
    strip({
      apiVersion: 'example.com/v2',
      kind: 'Widget',
      metadata,
      spec: { resources: { size: String(size) }, color },
    }),
  ),
  v3: fc.record({ metadata, size, color }).map(({ metadata, size, color }) =>
    strip({
      apiVersion: 'example.com/v3',
      kind: 'Widget',
      metadata,
      spec: { sizes: [String(size)], color },
    }),
  ),
};

describe('createConversion', () => {
  // The round-trip rule: A -> B -> A gives back A, for every pair of versions.
  it.for([
    ['v1', 'v2'],
    ['v1', 'v3'],
    ['v2', 'v1'],
    ['v2', 'v3'],
    ['v3', 'v1'],
    ['v3', 'v2'],
  ])('converts %s -> %s -> %s back to the same object (property)', async ([from, to]) => {
    await fc.assert(
      fc.asyncProperty(objectOf[from as string] as fc.Arbitrary<KubeObject>, async (object) => {
        const there = await widgets.convert(object, `example.com/${to}`);
        expect(there.apiVersion).toBe(`example.com/${to}`);
        const back = await widgets.convert(there, `example.com/${from}`);
        expect(back).toEqual(object);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps metadata as it came except labels and annotations, and sets apiVersion and kind', async () => {
    const careless = createConversion(
      { group: 'example.com', kind: 'Widget' },
      {
        hub: 'v2',
        spokes: {
          v1: {
            toHub: (o) => ({
              metadata: { name: 'renamed', labels: { added: 'yes' } },
              spec: o.spec,
            }),
            fromHub: (o) => o,
          },
        },
      },
    );
    const converted = await careless.convert(
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', uid: 'u', labels: { old: 'x' } },
        spec: {},
      },
      'example.com/v2',
    );
    expect(converted).toEqual({
      apiVersion: 'example.com/v2',
      kind: 'Widget',
      metadata: { name: 'w', uid: 'u', labels: { added: 'yes' } },
      spec: {},
    });
  });

  it('returns a copy for the same version and refuses other groups, kinds and versions', async () => {
    const object = { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'w' } };
    const same = await widgets.convert(object, 'example.com/v2');
    expect(same).toEqual(object);
    expect(same).not.toBe(object);
    await expect(widgets.convert({ ...object, kind: 'Gadget' }, 'example.com/v1')).rejects.toThrow(
      TypeError,
    );
    await expect(widgets.convert(object, 'other.com/v1')).rejects.toThrow(TypeError);
    await expect(widgets.convert(object, 'example.com/v9')).rejects.toThrow(
      'the desired version example.com/v9 is not a version of Widget this webhook converts',
    );
    expect(widgets.versions).toEqual(['v2', 'v1', 'v3']);
  });

  it('throws a TypeError for bad options', () => {
    const spoke = { toHub: (o: KubeObject) => o, fromHub: (o: KubeObject) => o };
    expect(() => createConversion({ group: 'g', kind: '' }, { hub: 'v1', spokes: {} })).toThrow(
      /kind.kind/,
    );
    expect(() => createConversion({ group: 'g', kind: 'K' }, { hub: '', spokes: {} })).toThrow(
      /options.hub/,
    );
    expect(() =>
      createConversion({ group: 'g', kind: 'K' }, { hub: 'v1', spokes: { v1: spoke } }),
    ).toThrow(/is the hub version/);
    expect(() =>
      createConversion(
        { group: 'g', kind: 'K' },
        { hub: 'v1', spokes: { v2: { toHub: spoke.toHub } as never } },
      ),
    ).toThrow(/toHub and fromHub/);
  });
});
