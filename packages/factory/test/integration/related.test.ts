// A related-resource watch against an API server: a Secret that names a ConfigMap in an annotation reconciles that
// ConfigMap when the Secret changes, when it is re-pointed (both the old and the new target), and when it is deleted.
import { clientFor } from '@lasso/client';
import { enqueueRelatedHandler } from '@lasso/controller';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedControllerFactoryFromConfig } from '../../src/index.ts';
import { startCluster, type TestCluster, Waiter } from './helpers.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

describe('related-resource watch (EnqueueRequestsFromMapFunc)', { timeout: 60_000 }, () => {
  it('reconciles the ConfigMaps a Secret points to, before and after it is re-pointed, and on its deletion', async () => {
    const namespace = await cluster.namespace('related');
    const factory = createSharedControllerFactoryFromConfig(cluster.admin, {
      cache: { defaultNamespace: namespace },
    });
    const stop = new AbortController();
    try {
      const configMaps = await factory.forKind<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap' });
      const secrets = await factory.forKind<Secret>({ apiVersion: 'v1', kind: 'Secret' });
      const waiter = new Waiter();
      const reconciled: string[] = [];
      configMaps.registerHandler(stop.signal, 'record', (key) => {
        reconciled.push(key);
        waiter.notify();
        return undefined;
      });
      secrets.registerHandler(
        stop.signal,
        'enqueue-configmap',
        enqueueRelatedHandler<Secret>(configMaps, (_key, secret) => {
          const target = secret?.metadata?.annotations?.['example.com/config'];
          return target === undefined ? [] : [{ namespace, name: target }];
        }),
      );
      await factory.start(stop.signal, 1);
      await factory.whenSynced({ signal: AbortSignal.timeout(20_000) });

      const admin = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'Secret' });
      const count = (key: string): number => reconciled.filter((seen) => seen === key).length;
      const a = `${namespace}/a`;
      const b = `${namespace}/b`;
      await admin.create(namespace, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace, annotations: { 'example.com/config': 'a' } },
      });
      await waiter.until(() => count(a) === 1, 'the first target reconciled');
      const current = await admin.get(namespace, 's');
      await admin.update(namespace, {
        ...current,
        metadata: { ...current.metadata, annotations: { 'example.com/config': 'b' } },
      });
      await waiter.until(() => count(b) === 1 && count(a) === 2, 'the new and the old target');
      await admin.delete(namespace, 's');
      await waiter.until(() => count(b) === 2, 'the last target on deletion');
      expect(count(a)).toBe(2);
    } finally {
      stop.abort();
      await factory.stopped();
      await factory.close();
    }
  });
});
