// The shared controller factory against an API server: several handlers on one kind, a CRD installed after
// start, a missing kind, a registration with an aborted signal, per-kind workers, and 50 kinds asked for of
// which only the 2 used are listed and watched (counted at the undici dispatcher, so it holds in every mode).
import {
  builtinKinds,
  Client,
  clientFor,
  type KubeObject,
  type KubeObjectLike,
} from '@lasso/client';
import type { SharedController } from '@lasso/controller';
import { isLassoError } from '@lasso/core';
import { testCrd } from '@lasso/envtest';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SharedControllerFactoryFromConfigOptions } from '../../src/controller-factory-api.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import { type RecordingConfig, startCluster, type TestCluster, Waiter } from './helpers.ts';

const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const secretGvk = { group: '', version: 'v1', kind: 'Secret' } as const;

interface Widget extends KubeObject {
  spec?: { size?: number };
}

let cluster: TestCluster;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  cluster = await startCluster();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await cluster?.stop();
});

/** A factory over a recording config, watching a fresh namespace; shut down (abort, stopped) after the test. */
async function harness(prefix: string, options: SharedControllerFactoryFromConfigOptions = {}) {
  const namespace = await cluster.namespace(prefix);
  const recording: RecordingConfig = await cluster.recordingConfig();
  const factory = createSharedControllerFactoryFromConfig(recording.rest, {
    ...options,
    cache: { defaultNamespace: namespace, ...options.cache },
  });
  const stop = new AbortController();
  const used: Array<{ stopped(): Promise<unknown> }> = [];
  cleanups.push(async () => {
    stop.abort();
    await Promise.all(used.map((controller) => controller.stopped()));
    await recording.close();
  });
  const configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest: cluster.admin,
  });
  return {
    namespace,
    recording,
    factory,
    signal: stop.signal,
    configMaps,
    /** Await this controller's shutdown after the test. */
    use<T extends KubeObjectLike>(controller: SharedController<T>): SharedController<T> {
      used.push(controller);
      return controller;
    },
    configMap(name: string, data: Record<string, string> = {}): ConfigMap {
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
    },
  };
}

// Real time: installing a CRD waits up to 30 s for it to be established; the test timeout is above that.
describe('createSharedControllerFactoryFromConfig against the API server', {
  timeout: 60_000,
}, () => {
  it('runs several handlers on one kind in order, each getting the object the previous one returned', async () => {
    const { factory, signal, use, configMaps, configMap, namespace } = await harness('handlers');
    const controller = use(await factory.forKind(configMapGvk));
    const waiter = new Waiter();
    const seenBySecond: Array<{ labelled: boolean; version: string | undefined }> = [];
    const returnedByFirst: Array<string | undefined> = [];
    controller.registerHandler(signal, 'label', async (_key, object) => {
      if (object === undefined || object.metadata?.labels?.handled === 'yes') return object;
      const updated = await controller.client().update(namespace, {
        ...object,
        metadata: { ...object.metadata, labels: { ...object.metadata?.labels, handled: 'yes' } },
      });
      returnedByFirst.push(updated.metadata?.resourceVersion);
      return updated;
    });
    controller.registerHandler(signal, 'check', (_key, object) => {
      seenBySecond.push({
        labelled: object?.metadata?.labels?.handled === 'yes',
        version: object?.metadata?.resourceVersion,
      });
      waiter.notify();
    });
    await factory.start(signal, 2);
    await configMaps.create(namespace, configMap('one'));
    await waiter.until(() => seenBySecond.length > 0, 'the second handler to run');
    // The first call of the second handler already had the first handler's update, not the cached copy.
    expect(seenBySecond[0]).toEqual({ labelled: true, version: returnedByFirst[0] });
  });

  it('serves handlers on a CRD installed after the factory started', async () => {
    const { factory, signal, use, namespace, configMaps, configMap } = await harness('crd');
    const group = `f${process.pid}.crd.lasso.example.com`;
    // Started (and discovery read) before the CRD exists.
    const cms = use(await factory.forKind(configMapGvk));
    const cmWaiter = new Waiter();
    let cmCalls = 0;
    cms.registerHandler(signal, 'cm', () => {
      cmCalls++;
      cmWaiter.notify();
    });
    await factory.start(signal, 1);
    await configMaps.create(namespace, configMap('before-crd'));
    await cmWaiter.until(() => cmCalls > 0, 'the ConfigMap handler');
    await expect(factory.forKind({ group, version: 'v1', kind: 'Widget' })).rejects.toSatisfy(
      (error: unknown) => isLassoError(error, 'LASSO_NO_KIND_MATCH'),
    );

    await installWidgetCrd(group);
    const widgets = use(await factory.forKind<Widget>({ group, version: 'v1', kind: 'Widget' }));
    const waiter = new Waiter();
    const sizes: Array<number | undefined> = [];
    widgets.registerHandler(signal, 'widgets', (_key, widget) => {
      sizes.push(widget?.spec?.size);
      waiter.notify();
    });
    await factory.start(signal, 1);
    await widgets.client().create(namespace, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace },
      spec: { size: 3 },
    });
    await waiter.until(() => sizes.includes(3), 'the Widget handler to see the new object');
  });

  it('reports a kind the server does not serve as unserved, never lists it, while the other kinds run', async () => {
    const { factory, signal, use, namespace, configMaps, configMap, recording } =
      await harness('missing');
    const gizmos = { group: 'missing.lasso.example.com', version: 'v1', resource: 'gizmos' };
    await expect(
      factory.forKind({ group: gizmos.group, version: 'v1', kind: 'Gizmo' }),
    ).rejects.toThrow(/Gizmo/);
    const missing = use(factory.forResourceKind(gizmos, 'Gizmo', true));
    missing.registerHandler(signal, 'gizmos', () => undefined);
    const cms = use(await factory.forKind(configMapGvk));
    const waiter = new Waiter();
    const names: string[] = [];
    cms.registerHandler(signal, 'cm', (_key, object) => {
      if (object?.metadata?.name !== undefined) names.push(object.metadata.name);
      waiter.notify();
    });
    await factory.start(signal, 1);
    const gizmo = factory.status().find((status) => status.gvk.kind === 'Gizmo');
    expect(gizmo?.state).toBe('unserved');
    expect(isLassoError(gizmo?.lastError, 'LASSO_NO_KIND_MATCH')).toBe(true);
    await configMaps.create(namespace, configMap('after-start'));
    await waiter.until(() => names.includes('after-start'), 'the ConfigMap handler');
    expect(recording.collections('list').has('missing.lasso.example.com/v1/gizmos')).toBe(false);
    expect(cms.isRunning()).toBe(true);
    expect(missing.isRunning()).toBe(false);
  });

  it('registers nothing, and lists nothing, for a registration whose signal already aborted', async () => {
    const { factory, signal, use, namespace, configMaps, configMap, recording } =
      await harness('aborted');
    const secrets = use(await factory.forKind(secretGvk));
    const secretCalls: string[] = [];
    secrets.registerHandler(AbortSignal.abort(), 'too-late', (key) => {
      secretCalls.push(key);
    });
    const cms = use(await factory.forKind(configMapGvk));
    const waiter = new Waiter();
    const names: string[] = [];
    cms.registerHandler(signal, 'cm', (_key, object) => {
      if (object?.metadata?.name !== undefined) names.push(object.metadata.name);
      waiter.notify();
    });
    await factory.start(signal, 1);
    const secretsClient = secrets.client();
    await secretsClient.create(namespace, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ignored', namespace },
      stringData: { a: 'b' },
    });
    await configMaps.create(namespace, configMap('after-secret'));
    await waiter.until(() => names.includes('after-secret'), 'the ConfigMap handler');
    expect(secretCalls).toEqual([]);
    expect(recording.collections('list').has('v1/secrets')).toBe(false);
    expect(recording.collections('watch').has('v1/secrets')).toBe(false);
  });

  it('bounds concurrent handler calls by kindWorkers for that kind and by start for the others', async () => {
    const { factory, signal, use, namespace, configMaps, configMap } = await harness('workers', {
      kindWorkers: [[configMapGvk, 2]],
    });
    const secretsClient = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'Secret' });
    for (let index = 0; index < 6; index++) {
      await configMaps.create(namespace, configMap(`cm-${index}`));
      await secretsClient.create(namespace, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `secret-${index}`, namespace },
      });
    }
    const measure = <T extends KubeObjectLike>(
      controller: SharedController<T>,
      expected: number,
    ) => {
      const state = { active: 0, max: 0, done: 0 };
      const waiter = new Waiter();
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      controller.registerHandler(signal, 'count', async (_key, object) => {
        // Only the test's objects: a real cluster adds kube-root-ca.crt to every namespace.
        const name = object?.metadata?.name ?? '';
        if (!/^(cm|secret)-/.test(name)) return;
        state.active++;
        state.max = Math.max(state.max, state.active);
        waiter.notify();
        if (state.active >= expected) release();
        await released;
        state.active--;
        state.done++;
        waiter.notify();
      });
      return {
        state,
        finished: () => waiter.until(() => state.done >= 6, 'every object handled'),
      };
    };
    const cms = measure(use(await factory.forKind(configMapGvk)), 2);
    const secrets = measure(use(await factory.forKind(secretGvk)), 3);
    await factory.start(signal, 3);
    await Promise.all([cms.finished(), secrets.finished()]);
    expect(cms.state.max).toBe(2);
    expect(secrets.state.max).toBe(3);
  });

  it('lists and watches only the 2 kinds used of 50 asked for', async () => {
    const { factory, signal, use, namespace, configMaps, configMap, recording } =
      await harness('fifty');
    const table = Object.entries(builtinKinds).flatMap(([apiVersion, byKind]) =>
      Object.keys(byKind).map((kind) => {
        const [group, version] = apiVersion.includes('/')
          ? (apiVersion.split('/') as [string, string])
          : ['', apiVersion];
        return { group, version, kind };
      }),
    );
    // Every built-in kind the server serves (all of them on kube-apiserver, a subset on the built-in
    // server), topped up with CRDs to 50 kinds.
    const resolved = await Promise.allSettled(table.map((gvk) => factory.forKind(gvk)));
    const served = resolved.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    );
    const group = `f${process.pid}.fifty.lasso.example.com`;
    const extra = Array.from(
      { length: Math.max(0, 50 - served.length) },
      (_, index) => `Kind${index}`,
    );
    await installCrds(group, extra);
    const custom = await Promise.all(
      extra.map((kind) => factory.forKind({ group, version: 'v1', kind })),
    );
    const controllers = [...served, ...custom].slice(0, 50);
    expect(new Set(controllers).size).toBe(50);
    for (const controller of controllers) use(controller).client();

    const cms = use(await factory.forKind(configMapGvk));
    const waiter = new Waiter();
    let handled = false;
    cms.registerHandler(signal, 'cm', (_key, object) => {
      if (object?.metadata?.name === 'used') handled = true;
      waiter.notify();
    });
    const secrets = use(await factory.forKind(secretGvk));
    const secretsInformer = secrets.informer();
    await factory.start(signal, 1);
    await configMaps.create(namespace, configMap('used'));
    await waiter.until(() => handled, 'the ConfigMap handler');
    expect(secretsInformer.hasSynced()).toBe(true);
    await recording.waiter.until(
      () => recording.collections('watch').size >= 2,
      'both watches to be sent',
    );
    expect([...recording.collections('list')].sort()).toEqual(['v1/configmaps', 'v1/secrets']);
    expect([...recording.collections('watch')].sort()).toEqual(['v1/configmaps', 'v1/secrets']);
  });
});

/** Create a namespaced Widget CRD in `group` and wait until it is Established. */
async function installWidgetCrd(group: string): Promise<void> {
  await installCrds(group, ['Widget']);
}

/**
 * Create one namespaced CRD per kind in `group` (plural: the kind lowercased + `s`) and wait until every one is
 * Established and served by discovery (envtest's installCrds; a real kube-apiserver publishes discovery after
 * Established, and the factory's RESTMapper would find a kind missing). Deleted after the test.
 */
async function installCrds(group: string, kinds: string[]): Promise<void> {
  if (kinds.length === 0) return;
  const crds = kinds.map((kind) => testCrd({ group, kind }));
  const client = clientFor(cluster.admin, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
  });
  cleanups.push(async () => {
    for (const crd of crds)
      await client.delete(undefined, crd.metadata.name).catch(() => undefined);
  });
  await cluster.env.installCrds(crds, { timeoutMs: 30_000 });
}
