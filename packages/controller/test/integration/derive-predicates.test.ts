// The derive controller of issue 27 on a Kubernetes API server (the built-in one, or a real kube-apiserver
// through KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG): labelled ConfigMaps get an owned, upper-cased copy of the
// same kind, recreated when deleted; the label selector is given once and the copies are owned through
// createOrUpdate's owner option.
import { createCache, type SharedIndexInformer } from '@lasso/cache';
import { Client, loadKubeConfig, type RestConfig } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createController } from '../../src/controller.ts';
import { createOrUpdate } from '../../src/create-or-update.ts';
import { enqueueOwnerHandler } from '../../src/owner-handler.ts';
import { labelSelectorPredicate } from '../../src/predicates.ts';
import { createSharedController } from '../../src/shared-controller.ts';

let env: Environment;
let rest: RestConfig;
let configMaps: Client<ConfigMap>;
let ns: string;
const stop = new AbortController();
let cacheRun: Promise<unknown> | undefined;

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
  configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
  const namespaces = new Client<Namespace>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  ns = `derive-${process.pid}`;
  await namespaces.create(undefined, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
}, 60_000);

afterAll(async () => {
  stop.abort();
  await cacheRun?.catch(() => {});
  await env?.stop();
});

/** Resolves once `check` holds after a reconcile; rejects after `deadlineMs`. */
function waiter() {
  const waiting: Array<{ check: () => Promise<boolean>; resolve: () => void }> = [];
  return {
    async reconciled(): Promise<void> {
      for (const entry of [...waiting]) {
        if (await entry.check().catch(() => false)) {
          waiting.splice(waiting.indexOf(entry), 1);
          entry.resolve();
        }
      }
    },
    until(check: () => Promise<boolean>, deadlineMs = 15_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('not observed in time')), deadlineMs);
        waiting.push({
          check,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

describe('the derive controller', () => {
  it('copies labelled sources, recreates a deleted copy, and never reconciles other ConfigMaps', async () => {
    const shared = createSharedController<ConfigMap>({
      name: 'v1, Resource=configmaps',
      client: configMaps,
      logger: noopLogger,
      createController: (handler) => {
        const cache: SharedIndexInformer<ConfigMap> = createCache(configMaps, {
          namespace: ns,
          logger: noopLogger,
        });
        return createController(
          'v1, Kind=ConfigMap',
          cache,
          (signal) => {
            cacheRun ??= cache.start(signal).then(() => cache.stopped());
          },
          handler,
          { logger: noopLogger },
        );
      },
    });
    const reconciled: string[] = [];
    const done = waiter();
    const sources = shared.withPredicates([labelSelectorPredicate('example.com/derive=true')]);
    sources.registerHandler(
      stop.signal,
      'derive-owner',
      enqueueOwnerHandler(sources, { group: '', kind: 'ConfigMap' }),
    );
    sources.registerHandler(stop.signal, 'derive', async (key, source, context) => {
      reconciled.push(key);
      try {
        if (source?.metadata?.labels?.['example.com/derive'] !== 'true') return;
        await createOrUpdate(
          configMaps,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { namespace: ns, name: `${source.metadata.name}-derived` },
          },
          (copy) => {
            copy.data = Object.fromEntries(
              Object.entries(source.data ?? {}).map(([k, v]) => [k, v.toUpperCase()]),
            );
          },
          { signal: context.signal, owner: source },
        );
      } finally {
        await done.reconciled();
      }
    });
    await shared.start(stop.signal, 1);

    const copyData = async () => (await configMaps.get(ns, 'app-derived')).data?.greeting;
    const copied = done.until(async () => (await copyData()) === 'HELLO');
    await configMaps.create(ns, { metadata: { name: 'unrelated' }, data: { a: 'b' } });
    const source = await configMaps.create(ns, {
      metadata: { name: 'app', labels: { 'example.com/derive': 'true' } },
      data: { greeting: 'hello' },
    });
    await copied;
    const copy = await configMaps.get(ns, 'app-derived');
    expect(copy.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'ConfigMap',
        name: 'app',
        uid: source.metadata?.uid,
        controller: true,
      }),
    ]);

    // Deleting the copy enqueues its source (through the owner handler), which writes it again.
    const recreated = done.until(
      async () => (await configMaps.get(ns, 'app-derived')).metadata?.uid !== copy.metadata?.uid,
    );
    await configMaps.delete(ns, 'app-derived');
    await recreated;
    expect(await copyData()).toBe('HELLO');
    // The unlabelled, unowned ConfigMap never passed a predicate.
    expect(reconciled).not.toContain(`${ns}/unrelated`);
    await shared.close();
  }, 60_000);
});
