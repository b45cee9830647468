import type { KubeObject } from '@lasso/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createIndexer,
  createStore,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  namespaceIndex,
  splitMetaNamespaceKey,
} from './store.ts';

function pod(namespace: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, labels } };
}

const byApp = (object: KubeObject): string[] =>
  (object.metadata?.labels?.app ?? '').split(',').filter((value) => value !== '');

describe('metaNamespaceKeyFunc', () => {
  it.for([
    {
      name: 'joins namespace and name for a namespaced object',
      object: pod('ns', 'a'),
      key: 'ns/a',
    },
    {
      name: 'uses the name alone for a cluster-scoped object',
      object: { metadata: { name: 'n' } },
      key: 'n',
    },
    { name: 'returns a string as its own key', object: 'ns/x', key: 'ns/x' },
  ])('$name', ({ object, key }) => {
    expect(metaNamespaceKeyFunc(object)).toBe(key);
  });

  it('throws a TypeError when the object has no name', () => {
    expect(() => metaNamespaceKeyFunc({ metadata: {} })).toThrow(TypeError);
    expect(() => metaNamespaceKeyFunc(42)).toThrow(TypeError);
  });
});

describe('splitMetaNamespaceKey', () => {
  it('splits namespaced and cluster-scoped keys and rejects extra slashes', () => {
    expect(splitMetaNamespaceKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitMetaNamespaceKey('a')).toEqual({ namespace: '', name: 'a' });
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow(TypeError);
  });
});

describe('createIndexer', () => {
  it('stores, replaces and deletes objects by key', () => {
    const store = createStore();
    store.add(pod('ns', 'a'));
    store.update({ ...pod('ns', 'a'), spec: { v: 2 } });
    store.add(pod('ns', 'b'));
    expect(store.getByKey('ns/a')?.spec).toEqual({ v: 2 });
    expect(store.get(pod('ns', 'b'))?.metadata?.name).toBe('b');
    store.delete(pod('ns', 'a'));
    expect(store.listKeys()).toEqual(['ns/b']);
    expect(store.size()).toBe(1);
  });

  it('indexes objects by several values and answers byIndex, indexKeys and listIndexFuncValues', () => {
    const indexer = createIndexer({
      indexers: { app: byApp, [namespaceIndex]: metaNamespaceIndexFunc },
    });
    indexer.add(pod('ns1', 'a', { app: 'web,api' }));
    indexer.add(pod('ns2', 'b', { app: 'web' }));
    expect(
      indexer
        .byIndex('app', 'web')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(indexer.indexKeys('app', 'api')).toEqual(['ns1/a']);
    expect(indexer.listIndexFuncValues('app').sort()).toEqual(['api', 'web']);
    expect(indexer.byIndex(namespaceIndex, 'ns2').map((o) => o.metadata?.name)).toEqual(['b']);
    expect(
      indexer.index('app', pod('x', 'probe', { app: 'api' })).map((o) => o.metadata?.name),
    ).toEqual(['a']);
  });

  it('drops index values that no object has any more', () => {
    const indexer = createIndexer({ indexers: { app: byApp } });
    indexer.add(pod('ns', 'a', { app: 'old' }));
    indexer.update(pod('ns', 'a', { app: 'new' }));
    expect(indexer.listIndexFuncValues('app')).toEqual(['new']);
    indexer.delete(pod('ns', 'a'));
    expect(indexer.listIndexFuncValues('app')).toEqual([]);
  });

  it('moves only the index values an update changed', () => {
    const indexer = createIndexer({ indexers: { app: byApp } });
    indexer.add(pod('ns', 'a', { app: 'web,api' }));
    indexer.add(pod('ns', 'b', { app: 'api' }));
    indexer.update(pod('ns', 'a', { app: 'api,db' }));
    expect(indexer.listIndexFuncValues('app').sort()).toEqual(['api', 'db']);
    expect(indexer.indexKeys('app', 'api').sort()).toEqual(['ns/a', 'ns/b']);
    expect(indexer.indexKeys('app', 'db')).toEqual(['ns/a']);
    const same = pod('ns', 'b', { app: 'api' });
    indexer.update(same);
    expect(indexer.byIndex('app', 'api')).toContain(same);
  });

  it('indexes stored objects when indexers are added later', () => {
    const indexer = createIndexer();
    indexer.add(pod('ns', 'a', { app: 'web' }));
    indexer.addIndexers({ app: byApp });
    expect(indexer.indexKeys('app', 'web')).toEqual(['ns/a']);
    expect(() => indexer.addIndexers({ app: byApp })).toThrow(TypeError);
  });

  it('throws a RangeError for an unknown index', () => {
    expect(() => createIndexer().byIndex('nope', 'x')).toThrow(RangeError);
  });

  it('rebuilds every index on replace', () => {
    const indexer = createIndexer({ indexers: { app: byApp } });
    indexer.add(pod('ns', 'a', { app: 'web' }));
    indexer.replace([pod('ns', 'b', { app: 'db' })], '10');
    expect(indexer.listKeys()).toEqual(['ns/b']);
    expect(indexer.listIndexFuncValues('app')).toEqual(['db']);
  });

  it('leaves the store unchanged when an index function throws', () => {
    const indexer = createIndexer({
      indexers: {
        bad: (object: KubeObject) => {
          if (object.metadata?.name === 'boom') throw new Error('index failed');
          return ['ok'];
        },
      },
    });
    indexer.add(pod('ns', 'a'));
    expect(() => indexer.add(pod('ns', 'boom'))).toThrow('index failed');
    expect(indexer.listKeys()).toEqual(['ns/a']);
    expect(indexer.indexKeys('bad', 'ok')).toEqual(['ns/a']);
    expect(() => indexer.replace([pod('ns', 'b'), pod('ns', 'boom')], '9')).toThrow('index failed');
    expect(indexer.listKeys()).toEqual(['ns/a']);
    expect(indexer.indexKeys('bad', 'ok')).toEqual(['ns/a']);
  });

  it('adds no indexer when one of the new index functions throws on a stored object', () => {
    const indexer = createIndexer<KubeObject>();
    indexer.add(pod('ns', 'a'));
    expect(() =>
      indexer.addIndexers({
        good: () => ['g'],
        bad: () => {
          throw new Error('index failed');
        },
      }),
    ).toThrow('index failed');
    expect(indexer.getIndexers()).toEqual({});
    expect(() => indexer.byIndex('good', 'g')).toThrow(RangeError);
    indexer.addIndexers({ good: () => ['g'] });
    expect(indexer.indexKeys('good', 'g')).toEqual(['ns/a']);
  });

  it('agrees with a model under any sequence of operations', () => {
    const op = fc.record({
      kind: fc.constantFrom('add', 'update', 'delete'),
      name: fc.constantFrom('a', 'b', 'c', 'd'),
      app: fc.constantFrom('', 'x', 'y', 'x,y'),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const indexer = createIndexer({ indexers: { app: byApp } });
        const model = new Map<string, KubeObject>();
        for (const { kind, name, app } of ops) {
          const object = pod('ns', name, { app });
          if (kind === 'delete') {
            indexer.delete(object);
            model.delete(`ns/${name}`);
          } else {
            indexer[kind](object);
            model.set(`ns/${name}`, object);
          }
        }
        expect(indexer.listKeys().sort()).toEqual([...model.keys()].sort());
        for (const value of ['x', 'y']) {
          const expected = [...model.entries()]
            .filter(([, object]) => byApp(object).includes(value))
            .map(([key]) => key)
            .sort();
          expect(indexer.indexKeys('app', value).sort()).toEqual(expected);
        }
      }),
      { seed: 16_701 },
    );
  });
});
