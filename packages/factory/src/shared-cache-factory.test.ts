// Unit tests of createSharedCacheFactory over a fake cluster: one informer per kind, per-kind options, start and
// startGVK, waitForCacheSync results and the shared health gate.
import { ApiError, type KubeObject, type KubeObjectLike } from '@lasso/client';
import { isLassoError } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, FakeCluster, object } from './__fixtures__/fake-cluster.ts';
import { ApiServerUnavailableError } from './api-server-failure.ts';
import { createSharedCacheFactory } from './shared-cache-factory.ts';
import type { SharedCacheFactory, SharedCacheFactoryOptions } from './shared-cache-factory-api.ts';

const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const secretGvk = { group: '', version: 'v1', kind: 'Secret' } as const;
const namespaceGvk = { group: '', version: 'v1', kind: 'Namespace' } as const;
const configMapGvr = { group: '', version: 'v1', resource: 'configmaps' } as const;
const widgetGvk = { group: 'example.com', version: 'v1', kind: 'Widget' } as const;
const crdGvk = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
} as const;
const apiServiceGvk = {
  group: 'apiregistration.k8s.io',
  version: 'v1',
  kind: 'APIService',
} as const;

function widgetCrd(): KubeObject {
  return {
    ...object('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com'),
    spec: { group: 'example.com' },
  };
}

function statusOf(caches: SharedCacheFactory, kind: { kind: string }) {
  return caches.status().find((status) => status.gvk.kind === kind.kind);
}

/** Advance the fake clock by 0 until `predicate` holds (at most 50 turns). */
async function waitFor(predicate: () => boolean, clock: FakeClock): Promise<void> {
  for (let turn = 0; turn < 50 && !predicate(); turn++) await clock.advance(0);
  expect(predicate()).toBe(true);
}

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

  it('refuses a CATTLE_RESYNC_DEFAULT that is not whole minutes at construction; an explicit default wins', () => {
    vi.stubEnv('CATTLE_RESYNC_DEFAULT', '2h');
    try {
      expect(() => setup()).toThrow(/CATTLE_RESYNC_DEFAULT must be a whole number of minutes/);
      expect(() => setup({ defaultResyncMs: 0 })).not.toThrow();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses bad options naming them', () => {
    expect(() => setup({ defaultResyncMs: -1 })).toThrow(/defaultResyncMs/);
    expect(() => setup({ kindResyncMs: [[configMapGvk, Number.NaN]] })).toThrow(RangeError);
    expect(() => setup({ kindNamespace: 5 as never })).toThrow(/kindNamespace/);
    expect(() => setup({ kindTweakList: [[configMapGvk, 'x' as never]] })).toThrow(/kindTweakList/);
    expect(() => setup({ kindNamespace: [[{ group: '', version: '', kind: 'X' }, 'a']] })).toThrow(
      /kindNamespace: version/,
    );
    expect(() => setup({ kindNamespace: [[{ apiVersion: 'a/b/c', kind: 'X' }, 'a']] })).toThrow(
      /kindNamespace: apiVersion/,
    );
    expect(() => setup({ gracefulShutdownTimeoutMs: -1 })).toThrow(/gracefulShutdownTimeoutMs/);
    expect(() => setup({ unservedRetry: { initialMs: 0 } })).toThrow(/unservedRetry\.initialMs/);
    expect(() => setup({ healthCallback: 1 as never })).toThrow(/healthCallback/);
    expect(() => setup({ watchDiscovery: 'yes' as never })).toThrow(TypeError);
    expect(() => setup({ watchDiscovery: 'yes' as never })).toThrow(/watchDiscovery/);
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

    it('reports a kind the server serves under another scope as unserved, naming both', async () => {
      const { caches, signal, cluster } = setup();
      caches.forResourceKind(configMapGvr, 'ConfigMap', false);
      await caches.start(signal);
      const [status] = caches.status();
      expect(status?.state).toBe('unserved');
      expect(isLassoError(status?.lastError, 'LASSO_NO_KIND_MATCH')).toBe(true);
      expect(String((status?.lastError as Error | undefined)?.message ?? '')).toMatch(
        /\/v1, Kind=ConfigMap.*namespaced: true/,
      );
      expect(cluster.touched()).toEqual([]);
    });

    it('starts an informer created while it runs at once, without another start', async () => {
      const { cluster, caches, signal } = setup();
      await caches.start(signal);
      const secrets = await caches.forKind(secretGvk);
      await secrets.whenSynced();
      expect(cluster.kind(secretGvk).lists).toHaveLength(1);
      expect(caches.status().map((status) => [status.key, status.state])).toEqual([
        ['/v1, Kind=Secret', 'running'],
      ]);
    });
  });

  describe('lifecycle', () => {
    it('stops on abort, settles stopped() drained, and runs again (relisting) with the same factory', async () => {
      const { cluster, caches } = setup();
      const configMaps = await caches.forKind(configMapGvk);
      expect(caches.isRunning()).toBe(false);
      await expect(caches.stopped()).resolves.toEqual({ drained: true, pending: [] });
      const first = new AbortController();
      await caches.start(first.signal);
      await configMaps.whenSynced();
      expect(caches.isRunning()).toBe(true);
      first.abort();
      await expect(caches.stopped()).resolves.toEqual({ drained: true, pending: [] });
      expect(caches.isRunning()).toBe(false);
      expect(configMaps.isRunning()).toBe(false);
      expect(caches.status()[0]?.state).toBe('stopped');
      cluster.kind(configMapGvk).store.create(object('v1', 'ConfigMap', 'c', 'team-c'));
      const second = new AbortController();
      await caches.start(second.signal);
      await configMaps.whenSynced();
      expect(cluster.kind(configMapGvk).lists).toHaveLength(2);
      expect(configMaps.getStore().listKeys().sort()).toEqual(['team-a/a', 'team-b/b', 'team-c/c']);
      second.abort();
      await caches.stopped();
    });

    it('bounds stopped() by gracefulShutdownTimeoutMs, naming the informers still ending', async () => {
      const {
        caches,
        clock,
        signal: _unused,
        logger,
      } = setup({ gracefulShutdownTimeoutMs: 5_000 });
      const configMaps = await caches.forKind(configMapGvk);
      const stuck = deferred();
      configMaps.addEventHandler({ onAdd: () => stuck.promise });
      const stop = new AbortController();
      await caches.start(stop.signal);
      await configMaps.whenSynced();
      await clock.advance(0);
      stop.abort();
      let result: unknown;
      void caches.stopped().then((settled) => {
        result = settled;
      });
      await clock.advance(4_999);
      expect(result).toBeUndefined();
      await clock.advance(1);
      expect(result).toEqual({ drained: false, pending: ['informer /v1, Kind=ConfigMap'] });
      expect(logger.entries.some((entry) => entry.level === 'error')).toBe(true);
      stuck.resolve();
    });

    it('close() stops, refuses a later start, and closes only a client factory it created', async () => {
      const { cluster, caches } = setup();
      await caches.forKind(configMapGvk);
      let closed = 0;
      const clients = cluster.clientFactory();
      clients.close = async () => {
        closed++;
      };
      const stop = new AbortController();
      await caches.start(stop.signal);
      await caches.close();
      expect(caches.isRunning()).toBe(false);
      await expect(caches.start(new AbortController().signal)).rejects.toSatisfy((error) =>
        isLassoError(error, 'LASSO_FACTORY_CLOSED'),
      );
      await caches[Symbol.asyncDispose]();
      // Not owned: the given client factory stays open.
      const other = createSharedCacheFactory(clients);
      await other.close();
      expect(closed).toBe(0);
    });
  });

  describe('kinds the server does not serve yet', () => {
    it('retries with backoff on the injected clock, logs once, and starts the informer once served', async () => {
      const { cluster, caches, clock, logger, signal } = setup({
        unservedRetry: { initialMs: 1_000, maxMs: 4_000 },
        watchDiscovery: false,
      });
      cluster.serve(widgetGvk, 'widgets', true, [object('example.com/v1', 'Widget', 'w', 'ns')]);
      const widgets = await caches.forKind(widgetGvk);
      cluster.unserve(widgetGvk);
      await caches.start(signal);
      expect(caches.status()[0]).toMatchObject({ state: 'unserved', internal: false });
      const lookups = cluster.lookups;
      await clock.advance(999);
      expect(cluster.lookups).toBe(lookups);
      await clock.advance(1);
      expect(cluster.lookups).toBe(lookups + 1);
      await clock.advance(2_000);
      expect(cluster.lookups).toBe(lookups + 2);
      await clock.advance(4_000);
      await clock.advance(4_000);
      expect(cluster.lookups).toBe(lookups + 4);
      const warnings = logger.entries.filter((entry) =>
        entry.message.includes('not served by discovery'),
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain('example.com/v1, Kind=Widget');
      cluster.serve(widgetGvk, 'widgets', true, [object('example.com/v1', 'Widget', 'w', 'ns')]);
      await clock.advance(4_000);
      await widgets.whenSynced();
      expect(widgets.getStore().listKeys()).toEqual(['ns/w']);
      expect(caches.status()[0]?.state).toBe('running');
    });

    it('with watchDiscovery: true, retries at once when a CRD changes, and stops the informer of a kind whose CRD is deleted', async () => {
      const { cluster, caches, clock, signal } = setup({
        unservedRetry: { initialMs: 60_000 },
        watchDiscovery: true,
      });
      const crds = cluster.serve(crdGvk, 'customresourcedefinitions', false);
      cluster.serve(apiServiceGvk, 'apiservices', false);
      cluster.serve(widgetGvk, 'widgets', true);
      const widgets = await caches.forKind(widgetGvk);
      cluster.unserve(widgetGvk);
      await caches.start(signal);
      expect(statusOf(caches, widgetGvk)?.state).toBe('unserved');
      await waitFor(() => caches.status().find((s) => s.internal)?.state === 'running', clock);
      // The CRD is installed: no waiting for the 60 s retry.
      cluster.serve(widgetGvk, 'widgets', true);
      const crd = crds.store.create(widgetCrd());
      await waitFor(() => widgets.isRunning(), clock);
      await widgets.whenSynced();
      expect(statusOf(caches, widgetGvk)?.state).toBe('running');
      // Deleted: the informer stops cleanly and the kind is unserved again.
      cluster.unserve(widgetGvk);
      crds.store.remove(crd);
      await waitFor(() => statusOf(caches, widgetGvk)?.state === 'unserved', clock);
      expect(widgets.isRunning()).toBe(false);
    });
    it('stops the informer of a kind whose watch answers 404 once discovery no longer serves it', async () => {
      const { cluster, caches, clock, logger, signal } = setup({ watchDiscovery: false });
      const widgetKind = cluster.serve(widgetGvk, 'widgets', true);
      const widgets = await caches.forKind(widgetGvk);
      await caches.start(signal);
      await widgets.whenSynced();
      // The watch is open before the kind goes away (synced means listed, not yet watching).
      const watch = await widgetKind.store.nextWatch();
      cluster.unserve(widgetGvk);
      watch.fail(new ApiError({ status: 404 }));
      await waitFor(() => statusOf(caches, widgetGvk)?.state === 'unserved', clock);
      expect(widgets.isRunning()).toBe(false);
      expect(
        logger.entries.filter((entry) => /served/.test(entry.message) && entry.level === 'warn'),
      ).toHaveLength(1);
      expect(logger.find('no longer served')).toHaveLength(1);
    });

    it('follows CRDs and APIServices only while a kind is unserved, and stops once every kind is served', async () => {
      const { cluster, caches, clock, signal } = setup({ unservedRetry: { initialMs: 60_000 } });
      const crds = cluster.serve(crdGvk, 'customresourcedefinitions', false);
      const apiServices = cluster.serve(apiServiceGvk, 'apiservices', false);
      cluster.serve(widgetGvk, 'widgets', true);
      await caches.forKind(configMapGvk);
      const widgets = await caches.forKind(widgetGvk);
      // Every kind served at start (a custom one included): nothing followed.
      await caches.start(signal);
      await widgets.whenSynced();
      await clock.advance(0);
      expect(crds.lists.length + crds.watches.length).toBe(0);
      expect(caches.status().filter((status) => status.internal)).toEqual([]);
      // The same run goes on: a kind becomes unserved within it.
      const gizmoGvk = { group: 'example.com', version: 'v1', kind: 'Gizmo' };
      const gizmos = caches.forResourceKind(
        { group: 'example.com', version: 'v1', resource: 'gizmos' },
        'Gizmo',
        true,
      );
      await waitFor(() => statusOf(caches, gizmoGvk)?.state === 'unserved', clock);
      await waitFor(
        () => caches.status().filter((s) => s.internal && s.state === 'running').length === 2,
        clock,
      );
      expect(apiServices.lists.length).toBeGreaterThan(0);
      // Its CRD is installed: started at once, and nothing is followed any more.
      cluster.serve(gizmoGvk, 'gizmos', true);
      crds.store.create({
        ...object('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gizmos.example.com'),
        spec: { group: 'example.com' },
      });
      await waitFor(() => gizmos.isRunning(), clock);
      await waitFor(
        () =>
          caches
            .status()
            .filter((s) => s.internal)
            .every((s) => s.state === 'stopped'),
        clock,
      );
      const lists = crds.lists.length;
      await clock.advance(120_000);
      expect(crds.lists.length).toBe(lists);
    });

    it('names the permission once when following CRDs is forbidden, stops asking, and retries from discovery', async () => {
      const { cluster, caches, clock, logger, signal } = setup({
        unservedRetry: { initialMs: 1_000, maxMs: 1_000 },
      });
      const crds = cluster.serve(crdGvk, 'customresourcedefinitions', false);
      const forbidden = new ApiError({ status: 403, reason: 'Forbidden' });
      crds.store.failNextList(forbidden, 100);
      crds.store.failNextWatch(forbidden, 100);
      const widgets = caches.forResourceKind(
        { group: 'example.com', version: 'v1', resource: 'widgets' },
        'Widget',
        true,
      );
      await caches.start(signal);
      const hints = () => logger.find('grant verbs list, watch on');
      await waitFor(() => hints().length === 1, clock);
      expect(hints()[0]).toMatchObject({
        level: 'warn',
        attributes: {
          resource: 'customresourcedefinitions.apiextensions.k8s.io',
          verbs: ['list', 'watch'],
        },
      });
      await waitFor(() => statusOf(caches, crdGvk)?.state === 'stopped', clock);
      const asked = crds.lists.length + crds.watches.length;
      // Unfollowed, the kind is still retried from discovery every second, and started once served.
      const lookups = cluster.lookups;
      await clock.advance(3_000);
      expect(cluster.lookups).toBeGreaterThanOrEqual(lookups + 3);
      cluster.serve(widgetGvk, 'widgets', true);
      await clock.advance(1_000);
      await waitFor(() => widgets.isRunning(), clock);
      expect(crds.lists.length + crds.watches.length).toBe(asked);
      expect(hints()).toHaveLength(1);
    });

    it('warns about a kind that stays unserved again after 1 min, then every doubling wait up to 30 min', async () => {
      const { caches, clock, logger, signal } = setup({ watchDiscovery: false });
      caches.forResourceKind(
        { group: 'example.com', version: 'v1', resource: 'widgetz' },
        'Widget',
        true,
      );
      await caches.start(signal);
      const warnings = () =>
        logger.find('not served by discovery').map((entry) => entry.attributes);
      expect(warnings()).toHaveLength(1);
      // Retries every 1 s doubling to 60 s; warnings at 0, then about 1, 3, 7, 15 and 31 min, then every 30 min.
      const at: number[] = [];
      for (let minute = 1; minute <= 70; minute++) {
        const before = warnings().length;
        await clock.advance(60_000);
        if (warnings().length > before) at.push(minute);
      }
      expect(at).toEqual([2, 4, 8, 16, 32, 62]);
      expect(warnings()[1]).toMatchObject({ unservedForMs: expect.any(Number) });
      expect(statusOf(caches, widgetGvk)?.state).toBe('unserved');
    });
  });

  describe('startGVK()', () => {
    it('starts the factory when it does not run, and nothing for a kind never asked for', async () => {
      const { cluster, caches, signal } = setup();
      await caches.forKind(configMapGvk);
      await caches.forKind(secretGvk);
      await caches.startGVK(signal, namespaceGvk);
      expect(caches.isRunning()).toBe(false);
      await caches.startGVK(signal, { apiVersion: 'v1', kind: 'Secret' });
      expect(caches.isRunning()).toBe(true);
      expect(cluster.touched()).toEqual(['/v1, Kind=ConfigMap', '/v1, Kind=Secret']);
    });

    it('waits for a kind that is not served until it is, or rejects with the signal reason', async () => {
      const { cluster, caches, clock, signal } = setup({ watchDiscovery: false });
      await caches.forKind(secretGvk);
      cluster.unserve(secretGvk);
      let started = false;
      const starting = caches.startGVK(signal, secretGvk).then(() => {
        started = true;
      });
      await clock.advance(0);
      expect(started).toBe(false);
      cluster.serve(secretGvk, 'secrets', true);
      await clock.advance(1_000);
      await starting;
      expect(started).toBe(true);
      cluster.unserve(namespaceGvk);
      await caches.forResourceKind(
        { group: '', version: 'v1', resource: 'namespaces' },
        'Namespace',
        false,
      );
      const giveUp = new AbortController();
      const waiting = caches.startGVK(giveUp.signal, namespaceGvk);
      giveUp.abort(new Error('gave up'));
      await expect(waiting).rejects.toThrow('gave up');
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
    it('bounds the wait for the API server by startTimeoutMs, naming the server and the cause', async () => {
      const { cluster, clock, caches, logger, signal } = setup({ startTimeoutMs: 10_000 });
      await caches.forKind(configMapGvk);
      cluster.healthy = false;
      const starting = caches.start(signal).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      await clock.advance(0);
      // Loud at once, at the default level: the server and the cause.
      expect(logger.find('API server is not reachable, retrying')[0]).toMatchObject({
        level: 'warn',
        attributes: { server: 'https://fake.invalid', cause: 'connection refused' },
      });
      await clock.advance(9_999);
      expect(caches.isRunning()).toBe(false);
      await clock.advance(1);
      const error = await starting;
      expect(error).toBeInstanceOf(ApiServerUnavailableError);
      expect(error).toMatchObject({
        code: 'LASSO_API_SERVER_UNAVAILABLE',
        reason: 'deadline',
        lastCause: 'connection refused',
      });
      expect((error as Error).message).toMatch(
        /^gave up waiting for the API server at https:\/\/fake\.invalid to answer \/version: startTimeoutMs passed \(10000 ms\); last failure: connection refused/,
      );
      // Nothing left running: no ping loop, no deadline timer.
      expect(clock.pendingTimers()).toBe(0);
      const pings = cluster.pings;
      await clock.advance(60_000);
      expect(cluster.pings).toBe(pings);
      expect(cluster.touched()).toEqual([]);
      // A later start waits again and runs once the server answers.
      cluster.healthy = true;
      await caches.start(signal);
      expect(caches.isRunning()).toBe(true);
    });

    it('refuses a bad startTimeoutMs', () => {
      expect(() => setup({ startTimeoutMs: -1 })).toThrow(RangeError);
      expect(() => setup({ startTimeoutMs: 'x' as never })).toThrow(/startTimeoutMs/);
    });

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
