// The controller lifecycle of issue 17 against an API server (the built-in one, or a real kube-apiserver through
// KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG): a stop aborts the client calls given the handler's signal, a
// controller on a process-lifetime informer keeps its queue filled while stopped (warm standby) and runs it on
// the next start, and predicates and the lister work on what the server sends.
import { createCache, type SharedIndexInformer } from '@lasso/cache';
import { Client, type KubeObject, loadKubeConfig, type RestConfig } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createController } from '../../src/controller.ts';
import type { StartCacheFunc } from '../../src/controller-types.ts';
import { labelsChangedPredicate } from '../../src/predicates.ts';
import { createSharedController, type SharedController } from '../../src/shared-controller.ts';

type ConfigMapObject = ConfigMap & KubeObject;

let env: Environment;
let rest: RestConfig;
let counter = 0;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
});

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await env?.stop();
});

async function namespace(): Promise<string> {
  const namespaces = new Client<Namespace>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  const name = `lifecycle-${process.pid}-${++counter}`;
  await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function configMapsClient(): Client<ConfigMapObject> {
  return new Client<ConfigMapObject>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
}

/** Resolves once `condition()` holds after an `notify()`; rejects after `deadlineMs` of real time. */
function signalled() {
  let waiters: Array<() => void> = [];
  return {
    notify(): void {
      const current = waiters;
      waiters = [];
      for (const waiter of current) waiter();
    },
    until(condition: () => boolean, deadlineMs = 15_000): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('condition not reached in time')),
          deadlineMs,
        );
        const check = (): void => {
          if (condition()) {
            clearTimeout(timer);
            resolve();
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
  };
}

/**
 * A shared controller over an informer that runs for the whole test (warm standby: the cache outlives the
 * controller's starts), as a factory with leader election runs it.
 */
function sharedOnLongLivedInformer(
  client: Client<ConfigMapObject>,
  ns: string,
): { shared: SharedController<ConfigMapObject>; informer: SharedIndexInformer<ConfigMapObject> } {
  const informer = createCache(client, { namespace: ns, resyncMs: 0, logger: noopLogger });
  const informerStop = new AbortController();
  let informerRun: Promise<unknown> | undefined;
  const startCache: StartCacheFunc = () => {
    informerRun ??= informer.start(informerStop.signal).then(() => informer.stopped());
  };
  const shared = createSharedController<ConfigMapObject>({
    name: 'v1, Resource=configmaps',
    client,
    logger: noopLogger,
    createController: (handler) =>
      createController('v1, Kind=ConfigMap', informer, startCache, handler, {
        logger: noopLogger,
        gracefulShutdownTimeoutMs: 5_000,
      }),
  });
  cleanups.push(async () => {
    await shared.close();
    informerStop.abort();
    await informerRun;
  });
  return { shared, informer };
}

// Real time: each test awaits up to three conditions of 15 s each; the test timeout is above their sum, so a slow
// machine fails (if at all) with the condition that was not reached rather than a bare timeout.
describe('controller lifecycle (integration)', { timeout: 60_000 }, () => {
  it('aborts the client calls given the handler signal once the controller stops: nothing is written after', async () => {
    const ns = await namespace();
    const configMaps = configMapsClient();
    const { shared } = sharedOnLongLivedInformer(configMaps, ns);
    const progress = signalled();
    let entered = false;
    let writeError: unknown;
    shared.registerHandler(
      new AbortController().signal,
      'late-writer',
      async (_key, configMap, { signal }) => {
        if (configMap === undefined || configMap.data?.written) return;
        entered = true;
        progress.notify();
        // A reconcile that outlives the stop (a paused leader): it only writes after its signal aborted.
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        try {
          await configMaps.update(ns, { ...configMap, data: { written: 'too late' } }, { signal });
        } catch (error) {
          writeError = error;
        }
        progress.notify();
      },
    );
    const stop = new AbortController();
    await shared.start(stop.signal, 1);
    await configMaps.create(ns, { metadata: { name: 'fenced' }, data: { kept: 'yes' } });
    await progress.until(() => entered);
    stop.abort(new Error('leadership lost'));
    await progress.until(() => writeError !== undefined);
    expect(await shared.stopped()).toEqual({ drained: true, pending: [] });
    expect((writeError as Error).message).toMatch(/leadership lost/);
    expect((await configMaps.get(ns, 'fenced')).data).toEqual({ kept: 'yes' });
  });

  it('keeps its queue filled while stopped and runs it on the next start, on the same informer', async () => {
    const ns = await namespace();
    const configMaps = configMapsClient();
    const { shared, informer } = sharedOnLongLivedInformer(configMaps, ns);
    const progress = signalled();
    const seen: string[] = [];
    const forever = new AbortController();
    cleanups.push(() => forever.abort());
    shared.registerHandler(forever.signal, 'record', (key) => {
      seen.push(key);
      progress.notify();
    });
    const first = new AbortController();
    await shared.start(first.signal, 2);
    await configMaps.create(ns, { metadata: { name: 'while-leading' } });
    await progress.until(() => seen.includes(`${ns}/while-leading`));
    first.abort();
    await shared.stopped();
    expect(shared.isRunning()).toBe(false);

    // Standby: the informer still runs, its events go into the queue, nothing is reconciled.
    informer.addEventHandler({ onAdd: () => progress.notify() });
    await configMaps.create(ns, { metadata: { name: 'while-standby' } });
    await progress.until(() => shared.get(ns, 'while-standby') !== undefined);
    expect(seen).not.toContain(`${ns}/while-standby`);
    expect(informer.isRunning()).toBe(true);

    const second = new AbortController();
    cleanups.push(() => second.abort());
    await shared.start(second.signal, 2);
    await progress.until(() => seen.includes(`${ns}/while-standby`));
    expect(seen.filter((key) => key === `${ns}/while-leading`)).toHaveLength(1);
  });

  it('filters informer events by predicate and reads the cache through the lister', async () => {
    const ns = await namespace();
    const configMaps = configMapsClient();
    const { shared } = sharedOnLongLivedInformer(configMaps, ns);
    const progress = signalled();
    const seen: string[] = [];
    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    shared.registerHandler(
      stop.signal,
      'labels',
      (key, configMap) => {
        seen.push(`${key} ${JSON.stringify(configMap?.metadata?.labels ?? null)}`);
        progress.notify();
      },
      { predicates: [labelsChangedPredicate] },
    );
    await shared.start(stop.signal, 1);
    const created = await configMaps.create(ns, {
      metadata: { name: 'web', labels: { app: 'web' } },
      data: { v: '1' },
    });
    await progress.until(() => seen.length === 1);
    // A data-only update: filtered out. Then a label change: let through.
    const dataOnly = await configMaps.update(ns, { ...created, data: { v: '2' } });
    await configMaps.update(ns, {
      ...dataOnly,
      metadata: { ...dataOnly.metadata, labels: { app: 'web', tier: 'front' } },
    });
    await progress.until(() => seen.length === 2);
    expect(seen).toEqual([`${ns}/web {"app":"web"}`, `${ns}/web {"app":"web","tier":"front"}`]);
    expect(shared.get(ns, 'web')?.data).toEqual({ v: '2' });
    expect(shared.list(ns, 'tier=front').map((item) => item.metadata?.name)).toEqual(['web']);
    expect(shared.list(ns, 'tier!=front')).toEqual([]);
  });
});
