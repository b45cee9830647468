// Predicates given once to a controller (`withPredicates`) and composed with enqueueOwnerHandler: the derive
// controller's case, where sources (labelled) and their copies (owned by them, unlabelled) are the same kind.
import type { Client, KubeObject } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { configMap, createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import { enqueueOwnerHandler } from './owner-handler.ts';
import { generationChangedPredicate, labelSelectorPredicate, predicate } from './predicates.ts';
import { createSharedController } from './shared-controller.ts';

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

function setup() {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const informer = createTestInformer();
  const shared = createSharedController<KubeObject>({
    name: 'v1, Resource=configmaps',
    client: { kind: 'ConfigMap' } as unknown as Client<KubeObject>,
    clock,
    logger,
    createController: (handler) =>
      createController('v1, Kind=ConfigMap', informer, () => {}, handler, { clock, logger }),
  });
  const stop = new AbortController();
  stops.push(stop);
  return { clock, logger, informer, shared, signal: stop.signal, settle: () => clock.advance(0) };
}

const derive = 'example.com/derive';

function source(name: string, labelled = true): KubeObject {
  const object = configMap(name);
  return labelled
    ? { ...object, metadata: { ...object.metadata, labels: { [derive]: 'true' } } }
    : object;
}

function copyOf(owner: KubeObject, name = `${owner.metadata?.name}-derived`): KubeObject {
  const object = configMap(name);
  return {
    ...object,
    metadata: {
      ...object.metadata,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: owner.metadata?.name ?? '',
          uid: owner.metadata?.uid ?? '',
          controller: true,
        },
      ],
    },
  };
}

describe('withPredicates', () => {
  it("filters the view's handlers' events, and the owners an owner-enqueue handler maps to", async () => {
    const t = setup();
    const sources = t.shared.withPredicates([labelSelectorPredicate(`${derive}=true`)]);
    const reconciled: string[] = [];
    sources.registerHandler(
      t.signal,
      'derive-owner',
      enqueueOwnerHandler(sources, { group: '', kind: 'ConfigMap' }),
    );
    sources.registerHandler(t.signal, 'derive', (key) => void reconciled.push(key));
    t.informer.sync();
    await t.shared.start(t.signal, 1);

    // An unrelated ConfigMap: neither labelled nor owned, so nothing is enqueued.
    t.informer.add(configMap('unrelated'));
    await t.settle();
    expect(reconciled).toEqual([]);

    const labelled = source('app');
    t.informer.add(labelled);
    await t.settle();
    expect(reconciled).toEqual(['ns/app']);

    // The copy is not labelled, but it is owned: its event passes the owner handler's own predicate, and it
    // maps to its source, which passes the view's predicates.
    reconciled.length = 0;
    const copy = copyOf(labelled);
    t.informer.add(copy);
    await t.settle();
    expect(reconciled.sort()).toEqual(['ns/app', 'ns/app-derived']);

    reconciled.length = 0;
    t.informer.delete(copy);
    await t.settle();
    expect(reconciled.sort()).toEqual(['ns/app', 'ns/app-derived']);

    // An owner in the cache that does not pass the view's predicates is not enqueued by its copy.
    const plain = source('plain', false);
    t.informer.add(plain);
    await t.settle();
    reconciled.length = 0;
    t.informer.add(copyOf(plain));
    await t.settle();
    expect(reconciled).toEqual(['ns/plain-derived']);
  });

  it('leaves the shared controller and handlers registered on it alone, and composes views', async () => {
    const t = setup();
    expect(t.shared.predicates).toEqual([]);
    const labelled = t.shared.withPredicates([labelSelectorPredicate(`${derive}=true`)]);
    const named = labelled.withPredicates([
      predicate(({ object }) => object.metadata?.name === 'b'),
    ]);
    expect(labelled.predicates).toHaveLength(1);
    expect(named.predicates).toHaveLength(2);
    expect(named.name).toBe(t.shared.name);
    const seen: string[] = [];
    named.registerHandler(t.signal, 'named', (key) => void seen.push(`named ${key}`));
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.informer.add(source('a'));
    t.informer.add(source('b'));
    t.informer.add(configMap('b2'));
    await t.settle();
    expect(seen).toEqual(['named ns/b']);
    // A handler registered on the shared controller itself takes no predicates: every event runs it (and,
    // sharing the queue, the view's handler too).
    seen.length = 0;
    t.shared.registerHandler(t.signal, 'all', (key) => void seen.push(`all ${key}`));
    await t.settle();
    seen.length = 0;
    t.informer.add(configMap('c'));
    await t.settle();
    expect(seen).toEqual(['named ns/c', 'all ns/c']);
    expect(() => t.shared.withPredicates([{} as never])).toThrow(TypeError);
  });

  it("checks an owner as a create event: change predicates let the owners' keys through", async () => {
    const t = setup();
    const specChanges = t.shared.withPredicates([generationChangedPredicate]);
    const reconciled: string[] = [];
    t.shared.registerHandler(
      t.signal,
      'owner',
      enqueueOwnerHandler(specChanges, { group: '', kind: 'ConfigMap' }),
    );
    specChanges.registerHandler(t.signal, 'reconcile', (key) => void reconciled.push(key));
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    const owner = source('owner');
    t.informer.add(owner);
    await t.settle();
    reconciled.length = 0;
    const copy = copyOf(owner);
    t.informer.add(copy);
    await t.settle();
    t.informer.update({ ...copy, metadata: { ...copy.metadata, resourceVersion: '2' } });
    await t.settle();
    expect(reconciled.filter((key) => key === 'ns/owner')).toHaveLength(2);
  });
});

describe('labelSelectorPredicate', () => {
  const labelled = (labels: Record<string, string>): KubeObject => {
    const object = configMap('x');
    return { ...object, metadata: { ...object.metadata, labels } };
  };

  it("parses kubectl's selector syntax", () => {
    const selector = labelSelectorPredicate('a=b,c!=d,e in (x,y),f notin (z),!g,h');
    const accepts = (labels: Record<string, string>) =>
      selector.accept({ type: 'create', object: labelled(labels) });
    expect(accepts({ a: 'b', e: 'x', h: '' })).toBe(true);
    expect(accepts({ a: 'b', c: 'other', e: 'y', f: 'q', h: '1' })).toBe(true);
    expect(accepts({ a: 'b', c: 'd', e: 'x', h: '' })).toBe(false);
    expect(accepts({ a: 'b', e: 'w', h: '' })).toBe(false);
    expect(accepts({ a: 'b', e: 'x', f: 'z', h: '' })).toBe(false);
    expect(accepts({ a: 'b', e: 'x', g: '', h: '' })).toBe(false);
    expect(accepts({ a: 'b', e: 'x' })).toBe(false);
    expect(selector.accept({ type: 'create', object: configMap('no-labels') })).toBe(false);
    expect(selector.name).toBe('label-selector(a=b,c!=d,e in (x,y),f notin (z),!g,h)');
  });

  it('passes an update when the object matches before or after it, and takes a LabelSelector', () => {
    const selector = labelSelectorPredicate({ matchLabels: { app: 'web' } });
    const web = labelled({ app: 'web' });
    const db = labelled({ app: 'db' });
    expect(selector.accept({ type: 'update', object: db, oldObject: web })).toBe(true);
    expect(selector.accept({ type: 'update', object: web, oldObject: db })).toBe(true);
    expect(selector.accept({ type: 'update', object: db, oldObject: db })).toBe(false);
    expect(selector.accept({ type: 'delete', object: web, finalStateUnknown: true })).toBe(true);
  });

  it('refuses a selector that does not parse, naming it', () => {
    expect(() => labelSelectorPredicate('a in (x')).toThrow(RangeError);
    expect(() => labelSelectorPredicate('a=b,')).toThrow(/labelSelectorPredicate/);
    expect(() => labelSelectorPredicate(undefined as never)).toThrow(TypeError);
    expect(() => labelSelectorPredicate(7 as never)).toThrow(TypeError);
  });
});
