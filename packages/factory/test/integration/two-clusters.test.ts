// Two factories on two API servers in one process, one metrics provider (lasso's WithContextID): each factory's
// handler, queue and request metrics carry its `ctx`, and each counts only its own cluster's work.
import { clientFor, loadKubeConfig } from '@lasso/client';
import { createTestMetricsProvider } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedControllerFactoryFromConfig } from '../../src/index.ts';
import { Waiter } from './helpers.ts';

let clusters: Environment[] = [];

beforeAll(async () => {
  clusters = await Promise.all([startEnvironment(), startEnvironment()]);
});

afterAll(async () => {
  await Promise.all(clusters.map((cluster) => cluster.stop()));
});

describe('two clusters, one process (contextId)', { timeout: 90_000 }, () => {
  it("labels each factory's metrics with its ctx and counts each cluster's work apart", async () => {
    const metrics = createTestMetricsProvider();
    const waiter = new Waiter();
    const seen = new Map<string, string[]>();
    const hosts = new Map<string, string>();
    const stop = new AbortController();
    const factories = await Promise.all(
      clusters.map(async (cluster, index) => {
        const rest = await loadKubeConfig({ path: cluster.kubeconfigPath });
        const ctx = `cluster-${index}`;
        hosts.set(ctx, new URL(rest.server).host);
        const namespace = `two-clusters-${process.pid}`;
        await clientFor(rest, { apiVersion: 'v1', kind: 'Namespace' }).create(undefined, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: namespace },
        });
        // Cluster i holds i + 1 ConfigMaps.
        const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
        for (let n = 0; n <= index; n++) {
          await configMaps.create(namespace, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `cm-${n}`, namespace },
          });
        }
        const factory = createSharedControllerFactoryFromConfig(rest, {
          contextId: ctx,
          metrics,
          cache: { defaultNamespace: namespace },
        });
        const shared = await factory.forKind<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap' });
        seen.set(ctx, []);
        shared.registerHandler(stop.signal, 'count', (key) => {
          seen.get(ctx)?.push(key);
          waiter.notify();
          return undefined;
        });
        return factory;
      }),
    );
    try {
      for (const factory of factories) await factory.start(stop.signal, 1);
      await waiter.until(
        () => seen.get('cluster-0')?.length === 1 && seen.get('cluster-1')?.length === 2,
        'every ConfigMap of both clusters reconciled',
      );
      const handler = (ctx: string): number =>
        metrics.value('lasso_controller_total_handler_execution', {
          ctx,
          controller_name: '/v1, Resource=configmaps',
          handler_name: 'count',
          has_error: 'false',
        });
      expect([handler('cluster-0'), handler('cluster-1')]).toEqual([1, 2]);
      const adds = (ctx: string): number =>
        metrics.value('workqueue_adds_total', { ctx, name: '/v1, Kind=ConfigMap' });
      expect([adds('cluster-0'), adds('cluster-1')]).toEqual([1, 2]);
      // The clients count too, apart (the namespace and ConfigMap writes above went through other clients).
      const requests = (ctx: string): number =>
        metrics.value('rest_client_requests_total', {
          ctx,
          code: '200',
          method: 'GET',
          host: String(hosts.get(ctx)),
        });
      expect(requests('cluster-0')).toBeGreaterThan(0);
      expect(requests('cluster-1')).toBeGreaterThan(0);
    } finally {
      stop.abort();
      for (const factory of factories) {
        await factory.stopped();
        await factory.close();
      }
    }
  });
});
