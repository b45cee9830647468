// One replica of the leader-election soak: a SharedControllerFactory whose ConfigMap handler runs only while this
// process holds the Lease (`runWithLeaderElection` from @lasso/controller). Every reconcile is appended to a file
// as one JSON line {replica, key, start, end} (wall-clock ms) when it ends, so the soak can look for reconciles of
// two replicas that overlapped even when this process is killed later. Leadership changes go to the parent.
import { appendFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { clientFor, type KubeObject, loadKubeConfig, restTransportFor } from '@lasso/client';
import { runWithLeaderElection } from '@lasso/controller';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { createCountingLogger } from './counting.ts';
import { leaveParent, toParent } from './ipc.ts';
import { leaseTiming } from './kinds.ts';

/** Messages a replica sends (times are wall-clock ms). */
export type ReplicaMessage =
  | { type: 'ready' }
  | { type: 'leading'; identity: string; at: number }
  | { type: 'stopped-leading'; identity: string; at: number }
  | { type: 'failed'; message: string };

async function main(): Promise<void> {
  const [kubeconfigPath, identity, recordPath, namespace] = process.argv.slice(2);
  if (
    kubeconfigPath === undefined ||
    identity === undefined ||
    recordPath === undefined ||
    namespace === undefined
  ) {
    throw new TypeError(
      'replica-process: kubeconfig, identity, record file and namespace are required',
    );
  }
  const config = await loadKubeConfig({ path: kubeconfigPath });
  const transport = restTransportFor(config);
  const factory = createSharedControllerFactoryFromConfig(config, {
    logger: createCountingLogger(),
    defaultWorkers: 2,
  });
  const stop = new AbortController();
  process.once('disconnect', () => stop.abort());
  const configMaps = await factory.forKind<KubeObject>({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
  });
  configMaps.registerHandler(stop.signal, 'soak', async (key, object, context) => {
    if (!key.startsWith(`${namespace}/`)) return object;
    const start = Date.now();
    try {
      // Work that takes a while, as a reconcile calling out would; it ends early when its signal aborts.
      await delay(20 + Math.floor(Math.random() * 80), undefined, {
        signal: context?.signal,
      }).catch(() => {});
    } finally {
      appendFileSync(
        recordPath,
        `${JSON.stringify({ replica: identity, key, start, end: Date.now() })}\n`,
      );
    }
    return object;
  });
  toParent({ type: 'ready' });
  await runWithLeaderElection(
    {
      client: clientFor(transport, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }),
      namespace,
      name: 'soak-leader',
      identity,
      ...leaseTiming,
      signal: stop.signal,
      logger: createCountingLogger(),
    },
    {
      onStartedLeading: async (leading) => {
        toParent({ type: 'leading', identity, at: Date.now() });
        await factory.start(leading, 2);
        await new Promise((resolve) => leading.addEventListener('abort', resolve, { once: true }));
        await configMaps.stopped();
      },
      onStoppedLeading: () => {
        toParent({ type: 'stopped-leading', identity, at: Date.now() });
      },
    },
  );
  // A replica that lost the lease stops (as an operator exits): the soak starts fresh ones.
  stop.abort();
  await configMaps.stopped();
  await factory.sharedCacheFactory().sharedClientFactory().close();
  await transport.close();
  leaveParent();
}

main().catch((error: unknown) => {
  toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  leaveParent();
});
