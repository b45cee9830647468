// An API server outage against a cache factory of 20 kinds: while the server refuses connections, the informers
// wait on the factory's one health gate instead of each retrying (counted at the undici dispatcher), and once it
// answers again every informer watches again within 5 s. Needs the built-in server's fault API (restart).
import { builtinKinds, Client, RestTransport } from '@lasso/client';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedCacheFactory } from '../../src/shared-cache-factory.ts';
import { createSharedClientFactory } from '../../src/shared-client-factory.ts';
import { collectionOf, isWatchRequest, startCluster, type TestCluster } from './helpers.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const kindCount = 20;
const downMs = 8_000;

describe('an API server outage', () => {
  it('costs a few gate pings, not a retry per informer, and every informer resumes within 5 s', async (context) => {
    const faults = cluster.env.server?.faults;
    if (faults === undefined) {
      context.skip();
      return;
    }
    const namespace = await cluster.namespace('outage');
    const recording = await cluster.recordingConfig();
    const clients = createSharedClientFactory(recording.rest);
    const caches = createSharedCacheFactory(clients, {
      defaultNamespace: namespace,
      defaultResyncMs: 0,
    });
    const stop = new AbortController();
    try {
      const table = Object.entries(builtinKinds).flatMap(([apiVersion, byKind]) =>
        // Every kind that lists and watches (the *Review kinds are create-only).
        Object.keys(byKind)
          .filter((kind) => !kind.endsWith('Review'))
          .map((kind) => {
            const [group, version] = apiVersion.includes('/')
              ? (apiVersion.split('/') as [string, string])
              : ['', apiVersion];
            return { group, version, kind };
          }),
      );
      const resolved = await Promise.allSettled(table.map((gvk) => caches.forKind(gvk)));
      const informers = resolved
        .flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
        .slice(0, kindCount);
      expect(informers.length).toBe(kindCount);
      const configMaps = await caches.forKind({ group: '', version: 'v1', kind: 'ConfigMap' });
      await caches.start(stop.signal);
      const synced = await caches.waitForCacheSync(AbortSignal.timeout(30_000));
      expect([...synced].filter(([, ok]) => !ok).map(([key]) => key)).toEqual([]);

      const before = recording.requests.length;
      const watchedBefore = new Set(
        recording.requests
          .filter((request) => request.method === 'GET' && isWatchRequest(request.path))
          .flatMap((request) => collectionOf(request.path) ?? []),
      );
      // Closes every connection, refuses new ones for downMs, then serves again: resolves once it answers.
      await faults.restart({ downMs });
      const backAt = Date.now();
      const afterBack = recording.requests.length;
      // The gate's pings (0, 0.8, 2.4, 5.6 s, +0..25 %: never more than 4 s apart) and the odd informer that was
      // between requests when the connections broke: 4 measured. Each informer retrying on its own (before the
      // watches waited on the gate) asked 58 times in all.
      const during = afterBack - before;
      expect(during).toBeLessThanOrEqual(10);

      // Every informer watches again within 5 s of the server answering (the gate's next ping comes within 4 s).
      const watchingAgain = (): boolean => {
        const since = new Set(
          recording.requests
            .slice(afterBack)
            .filter((request) => request.method === 'GET' && isWatchRequest(request.path))
            .flatMap((request) => collectionOf(request.path) ?? []),
        );
        return [...watchedBefore].every((collection) => since.has(collection));
      };
      await recording.waiter.until(
        watchingAgain,
        'every informer watching again',
        Math.max(0, 5_000 - (Date.now() - backAt)),
      );
      // And a write made then arrives.
      let seen = false;
      configMaps.addEventHandler({
        onAdd: (object) => {
          if (object.metadata?.name === 'after-outage') seen = true;
          recording.waiter.notify();
        },
      });
      // A transport of its own: the outage closed the pooled connections of the admin's shared one.
      const admin = new RestTransport(cluster.admin);
      try {
        await new Client<ConfigMap>({
          gvr: { group: '', version: 'v1', resource: 'configmaps' },
          kind: 'ConfigMap',
          namespaced: true,
          rest: admin,
        }).create(namespace, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'after-outage', namespace },
        });
      } finally {
        await admin.close();
      }
      await recording.waiter.until(() => seen, 'the write after the outage seen', 5_000);
    } finally {
      stop.abort();
      await caches.stopped();
      await recording.close();
    }
  }, 60_000);
});
