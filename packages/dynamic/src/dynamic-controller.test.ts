// Unit tests of the dynamic controller over @lasso/factory's fake cluster and a FakeClock: its handlers have the
// shared handler's semantics (ErrIgnore per handler, aggregated failures, retryAfter, metrics, the
// recent-deletion guard), and a kind that never syncs is dropped after syncTimeoutMs with an error naming it.
import type { ApiResourceInfo, DiscoveryResult, KubeObject } from '@lasso/client';
import { ErrIgnore, retryAfter } from '@lasso/controller';
import { isLassoError } from '@lasso/core';
import {
  createTestLogger,
  createTestMetricsProvider,
  FakeClock,
  type TestLogger,
  type TestMetricsProvider,
} from '@lasso/core/testing';
import { createSharedCacheFactory, createSharedControllerFactory } from '@lasso/factory';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCluster, object } from '../../factory/src/__fixtures__/fake-cluster.ts';
import { createDynamicController } from './dynamic-controller.ts';
import type { DynamicController, DynamicControllerOptions } from './dynamic-controller-api.ts';

const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const crdGvk = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
} as const;
const configMaps: ApiResourceInfo = {
  group: '',
  version: 'v1',
  name: 'configmaps',
  singularName: 'configmap',
  kind: 'ConfigMap',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'update'],
  shortNames: [],
};
// lasso's bound of a new kind's sync, the default of syncTimeoutMs.
const defaultSyncTimeoutMs = 15 * 60_000;
const handlerExecutions = 'lasso_controller_total_handler_execution';

interface Setup {
  readonly cluster: FakeCluster;
  readonly clock: FakeClock;
  readonly logger: TestLogger;
  readonly metrics: TestMetricsProvider;
  readonly dynamic: DynamicController;
  readonly signal: AbortSignal;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(objects: KubeObject[], options: DynamicControllerOptions = {}): Setup {
  const cluster = new FakeCluster();
  cluster.serve(configMapGvk, 'configmaps', true, objects);
  cluster.serve(crdGvk, 'customresourcedefinitions', false);
  const clock = new FakeClock();
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const caches = createSharedCacheFactory(cluster.clientFactory(), { clock, logger, metrics });
  const factory = createSharedControllerFactory(caches, { clock, logger, metrics });
  const discovery = {
    invalidate() {},
    async discover(): Promise<DiscoveryResult> {
      return { groups: [], resources: [configMaps], failed: new Map() };
    },
  };
  const dynamic = createDynamicController(factory, {
    discovery,
    clock,
    logger,
    metrics,
    ...options,
  });
  const stop = new AbortController();
  cleanups.push(async () => {
    stop.abort();
    await dynamic.close();
    await factory.stopped();
    await factory.close();
  });
  return { cluster, clock, logger, metrics, dynamic, signal: stop.signal };
}

const isConfigMap = (gvk: { group: string; kind: string }): boolean =>
  gvk.group === '' && gvk.kind === 'ConfigMap';

/** A handler that counts its calls and runs `body`. */
function counting(body: () => void = () => {}) {
  const counter = {
    calls: 0,
    handler: () => {
      counter.calls++;
      body();
    },
  };
  return counter;
}

describe('dynamic handlers have the shared handler semantics', () => {
  it("retries a key when one handler fails, even though another threw ErrIgnore (the ignore is that handler's own)", async () => {
    const { clock, dynamic, signal, metrics } = setup([
      object('v1', 'ConfigMap', 'settings', 'default'),
    ]);
    const ignores = counting(() => {
      throw ErrIgnore;
    });
    const fails = counting(() => {
      throw new Error('boom');
    });
    dynamic.onChange(signal, 'ignores', isConfigMap, ignores.handler);
    dynamic.onChange(signal, 'fails', isConfigMap, fails.handler);
    await dynamic.start(signal);
    // The controller's default rate limiter: 5 ms doubling per failure; 10 s leaves room for about 11 retries.
    await clock.advance(10_000);
    expect(fails.calls).toBeGreaterThanOrEqual(5);
    expect(ignores.calls).toBe(fails.calls);
    const labels = { controller_name: 'dynamic.Controller' };
    expect(
      metrics.value(handlerExecutions, { ...labels, handler_name: 'fails', has_error: 'true' }),
    ).toBe(fails.calls);
    expect(
      metrics.value(handlerExecutions, { ...labels, handler_name: 'ignores', has_error: 'false' }),
    ).toBe(ignores.calls);
  });

  it('forgets a key whose only failure is an ErrIgnore', async () => {
    const { clock, dynamic, signal } = setup([object('v1', 'ConfigMap', 'settings', 'default')]);
    const ignores = counting(() => {
      throw ErrIgnore;
    });
    const passes = counting();
    dynamic.onChange(signal, 'ignores', isConfigMap, ignores.handler);
    dynamic.onChange(signal, 'passes', isConfigMap, passes.handler);
    await dynamic.start(signal);
    await clock.advance(10_000);
    expect([ignores.calls, passes.calls]).toEqual([1, 1]);
  });

  it("honours one handler's retryAfter while the others succeed", async () => {
    const { clock, dynamic, signal } = setup([object('v1', 'ConfigMap', 'settings', 'default')]);
    const waits = counting(() => {
      throw retryAfter(30_000, 'not yet');
    });
    const passes = counting();
    dynamic.onChange(signal, 'waits', isConfigMap, waits.handler);
    dynamic.onChange(signal, 'passes', isConfigMap, passes.handler);
    await dynamic.start(signal);
    await clock.advance(29_000);
    expect(waits.calls).toBe(1);
    await clock.advance(1_000);
    expect(waits.calls).toBe(2);
    expect(passes.calls).toBe(2);
  });

  it('skips a stale copy of an object its handlers finalized, and retries it 10 s later', async () => {
    const finalized = object('v1', 'ConfigMap', 'settings', 'default', {});
    finalized.metadata = {
      ...finalized.metadata,
      deletionTimestamp: '2024-01-01T00:00:00Z',
      finalizers: [],
    };
    const { cluster, clock, dynamic, signal } = setup([finalized]);
    const seen = counting();
    dynamic.onChange(signal, 'finalizer', isConfigMap, seen.handler);
    await dynamic.start(signal);
    await clock.advance(0);
    expect(seen.calls).toBe(1);
    // A later copy with the same uid, still being deleted: the handlers finalized it already.
    cluster.kind(configMapGvk).store.modify({
      ...finalized,
      metadata: { ...finalized.metadata, labels: { stale: 'yes' } },
    });
    await clock.advance(9_000);
    expect(seen.calls).toBe(1);
  });
});

describe('a kind that never syncs', () => {
  it('is dropped after syncTimeoutMs (15 min by default): reads reject naming the kind, one warning, retried at the next refresh', async () => {
    const { cluster, clock, dynamic, signal, logger } = setup([
      object('v1', 'ConfigMap', 'settings', 'default'),
    ]);
    const release = cluster.kind(configMapGvk).holdLists();
    await dynamic.start(signal);
    let settled = false;
    const read = dynamic.get(configMapGvk, 'default', 'settings').then(
      () => undefined,
      (error: unknown) => error,
    );
    void read.finally(() => {
      settled = true;
    });
    await clock.advance(defaultSyncTimeoutMs - 1_000);
    expect(settled).toBe(false);
    await clock.advance(1_000);
    expect(settled).toBe(true);
    const error = await read;
    expect(isLassoError(error, 'LASSO_DYNAMIC_SYNC_FAILED')).toBe(true);
    expect((error as Error).message).toContain('failed to sync cache for /v1, Kind=ConfigMap');
    expect(
      logger.find('failed to sync cache for /v1, Kind=ConfigMap').map((entry) => entry.level),
    ).toEqual(['warn']);
    expect(dynamic.watched()).toEqual([]);
    // Dropped: its list stopped, and the next read fails at once.
    const lists = cluster.kind(configMapGvk).lists.length;
    await expect(dynamic.list(configMapGvk)).rejects.toMatchObject({
      code: 'LASSO_DYNAMIC_SYNC_FAILED',
    });
    await clock.advance(59_000);
    expect(cluster.kind(configMapGvk).lists.length).toBe(lists);

    // A CRD event: the refresh 500 ms later watches the kind again; it syncs now.
    release();
    cluster
      .kind(crdGvk)
      .store.create(
        object('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com'),
      );
    await clock.advance(500);
    const names = dynamic.list(configMapGvk).then((list) => list.map((cm) => cm.metadata?.name));
    await clock.advance(1_000);
    expect(await names).toEqual(['settings']);
    expect(logger.find('watching again the kinds whose cache did not sync')).toHaveLength(1);
  });

  it('is watched again 1 minute after the drop when no discovery refresh came first', async () => {
    const { cluster, clock, dynamic, signal, logger } = setup([], { syncTimeoutMs: 10_000 });
    cluster.kind(configMapGvk).holdLists();
    dynamic.onChange(signal, 'cms', isConfigMap, () => {});
    await dynamic.start(signal);
    expect(dynamic.watched()).toHaveLength(1);
    await clock.advance(10_000);
    expect(dynamic.watched()).toEqual([]);
    expect(logger.find('failed to sync cache for /v1, Kind=ConfigMap')).toHaveLength(1);
    const lists = cluster.kind(configMapGvk).lists.length;
    await clock.advance(59_999);
    expect(dynamic.watched()).toEqual([]);
    // The refresh is asked for at 60 s and runs after the 500 ms debounce.
    await clock.advance(501);
    expect(dynamic.watched()).toHaveLength(1);
    expect(logger.find('watching again the kinds whose cache did not sync')).toHaveLength(1);
    await clock.advance(1_000);
    expect(cluster.kind(configMapGvk).lists.length).toBeGreaterThan(lists);
  });

  it('keeps waiting with syncTimeoutMs: Infinity', async () => {
    const { cluster, clock, dynamic, signal } = setup([], {
      syncTimeoutMs: Number.POSITIVE_INFINITY,
    });
    cluster.kind(configMapGvk).holdLists();
    await dynamic.start(signal);
    const waiting = new AbortController();
    const read = dynamic
      .list(configMapGvk, undefined, { signal: waiting.signal })
      .catch((error: unknown) => error);
    await clock.advance(2 * defaultSyncTimeoutMs);
    expect(dynamic.watched()).toHaveLength(1);
    waiting.abort(new Error('gave up'));
    expect(await read).toMatchObject({ message: 'gave up' });
  });
});
