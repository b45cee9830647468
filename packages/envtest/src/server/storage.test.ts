import { describe, expect, it } from 'vitest';
import { CompactedError, type HistoryEvent, Store } from './storage.ts';

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
});
