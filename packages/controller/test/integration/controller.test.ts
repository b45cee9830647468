// Controllers against a Kubernetes API server (the built-in one, or a real kube-apiserver through
// KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG): handlers reconcile ConfigMaps and a custom resource with a status
// subresource and a finalizer, through informer events, writes and deletions.
import { createCache } from '@lasso/cache';
import { Client, type KubeObjectLike, loadKubeConfig, type RestConfig } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment, testCrd } from '@lasso/envtest';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createController } from '../../src/controller.ts';
import { createSharedController, type SharedController } from '../../src/shared-controller.ts';

interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { size: number };
  status?: { observedGeneration?: number; phase?: string };
}

const widgetCrd = testCrd({
  group: 'test.lasso.dev',
  statusSubresource: true,
  schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' } } },
      status: {
        type: 'object',
        properties: { observedGeneration: { type: 'integer' }, phase: { type: 'string' } },
      },
    },
  },
});

const finalizer = 'test.lasso.dev/cleanup';

let env: Environment;
let rest: RestConfig;
let counter = 0;
const running: AbortController[] = [];
const closing: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  env = await startEnvironment({ crds: [widgetCrd] });
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
});

afterAll(async () => {
  for (const stop of running) stop.abort();
  // close() releases each controller's queue (its delayed keys' timers) and stops the informer it ran.
  for (const controller of closing) await controller.close();
  await env?.stop();
});

async function namespace(): Promise<string> {
  const namespaces = new Client<Namespace>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  const name = `controller-${process.pid}-${++counter}`;
  await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** Resolves when `predicate` holds for an object a handler was given; rejects after `deadlineMs`. */
function observer<T>() {
  const waiters: Array<{
    predicate: (key: string, object: T | undefined) => boolean;
    resolve: () => void;
  }> = [];
  return {
    observe(key: string, object: T | undefined): void {
      for (const waiter of [...waiters]) {
        if (waiter.predicate(key, object)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
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
): { shared: SharedController<T>; stop: AbortController } {
  const stop = new AbortController();
  running.push(stop);
  const shared = createSharedController<T>({
    name: `${client.apiVersion}, Resource=${client.gvr.resource}`,
    client,
    logger: noopLogger,
    createController: (handler) => {
      const informer = createCache(client, { namespace: ns, resyncMs: 0, logger: noopLogger });
      // No startCache: the controller runs its informer itself.
      return createController(
        `${client.apiVersion}, Kind=${client.kind}`,
        informer,
        undefined,
        handler,
        {
          logger: noopLogger,
        },
      );
    },
  });
  closing.push(shared);
  return { shared, stop };
}

describe('controller (integration)', () => {
  it('reconciles ConfigMaps: every write and delete reaches the handler with the cached state', async () => {
    const ns = await namespace();
    const configMaps = new Client<ConfigMap>({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest,
    });
    const { shared, stop } = sharedControllerFor(configMaps, ns);
    const seen = observer<ConfigMap>();
    shared.registerHandler(stop.signal, 'mirror', async (key, configMap) => {
      seen.observe(key, configMap);
      if (configMap === undefined || configMap.data?.input === undefined) return;
      if (configMap.data.output === configMap.data.input) return;
      // The returned object (with its uid) is what the next handler gets.
      return configMaps.update(ns, {
        ...configMap,
        data: { ...configMap.data, output: configMap.data.input },
      });
    });
    const afterMirror = observer<ConfigMap>();
    shared.registerHandler(stop.signal, 'after-mirror', (key, configMap) => {
      afterMirror.observe(key, configMap);
    });
    await configMaps.create(ns, { metadata: { name: 'before-start' }, data: { input: 'a' } });
    await shared.start(stop.signal, 2);

    await Promise.all([
      seen.until((key, cm) => key === `${ns}/before-start` && cm?.data?.output === 'a'),
      afterMirror.until((key, cm) => key === `${ns}/before-start` && cm?.data?.output === 'a'),
    ]);
    const created = seen.until((key, cm) => key === `${ns}/later` && cm?.data?.output === 'b');
    await configMaps.create(ns, { metadata: { name: 'later' }, data: { input: 'b' } });
    await created;
    expect((await configMaps.get(ns, 'later')).data).toEqual({ input: 'b', output: 'b' });

    const deleted = seen.until((key, cm) => key === `${ns}/later` && cm === undefined);
    await configMaps.delete(ns, 'later');
    await deleted;
    stop.abort();
    expect(await shared.stopped()).toEqual({ drained: true, pending: [] });
    expect(shared.isRunning()).toBe(false);
  });

  it('reconciles a custom resource: finalizer, status, and cleanup before it goes away', async () => {
    const ns = await namespace();
    const widgets = new Client<Widget>({
      gvr: { group: 'test.lasso.dev', version: 'v1', resource: 'widgets' },
      kind: 'Widget',
      namespaced: true,
      rest,
    });
    const { shared, stop } = sharedControllerFor(widgets, ns);
    const cleanedUp: string[] = [];
    const seen = observer<Widget>();
    shared.registerHandler(stop.signal, 'finalizer', async (key, widget) => {
      if (widget === undefined) return;
      const finalizers = widget.metadata?.finalizers ?? [];
      if (widget.metadata?.deletionTimestamp) {
        if (!finalizers.includes(finalizer)) return;
        cleanedUp.push(key);
        return widgets.update(ns, {
          ...widget,
          metadata: { ...widget.metadata, finalizers: finalizers.filter((f) => f !== finalizer) },
        });
      }
      if (finalizers.includes(finalizer)) return;
      return widgets.update(ns, {
        ...widget,
        metadata: { ...widget.metadata, finalizers: [...finalizers, finalizer] },
      });
    });
    shared.registerHandler(stop.signal, 'status', async (key, widget) => {
      seen.observe(key, widget);
      if (widget === undefined || widget.metadata?.deletionTimestamp) return;
      const generation = widget.metadata?.generation ?? 0;
      if (widget.status?.observedGeneration === generation) return;
      return widgets.updateStatus(ns, {
        ...widget,
        status: { observedGeneration: generation, phase: `size-${widget.spec?.size}` },
      });
    });
    await shared.start(stop.signal, 2);

    const ready = seen.until(
      (key, w) =>
        key === `${ns}/w` && w?.status?.phase === 'size-1' && !!w.metadata?.finalizers?.length,
    );
    await widgets.create(ns, {
      apiVersion: 'test.lasso.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 1 },
    });
    await ready;

    const current = await widgets.get(ns, 'w');
    const resized = seen.until((key, w) => key === `${ns}/w` && w?.status?.phase === 'size-3');
    await widgets.update(ns, { ...current, spec: { size: 3 } });
    await resized;
    const stored = await widgets.get(ns, 'w');
    expect(stored.status).toEqual({
      observedGeneration: stored.metadata?.generation,
      phase: 'size-3',
    });
    expect(stored.metadata?.finalizers).toEqual([finalizer]);

    const gone = seen.until((key, w) => key === `${ns}/w` && w === undefined);
    await widgets.delete(ns, 'w');
    await gone;
    expect(cleanedUp).toEqual([`${ns}/w`]);
    await expect(widgets.get(ns, 'w')).rejects.toMatchObject({ status: 404 });
    stop.abort();
    await shared.stopped();
  });
});
