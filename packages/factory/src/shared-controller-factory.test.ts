// Unit tests of createSharedControllerFactory over a fake cluster: lasso's guarantees (deferred kinds, idempotent
// start, no duplicates, no deadlock during sync, missing kinds), workers, rate limiters and metric names.
import type { KubeObject, KubeObjectLike } from '@lasso/client';
import { createHandlerTransaction, type SharedController } from '@lasso/controller';
import { isLassoError } from '@lasso/core';
import {
  createTestLogger,
  createTestMetricsProvider,
  FakeClock,
  type TestLogger,
  type TestMetricsProvider,
} from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { deferred, FakeCluster, object } from './__fixtures__/fake-cluster.ts';
import { ApiServerUnavailableError } from './api-server-failure.ts';
import type {
  SharedControllerFactory,
  SharedControllerFactoryOptions,
} from './controller-factory-api.ts';
import { kindFor } from './kind.ts';
import { createSharedCacheFactory } from './shared-cache-factory.ts';
import type { SharedCacheFactoryOptions } from './shared-cache-factory-api.ts';
import { createSharedControllerFactory } from './shared-controller-factory.ts';

const deploymentGvk = { group: 'apps', version: 'v1', kind: 'Deployment' } as const;
const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const secretGvk = { group: '', version: 'v1', kind: 'Secret' } as const;
const widgetGvk = { group: 'example.com', version: 'v1', kind: 'Widget' } as const;
const widgetGvr = { group: 'example.com', version: 'v1', resource: 'widgets' } as const;

interface Setup {
  cluster: FakeCluster;
  clock: FakeClock;
  logger: TestLogger;
  metrics: TestMetricsProvider;
  factory: SharedControllerFactory;
  signal: AbortSignal;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(
  options: SharedControllerFactoryOptions = {},
  cacheOptions: SharedCacheFactoryOptions = {},
): Setup {
  const cluster = new FakeCluster();
  cluster.serve(deploymentGvk, 'deployments', true, [
    object('apps/v1', 'Deployment', 'web', 'default'),
  ]);
  cluster.serve(configMapGvk, 'configmaps', true, [
    object('v1', 'ConfigMap', 'settings', 'default'),
  ]);
  cluster.serve(secretGvk, 'secrets', true, [object('v1', 'Secret', 'token', 'default')]);
  const clock = new FakeClock();
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const caches = createSharedCacheFactory(cluster.clientFactory(), {
    clock,
    logger,
    metrics,
    ...cacheOptions,
  });
  const factory = createSharedControllerFactory(caches, { clock, logger, metrics, ...options });
  const stop = new AbortController();
  const controllers: Array<SharedController<KubeObject>> = [];
  const track = factory.forResourceKind.bind(factory);
  // Every controller the test touches is awaited at shutdown, so no worker outlives its test.
  factory.forResourceKind = ((...args: Parameters<typeof track>) => {
    const controller = track(...args);
    controllers.push(controller as SharedController<KubeObject>);
    return controller;
  }) as typeof factory.forResourceKind;
  cleanups.push(async () => {
    stop.abort();
    await Promise.all(controllers.map((controller) => controller.stopped()));
  });
  return { cluster, clock, logger, metrics, factory, signal: stop.signal };
}

/** A handler that records each call and lets the test await the n-th one. */
function recorder<T extends KubeObjectLike = KubeObjectLike>() {
  const calls: Array<{ key: string; object: T | undefined }> = [];
  const waiters: Array<{ count: number; resolve(): void }> = [];
  return {
    calls,
    handler: (key: string, object: T | undefined) => {
      calls.push({ key, object });
      for (const waiter of waiters.filter((w) => calls.length >= w.count)) waiter.resolve();
      return undefined;
    },
    /** Resolves once the handler has been called `count` times in all. */
    called(count: number): Promise<void> {
      if (calls.length >= count) return Promise.resolve();
      const waiter = deferred();
      waiters.push({ count, resolve: () => waiter.resolve() });
      return waiter.promise;
    },
  };
}

describe('createSharedControllerFactory', () => {
  describe('deferred kinds', () => {
    it('never lists or watches a kind nobody registered on, enqueued into or asked the informer of', async () => {
      const { cluster, factory, signal } = setup();
      const deployments = await factory.forKind(deploymentGvk);
      const configMaps = await factory.forKind(configMapGvk);
      await factory.forKind(secretGvk);
      const seen = recorder();
      deployments.registerHandler(signal, 'seen', seen.handler);
      configMaps.client(); // a client is not a use: no informer
      await factory.start(signal, 1);
      await seen.called(1);
      expect(cluster.touched()).toEqual(['apps/v1, Kind=Deployment']);
    });

    it('lists and watches a kind once its informer is asked for or a key is enqueued', async () => {
      const { cluster, factory, signal } = setup();
      (await factory.forKind(configMapGvk)).informer();
      (await factory.forKind(secretGvk)).enqueue('default', 'token');
      await factory.start(signal);
      expect(cluster.touched()).toEqual(['/v1, Kind=ConfigMap', '/v1, Kind=Secret']);
    });

    it('builds nothing for a registration whose signal (or transaction signal) already aborted', async () => {
      const { cluster, factory, signal } = setup();
      const deployments = await factory.forKind(deploymentGvk);
      const never = recorder();
      deployments.registerHandler(AbortSignal.abort(), 'never', never.handler);
      const transaction = createHandlerTransaction(AbortSignal.abort());
      deployments.registerHandler(transaction, 'never-either', never.handler);
      transaction.commit();
      await factory.start(signal);
      expect(deployments.startError()).toBeUndefined();
      expect(cluster.touched()).toEqual([]);
      expect(never.calls).toEqual([]);
      // Bad arguments are still refused, aborted or not.
      expect(() => deployments.registerHandler(AbortSignal.abort(), '', never.handler)).toThrow(
        /name/,
      );
    });
  });

  describe('start()', () => {
    it('is idempotent and starts the controllers created since the previous start', async () => {
      const { cluster, factory, signal } = setup();
      const deployments = await factory.forKind(deploymentGvk);
      const first = recorder();
      deployments.registerHandler(signal, 'first', first.handler);
      await factory.start(signal, 1);
      await first.called(1);
      await factory.start(signal, 1);
      const configMaps = await factory.forKind(configMapGvk);
      const later = recorder();
      configMaps.registerHandler(signal, 'later', later.handler);
      expect(configMaps.isRunning()).toBe(false);
      await factory.start(signal, 1);
      await later.called(1);
      expect(later.calls.map((call) => call.key)).toEqual(['default/settings']);
      expect(configMaps.isRunning()).toBe(true);
      // Each kind was listed once, however many starts.
      expect(cluster.kind(deploymentGvk).lists).toHaveLength(1);
      expect(cluster.kind(configMapGvk).lists).toHaveLength(1);
      expect(first.calls).toHaveLength(1);
    });

    it('lets a handler call forKind while another start waits for caches to sync (lasso 3c6118a)', async () => {
      const { cluster, factory, signal } = setup();
      const deployments = await factory.forKind(deploymentGvk);
      const secretsHandled = recorder();
      const createdDuringSync = deferred();
      let calls = 0;
      deployments.registerHandler(signal, 'grows', async () => {
        calls++;
        if (calls < 2) return;
        const secrets = await factory.forKind(secretGvk);
        secrets.registerHandler(signal, 'secrets', secretsHandled.handler);
        createdDuringSync.resolve();
      });
      await factory.start(signal, 1);
      const configMaps = await factory.forKind(configMapGvk);
      configMaps.registerHandler(signal, 'configmaps', () => undefined);
      const release = cluster.kind(configMapGvk).holdLists();
      let secondStarted = false;
      const second = factory.start(signal, 1).then(() => {
        secondStarted = true;
      });
      deployments.enqueueKey('default/web');
      await createdDuringSync.promise;
      expect(secondStarted).toBe(false);
      release();
      await second;
      await factory.start(signal, 1);
      await secretsHandled.called(1);
      expect(secretsHandled.calls.map((call) => call.key)).toEqual(['default/token']);
    });

    it('starts a kind whose resource is served later by itself, while the other kinds run', async () => {
      const { cluster, clock, factory, signal } = setup({}, { watchDiscovery: false });
      await expect(factory.forKind(widgetGvk)).rejects.toSatisfy((error) =>
        isLassoError(error, 'LASSO_NO_KIND_MATCH'),
      );
      // A token that knows its resource needs no discovery: a handler can wait for the CRD.
      const widgets = await factory.forKind(
        kindFor('example.com/v1', 'Widget', { resource: 'widgets', namespaced: true }),
      );
      expect(widgets).toBe(factory.forResourceKind(widgetGvr, 'Widget', true));
      const widgetCalls = recorder();
      widgets.registerHandler(signal, 'widgets', widgetCalls.handler);
      const deployments = recorder();
      (await factory.forKind(deploymentGvk)).registerHandler(
        signal,
        'deployments',
        deployments.handler,
      );
      await factory.start(signal, 1);
      await deployments.called(1);
      expect(cluster.touched()).toEqual(['apps/v1, Kind=Deployment']);
      expect(
        factory.status().map((status) => [status.gvk.kind, status.state, status.workers]),
      ).toEqual([
        ['Widget', 'unserved', false],
        ['Deployment', 'running', true],
      ]);

      // Installed later: the retry starts it, without another start.
      cluster.serve(widgetGvk, 'widgets', true, [
        object('example.com/v1', 'Widget', 'w', 'default'),
      ]);
      await clock.advance(1_000);
      await widgetCalls.called(1);
      expect(widgetCalls.calls.map((call) => call.key)).toEqual(['default/w']);
      expect(widgets.isRunning()).toBe(true);
    });

    it('starts a controller first used while it runs (handler or enqueue) without another start', async () => {
      const { factory, signal } = setup();
      await factory.start(signal, 1);
      const configMaps = await factory.forKind(configMapGvk);
      const late = recorder();
      configMaps.registerHandler(signal, 'late', late.handler);
      await late.called(1);
      expect(late.calls.map((call) => call.key)).toEqual(['default/settings']);
      const secrets = await factory.forKind(secretGvk);
      secrets.enqueue('default', 'token');
      const seen = recorder();
      secrets.registerHandler(signal, 'seen', seen.handler);
      await seen.called(1);
      expect(secrets.isRunning()).toBe(true);
    });

    it('rejects with the signal reason when it aborts, and a later start still works', async () => {
      const { factory, signal } = setup();
      const seen = recorder();
      (await factory.forKind(deploymentGvk)).registerHandler(signal, 'seen', seen.handler);
      const reason = new Error('stop');
      await expect(factory.start(AbortSignal.abort(reason), 1)).rejects.toBe(reason);
      await factory.start(signal, 1);
      await seen.called(1);
    });

    it('refuses a bad signal or worker count', async () => {
      const { factory, signal } = setup();
      await expect(factory.start(undefined as unknown as AbortSignal)).rejects.toThrow(TypeError);
      await expect(factory.start(signal, -1)).rejects.toThrow(/workers/);
      await expect(factory.start(signal, 1.5)).rejects.toThrow(RangeError);
    });
  });

  describe('forKind()', () => {
    it('never creates two controllers, clients or informers under many concurrent calls', async () => {
      const { cluster, factory, signal } = setup();
      const gate = deferred();
      cluster.lookupGate = gate.promise;
      const pending = Array.from({ length: 100 }, (_, index) =>
        index % 3 === 0
          ? factory.forKind(deploymentGvk)
          : index % 3 === 1
            ? factory.forResource({ group: 'apps', version: 'v1', resource: 'deployments' }, true)
            : factory.forObject({ apiVersion: 'apps/v1', kind: 'Deployment' }),
      );
      gate.resolve();
      const controllers = await Promise.all(pending);
      cluster.lookupGate = undefined;
      expect(new Set(controllers).size).toBe(1);
      expect(
        factory.forResourceKind(
          { group: 'apps', version: 'v1', resource: 'deployments' },
          'Deployment',
          true,
        ),
      ).toBe(controllers[0]);
      expect(cluster.clientsCreated).toBe(1);
      const informers = new Set(controllers.map((controller) => controller.informer()));
      expect(informers.size).toBe(1);
      await factory.start(signal, 1);
      expect(cluster.kind(deploymentGvk).lists).toHaveLength(1);
      expect(cluster.kind(deploymentGvk).watches).toHaveLength(1);
    });

    it('refuses a second kind or scope for a resource it already serves', () => {
      const { factory } = setup();
      const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };
      factory.forResourceKind(gvr, 'Deployment', true);
      expect(() => factory.forResourceKind(gvr, 'Other', true)).toThrow(/Deployment/);
      expect(() => factory.forResourceKind(gvr, 'Deployment', false)).toThrow(TypeError);
    });

    it('refuses a malformed gvk or object naming the field', async () => {
      const { factory } = setup();
      await expect(
        factory.forKind({ group: 'apps', version: '', kind: 'Deployment' }),
      ).rejects.toThrow(/forKind: version/);
      await expect(factory.forKind({ apiVersion: '/v1', kind: 'Deployment' })).rejects.toThrow(
        /forKind: apiVersion/,
      );
      await expect(factory.forObject({ kind: 'Deployment' })).rejects.toThrow(/apiVersion/);
      expect(() =>
        factory.forResourceKind({ group: 'apps', version: 'v1', resource: 'x' }, '', true),
      ).toThrow(/kind/);
    });
  });

  describe('workers', () => {
    // Runs 8 keys through handlers that block until `expected` of them run at once, then lets all finish; returns
    // the most that ever ran at once (all 8 would, with unbounded workers).
    async function maxConcurrency(
      options: SharedControllerFactoryOptions,
      startWorkers: number,
      expected: number,
    ): Promise<number> {
      const { cluster, factory, signal } = setup(options);
      for (let index = 0; index < 7; index++) {
        cluster
          .kind(deploymentGvk)
          .store.create(object('apps/v1', 'Deployment', `d${index}`, 'default'));
      }
      const deployments = await factory.forKind(deploymentGvk);
      let active = 0;
      let max = 0;
      let done = 0;
      const saturated = deferred();
      const release = deferred();
      const allDone = deferred();
      deployments.registerHandler(signal, 'count', async () => {
        active++;
        max = Math.max(max, active);
        if (active === expected) saturated.resolve();
        await release.promise;
        active--;
        if (++done === 8) allDone.resolve();
      });
      await factory.start(signal, startWorkers);
      await saturated.promise;
      release.resolve();
      await allDone.promise;
      return max;
    }

    it('runs kindWorkers handlers at once for that kind, whatever start asks', async () => {
      expect(await maxConcurrency({ kindWorkers: [[deploymentGvk, 2]] }, 6, 2)).toBe(2);
    });

    it('runs the start argument, else defaultWorkers, else 5', async () => {
      expect(await maxConcurrency({}, 3, 3)).toBe(3);
      expect(await maxConcurrency({ defaultWorkers: 4 }, 0, 4)).toBe(4);
      expect(await maxConcurrency({}, 0, 5)).toBe(5);
    });

    it('refuses bad worker options naming them', () => {
      expect(() => setup({ defaultWorkers: 0 })).toThrow(/defaultWorkers/);
      expect(() => setup({ kindWorkers: [[deploymentGvk, 0]] })).toThrow(/kindWorkers/);
      expect(() => setup({ kindRateLimiter: [[deploymentGvk, {} as never]] })).toThrow(
        /kindRateLimiter/,
      );
      expect(() => setup({ defaultRateLimiter: {} as never })).toThrow(/defaultRateLimiter/);
    });
  });

  describe('rate limiters', () => {
    it('gives each controller its own default limiter and a kind its own', async () => {
      const made: string[] = [];
      const limiter = (name: string) => ({
        when: () => {
          made.push(name);
          return 0;
        },
        forget: () => {},
        numRequeues: () => 0,
      });
      const { factory, signal } = setup({
        defaultRateLimiter: () => limiter('default'),
        kindRateLimiter: [[configMapGvk, limiter('configmaps')]],
      });
      const deployments = await factory.forKind(deploymentGvk);
      const configMaps = await factory.forKind(configMapGvk);
      const seen = recorder();
      deployments.registerHandler(signal, 'seen', seen.handler);
      configMaps.registerHandler(signal, 'seen', seen.handler);
      await factory.start(signal, 1);
      await seen.called(2);
      deployments.enqueue('default', 'web');
      configMaps.enqueue('default', 'settings');
      await seen.called(4);
      expect(made.sort()).toEqual(['configmaps', 'default']);
    });
  });

  describe('metrics', () => {
    it('labels handler metrics with the GVR and the workqueue with the GVK, as lasso', async () => {
      const { factory, metrics, signal } = setup();
      const seen = recorder();
      (await factory.forKind(deploymentGvk)).registerHandler(signal, 'seen', seen.handler);
      await factory.start(signal, 1);
      await seen.called(1);
      expect(
        metrics.value('lasso_controller_total_handler_execution', {
          controller_name: 'apps/v1, Resource=deployments',
          handler_name: 'seen',
          has_error: 'false',
        }),
      ).toBe(1);
      expect(metrics.value('workqueue_adds_total', { name: 'apps/v1, Kind=Deployment' })).toBe(1);
    });
  });

  describe('health', () => {
    it('waits on the first start until the API answers, logging each failed ping', async () => {
      const { cluster, clock, factory, logger, signal } = setup();
      cluster.healthy = false;
      const seen = recorder();
      (await factory.forKind(deploymentGvk)).registerHandler(signal, 'seen', seen.handler);
      let started = false;
      const starting = factory.start(signal, 1).then(() => {
        started = true;
      });
      await clock.advance(0);
      expect(cluster.pings).toBe(1);
      // The gate retries 800 ms later, plus up to 25 % jitter.
      await clock.advance(1_000);
      expect(cluster.pings).toBe(2);
      expect(started).toBe(false);
      expect(cluster.touched()).toEqual([]);
      cluster.healthy = true;
      // Then 1.6 s plus jitter.
      await clock.advance(2_000);
      await starting;
      await seen.called(1);
      expect(cluster.pings).toBe(3);
      // Loud at the outage's start (server and cause named), not once per ping.
      expect(logger.find('API server is not reachable, retrying')).toHaveLength(1);
      expect(logger.find('API server is not reachable, retrying')[0]).toMatchObject({
        level: 'warn',
        attributes: { server: 'https://fake.invalid', cause: 'connection refused' },
      });
      // Later starts do not ping again.
      await factory.start(signal, 1);
      expect(cluster.pings).toBe(3);
    });

    it('stops pinging when the start that waits is aborted', async () => {
      const { cluster, clock, factory } = setup();
      cluster.healthy = false;
      const stop = new AbortController();
      const starting = factory.start(stop.signal, 1);
      await clock.advance(0);
      const reason = new Error('shutdown');
      stop.abort(reason);
      // A clean rejection naming the server and the cause, the abort reason as its cause.
      const error = await starting.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ApiServerUnavailableError);
      expect(error).toMatchObject({
        code: 'LASSO_API_SERVER_UNAVAILABLE',
        reason: 'aborted',
        lastCause: 'connection refused',
        cause: reason,
      });
      expect((error as Error).message).toMatch(
        /API server at https:\/\/fake\.invalid .*aborted.*connection refused/,
      );
      expect(clock.pendingTimers()).toBe(0);
      await clock.advance(60_000);
      expect(cluster.pings).toBe(1);
    });
  });
  describe('lifecycle', () => {
    it('runs again with the same factory after a stop, relisting', async () => {
      const { cluster, factory } = setup();
      const deployments = await factory.forKind(deploymentGvk);
      const seen = recorder();
      const handlerStop = new AbortController();
      deployments.registerHandler(handlerStop.signal, 'seen', seen.handler);
      const first = new AbortController();
      await factory.start(first.signal, 1);
      await seen.called(1);
      first.abort();
      await expect(factory.stopped()).resolves.toEqual({ drained: true, pending: [] });
      expect(factory.isRunning()).toBe(false);
      expect(deployments.isRunning()).toBe(false);
      cluster.kind(deploymentGvk).store.create(object('apps/v1', 'Deployment', 'api', 'default'));
      const second = new AbortController();
      await factory.start(second.signal, 1);
      await seen.called(2);
      expect(seen.calls.map((call) => call.key)).toContain('default/api');
      expect(cluster.kind(deploymentGvk).lists).toHaveLength(2);
      second.abort();
      await factory.stopped();
      handlerStop.abort();
      await factory.close();
      await expect(factory.start(new AbortController().signal)).rejects.toSatisfy((error) =>
        isLassoError(error, 'LASSO_FACTORY_CLOSED'),
      );
    });

    it('settles stopped() after gracefulShutdownTimeoutMs, naming and logging each reconcile still running by kind and key', async () => {
      const { clock, factory, logger } = setup({ gracefulShutdownTimeoutMs: 2_000 });
      const deployments = await factory.forKind(deploymentGvk);
      const stuck = deferred();
      const entered = deferred();
      const stop = new AbortController();
      let aborted = false;
      deployments.registerHandler(stop.signal, 'stuck', async (_key, _object, context) => {
        context.signal.addEventListener('abort', () => {
          aborted = true;
        });
        entered.resolve();
        await stuck.promise;
        return undefined;
      });
      await factory.start(stop.signal, 1);
      await entered.promise;
      stop.abort();
      expect(aborted).toBe(true);
      let result: unknown;
      void factory.stopped().then((settled) => {
        result = settled;
      });
      await clock.advance(1_999);
      expect(result).toBeUndefined();
      await clock.advance(1);
      await clock.advance(0);
      expect(result).toEqual({
        drained: false,
        pending: ['apps/v1, Kind=Deployment default/web'],
      });
      const errors = logger.entries.filter((entry) => entry.level === 'error');
      expect(errors.map((entry) => entry.attributes?.gvk ?? entry.attributes?.pending)).toEqual(
        expect.arrayContaining(['apps/v1, Kind=Deployment']),
      );
      expect(errors.some((entry) => entry.attributes?.key === 'default/web')).toBe(true);
      stuck.resolve();
    });

    it('gives every controller reconcileTimeoutMs: the signal of a reconcile aborts once it passes', async () => {
      const { clock, factory, signal } = setup({ reconcileTimeoutMs: 1_000 });
      const deployments = await factory.forKind(deploymentGvk);
      const aborted = deferred<unknown>();
      const entered = deferred();
      deployments.registerHandler(signal, 'slow', async (_key, _object, context) => {
        entered.resolve();
        await new Promise<void>((resolve) =>
          context.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        aborted.resolve(context.signal.reason);
        return undefined;
      });
      await factory.start(signal, 1);
      await entered.promise;
      await clock.advance(999);
      let done = false;
      void aborted.promise.then(() => {
        done = true;
      });
      await clock.advance(0);
      expect(done).toBe(false);
      await clock.advance(1);
      expect(await aborted.promise).toBeInstanceOf(Error);
    });

    it('gives every controller maxRetries and onGiveUp: a key failing past them is given up and reported', async () => {
      const given: string[] = [];
      const { clock, factory, signal } = setup({
        maxRetries: 0,
        onGiveUp: ({ controller, key, retries }) => given.push(`${controller} ${key} ${retries}`),
      });
      const deployments = await factory.forKind(deploymentGvk);
      let calls = 0;
      const failed = deferred();
      deployments.registerHandler(signal, 'broken', (key) => {
        if (key !== 'team/web') return undefined;
        calls++;
        failed.resolve();
        throw new Error('broken');
      });
      await factory.start(signal, 1);
      deployments.enqueueKey('team/web');
      await failed.promise;
      await clock.advance(60_000);
      expect(calls).toBe(1);
      expect(given).toEqual(['apps/v1, Kind=Deployment team/web 0']);
      expect(() => setup({ maxRetries: -2 })).toThrow(/maxRetries must be/);
      expect(() => setup({ onGiveUp: 1 as never })).toThrow(/onGiveUp must be a function/);
    });

    it('keeps caches started beforehand running when its own signal aborts (warm standby)', async () => {
      const { cluster, factory } = setup();
      const process = new AbortController();
      await factory.sharedCacheFactory().start(process.signal);
      const deployments = await factory.forKind(deploymentGvk);
      const seen = recorder();
      deployments.registerHandler(process.signal, 'seen', seen.handler);
      await deployments.informer().whenSynced();
      expect(deployments.isRunning()).toBe(false);
      const leading = new AbortController();
      await factory.start(leading.signal, 1);
      await seen.called(1);
      leading.abort();
      await factory.stopped();
      expect(deployments.informer().isRunning()).toBe(true);
      // Standby again: events still fill the queue; the next leader term lists nothing.
      cluster.kind(deploymentGvk).store.create(object('apps/v1', 'Deployment', 'api', 'default'));
      const again = new AbortController();
      await factory.start(again.signal, 1);
      await seen.called(2);
      expect(cluster.kind(deploymentGvk).lists).toHaveLength(1);
      again.abort();
      await factory.stopped();
      process.abort();
      await factory.sharedCacheFactory().stopped();
    });
  });
});
