// The README's example (lasso's "How to use Lasso"), run against the API server: a Deployments handler that
// reads the cache, updates the object and returns it. Keep it in step with README.md's ## Example.
import { Client, type KubeObjectLike } from '@lasso/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindFor } from '../../src/kind.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import { deployment, startCluster, type TestCluster, Waiter } from './helpers.ts';

describe('the README example', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('annotates each Deployment once through a handler that reads the cache and returns the update', async () => {
    const namespace = await cluster.namespace('readme');
    const recording = await cluster.recordingConfig();
    // As the README, but watching one namespace: against an existing cluster it must not touch others.
    const factory = createSharedControllerFactoryFromConfig(recording.rest, {
      cache: { defaultNamespace: namespace },
    });
    const deployments = await factory.forKind(kindFor('apps/v1', 'Deployment'));
    const stop = new AbortController(); // the README's createShutdownSignal().signal
    const seen: Array<{ key: string; annotated: boolean; cachedVersion: string | undefined }> = [];
    const waiter = new Waiter();
    try {
      deployments.registerHandler(stop.signal, 'annotate', async (key, deployment, context) => {
        if (deployment === undefined) return undefined; // deleted
        const cached = deployments.get(
          deployment.metadata?.namespace ?? '',
          deployment.metadata?.name ?? '',
        );
        const annotated = cached?.metadata?.annotations?.['example.com/seen'] === 'true';
        seen.push({ key, annotated, cachedVersion: cached?.metadata?.resourceVersion });
        waiter.notify();
        if (annotated) return deployment;
        return deployments.client().update(
          deployment.metadata?.namespace,
          {
            ...deployment,
            metadata: {
              ...deployment.metadata,
              annotations: { ...deployment.metadata?.annotations, 'example.com/seen': 'true' },
            },
          },
          { signal: context.signal },
        );
      });
      // The second argument is the number of workers of EACH controller.
      await factory.start(stop.signal, 5);

      const admin = new Client<KubeObjectLike>({
        gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
        kind: 'Deployment',
        namespaced: true,
        rest: cluster.admin,
      });
      await admin.create(namespace, deployment('web', namespace));
      await waiter.until(
        () => seen.some((call) => call.annotated),
        'the handler to see its own update in the cache',
      );
      const stored = await admin.get(namespace, 'web');
      expect(stored.metadata?.annotations?.['example.com/seen']).toBe('true');
      const calls = seen.filter((call) => call.key === `${namespace}/web`);
      // First the created object, then the handler's own update came back through the cache.
      expect(calls[0]?.annotated).toBe(false);
      expect(calls.at(-1)?.annotated).toBe(true);
    } finally {
      stop.abort();
      expect(await factory.stopped()).toEqual({ drained: true, pending: [] });
      await factory.close();
      await recording.close();
    }
  });
});
