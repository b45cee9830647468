// The factory lifecycle against an API server: a controller registered while the factory runs, a CRD installed after
// start (no second start) and deleted again, a restart of the same factory, and warm standby under leader election
// (the new leader lists nothing after takeover). Requests are counted at the undici dispatcher, so every assertion
// holds on the built-in server, a real kube-apiserver or an existing cluster.
import { clientFor, type KubeObject } from '@lasso/client';
import { runWithLeaderElection } from '@lasso/controller';
import { testCrd } from '@lasso/envtest';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SharedControllerFactory } from '../../src/controller-factory-api.ts';
import { kindFor } from '../../src/kind.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import {
  listsOf,
  type RecordingConfig,
  startCluster,
  type TestCluster,
  Waiter,
} from './helpers.ts';

interface Widget extends KubeObject {
  spec?: { size?: number };
}

const configMaps = kindFor('v1', 'ConfigMap');

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

/** A factory over a recording config watching `namespace`; closed after the test. */
async function replica(namespace: string): Promise<{
  factory: SharedControllerFactory;
  recording: RecordingConfig;
}> {
  const recording = await cluster.recordingConfig();
  const factory = createSharedControllerFactoryFromConfig(recording.rest, {
    cache: { defaultNamespace: namespace },
    gracefulShutdownTimeoutMs: 5_000,
  });
  cleanups.push(async () => {
    await factory.close();
    await recording.close();
  });
  return { factory, recording };
}

function configMap(namespace: string, name: string): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: {} };
}

// Real time: the tests await conditions of up to 20 s each (a CRD's informer, a takeover); the test timeout is above
// their sum, so a slow machine fails (if at all) naming the condition not reached rather than with a bare timeout.
describe('the factory lifecycle against the API server', { timeout: 60_000 }, () => {
  it('starts a controller whose handler is registered while the factory runs, without another start', async () => {
    const namespace = await cluster.namespace('late');
    const { factory } = await replica(namespace);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    await factory.start(stop.signal, 1);
    const admin = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    await admin.create(namespace, configMap(namespace, 'before-handler'));
    const controller = await factory.forKind(configMaps);
    const waiter = new Waiter();
    const seen: string[] = [];
    controller.registerHandler(stop.signal, 'late', (key) => {
      seen.push(key);
      waiter.notify();
    });
    await waiter.until(() => seen.includes(`${namespace}/before-handler`), 'the late handler');
    expect(controller.isRunning()).toBe(true);
  });

  it('starts a controller on a CRD installed after start, without another start, and stops its informer when the CRD is deleted', async () => {
    const namespace = await cluster.namespace('crd-late');
    const group = `l${process.pid}.late.lasso.example.com`;
    const { factory, recording } = await replica(namespace);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    // The token knows the resource: no discovery needed to register before the CRD exists.
    const widgets = await factory.forKind(
      kindFor<Widget>(`${group}/v1`, 'Widget', { resource: 'widgets', namespaced: true }),
    );
    const waiter = new Waiter();
    const sizes: Array<number | undefined> = [];
    widgets.registerHandler(stop.signal, 'widgets', (_key, widget) => {
      sizes.push(widget?.spec?.size);
      waiter.notify();
    });
    await factory.start(stop.signal, 1);
    const statusOf = () => factory.status().find((status) => status.gvk.kind === 'Widget');
    expect(statusOf()?.state).toBe('unserved');
    expect(recording.collections('list').has(`${group}/v1/widgets`)).toBe(false);

    const crdName = await installWidgetCrd(group);
    await widgets.client().create(namespace, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace },
      spec: { size: 3 },
    });
    // Started by the CRD's watch event, well before the 60 s retry cap.
    await waiter.until(() => sizes.includes(3), 'the Widget handler', 20_000);
    expect(statusOf()?.state).toBe('running');
    expect(widgets.isRunning()).toBe(true);

    const crds = clientFor(cluster.admin, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
    });
    const informerStopped = widgets.informer().stopped();
    await crds.delete(undefined, crdName);
    // The factory stops the informer once discovery no longer serves the kind (CRD watch event or 404).
    await Promise.race([
      informerStopped,
      new Promise((_resolve, reject) =>
        setTimeout(() => reject(new Error('informer not stopped after the CRD deletion')), 20_000),
      ),
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(statusOf()?.state).toBe('unserved');
    expect(widgets.informer().isRunning()).toBe(false);
  });

  it('runs again after a stop with the same factory object, relisting once', async () => {
    const namespace = await cluster.namespace('restart');
    const { factory, recording } = await replica(namespace);
    const admin = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    await admin.create(namespace, configMap(namespace, 'first'));
    const controller = await factory.forKind(configMaps);
    const handlers = new AbortController();
    cleanups.push(async () => handlers.abort());
    const waiter = new Waiter();
    const seen: string[] = [];
    controller.registerHandler(handlers.signal, 'seen', (key) => {
      seen.push(key);
      waiter.notify();
    });
    const first = new AbortController();
    await factory.start(first.signal, 1);
    await waiter.until(() => seen.includes(`${namespace}/first`), 'the first run');
    first.abort();
    expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
    expect(factory.isRunning()).toBe(false);

    await admin.create(namespace, configMap(namespace, 'while-stopped'));
    const second = new AbortController();
    cleanups.push(async () => second.abort());
    await factory.start(second.signal, 1);
    await waiter.until(() => seen.includes(`${namespace}/while-stopped`), 'the second run');
    expect(listsOf(recording, 'v1/configmaps')).toBe(2);
  });

  it('keeps a standby warm: after takeover the new leader reconciles with no LIST', async () => {
    const namespace = await cluster.namespace('standby');
    const admin = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    const leases = clientFor(cluster.admin, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
    });
    await admin.create(namespace, configMap(namespace, 'seed'));
    const waiter = new Waiter();

    async function start(identity: string) {
      const { factory, recording } = await replica(namespace);
      const processStop = new AbortController();
      cleanups.push(async () => processStop.abort());
      const reconciled: string[] = [];
      const controller = await factory.forKind(configMaps);
      controller.registerHandler(processStop.signal, 'reconcile', (key) => {
        reconciled.push(key);
        waiter.notify();
      });
      // Informers for the process lifetime; workers only while leading.
      await factory.sharedCacheFactory().start(processStop.signal);
      let leading = false;
      const election = runWithLeaderElection(
        {
          client: leases,
          namespace,
          name: 'standby',
          identity,
          // A roomy renew deadline: a stall under load must not cost replica a the lease before it dies.
          leaseDurationMs: 4_000,
          renewDeadlineMs: 3_000,
          retryPeriodMs: 200,
          signal: processStop.signal,
        },
        {
          onStartedLeading: async (leadingSignal) => {
            leading = true;
            waiter.notify();
            await factory.start(leadingSignal, 1);
          },
          onStoppedLeading: () => {
            leading = false;
          },
        },
      );
      cleanups.push(async () => {
        processStop.abort();
        await election;
      });
      return { factory, recording, processStop, reconciled, isLeading: () => leading, controller };
    }

    const a = await start('replica-a');
    await waiter.until(() => a.isLeading() && a.reconciled.length > 0, 'replica a to lead');
    const b = await start('replica-b');
    await b.controller.informer().whenSynced();
    expect(b.isLeading()).toBe(false);
    expect(b.reconciled).toEqual([]);
    const listedBeforeTakeover = b.recording.requests.length;
    expect(listsOf(b.recording, 'v1/configmaps')).toBe(1);

    // The leader dies without releasing the lease; a change meanwhile lands in the standby's queue.
    const died = performance.now();
    a.processStop.abort();
    await admin.create(namespace, configMap(namespace, 'during-failover'));
    await waiter.until(
      () => b.reconciled.includes(`${namespace}/during-failover`),
      'replica b to take over and reconcile',
      20_000,
    );
    const failoverMs = performance.now() - died;
    // Opt-in measurement for reports: LASSO_REPORT_FAILOVER=1.
    if (process.env.LASSO_REPORT_FAILOVER)
      process.stderr.write(`failover ${failoverMs.toFixed(0)} ms\n`);
    expect(b.reconciled).toContain(`${namespace}/seed`);
    // The goal of warm standby: no LIST after takeover.
    expect(listsOf(b.recording, 'v1/configmaps', listedBeforeTakeover)).toBe(0);
  });
});

/** Create a namespaced Widget CRD in `group`, wait until Established; returns its name. Deleted after the test. */
async function installWidgetCrd(group: string): Promise<string> {
  const crds = clientFor(cluster.admin, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
  });
  const crd = testCrd({ group });
  const name = crd.metadata.name;
  await crds.create(undefined, crd);
  cleanups.push(async () => {
    await crds.delete(undefined, name).catch(() => undefined);
  });
  // Watch from creation until Established (no polling).
  const listed = await crds.list(undefined, { fieldSelector: `metadata.name=${name}` });
  if (listed.items.some(established)) return name;
  for await (const event of crds.watch(undefined, {
    fieldSelector: `metadata.name=${name}`,
    resourceVersion: listed.metadata.resourceVersion,
    signal: AbortSignal.timeout(30_000),
  })) {
    if (event.type !== 'BOOKMARK' && established(event.object)) return name;
  }
  throw new Error(`CRD ${name} not established`);
}

function established(crd: {
  status?: { conditions?: Array<{ type: string; status: string }> | undefined } | undefined;
}): boolean {
  return (
    crd.status?.conditions?.some(
      (condition) => condition.type === 'Established' && condition.status === 'True',
    ) === true
  );
}
