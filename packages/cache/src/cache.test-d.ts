// Type tests: kubernetes-types objects flow from Client<T> through createCache to handlers and readers.
import { Client, type KubeObject, type KubeObjectLike, type RestTransport } from '@lasso/client';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expectTypeOf, it } from 'vitest';
import { type CacheClient, createCache } from './cache.ts';
import type { DeletedFinalStateUnknown } from './delta-fifo.ts';
import { createSharedIndexInformer, type SharedIndexInformer } from './shared-informer.ts';
import { createIndexer } from './store.ts';
import { FakeListerWatcher } from './testing/index.ts';

declare const rest: RestTransport;
const configMaps = new Client<ConfigMap>({
  gvr: { group: '', version: 'v1', resource: 'configmaps' },
  kind: 'ConfigMap',
  namespaced: true,
  rest,
});

describe('createCache', () => {
  it('takes a client of a narrower type as a cache client of a wider one (a list transform keeps it covariant)', () => {
    expectTypeOf<Client<KubeObject>>().toMatchTypeOf<CacheClient<KubeObjectLike>>();
    expectTypeOf<Client<ConfigMap>>().toMatchTypeOf<CacheClient<KubeObjectLike>>();
  });

  it('infers the informer type from a Client of a kubernetes-types object', () => {
    const informer = createCache(configMaps, { namespace: 'default' });
    expectTypeOf(informer).toEqualTypeOf<SharedIndexInformer<ConfigMap>>();
    expectTypeOf(informer.getStore().getByKey).returns.toEqualTypeOf<ConfigMap | undefined>();
    expectTypeOf(informer.getIndexer().byIndex).returns.toEqualTypeOf<ConfigMap[]>();
  });

  it('hands handlers the typed object', () => {
    createCache(configMaps).addEventHandler({
      onAdd: (object, isInInitialList) => {
        expectTypeOf(object).toEqualTypeOf<ConfigMap>();
        expectTypeOf(object.data).toEqualTypeOf<{ [name: string]: string } | undefined>();
        expectTypeOf(isInInitialList).toBeBoolean();
      },
      onUpdate: (oldObject, newObject) => {
        expectTypeOf(oldObject).toEqualTypeOf<ConfigMap>();
        expectTypeOf(newObject).toEqualTypeOf<ConfigMap>();
      },
      onDelete: (object) => {
        expectTypeOf(object).toEqualTypeOf<ConfigMap | DeletedFinalStateUnknown<ConfigMap>>();
      },
    });
  });

  it('types indexers and transforms over the object', () => {
    const informer = createCache(configMaps, {
      indexers: {
        byImmutable: (object) => {
          expectTypeOf(object).toEqualTypeOf<ConfigMap>();
          return [String(object.immutable ?? false)];
        },
      },
    });
    informer.setTransform((object) => {
      expectTypeOf(object).toEqualTypeOf<ConfigMap>();
      return object;
    });
  });

  it('keeps the object type exact instead of widening it to KubeObject', () => {
    createCache(configMaps).addEventHandler({
      onAdd: (object) => {
        // @ts-expect-error ConfigMaps have no spec (KubeObject's index signature would allow it)
        void object.spec;
      },
    });
  });

  it('refuses a client of another kind', () => {
    // @ts-expect-error a ConfigMap client cannot feed a Pod informer
    createCache<Pod>(configMaps);
  });
});

describe('createSharedIndexInformer', () => {
  it('accepts a lister-watcher of kubernetes-types objects', () => {
    const informer = createSharedIndexInformer(new FakeListerWatcher<Pod>());
    expectTypeOf(informer).toEqualTypeOf<SharedIndexInformer<Pod>>();
  });
});

describe('createIndexer', () => {
  it('stores kubernetes-types objects', () => {
    expectTypeOf(createIndexer<ConfigMap>().list()).toEqualTypeOf<ConfigMap[]>();
  });
});
