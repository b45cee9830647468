// A controller from @lasso/controller over a SQL-backed informer (SqlCacheFactory.informerFor), against an API
// server: the built-in one from startEnvironment, or a real kube-apiserver (KUBEBUILDER_ASSETS /
// LASSO_TEST_KUBECONFIG).
import { Client, type KubeObject, loadKubeConfig, type RestConfig } from '@lasso/client';
import { type Controller, createController } from '@lasso/controller';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSqlCacheFactory,
  type SqlCacheFactory,
  type SqlInformerCache,
} from '../../src/index.ts';

type ConfigMap = KubeObject & { data?: Record<string, string> };

let env: Environment;
let rest: RestConfig;
let configMaps: Client<ConfigMap>;
let factory: SqlCacheFactory;
let cache: SqlInformerCache<ConfigMap>;
let controller: Controller<ConfigMap>;
const stop = new AbortController();
const namespace = `sqlcache-informer-${process.pid}`;

/** What the handler was called with, in order: `key` and the object's `data` (`undefined` once deleted). */
const calls: Array<{ key: string; data: Record<string, string> | undefined }> = [];
const waiters = new Set<() => void>();

/** Resolves once a handler call satisfies `predicate` (one already made counts); rejects after 30 s. */
function handled(predicate: (call: (typeof calls)[number]) => boolean): Promise<void> {
  if (calls.some(predicate)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const deadline = AbortSignal.timeout(30_000);
    const check = (): void => {
      if (!calls.some(predicate)) return;
      waiters.delete(check);
      resolve();
    };
    waiters.add(check);
    deadline.addEventListener('abort', () => {
      waiters.delete(check);
      reject(new Error(`no handler call matched within 30 s; calls: ${JSON.stringify(calls)}`));
    });
  });
}

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
  configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
  const namespaces = new Client({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  await namespaces.create(undefined, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  await configMaps.create(namespace, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'before-start' },
    data: { mode: 'on' },
  });
  factory = createSqlCacheFactory({ logger: noopLogger });
  cache = factory.informerFor(configMaps, { namespace, fields: ['data.mode', 'data.seen'] });
  // The handler marks every ConfigMap it sees with data.seen = "yes": a write the informer then brings back.
  controller = createController(
    'sql-configmaps',
    cache.informer,
    (signal) => factory.start(signal),
    async (key, configMap, { signal }) => {
      calls.push({ key, data: configMap?.data });
      for (const check of [...waiters]) check();
      if (configMap === undefined || configMap.data?.seen === 'yes') return;
      await configMaps.update(
        namespace,
        { ...configMap, data: { ...configMap.data, seen: 'yes' } },
        { signal },
      );
    },
    { logger: noopLogger },
  );
  await controller.start(stop.signal, 2);
}, 60_000);

afterAll(async () => {
  stop.abort();
  await controller?.stopped();
  await controller?.close();
  await factory?.stopped();
  await factory?.close();
  await env?.stop();
}, 60_000);

// Each wait below is bounded at 30 s; the tests' timeout stays above it (vitest's default of 10 s would cut a
// wait short on a loaded CI machine and fail without saying what was awaited).
describe('a controller over a SQL-backed informer', () => {
  it('reconciles the objects of the initial list from the SQL store', async () => {
    expect(cache.hasSynced()).toBe(true);
    await handled((call) => call.key === `${namespace}/before-start` && call.data?.seen === 'yes');
    // The handler's own write came back through the informer into the SQL tables.
    const page = cache.list({
      partitions: [{ passthrough: true }],
      filters: [[{ field: 'data.seen', op: '=', values: ['yes'] }]],
    });
    expect(page.items.map((object) => object.metadata?.name)).toEqual(['before-start']);
  }, 60_000);

  it('reconciles created, updated and deleted objects, and reads them through the lister', async () => {
    await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'created' },
      data: { mode: 'off' },
    });
    await handled((call) => call.key === `${namespace}/created` && call.data?.seen === 'yes');
    const stored = controller.informer().getStore().getByKey(`${namespace}/created`);
    expect(stored?.data).toEqual({ mode: 'off', seen: 'yes' });

    await configMaps.update(namespace, {
      ...(stored as ConfigMap),
      data: { mode: 'on', seen: 'yes' },
    });
    await handled((call) => call.key === `${namespace}/created` && call.data?.mode === 'on');
    expect(
      cache
        .list({
          partitions: [{ passthrough: true }],
          filters: [[{ field: 'data.mode', op: '=', values: ['on'] }]],
        })
        .items.map((object) => object.metadata?.name)
        .sort(),
    ).toEqual(['before-start', 'created']);

    await configMaps.delete(namespace, 'created');
    await handled((call) => call.key === `${namespace}/created` && call.data === undefined);
    expect(cache.store.getByKey(`${namespace}/created`)).toBeUndefined();
  }, 60_000);
});
