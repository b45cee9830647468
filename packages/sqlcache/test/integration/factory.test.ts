// The factory against an API server: the built-in one from startEnvironment, or a real kube-apiserver
// (KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG).
import { Client, type KubeObject, loadKubeConfig, type RestConfig } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlCacheFactory, type SqlCacheFactory } from '../../src/index.ts';

let env: Environment;
let rest: RestConfig;
let configMaps: Client;
let secrets: Client;
let factory: SqlCacheFactory;
const run = new AbortController();
const prefix = `sqlcache-${process.pid}`;
const namespaceNames = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
  const client = (resource: string, kind: string, namespaced: boolean) =>
    new Client({ gvr: { group: '', version: 'v1', resource }, kind, namespaced, rest });
  configMaps = client('configmaps', 'ConfigMap', true);
  secrets = client('secrets', 'Secret', true);
  const namespaces = client('namespaces', 'Namespace', false);
  for (const name of namespaceNames) {
    await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    for (let i = 0; i < 5; i++) {
      await configMaps.create(name, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, labels: { tier: i % 2 === 0 ? 'even' : 'odd' } },
        data: { index: String(i) },
      });
    }
  }
  await secrets.create(namespaceNames[0], {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'token' },
    stringData: { token: 'integration-secret-value' },
  });
  factory = createSqlCacheFactory({ logger: noopLogger });
  await factory.start(run.signal);
}, 60_000);

afterAll(async () => {
  run.abort();
  await factory?.stopped();
  await factory?.close();
  await env?.stop();
}, 60_000);

// Each wait below is bounded at 30 s; the tests' timeout stays above it (vitest's default of 10 s would cut a
// wait short on a loaded CI machine and fail without saying what was awaited).
describe('SqlCacheFactory on an API server', () => {
  it('lists a filtered, sorted, paginated page across the namespaces of a partition', async () => {
    const cache = await factory.cacheFor(configMaps, {
      fields: ['data.index'],
      signal: AbortSignal.timeout(30_000),
    });
    const options = {
      filters: [[{ field: 'metadata.labels[tier]', op: '=' as const, values: ['even'] }]],
      sort: [{ field: 'data.index', order: 'desc' as const }, { field: 'metadata.namespace' }],
      partitions: [
        { namespace: namespaceNames[0] as string, all: true },
        { namespace: namespaceNames[2] as string, all: true },
      ],
      pageSize: 4,
    };
    const first = cache.list(options);
    expect(first.total).toBe(6);
    const second = cache.list({ ...options, continue: first.continue });
    expect(second.continue).toBeUndefined();
    expect(
      [...first.items, ...second.items].map(
        (o) => `${o.metadata?.namespace?.slice(-1)}/${o.metadata?.name}`,
      ),
    ).toEqual(['a/cm-4', 'c/cm-4', 'a/cm-2', 'c/cm-2', 'a/cm-0', 'c/cm-0']);
    expect(first.items[0]?.metadata?.managedFields).toBeUndefined();
  }, 60_000);

  it('follows writes: a list waits for the cache to reflect the write it reads after', async () => {
    const cache = await factory.cacheFor(configMaps, { signal: AbortSignal.timeout(30_000) });
    const created = await configMaps.create(namespaceNames[1], {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'late', labels: { tier: 'even' } },
      data: { index: '9' },
    });
    const resourceVersion = created.metadata?.resourceVersion as string;
    await cache.whenResourceVersion(resourceVersion, AbortSignal.timeout(30_000));
    expect(
      cache
        .list({ resourceVersion, partitions: [{ passthrough: true }] })
        .items.map((o) => o.metadata?.name),
    ).toContain('late');
    await configMaps.delete(namespaceNames[1], 'late');
    const after = await configMaps.create(namespaceNames[1], {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'marker' },
    });
    await cache.whenResourceVersion(
      after.metadata?.resourceVersion as string,
      AbortSignal.timeout(30_000),
    );
    expect(cache.store.getByKey(`${namespaceNames[1]}/late`)).toBeUndefined();
  }, 60_000);

  it("watches the cache from a list's resourceVersion: the server's writes, with its resourceVersions", async () => {
    const cache = await factory.cacheFor(configMaps, { signal: AbortSignal.timeout(30_000) });
    const namespace = namespaceNames[2] as string;
    const listed = cache.list({ partitions: [{ namespace, all: true }] });
    const stop = AbortSignal.timeout(30_000);
    const events = cache
      .watch({ resourceVersion: listed.resourceVersion, namespace, signal: stop })
      [Symbol.asyncIterator]();
    // A write to another namespace is filtered out.
    await configMaps.create(namespaceNames[0], {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'elsewhere' },
    });
    const created = await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'watched' },
      data: { v: '1' },
    });
    const updated = await configMaps.update(namespace, { ...created, data: { v: '2' } });
    await configMaps.delete(namespace, 'watched');
    const seen: [string, string | undefined, string | undefined][] = [];
    while (seen.length < 3) {
      const next = await events.next();
      if (next.done) throw new Error('the watch ended before three events');
      seen.push([
        next.value.type,
        next.value.object.metadata?.name,
        next.value.object.metadata?.resourceVersion,
      ]);
    }
    expect(seen.slice(0, 2)).toEqual([
      ['ADDED', 'watched', created.metadata?.resourceVersion],
      ['MODIFIED', 'watched', updated.metadata?.resourceVersion],
    ]);
    expect(seen[2]?.slice(0, 2)).toEqual(['DELETED', 'watched']);
    await events.return?.();
  }, 60_000);

  it('caches Secrets encrypted and reads them back', async () => {
    const cache = await factory.cacheFor(secrets, { signal: AbortSignal.timeout(30_000) });
    const secret = cache.store.getByKey(`${namespaceNames[0]}/token`) as KubeObject & {
      data?: Record<string, string>;
    };
    expect(Buffer.from(secret.data?.token ?? '', 'base64').toString()).toBe(
      'integration-secret-value',
    );
    await factory.stopKind(cache.gvk);
    expect(factory.kinds()).not.toContain('v1, Kind=Secret');
  }, 60_000);
});
