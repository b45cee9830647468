// The Store/Indexer contract of @lasso/cache as a reusable suite: run against the in-memory indexer and the
// SQL store (@lasso/cache has no exported contract suite; this one follows its store.test.ts).
import type { Indexer, IndexerOptions } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Makes a fresh indexer for one test; `cleanup` releases it. */
export type IndexerMaker = (options?: IndexerOptions<KubeObject>) => {
  indexer: Indexer<KubeObject>;
  cleanup(): void;
};

function pod(namespace: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, labels } };
}

const byApp = (object: KubeObject): string[] =>
  (object.metadata?.labels?.app ?? '').split(',').filter((value) => value !== '');

const names = (objects: readonly KubeObject[]): string[] =>
  objects.map((object) => object.metadata?.name as string).sort();

/** Run the contract against `make`. */
export function indexerContract(label: string, make: IndexerMaker): void {
  describe(`Indexer contract: ${label}`, () => {
    const using = <R>(
      options: IndexerOptions<KubeObject> | undefined,
      body: (indexer: Indexer<KubeObject>) => R,
    ): R => {
      const { indexer, cleanup } = make(options);
      try {
        return body(indexer);
      } finally {
        cleanup();
      }
    };

    it('stores, replaces and deletes objects by key', () =>
      using(undefined, (store) => {
        store.add(pod('ns', 'a'));
        store.update({ ...pod('ns', 'a'), spec: { v: 2 } });
        store.add(pod('ns', 'b'));
        expect(store.getByKey('ns/a')?.spec).toEqual({ v: 2 });
        expect(store.get(pod('ns', 'b'))?.metadata?.name).toBe('b');
        store.delete(pod('ns', 'a'));
        store.delete(pod('ns', 'never-there'));
        expect(store.listKeys()).toEqual(['ns/b']);
        expect(store.size()).toBe(1);
        expect(store.getByKey('ns/a')).toBeUndefined();
        expect(store.list()).toEqual([pod('ns', 'b')]);
      }));

    it('answers every read with the latest write, without waiting', () =>
      using(undefined, (store) => {
        store.add(pod('ns', 'a', { v: '1' }));
        expect(store.getByKey('ns/a')?.metadata?.labels).toEqual({ v: '1' });
        store.update(pod('ns', 'a', { v: '2' }));
        expect(store.list().map((o) => o.metadata?.labels?.v)).toEqual(['2']);
        store.delete(pod('ns', 'a'));
        expect(store.getByKey('ns/a')).toBeUndefined();
        expect(store.size()).toBe(0);
      }));

    it('indexes objects by several values and answers byIndex, indexKeys and listIndexFuncValues', () =>
      using(
        {
          indexers: {
            app: byApp,
            namespace: (object: KubeObject) => [object.metadata?.namespace ?? ''],
          },
        },
        (indexer) => {
          indexer.add(pod('ns1', 'a', { app: 'web,api' }));
          indexer.add(pod('ns2', 'b', { app: 'web' }));
          expect(names(indexer.byIndex('app', 'web'))).toEqual(['a', 'b']);
          expect(indexer.indexKeys('app', 'api')).toEqual(['ns1/a']);
          expect(indexer.listIndexFuncValues('app').sort()).toEqual(['api', 'web']);
          expect(names(indexer.byIndex('namespace', 'ns2'))).toEqual(['b']);
          expect(names(indexer.index('app', pod('x', 'probe', { app: 'api' })))).toEqual(['a']);
          expect(names(indexer.index('app', pod('x', 'probe', { app: 'api,web' })))).toEqual([
            'a',
            'b',
          ]);
          expect(Object.keys(indexer.getIndexers()).sort()).toEqual(['app', 'namespace']);
        },
      ));

    it('drops index values that no object has any more', () =>
      using({ indexers: { app: byApp } }, (indexer) => {
        indexer.add(pod('ns', 'a', { app: 'old' }));
        indexer.update(pod('ns', 'a', { app: 'new' }));
        expect(indexer.listIndexFuncValues('app')).toEqual(['new']);
        indexer.delete(pod('ns', 'a'));
        expect(indexer.listIndexFuncValues('app')).toEqual([]);
      }));

    it('moves only the index values an update changed', () =>
      using({ indexers: { app: byApp } }, (indexer) => {
        indexer.add(pod('ns', 'a', { app: 'web,api' }));
        indexer.add(pod('ns', 'b', { app: 'api' }));
        indexer.update(pod('ns', 'a', { app: 'api,db' }));
        expect(indexer.listIndexFuncValues('app').sort()).toEqual(['api', 'db']);
        expect(indexer.indexKeys('app', 'api').sort()).toEqual(['ns/a', 'ns/b']);
        expect(indexer.indexKeys('app', 'db')).toEqual(['ns/a']);
        const same = pod('ns', 'b', { app: 'api' });
        indexer.update(same);
        expect(indexer.byIndex('app', 'api')).toContainEqual(same);
      }));

    it('indexes stored objects when indexers are added later', () =>
      using(undefined, (indexer) => {
        indexer.add(pod('ns', 'a', { app: 'web' }));
        indexer.addIndexers({ app: byApp });
        expect(indexer.indexKeys('app', 'web')).toEqual(['ns/a']);
        expect(() => indexer.addIndexers({ app: byApp })).toThrow(TypeError);
        indexer.add(pod('ns', 'b', { app: 'web' }));
        expect(indexer.indexKeys('app', 'web').sort()).toEqual(['ns/a', 'ns/b']);
      }));

    it('throws a RangeError for an unknown index', () =>
      using(undefined, (indexer) => {
        expect(() => indexer.byIndex('nope', 'x')).toThrow(RangeError);
        expect(() => indexer.indexKeys('nope', 'x')).toThrow(RangeError);
        expect(() => indexer.index('nope', pod('ns', 'a'))).toThrow(RangeError);
        expect(indexer.listIndexFuncValues('nope')).toEqual([]);
      }));

    it('rebuilds every index on replace', () =>
      using({ indexers: { app: byApp } }, (indexer) => {
        indexer.add(pod('ns', 'a', { app: 'web' }));
        indexer.replace([pod('ns', 'b', { app: 'db' })], '10');
        expect(indexer.listKeys()).toEqual(['ns/b']);
        expect(indexer.listIndexFuncValues('app')).toEqual(['db']);
        expect(indexer.getByKey('ns/a')).toBeUndefined();
      }));

    it('keeps the last object of a key repeated in a replace', () =>
      using({ indexers: { app: byApp } }, (indexer) => {
        indexer.replace(
          [pod('ns', 'a', { app: 'x' }), pod('ns', 'b'), pod('ns', 'a', { app: 'y' })],
          '3',
        );
        expect(indexer.listKeys()).toEqual(['ns/a', 'ns/b']);
        expect(indexer.getByKey('ns/a')?.metadata?.labels).toEqual({ app: 'y' });
        expect(indexer.listIndexFuncValues('app')).toEqual(['y']);
      }));

    it('leaves the store unchanged when an index function throws', () =>
      using(
        {
          indexers: {
            bad: (object: KubeObject) => {
              if (object.metadata?.name === 'boom') throw new Error('index failed');
              return ['ok'];
            },
          },
        },
        (indexer) => {
          indexer.add(pod('ns', 'a'));
          expect(() => indexer.add(pod('ns', 'boom'))).toThrow('index failed');
          expect(indexer.listKeys()).toEqual(['ns/a']);
          expect(indexer.indexKeys('bad', 'ok')).toEqual(['ns/a']);
          expect(() => indexer.replace([pod('ns', 'b'), pod('ns', 'boom')], '9')).toThrow(
            'index failed',
          );
          expect(indexer.listKeys()).toEqual(['ns/a']);
          expect(indexer.indexKeys('bad', 'ok')).toEqual(['ns/a']);
        },
      ));

    it('adds no indexer when one of the new index functions throws on a stored object', () =>
      using(undefined, (indexer) => {
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
      }));

    it('keys cluster-scoped objects by name and honours a custom key function', () => {
      using(undefined, (indexer) => {
        indexer.add({ metadata: { name: 'node-1' } });
        expect(indexer.listKeys()).toEqual(['node-1']);
      });
      using({ keyFunc: (object) => `k:${(object as KubeObject).metadata?.name}` }, (indexer) => {
        indexer.add(pod('ns', 'a'));
        expect(indexer.listKeys()).toEqual(['k:a']);
        expect(indexer.get(pod('other', 'a'))?.metadata?.namespace).toBe('ns');
      });
    });

    it('agrees with a model under any sequence of operations', () => {
      const op = fc.record({
        kind: fc.constantFrom('add', 'update', 'delete', 'read'),
        name: fc.constantFrom('a', 'b', 'c', 'd'),
        app: fc.constantFrom('', 'x', 'y', 'x,y'),
      });
      fc.assert(
        fc.property(fc.array(op, { maxLength: 40 }), (ops) =>
          using({ indexers: { app: byApp } }, (indexer) => {
            const model = new Map<string, KubeObject>();
            for (const { kind, name, app } of ops) {
              const object = pod('ns', name, { app });
              if (kind === 'read') {
                expect(indexer.getByKey(`ns/${name}`)).toEqual(model.get(`ns/${name}`));
              } else if (kind === 'delete') {
                indexer.delete(object);
                model.delete(`ns/${name}`);
              } else {
                indexer[kind](object);
                model.set(`ns/${name}`, object);
              }
            }
            expect(indexer.listKeys().sort()).toEqual([...model.keys()].sort());
            expect(indexer.size()).toBe(model.size);
            for (const value of ['x', 'y']) {
              const expected = [...model.entries()]
                .filter(([, object]) => byApp(object).includes(value))
                .map(([key]) => key)
                .sort();
              expect(indexer.indexKeys('app', value).sort()).toEqual(expected);
            }
          }),
        ),
        // Seeded: CI runs the same sequences every time (a failure replays), not new random ones per run.
        { numRuns: 60, seed: 60 },
      );
    });
  });
}
