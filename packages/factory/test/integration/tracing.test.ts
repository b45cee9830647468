// A factory's tracerProvider reaches its controllers (a span per reconcile) and, from a config, its clients (a
// span per request), against an API server. A recording provider stands for the OpenTelemetry SDK.
import type { TracerProvider } from '@lasso/core';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
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

function recordingProvider(ended: string[], waiter: Waiter): TracerProvider {
  return {
    getTracer: () => ({
      startSpan: (name) => ({
        setAttribute: () => undefined,
        setStatus: () => undefined,
        recordException: () => {},
        spanContext: () => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }),
        isRecording: () => true,
        end: () => {
          ended.push(name);
          waiter.notify();
        },
      }),
    }),
  };
}

describe('tracerProvider on the controller factory', { timeout: 60_000 }, () => {
  it('traces every reconcile and the requests of the factory built from a config', async () => {
    const namespace = await cluster.namespace('traced');
    const ended: string[] = [];
    const waiter = new Waiter();
    const factory = createSharedControllerFactoryFromConfig(cluster.admin, {
      tracerProvider: recordingProvider(ended, waiter),
      cache: { defaultNamespace: namespace },
    });
    const stop = new AbortController();
    try {
      const configMaps = await factory.forKind<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap' });
      configMaps.registerHandler(stop.signal, 'read', async (_key, object, context) => {
        if (object?.metadata?.name !== undefined) {
          await configMaps
            .client()
            .get(namespace, object.metadata.name, { signal: context.signal });
        }
        return undefined;
      });
      await factory.start(stop.signal, 1);
      await configMaps.client().create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'traced', namespace },
      });
      await waiter.until(
        () => ended.some((name) => name.startsWith('reconcile')),
        'a reconcile span',
      );
      // The lists, the watch, the create and the handler's get were traced too.
      expect(ended.filter((name) => !name.startsWith('reconcile')).length).toBeGreaterThan(1);
    } finally {
      stop.abort();
      await factory.stopped();
      await factory.close();
    }
  });
});
