// How the factory follows discovery against an API server: an identity allowed only its own kind (no CRD or
// APIService reads), a kind not served at start whose CRD follow is forbidden, a resource name that discovery does
// not serve (a typo), a CRD deleted under a running kind, and a restart that keeps the handlers whose own signal
// still runs. Requests are counted at the undici dispatcher and logs at a recording logger, so every assertion
// holds on the built-in server and on a real kube-apiserver.
import { Client, clientFor, createRestConfig, type KubeObject } from '@lasso/client';
import { createTestLogger, type TestLogger } from '@lasso/core/testing';
import { testCrd } from '@lasso/envtest';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  SharedControllerFactory,
  SharedControllerFactoryFromConfigOptions,
} from '../../src/controller-factory-api.ts';
import { kindFor } from '../../src/kind.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import {
  collectionOf,
  isWatchRequest,
  type RecordingConfig,
  startCluster,
  type TestCluster,
  Waiter,
} from './helpers.ts';

interface Widget extends KubeObject {
  spec?: { size?: number };
}

let cluster: TestCluster;
const cleanups: Array<() => Promise<void>> = [];
let counter = 0;

beforeAll(async () => {
  cluster = await startCluster();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await cluster?.stop();
});

const rbac = 'rbac.authorization.k8s.io';

/** A fresh API group for one test (CRDs are cluster-wide). */
function uniqueGroup(prefix: string): string {
  return `${prefix}${process.pid}x${++counter}.discovery.lasso.example.com`;
}

const crdClient = () =>
  clientFor(cluster.admin, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
  });

/** Install the Widget CRD of `group`, awaited until discovery serves it; deleted after the test. */
async function installWidgetCrd(group: string): Promise<string> {
  const crd = testCrd({ group });
  cleanups.push(async () => {
    await crdClient()
      .delete(undefined, crd.metadata.name)
      .catch(() => undefined);
  });
  await cluster.env.installCrds([crd], { timeoutMs: 30_000 });
  return crd.metadata.name;
}

/**
 * A user allowed exactly get/list/watch on the widgets of `group` (cluster-wide), and nothing else but what
 * every authenticated user may (discovery, /version). Returns the user name once the grant is in force.
 */
async function widgetsOnlyUser(group: string): Promise<string> {
  const user = `widgets-only-${process.pid}-${++counter}`;
  const roles = clientFor(cluster.admin, { apiVersion: `${rbac}/v1`, kind: 'ClusterRole' });
  const bindings = clientFor(cluster.admin, {
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRoleBinding',
  });
  await roles.create(undefined, {
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRole',
    metadata: { name: user },
    rules: [{ apiGroups: [group], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
  });
  await bindings.create(undefined, {
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: user },
    roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: user },
    subjects: [{ kind: 'User', apiGroup: rbac, name: user }],
  });
  cleanups.push(async () => {
    await bindings.delete(undefined, user).catch(() => undefined);
    await roles.delete(undefined, user).catch(() => undefined);
  });
  return user;
}

/** A factory as `user` (the admin when undefined) over a recording dispatcher; closed after the test. */
async function factoryAs(
  user: string | undefined,
  options: SharedControllerFactoryFromConfigOptions = {},
): Promise<{
  factory: SharedControllerFactory;
  recording: RecordingConfig;
  logger: TestLogger;
  signal: AbortSignal;
  /** Stops the factory and waits until everything it started has ended. */
  halt: () => Promise<void>;
}> {
  const recording = await cluster.recordingConfig();
  const rest =
    user === undefined
      ? recording.rest
      : createRestConfig({ ...recording.rest, impersonation: { user } });
  const logger = createTestLogger();
  const factory = createSharedControllerFactoryFromConfig(rest, {
    gracefulShutdownTimeoutMs: 5_000,
    logger,
    ...options,
  });
  const stop = new AbortController();
  cleanups.push(async () => {
    stop.abort();
    await factory.stopped();
    await factory.close();
    await recording.close();
  });
  const halt = async (): Promise<void> => {
    stop.abort();
    await factory.stopped();
  };
  return { factory, recording, logger, signal: stop.signal, halt };
}

/** Requests to the CRD and APIService collections (list or watch). */
function discoveryFollows(recording: RecordingConfig): number {
  return recording.requests.filter((request) =>
    /\/(customresourcedefinitions|apiservices)(\?|$)/.test(request.path),
  ).length;
}

/** Warnings and errors logged, for an assertion message. */
function loud(logger: TestLogger): string[] {
  return logger.entries
    .filter((entry) => entry.level === 'warn' || entry.level === 'error')
    .map((entry) => `${entry.level} ${entry.message} ${JSON.stringify(entry.attributes)}`);
}

function widget(group: string, namespace: string, name: string): Widget {
  return {
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name, namespace },
    spec: { size: 1 },
  };
}

/** The admin's client of the widgets of `group` (test setup writes as the admin, whoever the factory is). */
function adminWidgets(group: string): Client<Widget> {
  return new Client<Widget>({
    gvr: { group, version: 'v1', resource: 'widgets' },
    kind: 'Widget',
    namespaced: true,
    rest: cluster.admin,
  });
}

// Real time: installing a CRD waits up to 30 s; each condition is awaited at most 20 s.
describe('following discovery', { timeout: 60_000 }, () => {
  it('runs a custom kind for an identity allowed only that kind: no CRD or APIService request, no warning', async () => {
    const group = uniqueGroup('own');
    await installWidgetCrd(group);
    const user = await widgetsOnlyUser(group);
    const namespace = await cluster.namespace('own');
    const { factory, recording, logger, signal } = await factoryAs(user);
    const widgets = await factory.forKind(
      kindFor<Widget>(`${group}/v1`, 'Widget', { resource: 'widgets', namespaced: true }),
    );
    const waiter = new Waiter();
    const seen: string[] = [];
    widgets.registerHandler(signal, 'seen', (key) => {
      seen.push(key);
      waiter.notify();
    });
    await factory.start(signal, 1);
    await adminWidgets(group).create(namespace, widget(group, namespace, 'w1'));
    await waiter.until(() => seen.includes(`${namespace}/w1`), 'the Widget handler', 20_000);
    expect(factory.status().map((status) => status.state)).toEqual(['running']);
    expect(discoveryFollows(recording)).toBe(0);
    expect(loud(logger)).toEqual([]);
  });

  it('says once which permission would let it follow CRDs, then starts the kind from its discovery retries', async () => {
    const group = uniqueGroup('late');
    const user = await widgetsOnlyUser(group);
    const namespace = await cluster.namespace('late');
    const { factory, recording, logger, signal } = await factoryAs(user, {
      cache: { unservedRetry: { initialMs: 200, maxMs: 1_000 } },
    });
    const widgets = await factory.forKind(
      kindFor<Widget>(`${group}/v1`, 'Widget', { resource: 'widgets', namespaced: true }),
    );
    const waiter = new Waiter();
    const seen: string[] = [];
    widgets.registerHandler(signal, 'seen', (key) => {
      seen.push(key);
      waiter.notify();
    });
    await factory.start(signal, 1);
    expect(factory.status()[0]?.state).toBe('unserved');
    // The factory's own line (the informer's reflector says its 403 too, once per outage).
    const hint = () =>
      logger.entries.filter(
        (entry) =>
          entry.message.includes('grant verbs') &&
          entry.message.includes('customresourcedefinitions.apiextensions.k8s.io'),
      );
    await recording.waiter.until(() => hint().length > 0, 'the permission hint', 20_000);
    expect(hint()).toHaveLength(1);
    expect(hint()[0]?.level).toBe('warn');
    expect(hint()[0]?.message).toMatch(/list.*watch/);
    const follows = discoveryFollows(recording);

    await installWidgetCrd(group);
    await adminWidgets(group).create(namespace, widget(group, namespace, 'w1'));
    await waiter.until(() => seen.includes(`${namespace}/w1`), 'the Widget handler', 20_000);
    // Forbidden once: not asked again while it waited, nor once served.
    expect(discoveryFollows(recording)).toBe(follows);
    expect(hint()).toHaveLength(1);
  });

  it('lists a resource whose discovery verbs lack watch on an interval, never sending a watch', async () => {
    // componentstatuses: get and list only, on kube-apiserver and on the built-in server alike (a watch is a 405).
    const { factory, recording, logger, signal } = await factoryAs(undefined);
    const statuses = await factory.forKind(
      kindFor<KubeObject>('v1', 'ComponentStatus', {
        resource: 'componentstatuses',
        namespaced: false,
      }),
    );
    statuses.registerHandler(signal, 'seen', () => undefined);
    await factory.start(signal, 1);
    const waiter = recording.waiter;
    await waiter.until(
      () => factory.status()[0]?.state === 'running',
      'the ComponentStatus informer to sync',
      20_000,
    );
    const requests = recording.requests.filter(
      (request) => collectionOf(request.path) === 'v1/componentstatuses',
    );
    // Neither a streaming list nor a watch: without discovery's verbs the informer's first request was a streaming
    // list, refused with 405, and a warning that it switched to polling.
    expect(requests.filter((request) => isWatchRequest(request.path))).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(
      logger.entries.some((entry) => entry.message.includes('discovery lists no watch verb')),
    ).toBe(true);
    expect(loud(logger)).toEqual([]);
  });

  it('warns, naming the kind, about a resource name discovery does not serve, and reports it in status()', async () => {
    const group = uniqueGroup('typo');
    await installWidgetCrd(group);
    const { factory, logger, signal } = await factoryAs(undefined);
    const widgets = await factory.forKind(
      kindFor<Widget>(`${group}/v1`, 'Widget', { resource: 'widgetz', namespaced: true }),
    );
    widgets.registerHandler(signal, 'never', () => undefined);
    await factory.start(signal, 1);
    const [status] = factory.status();
    expect(status?.state).toBe('unserved');
    expect(String((status?.lastError as Error | undefined)?.message)).toMatch(
      /widgetz.*not served.*widgets/,
    );
    const warnings = logger.entries.filter(
      (entry) => entry.level === 'warn' && entry.message.includes('not served by discovery'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain(`${group}/v1, Kind=Widget`);
  });

  it('logs "no longer served" once when the CRD of a running kind is deleted', async () => {
    const group = uniqueGroup('gone');
    const crdName = await installWidgetCrd(group);
    const namespace = await cluster.namespace('gone');
    const { factory, logger, signal, halt } = await factoryAs(undefined);
    const widgets = await factory.forKind(
      kindFor<Widget>(`${group}/v1`, 'Widget', { resource: 'widgets', namespaced: true }),
    );
    const waiter = new Waiter();
    const seen: string[] = [];
    widgets.registerHandler(signal, 'seen', (key) => {
      seen.push(key);
      waiter.notify();
    });
    await factory.start(signal, 1);
    await adminWidgets(group).create(namespace, widget(group, namespace, 'w1'));
    await waiter.until(() => seen.includes(`${namespace}/w1`), 'the Widget handler', 20_000);
    let informerStopped = false;
    void widgets
      .informer()
      .stopped()
      .then(() => {
        informerStopped = true;
        waiter.notify();
      });
    await crdClient().delete(undefined, crdName);
    await waiter.until(
      () => informerStopped,
      'the informer to stop after the CRD deletion',
      20_000,
    );
    // "Once" over the factory's whole life: stopping it waits for the recheck that logs and ends every loop that
    // could log again.
    await halt();
    const served = logger.entries.filter(
      (entry) => entry.level === 'warn' && /served/.test(entry.message),
    );
    expect(served.map((entry) => entry.message)).toEqual([
      expect.stringContaining('no longer served'),
    ]);
  });

  it('logs no warning about the kinds it follows when the server does not serve them (the demo on the built-in server)', async () => {
    const group = uniqueGroup('demo');
    const { factory, logger, signal } = await factoryAs(undefined, {
      cache: { unservedRetry: { initialMs: 200, maxMs: 1_000 } },
    });
    const widgets = await factory.forKind(
      kindFor<Widget>(`${group}/v1`, 'Widget', { resource: 'widgets', namespaced: true }),
    );
    const waiter = new Waiter();
    let calls = 0;
    widgets.registerHandler(signal, 'seen', () => {
      calls++;
      waiter.notify();
    });
    await factory.start(signal, 1);
    await installWidgetCrd(group);
    const namespace = await cluster.namespace('demo');
    await adminWidgets(group).create(namespace, widget(group, namespace, 'w1'));
    await waiter.until(() => calls > 0, 'the Widget handler', 20_000);
    // Only the Widget's own "not served yet" warning: nothing about CRDs or APIServices.
    expect(loud(logger).filter((line) => !line.includes(`${group}/v1, Kind=Widget`))).toEqual([]);
  });

  it('keeps, across a restart, the handlers registered while the first start ran whose own signal still runs', async () => {
    const namespace = await cluster.namespace('restart');
    const { factory } = await factoryAs(undefined, { cache: { defaultNamespace: namespace } });
    const admin = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    const configMap = (name: string): ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace },
    });
    const handlers = new AbortController();
    cleanups.push(async () => handlers.abort());
    const first = new AbortController();
    await factory.start(first.signal, 1);
    const controller = await factory.forKind(kindFor('v1', 'ConfigMap'));
    const waiter = new Waiter();
    const seen: string[] = [];
    controller.registerHandler(handlers.signal, 'kept', (key) => {
      seen.push(key);
      waiter.notify();
    });
    // Registered on the first start's signal: removed by its abort.
    let dropped = 0;
    controller.registerHandler(first.signal, 'dropped', () => {
      dropped++;
    });
    await admin.create(namespace, configMap('first'));
    await waiter.until(() => seen.includes(`${namespace}/first`), 'the first run', 20_000);
    first.abort();
    await factory.stopped();
    const droppedBefore = dropped;

    const second = new AbortController();
    cleanups.push(async () => second.abort());
    await factory.start(second.signal, 1);
    await admin.create(namespace, configMap('second'));
    await waiter.until(() => seen.includes(`${namespace}/second`), 'the second run', 20_000);
    expect(dropped).toBe(droppedBefore);
    expect(controller.isRunning()).toBe(true);
  });
});
