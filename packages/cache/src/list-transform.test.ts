// A store's transform is applied to listed objects as they arrive (a page, an event of a streaming list), so a list
// never holds its raw objects beside their copies (W5's peak memory); and it is applied once, not again by the FIFO.
import type { KubeObject, ListOptions, ObjectList } from '@lasso/client';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { startRun } from '../test/reflector-harness.ts';
import { Reflector, type ReflectorStore } from './reflector.ts';
import { createSharedIndexInformer } from './shared-informer.ts';
import { createStore } from './store.ts';
import { FakeListerWatcher, type FakeListerWatcherOptions } from './testing/fake-lister-watcher.ts';

type Tagged = KubeObject & { transformed?: boolean };

function cm(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name } };
}

const initialEventsEnd = (resourceVersion: string) => ({
  type: 'BOOKMARK',
  object: {
    metadata: { resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } },
  },
});

/** A reflector over `fake` writing to a store with a transform that tags and counts what it copies. */
function setup(fake: FakeListerWatcher, options: { initialList?: 'cached' } = {}) {
  const clock = new FakeClock();
  const inner = createStore<KubeObject>();
  const transformed: string[] = [];
  const replaced: KubeObject[][] = [];
  let failOn: string | undefined;
  const store: ReflectorStore<KubeObject> = {
    add: (object) => inner.add(object),
    update: (object) => inner.update(object),
    delete: (object) => inner.delete(object),
    replace: (list, resourceVersion) => {
      replaced.push([...list]);
      inner.replace(list, resourceVersion);
    },
    transform: (object) => {
      const name = object.metadata?.name ?? '';
      if (name === failOn) throw new Error(`cannot transform ${name}`);
      transformed.push(name);
      return { ...object, transformed: true } as Tagged;
    },
  };
  const reflector = new Reflector(fake, store, {
    name: 'test',
    clock,
    random: () => 0,
    ...options,
  });
  return {
    clock,
    inner,
    transformed,
    replaced,
    failOn: (name: string) => {
      failOn = name;
    },
    stop: startRun(reflector),
  };
}

function fakeOf(count: number, options: FakeListerWatcherOptions<KubeObject> = {}) {
  return new FakeListerWatcher({
    objects: Array.from({ length: count }, (_, i) => cm(`cm-${i}`)),
    ...options,
  });
}

describe('listed objects are transformed as they arrive', () => {
  it('transforms each event of a streaming list before the end bookmark, once, and replaces with the copies', async () => {
    const fake = fakeOf(0, { streamingLists: 'ignore' });
    fake.create(cm('a'));
    fake.create(cm('b'));
    const t = setup(fake);
    const watch = await fake.nextWatch();
    expect(watch.options.sendInitialEvents).toBe(true);
    await t.clock.advance(0);
    // Both ADDED events read, the bookmark not yet sent: the copies are made already.
    expect(t.transformed).toEqual(['a', 'b']);
    expect(t.replaced).toEqual([]);
    watch.push(initialEventsEnd(fake.resourceVersion()));
    await t.clock.advance(0);
    expect(t.transformed).toEqual(['a', 'b']);
    expect(t.replaced).toHaveLength(1);
    expect(t.replaced[0]?.every((object) => (object as Tagged).transformed === true)).toBe(true);
    expect(t.inner.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    await t.stop();
  });

  it('transforms each page of a list before asking for the next', async () => {
    const fake = fakeOf(1200);
    const transformedAtCall: number[] = [];
    const seen: { transformed: string[] } = { transformed: [] };
    const list = fake.list.bind(fake);
    fake.list = (options: ListOptions): Promise<ObjectList<KubeObject>> => {
      transformedAtCall.push(seen.transformed.length);
      return list(options);
    };
    const t = setup(fake, { initialList: 'cached' });
    seen.transformed = t.transformed;
    await fake.nextWatch();
    expect(transformedAtCall).toEqual([0, 500, 1000]);
    expect(t.transformed).toHaveLength(1200);
    expect(t.inner.size()).toBe(1200);
    await t.stop();
  });

  it('leaves the transform to a lister-watcher with listTransformsItems (decoded as the body arrives)', async () => {
    const fake = fakeOf(3);
    const list = fake.list.bind(fake);
    const passed: unknown[] = [];
    const decoding = Object.assign(fake, {
      listTransformsItems: true,
      list: async (
        options: ListOptions & { transformItem?: ((item: KubeObject) => KubeObject) | undefined },
      ) => {
        passed.push(options.transformItem);
        const page = await list(options);
        const transformItem = options.transformItem;
        return transformItem === undefined
          ? page
          : { ...page, items: page.items.map(transformItem) };
      },
    });
    const t = setup(decoding, { initialList: 'cached' });
    await fake.nextWatch();
    expect(passed).toHaveLength(1);
    expect(typeof passed[0]).toBe('function');
    // Once each, by the lister-watcher: the reflector did not copy again.
    expect(t.transformed.sort()).toEqual(['cm-0', 'cm-1', 'cm-2']);
    expect(t.inner.size()).toBe(3);
    await t.stop();
  });

  it('fails a streaming list whose transform throws as a list failure, without falling back to a list', async () => {
    const fake = fakeOf(2, { streamingLists: 'serve' });
    const t = setup(fake);
    t.failOn('cm-1');
    await fake.nextWatch();
    await t.clock.advance(0);
    expect(fake.streamingCalls).toHaveLength(1);
    expect(fake.listCalls).toEqual([]);
    expect(t.replaced).toEqual([]);
    // The retry after the backoff streams again (the server did not refuse anything).
    t.failOn('none');
    await t.clock.advance(1_000);
    expect(fake.streamingCalls).toHaveLength(2);
    expect(t.inner.size()).toBe(2);
    await t.stop();
  });
});

describe('the informer', () => {
  it('applies its transform once to each listed object (the reflector copies, the FIFO does not copy again)', async () => {
    const fake = fakeOf(3, { streamingLists: 'serve' });
    const clock = new FakeClock();
    const informer = createSharedIndexInformer<KubeObject>(fake, { name: 'test', clock });
    const calls: string[] = [];
    informer.setTransform((object) => {
      calls.push(object.metadata?.name ?? '');
      return { ...object, transformed: true } as Tagged;
    });
    const run = new AbortController();
    await informer.start(run.signal);
    await fake.nextWatch();
    await clock.advance(0);
    await informer.whenSynced();
    expect(calls.sort()).toEqual(['cm-0', 'cm-1', 'cm-2']);
    expect(
      informer
        .getStore()
        .list()
        .every((object) => (object as Tagged).transformed),
    ).toBe(true);
    // Watch events are transformed too, once.
    fake.create(cm('later'));
    await clock.advance(0);
    expect(calls.filter((name) => name === 'later')).toEqual(['later']);
    run.abort();
    await informer.stopped();
  });
});
