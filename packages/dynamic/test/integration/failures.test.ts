// The dynamic controller's failure paths against an API server: one handler's ErrIgnore does not hide another
// handler's real error (the key is retried), a kind whose list is forbidden by RBAC is dropped after
// syncTimeoutMs with an error naming it and watched again at the next discovery refresh, and a deleted CRD
// is reported once.
import { clientFor, createRestConfig, type GroupVersionKind } from '@lasso/client';
import { ErrIgnore } from '@lasso/controller';
import { isLassoError, type LogAttributes, type Logger } from '@lasso/core';
import { testCrd } from '@lasso/envtest';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamicController } from '../../src/dynamic-controller.ts';
import { startCluster, type TestCluster, type Waiter } from './helpers.ts';

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

const configMapGvk: GroupVersionKind = { group: '', version: 'v1', kind: 'ConfigMap' };
const isConfigMap = (gvk: GroupVersionKind): boolean =>
  gvk.group === '' && gvk.kind === 'ConfigMap';

interface Entry {
  readonly level: string;
  readonly message: string;
  readonly attributes: LogAttributes | undefined;
}

/** A logger that records every entry and wakes the waiter. */
function recordingLogger(waiter: Waiter, entries: Entry[]): Logger {
  const log =
    (level: string) =>
    (message: string, attributes?: LogAttributes): void => {
      entries.push({ level, message, attributes });
      waiter.notify();
    };
  const logger: Logger = {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return logger;
}

/** Rejects after `timeoutMs` (real time) naming `what`, so that a read that waits forever fails the test. */
async function within<T>(promise: Promise<T>, what: string, timeoutMs = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const crds = () =>
  clientFor(cluster.admin, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
  });

/** Create a namespaced CRD `Widget` in a new group; deleted after the test. Returns its group and name. */
async function createWidgetCrd(): Promise<{ group: string; name: string }> {
  const group = `dynfail${++counter}-${process.pid}.example.com`;
  const crd = testCrd({
    group,
    schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  });
  const name = crd.metadata.name;
  await crds().create(undefined, crd as never);
  cleanups.push(async () => {
    await crds()
      .delete(undefined, name)
      .catch(() => undefined);
  });
  return { group, name };
}

describe('dynamic controller failures', { timeout: 90_000 }, () => {
  it('retries a key one handler failed even though another handler threw ErrIgnore', async () => {
    const recording = await cluster.recordingConfig();
    const factory = createSharedControllerFactoryFromConfig(recording.rest);
    const entries: Entry[] = [];
    const dynamic = createDynamicController(factory, {
      logger: recordingLogger(recording.waiter, entries),
    });
    const stop = new AbortController();
    cleanups.push(async () => {
      stop.abort();
      await dynamic.close();
      await factory.stopped();
      await factory.close();
      await recording.close();
    });
    const namespace = await cluster.namespace('dyn-ignore');
    let failures = 0;
    dynamic.onChange(stop.signal, 'ignores', isConfigMap, () => {
      throw ErrIgnore;
    });
    dynamic.onChange(stop.signal, 'fails', isConfigMap, (_gvk, key) => {
      if (key !== `${namespace}/x`) return;
      failures++;
      recording.waiter.notify();
      throw new Error('not ready');
    });
    await dynamic.start(stop.signal);
    await clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' }).create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace },
    });
    // The default rate limiter retries after 5, 10, 20... ms: five runs take well under a second.
    await recording.waiter.until(() => failures >= 5, 'five runs of the failing handler', 10_000);
    const errors = entries.filter(
      (entry) =>
        entry.level === 'error' && entry.message.startsWith(`error syncing '${namespace}/x'`),
    );
    expect(errors.length).toBeGreaterThanOrEqual(4);
    expect(String(errors[0]?.attributes?.error)).toBe('handler fails: not ready');
  });

  it('drops a kind whose list RBAC forbids after syncTimeoutMs, names it, and watches it again at the next refresh', async () => {
    const user = `dyn-denied-${process.pid}`;
    const role = `dyn-denied-${process.pid}`;
    const roles = clientFor(cluster.admin, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
    });
    const bindings = clientFor(cluster.admin, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
    });
    // The user may follow CRDs and APIServices (so discovery is refreshed on their changes), not read ConfigMaps.
    const followDiscovery = [
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        verbs: ['get', 'list', 'watch'],
      },
      {
        apiGroups: ['apiregistration.k8s.io'],
        resources: ['apiservices'],
        verbs: ['get', 'list', 'watch'],
      },
    ];
    await roles.create(undefined, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: followDiscovery,
    } as never);
    await bindings.create(undefined, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    } as never);
    cleanups.push(async () => {
      await bindings.delete(undefined, role).catch(() => undefined);
      await roles.delete(undefined, role).catch(() => undefined);
    });
    const namespace = await cluster.namespace('dyn-denied');
    await clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' }).create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace },
    });

    const recording = await cluster.recordingConfig();
    const rest = createRestConfig({ ...recording.rest, impersonation: { user } });
    const factory = createSharedControllerFactoryFromConfig(rest);
    const entries: Entry[] = [];
    const dynamic = createDynamicController(factory, {
      logger: recordingLogger(recording.waiter, entries),
      syncTimeoutMs: 3_000,
    });
    const stop = new AbortController();
    cleanups.push(async () => {
      stop.abort();
      await dynamic.close();
      await factory.stopped();
      await factory.close();
      await recording.close();
    });
    await dynamic.start(stop.signal);

    const error = await within(
      dynamic.get(configMapGvk, namespace, 'x').then(
        () => undefined,
        (caught: unknown) => caught,
      ),
      'the read of a forbidden kind to fail',
    );
    expect(isLassoError(error, 'LASSO_DYNAMIC_SYNC_FAILED')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('failed to sync cache for /v1, Kind=ConfigMap within 3000 ms');
    expect(message).toContain('forbidden');
    const warnings = entries.filter((entry) =>
      entry.message.startsWith('failed to sync cache for /v1, Kind=ConfigMap'),
    );
    expect(warnings.map((entry) => entry.level)).toEqual(['warn']);
    expect(dynamic.watched()).toEqual([]);
    // Dropped: the next read fails at once, without a new watch.
    await expect(dynamic.list(configMapGvk, namespace)).rejects.toMatchObject({
      code: 'LASSO_DYNAMIC_SYNC_FAILED',
    });
    expect(dynamic.watched()).toEqual([]);

    // Allowed now; a CRD change refreshes discovery and the kind is watched again.
    await roles.update(undefined, {
      ...(await roles.get(undefined, role)),
      rules: [
        ...followDiscovery,
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      ],
    } as never);
    const refreshes = dynamic.refreshes();
    await createWidgetCrd();
    await recording.waiter.until(
      () => dynamic.refreshes() > refreshes,
      'a discovery refresh',
      15_000,
    );
    const object = await within(
      dynamic.get(configMapGvk, namespace, 'x'),
      'the read after the refresh',
    );
    expect(object.metadata?.name).toBe('x');
    expect(
      entries.filter(
        (entry) => entry.message === 'watching again the kinds whose cache did not sync',
      ),
    ).toHaveLength(1);
  });

  it('reports a deleted CRD once: one "stopped watching", no "kind no longer served" from the dynamic side', async () => {
    const recording = await cluster.recordingConfig();
    const factory = createSharedControllerFactoryFromConfig(recording.rest);
    const entries: Entry[] = [];
    const dynamic = createDynamicController(factory, {
      logger: recordingLogger(recording.waiter, entries),
    });
    const stop = new AbortController();
    cleanups.push(async () => {
      stop.abort();
      await dynamic.close();
      await factory.stopped();
      await factory.close();
      await recording.close();
    });
    const { group, name } = await createWidgetCrd();
    const key = `${group}/v1, Kind=Widget`;
    dynamic.onChange(
      stop.signal,
      'widgets',
      (gvk) => gvk.group === group,
      () => {},
    );
    await dynamic.start(stop.signal);
    await recording.waiter.until(
      () => dynamic.watched().some((kind) => kind.key === key && kind.synced),
      'the Widget watch',
    );
    const refreshes = dynamic.refreshes();
    await crds().delete(undefined, name);
    await recording.waiter.until(
      () => !dynamic.watched().some((kind) => kind.key === key),
      'the Widget watch to stop',
    );
    await recording.waiter.until(() => dynamic.refreshes() > refreshes, 'the refresh');
    const about = entries.filter(
      (entry) => entry.message.includes('no longer served') || entry.message === 'stopped watching',
    );
    expect(about.map((entry) => entry.message)).toEqual(['stopped watching']);
  });
});
