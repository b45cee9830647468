// controller-runtime's predicate tests (pkg/predicate/predicate_test.go), on lasso's event shapes.
import type { KubeObject } from '@lasso/client';
import { describe, expect, it } from 'vitest';
import { configMap } from './__fixtures__/test-informer.ts';
import {
  acceptsAll,
  annotationsChangedPredicate,
  generationChangedPredicate,
  labelsChangedPredicate,
  type Predicate,
  type PredicateEvent,
  predicate,
  resourceVersionChangedPredicate,
} from './predicates.ts';

function withMetadata(metadata: Partial<NonNullable<KubeObject['metadata']>>): KubeObject {
  const object = configMap('a');
  return { ...object, metadata: { ...object.metadata, ...metadata } };
}

function update(
  oldMetadata: Partial<NonNullable<KubeObject['metadata']>>,
  newMetadata: Partial<NonNullable<KubeObject['metadata']>>,
): PredicateEvent<KubeObject> {
  return {
    type: 'update',
    oldObject: withMetadata(oldMetadata),
    object: withMetadata(newMetadata),
  };
}

const create: PredicateEvent<KubeObject> = { type: 'create', object: configMap('a') };
const remove: PredicateEvent<KubeObject> = {
  type: 'delete',
  object: configMap('a'),
  finalStateUnknown: true,
};

describe('built-in predicates', () => {
  it.for([
    {
      predicate: generationChangedPredicate,
      changed: update({ generation: 1 }, { generation: 2 }),
      unchanged: update(
        { generation: 1, resourceVersion: '1' },
        { generation: 1, resourceVersion: '2' },
      ),
    },
    {
      predicate: resourceVersionChangedPredicate,
      changed: update({ resourceVersion: '1' }, { resourceVersion: '2' }),
      unchanged: update({ resourceVersion: '7' }, { resourceVersion: '7' }),
    },
    {
      predicate: labelsChangedPredicate,
      changed: update({ labels: { app: 'web' } }, { labels: { app: 'db' } }),
      unchanged: update(
        { labels: { a: '1', b: '2' }, resourceVersion: '1' },
        { labels: { b: '2', a: '1' }, resourceVersion: '2' },
      ),
    },
    {
      predicate: annotationsChangedPredicate,
      changed: update({ annotations: { note: 'x' } }, { annotations: {} }),
      unchanged: update({}, { annotations: {} }),
    },
  ])(
    '$predicate.name passes creates, deletes and changed updates only',
    ({ predicate: tested, changed, unchanged }) => {
      expect(tested.accept(create)).toBe(true);
      expect(tested.accept(remove)).toBe(true);
      expect(tested.accept(changed)).toBe(true);
      expect(tested.accept(unchanged)).toBe(false);
    },
  );

  it('sees labels added to an object that had none', () => {
    expect(labelsChangedPredicate.accept(update({}, { labels: { app: 'web' } }))).toBe(true);
  });

  it('drops every update of an object without a generation under generationChangedPredicate', () => {
    expect(
      generationChangedPredicate.accept(update({ resourceVersion: '1' }, { resourceVersion: '2' })),
    ).toBe(false);
  });
});

describe('predicate', () => {
  it('wraps a function of the event, named after it', () => {
    const webOnly = predicate<KubeObject>(function webOnly({ object }) {
      return object.metadata?.labels?.app === 'web';
    });
    expect(webOnly.name).toBe('webOnly');
    expect(
      webOnly.accept({ type: 'create', object: withMetadata({ labels: { app: 'web' } }) }),
    ).toBe(true);
    expect(webOnly.accept(create)).toBe(false);
    expect(predicate(() => true, 'named').name).toBe('named');
    expect(Object.isFrozen(webOnly)).toBe(true);
  });

  it('refuses a function that is not one, or an empty name', () => {
    expect(() => predicate(42 as never)).toThrow(TypeError);
    expect(() => predicate(() => true, '')).toThrow(/name/);
  });
});

describe('acceptsAll', () => {
  const no: Predicate<KubeObject> = predicate(() => false, 'no');
  const yes: Predicate<KubeObject> = predicate(() => true, 'yes');

  it('is true for no predicates, and needs every predicate to accept', () => {
    const onThrow = () => {};
    expect(acceptsAll([], create, onThrow)).toBe(true);
    expect(acceptsAll([yes, yes], create, onThrow)).toBe(true);
    expect(acceptsAll([yes, no], create, onThrow)).toBe(false);
  });

  it('counts a predicate that throws as accepting, and reports it', () => {
    const thrown: string[] = [];
    const broken = predicate<KubeObject>(() => {
      throw new Error('bad predicate');
    }, 'broken');
    expect(acceptsAll([broken], create, (which) => thrown.push(which.name))).toBe(true);
    expect(thrown).toEqual(['broken']);
  });
});
