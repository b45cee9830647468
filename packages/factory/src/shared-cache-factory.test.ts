// Unit tests of createSharedCacheFactory over a fake cluster: one informer per kind, per-kind options, start and
// startGVK, waitForCacheSync results and the shared health gate.
import type { KubeObjectLike } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { deferred, FakeCluster, object } from './__fixtures__/fake-cluster.ts';
import { FactoryStartError } from './errors.ts';
import {
  createSharedCacheFactory,
  type SharedCacheFactory,
  type SharedCacheFactoryOptions,
} from './shared-cache-factory.ts';

const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const secretGvk = { group: '', version: 'v1', kind: 'Secret' } as const;
const namespaceGvk = { group: '', version: 'v1', kind: 'Namespace' } as const;
const configMapGvr = { group: '', version: 'v1', resource: 'configmaps' } as const;

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

function setup(options: SharedCacheFactoryOptions = {}) {
  const cluster = new FakeCluster();
  cluster.serve(configMapGvk, 'configmaps', true, [
    object('v1', 'ConfigMap', 'a', 'team-a'),
    object('v1', 'ConfigMap', 'b', 'team-b'),
  ]);
  cluster.serve(secretGvk, 'secrets', true, [object('v1', 'Secret', 's', 'vault')]);
  cluster.serve(namespaceGvk, 'namespaces', false, [object('v1', 'Namespace', 'team-a')]);
  const clock = new FakeClock();
  const logger = createTestLogger();
  const caches: SharedCacheFactory = createSharedCacheFactory(cluster.clientFactory(), {
    clock,
    logger,
    ...options,
  });
  const stop = new AbortController();
  stops.push(stop);
  return { cluster, clock, logger, caches, signal: stop.signal };
}

describe('createSharedCacheFactory', () => {
  it('keeps one informer per kind, however it is asked for', async () => {
    const { caches } = setup();
    const informers: Array<{ readonly name: string }> = await Promise.all([
      caches.forKind(configMapGvk),
      caches.forKind(configMapGvk),
      caches.forResource(configMapGvr, true),
      caches.forObject({ apiVersion: 'v1', kind: 'ConfigMap' }),
    ]);
    informers.push(caches.forResourceKind(configMapGvr, 'ConfigMap', true));
    expect(new Set(informers).size).toBe(1);
    expect(informers[0]?.name).toBe('/v1, Kind=ConfigMap');
  });

  it('lists and watches nothing before start', async () => {
    const { cluster, caches } = setup();
    await caches.forKind(configMapGvk);
    await caches.forKind(secretGvk);
    expect(cluster.touched()).toEqual([]);
  });

  it('applies the default and per-kind namespace, tweakList and resync', async () => {
    const { cluster, clock, caches, signal } = setup({
      defaultNamespace: 'team-a',
      defaultTweakList: (options) => {
        options.labelSelector = 'app=web';
      },
      kindNamespace: new Map([[secretGvk, 'vault']]),
      kindTweakList: [
        [
          secretGvk,
          (options) => {
            options.fieldSelector = 'type=Opaque';
          },
        ],
      ],
      defaultResyncMs: 0,
      kindResyncMs: [[configMapGvk, 1_000]],
    });
    const configMaps = await caches.forKind(configMapGvk);
    const secrets = await caches.forKind(secretGvk);
    await caches.forKind(namespaceGvk);
    const updates: string[] = [];
    const record = {
      onUpdate: (_old: KubeObjectLike, object: KubeObjectLike) => {
        updates.push(`${object.kind}/${object.metadata?.name}`);
      },
    };
    configMaps.addEventHandler(record);
    secrets.addEventHandler(record);
    await caches.start(signal);
    await caches.waitForCacheSync(signal);
    expect(cluster.kind(configMapGvk).listNamespaces).toEqual(['team-a']);
    expect(cluster.kind(configMapGvk).lists[0]?.labelSelector).toBe('app=web');
    expect(cluster.kind(secretGvk).listNamespaces).toEqual(['vault']);
    expect(cluster.kind(secretGvk).lists[0]?.fieldSelector).toBe('type=Opaque');
    expect(cluster.kind(secretGvk).lists[0]?.labelSelector).toBeUndefined();
    // A cluster-scoped kind ignores the namespace.
    expect(cluster.kind(namespaceGvk).listNamespaces).toEqual([undefined]);
    // Only the kind with a resync period resyncs (the fake serves every namespace it is asked for).
    await clock.advance(1_000);
    expect(updates.sort()).toEqual(['ConfigMap/a', 'ConfigMap/b']);
  });

  it('refuses bad options naming them', () => {
    expect(() => setup({ defaultResyncMs: -1 })).toThrow(/defaultResyncMs/);
    expect(() => setup({ kindResyncMs: [[configMapGvk, Number.NaN]] })).toThrow(RangeError);
    expect(() => setup({ kindNamespace: 5 as never })).toThrow(/kindNamespace/);
    expect(() => setup({ kindTweakList: [[configMapGvk, 'x' as never]] })).toThrow(/kindTweakList/);
    expect(() => setup({ kindNamespace: [[{ group: '', version: '', kind: 'X' }, 'a']] })).toThrow(
      /gvk\.version/,
    );
    expect(() => setup({ healthCallback: 1 as never })).toThrow(/healthCallback/);
  });

  describe('start()', () => {
    it('starts informers created since the last start, each once', async () => {
      const { cluster, caches, signal } = setup();
      await caches.forKind(configMapGvk);
      await caches.start(signal);
      await caches.start(signal);
      await caches.forKind(secretGvk);
      await caches.start(signal);
      expect(cluster.kind(configMapGvk).lists).toHaveLength(1);
      expect(cluster.kind(secretGvk).lists).toHaveLength(1);
    });

    it('refuses a kind the server serves under another scope, naming both', async () => {
      const { caches, signal } = setup();
      caches.forResourceKind(configMapGvr, 'ConfigMap', false);
      const error = await caches.start(signal).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(FactoryStartError);
      expect((error as FactoryStartError).failures[0]?.error).toBeInstanceOf(TypeError);
      expect((error as FactoryStartError).message).toMatch(
        /\/v1, Kind=ConfigMap.*namespaced: true/,
      );
    });
  });

  describe('startGVK()', () => {
    it('starts one kind only, and nothing for a kind never asked for', async () => {
      const { cluster, caches, signal } = setup();
      await caches.forKind(configMapGvk);
      await caches.forKind(secretGvk);
      await caches.startGVK(signal, namespaceGvk);
      await caches.startGVK(signal, secretGvk);
      expect(cluster.touched()).toEqual(['/v1, Kind=Secret']);
    });

    it('rejects naming a kind that is not served', async () => {
      const { cluster, caches, signal } = setup();
      await caches.forKind(secretGvk);
      cluster.unserve(secretGvk);
      await expect(caches.startGVK(signal, secretGvk)).rejects.toThrow(/\/v1, Kind=Secret/);
    });
  });

  describe('waitForCacheSync()', () => {
    it('maps every running kind to whether it synced before the signal aborted', async () => {
      const { cluster, caches, signal } = setup();
      await caches.forKind(configMapGvk);
      await caches.forKind(secretGvk);
      await caches.forKind(namespaceGvk);
      cluster.kind(secretGvk).holdLists();
      await caches.start(signal);
      const synced = await caches.waitForCacheSync(AbortSignal.abort());
      // Informers that had not synced at the abort are false; the others may be either.
      expect(synced.get('/v1, Kind=Secret')).toBe(false);
      expect([...synced.keys()].sort()).toEqual([
        '/v1, Kind=ConfigMap',
        '/v1, Kind=Namespace',
        '/v1, Kind=Secret',
      ]);
      const stop = new AbortController();
      const waiting = caches.waitForCacheSync(stop.signal);
      stop.abort();
      expect((await waiting).get('/v1, Kind=Secret')).toBe(false);
    });

    it('resolves with every kind synced', async () => {
      const { caches, signal } = setup();
      await caches.forKind(configMapGvk);
      await caches.start(signal);
      expect(await caches.waitForCacheSync(signal)).toEqual(
        new Map([['/v1, Kind=ConfigMap', true]]),
      );
    });
  });

  describe('health gate', () => {
    it('runs one ping loop however many informers wait for a healthy API', async () => {
      const health: boolean[] = [];
      const { cluster, clock, caches, signal } = setup({
        healthCallback: (healthy) => health.push(healthy),
      });
      await caches.forKind(configMapGvk);
      await caches.forKind(secretGvk);
      const unavailable = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      cluster.kind(configMapGvk).store.failNextList(unavailable);
      cluster.kind(secretGvk).store.failNextList(unavailable);
      cluster.pingAnswers.push(true, false);
      await caches.start(signal);
      await clock.advance(0);
      // The start's ping, then one ping for both failed lists.
      expect(cluster.pings).toBe(2);
      await clock.advance(15_000);
      expect(cluster.pings).toBe(3);
      expect(health).toEqual([true, false, true]);
      // Healthy again: both informers back off and list again.
      const synced = deferred<Map<string, boolean>>();
      void caches.waitForCacheSync(signal).then(synced.resolve);
      await clock.advance(60_000);
      expect(await synced.promise).toEqual(
        new Map([
          ['/v1, Kind=ConfigMap', true],
          ['/v1, Kind=Secret', true],
        ]),
      );
      expect(cluster.pings).toBe(3);
    });
  });
});
