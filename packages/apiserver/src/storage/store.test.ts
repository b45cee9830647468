import { describe, expect, it } from 'vitest';
import { CompactedError, type HistoryEvent, Store } from './store.ts';

const cm = (namespace: string, name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name },
  data,
});

describe('Store', () => {
  it('assigns one increasing resourceVersion across resources', () => {
    const store = new Store({ initialResourceVersion: 10 });
    const a = store.create('/configmaps', cm('ns', 'a'));
    const b = store.create('/secrets', cm('ns', 'b'));
    expect(a.metadata?.resourceVersion).toBe('11');
    expect(b.metadata?.resourceVersion).toBe('12');
    expect(store.currentRv()).toBe(12);
  });

  it('lists sorted by namespace and name, filtered by namespace', () => {
    const store = new Store();
    store.create('/configmaps', cm('b', 'x'));
    store.create('/configmaps', cm('a', 'z'));
    store.create('/configmaps', cm('a', 'y'));
    const all = store.list('/configmaps', undefined).map((object) => object.metadata?.name);
    expect(all).toEqual(['y', 'z', 'x']);
    expect(store.list('/configmaps', 'b').map((object) => object.metadata?.name)).toEqual(['x']);
  });

  it('returns copies that callers cannot use to change stored state', () => {
    const store = new Store();
    store.create('/configmaps', cm('ns', 'a', { k: 'v' }));
    const copy = store.get('/configmaps', 'ns', 'a')!;
    (copy.data as Record<string, string>).k = 'changed';
    expect(store.get('/configmaps', 'ns', 'a')?.data).toEqual({ k: 'v' });
  });

  it('reconstructs the state at an older resourceVersion', () => {
    const store = new Store({ initialResourceVersion: 0 });
    store.create('/configmaps', cm('ns', 'a', { v: '1' }));
    const snapshot = store.currentRv();
    store.update('/configmaps', cm('ns', 'a', { v: '2' }));
    store.create('/configmaps', cm('ns', 'b'));
    store.delete('/configmaps', cm('ns', 'a', { v: '2' }));
    const then = store.list('/configmaps', undefined, snapshot);
    expect(then.map((object) => [object.metadata?.name, object.data])).toEqual([['a', { v: '1' }]]);
    expect(store.list('/configmaps', undefined).map((object) => object.metadata?.name)).toEqual([
      'b',
    ]);
  });

  it('throws CompactedError for snapshots and events older than the history', () => {
    const store = new Store({ initialResourceVersion: 0 });
    store.create('/configmaps', cm('ns', 'a'));
    store.create('/configmaps', cm('ns', 'b'));
    store.expireHistory();
    expect(() => store.list('/configmaps', undefined, 1)).toThrow(CompactedError);
    expect(() => store.eventsAfter(1)).toThrow('too old resource version: 1 (2)');
    expect(store.eventsAfter(2)).toEqual([]);
  });

  it('drops the oldest events past maxHistory and moves the compaction point', () => {
    const store = new Store({ initialResourceVersion: 0, maxHistory: 2 });
    for (const name of ['a', 'b', 'c']) store.create('/configmaps', cm('ns', name));
    expect(store.compactedRv()).toBe(1);
    expect(store.eventsAfter(1).map((event) => event.name)).toEqual(['b', 'c']);
    expect(() => store.eventsAfter(0)).toThrow(CompactedError);
  });

  it('notifies subscribers in commit order with the previous object', () => {
    const store = new Store({ initialResourceVersion: 0 });
    const seen: HistoryEvent[] = [];
    const unsubscribe = store.subscribe((event) => seen.push(event));
    store.create('/configmaps', cm('ns', 'a', { v: '1' }));
    store.update('/configmaps', cm('ns', 'a', { v: '2' }));
    store.delete('/configmaps', cm('ns', 'a', { v: '2' }));
    unsubscribe();
    store.create('/configmaps', cm('ns', 'b'));
    expect(seen.map((event) => [event.type, event.rv, event.previous?.data])).toEqual([
      ['ADDED', 1, undefined],
      ['MODIFIED', 2, { v: '1' }],
      ['DELETED', 3, { v: '2' }],
    ]);
    expect(seen[2]?.object.metadata?.resourceVersion).toBe('3');
  });

  it('pages a past snapshot in key order, counting what is left, while writes go on', () => {
    // A seeded walk of creates, updates and deletes over a few namespaces, checked against a full copy
    // of the state kept at every resourceVersion.
    let seed = 42;
    const random = (below: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const store = new Store({ initialResourceVersion: 0, maxHistory: 1_000 });
    const namespaces = ['a', 'ab', 'b'];
    const live = new Map<string, Record<string, string>>();
    const states = new Map<number, Map<string, Record<string, string>>>([[0, new Map()]]);
    const expected = (atRv: number, namespace: string | undefined, start: string | undefined) =>
      [...states.get(atRv)!.entries()]
        .filter(([id]) => namespace === undefined || id.startsWith(`${namespace}/`))
        .filter(([id]) => start === undefined || id >= start)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([id, data]) => [id, data]);
    let pinned = 0;
    for (let step = 0; step < 600; step++) {
      const namespace = namespaces[random(namespaces.length)]!;
      const id = `${namespace}/n${random(40)}`;
      const name = id.slice(namespace.length + 1);
      const data = { step: String(step) };
      if (!live.has(id)) {
        store.create('/configmaps', cm(namespace, name, data));
        live.set(id, data);
      } else if (random(3) === 0) {
        store.delete('/configmaps', cm(namespace, name, live.get(id)));
        live.delete(id);
      } else {
        store.update('/configmaps', cm(namespace, name, data));
        live.set(id, data);
      }
      states.set(store.currentRv(), new Map(live));
      // Mostly the same resourceVersion for a while, as the pages of one continue sequence ask.
      if (random(8) === 0) pinned = random(store.currentRv() + 1);
      const atRv = pinned;
      for (const scope of [undefined, ...namespaces]) {
        const start = random(2) === 0 ? undefined : `${namespaces[random(3)]}/n${random(40)}`;
        const snapshot = store.snapshot('/configmaps', atRv);
        const seen = [...snapshot.objects(scope, start)].map((object) => [
          `${object.metadata?.namespace}/${object.metadata?.name}`,
          object.data,
        ]);
        const want = expected(atRv, scope, start);
        expect(seen, `rv ${atRv} of ${store.currentRv()}, ${scope}, ${start}`).toEqual(want);
        expect(snapshot.count(scope, start)).toBe(want.length);
      }
    }
  });

  it('forgets a past snapshot once history no longer covers it', () => {
    const store = new Store({ initialResourceVersion: 0, maxHistory: 2 });
    store.create('/configmaps', cm('ns', 'a'));
    const atRv = store.currentRv();
    store.create('/configmaps', cm('ns', 'b'));
    expect([...store.snapshot('/configmaps', atRv).objects(undefined)]).toHaveLength(1);
    store.create('/configmaps', cm('ns', 'c'));
    store.create('/configmaps', cm('ns', 'd'));
    expect(() => store.snapshot('/configmaps', atRv)).toThrow(CompactedError);
  });
});

describe('Store key order', () => {
  it('writes map keys sorted, as Go encodes a map, for readers and watchers alike', () => {
    const store = new Store();
    const seen: HistoryEvent[] = [];
    store.subscribe((event) => seen.push(event));
    const created = store.create('/configmaps', cm('ns', 'a', { b: '1', a: '2' }));
    expect(Object.keys(created.data as object)).toEqual(['a', 'b']);
    expect(Object.keys(store.get('/configmaps', 'ns', 'a')!.data as object)).toEqual(['a', 'b']);
    expect(Object.keys(seen[0]!.object.data as object)).toEqual(['a', 'b']);
    // resourceVersion takes its ObjectMeta place, not the end.
    expect(Object.keys(created.metadata!)).toEqual(['name', 'namespace', 'resourceVersion']);
  });
});
