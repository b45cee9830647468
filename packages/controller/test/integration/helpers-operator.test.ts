// Operator helpers against a Kubernetes API server (the built-in one, or a real kube-apiserver through
// KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG): controller references, owner-to-key mapping and finalizers
// through shared controllers, and Events with a series, read back from what the server stored.
import { createCache, type SharedIndexInformer } from '@lasso/cache';
import {
  Client,
  isNotFound,
  type KubeObjectLike,
  loadKubeConfig,
  type RestConfig,
  restTransportFor,
} from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap, Namespace, Secret } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createController } from '../../src/controller.ts';
import { createEventRecorder } from '../../src/event-recorder.ts';
import { finalizerHandler } from '../../src/finalizer.ts';
import { enqueueOwnerHandler, ownerKeysOf } from '../../src/owner-handler.ts';
import {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  setControllerReference,
} from '../../src/owner-references.ts';
import { createSharedController, type SharedController } from '../../src/shared-controller.ts';

let env: Environment;
let rest: RestConfig;
let namespaces: Client<Namespace>;
let configMaps: Client<ConfigMap>;
let secrets: Client<Secret>;
let events: Client<EventsV1Event>;
let counter = 0;
// Whether the server accepts an events.k8s.io Event about a cluster-scoped object in `default`: from
// kubernetes/kubernetes#100125, merged for 1.23 and picked to release-1.20/1.21/1.22 in September 2021
// (#105087, #105088, #105089), so first in 1.20.12, 1.21.6 and 1.22.3. The built-in server reports 1.33.
let acceptsClusterScopedEvents: boolean;
const running: AbortController[] = [];
// Informer runs, awaited before the transport closes.
const cacheRuns: Promise<unknown>[] = [];

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
  namespaces = new Client<Namespace>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
  secrets = new Client<Secret>({
    gvr: { group: '', version: 'v1', resource: 'secrets' },
    kind: 'Secret',
    namespaced: true,
    rest,
  });
  events = new Client<EventsV1Event>({
    gvr: { group: 'events.k8s.io', version: 'v1', resource: 'events' },
    kind: 'Event',
    namespaced: true,
    rest,
  });
  const version = await restTransportFor(rest).requestJson<{ gitVersion?: string }>({
    method: 'GET',
    path: '/version',
  });
  const [minor = 0, patch = 0] = (/^v1\.(\d+)\.(\d+)/.exec(version.gitVersion ?? '') ?? [])
    .slice(1)
    .map(Number);
  const firstPatch: Record<number, number> = { 20: 12, 21: 6, 22: 3 };
  acceptsClusterScopedEvents =
    minor >= 23 || patch >= (firstPatch[minor] ?? Number.POSITIVE_INFINITY);
});

afterAll(async () => {
  for (const stop of running) stop.abort();
  await Promise.allSettled(cacheRuns);
  await env?.stop();
});

async function namespace(): Promise<Namespace> {
  const name = `helpers-${process.pid}-${++counter}`;
  return namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Resolves when `predicate` holds for a call a handler saw; rejects after `deadlineMs` of real time. */
function observer<T>() {
  const waiters: Array<{
    predicate: (key: string, object: T | undefined) => boolean;
    resolve: () => void;
  }> = [];
  return {
    observe(key: string, object: T | undefined): void {
      for (const waiter of [...waiters]) {
        if (!waiter.predicate(key, object)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    until(
      predicate: (key: string, object: T | undefined) => boolean,
      deadlineMs = 15_000,
    ): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('condition not observed in time')),
          deadlineMs,
        );
        waiters.push({
          predicate,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

function sharedControllerFor<T extends KubeObjectLike>(
  client: Client<T>,
  ns: string,
): SharedController<T> {
  let started = false;
  return createSharedController<T>({
    name: `${client.apiVersion}, Resource=${client.gvr.resource}`,
    client,
    logger: noopLogger,
    createController: (handler) => {
      const cache: SharedIndexInformer<T> = createCache(client, {
        namespace: ns,
        resyncMs: 0,
        logger: noopLogger,
      });
      return createController(
        `${client.apiVersion}, Kind=${client.kind}`,
        cache,
        (signal) => {
          if (started) return;
          started = true;
          cacheRuns.push(cache.start(signal).then(() => cache.stopped()));
        },
        handler,
        { logger: noopLogger },
      );
    },
  });
}

function newStop(): AbortController {
  const stop = new AbortController();
  running.push(stop);
  return stop;
}

describe('operator helpers (integration)', () => {
  it('stores controller references the server accepts and refuses a second controller', async () => {
    const ns = (await namespace()).metadata?.name as string;
    const owner = await configMaps.create(ns, { metadata: { name: 'owner' } });
    const owned = await configMaps.create(
      ns,
      setControllerReference(owner, { metadata: { name: 'owned', namespace: ns } }),
    );
    const stored = await configMaps.get(ns, 'owned');
    expect(stored.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'owner',
        uid: owner.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(isControlledBy(stored, owner)).toBe(true);
    expect(ownerKeysOf(stored, { group: '', kind: 'ConfigMap' })).toEqual([`${ns}/owner`]);

    const other = await configMaps.create(ns, { metadata: { name: 'other' } });
    expect(() => setControllerReference(other, owned)).toThrow(AlreadyOwnedError);

    // A cluster-scoped owner of a namespaced object.
    const cluster = await namespace();
    const byNamespace = await configMaps.create(
      ns,
      setControllerReference(cluster, { metadata: { name: 'by-namespace', namespace: ns } }),
    );
    expect(getControllerOf(byNamespace)).toMatchObject({
      kind: 'Namespace',
      uid: cluster.metadata?.uid,
    });
  });

  it('enqueues the owner when an owned object is created and deleted', async () => {
    const ns = (await namespace()).metadata?.name as string;
    const stop = newStop();
    const secretController = sharedControllerFor(secrets, ns);
    const reconciled = observer<Secret>();
    secretController.registerHandler(stop.signal, 'record', (key, secret) =>
      reconciled.observe(key, secret),
    );
    const configMapController = sharedControllerFor(configMaps, ns);
    configMapController.registerHandler(
      stop.signal,
      'enqueue-secret',
      enqueueOwnerHandler<ConfigMap>(secretController, { group: '', kind: 'Secret' }),
    );
    const secret = await secrets.create(ns, { metadata: { name: 'app' } });
    const initial = reconciled.until((key) => key === `${ns}/app`);
    await secretController.start(stop.signal, 1);
    await configMapController.start(stop.signal, 1);
    await initial;

    const onCreate = reconciled.until((key) => key === `${ns}/app`);
    await configMaps.create(
      ns,
      setControllerReference(secret, { metadata: { name: 'child', namespace: ns } }),
    );
    await onCreate;
    const onDelete = reconciled.until((key) => key === `${ns}/app`);
    await configMaps.delete(ns, 'child');
    await onDelete;
    stop.abort();
    await Promise.all([secretController.stopped(), configMapController.stopped()]);
  });

  it('adds a finalizer, runs cleanup on delete and lets the object go', async () => {
    const ns = (await namespace()).metadata?.name as string;
    const stop = newStop();
    const controller = sharedControllerFor(configMaps, ns);
    const cleaned: string[] = [];
    controller.registerHandler(
      stop.signal,
      'cleanup',
      finalizerHandler(controller.client(), 'example.com/cleanup', {
        onRemove: (key) => {
          cleaned.push(key);
        },
      }),
    );
    const seen = observer<ConfigMap>();
    controller.registerHandler(stop.signal, 'observe', (key, configMap) =>
      seen.observe(key, configMap),
    );
    await controller.start(stop.signal, 1);

    const guarded = seen.until(
      (key, configMap) =>
        key === `${ns}/guarded` &&
        configMap?.metadata?.finalizers?.includes('example.com/cleanup') === true,
    );
    await configMaps.create(ns, { metadata: { name: 'guarded' } });
    await guarded;
    expect((await configMaps.get(ns, 'guarded')).metadata?.finalizers).toEqual([
      'example.com/cleanup',
    ]);

    const gone = seen.until((key, configMap) => key === `${ns}/guarded` && configMap === undefined);
    await configMaps.delete(ns, 'guarded');
    await gone;
    expect(cleaned).toEqual([`${ns}/guarded`]);
    await expect(configMaps.get(ns, 'guarded')).rejects.toSatisfy(isNotFound);
    stop.abort();
    await controller.stopped();
  });

  it('records an Event, then its series count at the heartbeat, as the server stores them', async () => {
    const namespaceObject = await namespace();
    const ns = namespaceObject.metadata?.name as string;
    const regarding = await configMaps.create(ns, { metadata: { name: 'subject' } });
    const clock = new FakeClock(Date.now());
    const logger = createTestLogger();
    const recorder = createEventRecorder({
      client: events,
      reportingController: 'example.com/helpers-test',
      reportingInstance: 'helpers-test-1',
      clock,
      logger,
    });
    for (let i = 0; i < 3; i++) {
      recorder.event(regarding, undefined, 'Warning', 'SyncFailed', 'Sync', 'could not sync');
    }
    await recorder.flush();
    let stored = (await events.list(ns)).items;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      type: 'Warning',
      reason: 'SyncFailed',
      action: 'Sync',
      note: 'could not sync',
      reportingController: 'example.com/helpers-test',
      reportingInstance: 'helpers-test-1',
      regarding: {
        kind: 'ConfigMap',
        name: 'subject',
        namespace: ns,
        uid: regarding.metadata?.uid,
      },
    });
    expect(stored[0]?.series).toBeUndefined();
    expect(stored[0]?.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    await clock.advance(30_000);
    await recorder.flush();
    stored = (await events.list(ns)).items;
    expect(stored).toHaveLength(1);
    expect(stored[0]?.series?.count).toBe(3);
    expect(stored[0]?.series?.lastObservedTime).toMatch(/\.\d{6}Z$/);

    await recorder.stop();
    expect(clock.pendingTimers()).toBe(0);
    expect(logger.entries.filter((entry) => entry.level !== 'debug')).toEqual([]);
  });

  it('records an Event about a cluster-scoped object in default (kube-apiserver 1.23, 1.22.3, 1.21.6, 1.20.12; refused and logged before)', async () => {
    const namespaceObject = await namespace();
    const ns = namespaceObject.metadata?.name as string;
    const logger = createTestLogger();
    const recorder = createEventRecorder({
      client: events,
      reportingController: 'example.com/helpers-test',
      reportingInstance: 'helpers-test-1',
      logger,
    });
    recorder.event(namespaceObject, undefined, 'Normal', 'Labelled', 'Label', 'namespace labelled');
    await recorder.flush();
    const inDefault = (await events.list('default')).items.filter(
      (event) => event.regarding?.name === ns,
    );
    await recorder.stop();
    const logged = logger.entries.filter((entry) => entry.level !== 'debug');
    if (acceptsClusterScopedEvents) {
      expect(inDefault).toHaveLength(1);
      expect(logged).toEqual([]);
    } else {
      // Older servers answer 422, which the recorder logs and drops (1.20.2 measured).
      expect(inDefault).toEqual([]);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 'error', message: 'event rejected by the server' });
      expect(String(logged[0]?.attributes?.error)).toContain(
        'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      );
    }
  });
});
