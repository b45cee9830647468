// The outage soak's process under test: a @lasso/factory SharedCacheFactory with 50 kinds in one namespace. It
// reports its request count (its transport's rest_client_requests_total, refused attempts included: while the
// server refuses connections it cannot count them itself) when asked, and when every informer has seen the
// marker object the soak writes once the server answers again. Then it stops everything and must exit on its own.
import { loadKubeConfig } from '@lasso/client';
import { createSharedCacheFactory, createSharedClientFactory } from '@lasso/factory';
import { createCountingLogger, createCountingMetrics } from './counting.ts';
import { leaveParent, toParent } from './ipc.ts';
import { outageKinds, outageMarker } from './kinds.ts';

/** Messages the outage process sends. */
export type OutageMessage =
  | { type: 'synced' }
  /** Requests sent so far (every attempt, refused ones included). */
  | { type: 'requests'; seq: number; total: number }
  /** Wall-clock ms at which the last informer saw its marker. */
  | { type: 'converged'; at: number }
  | {
      type: 'stopped';
      logs: Array<[string, number]>;
      unhandledRejections: string[];
      warnings: string[];
    }
  | { type: 'failed'; message: string };

/** Messages the outage process accepts. */
export type OutageRequest = { type: 'requests'; seq: number } | { type: 'stop' };

async function main(): Promise<void> {
  const [kubeconfigPath, namespace, countText, verbose] = process.argv.slice(2);
  if (kubeconfigPath === undefined || namespace === undefined)
    throw new TypeError('outage-process: kubeconfig path or namespace missing');
  const unhandledRejections: string[] = [];
  const warnings: string[] = [];
  process.on('unhandledRejection', (reason) => unhandledRejections.push(String(reason)));
  process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));
  const config = await loadKubeConfig({ path: kubeconfigPath });
  const logger = createCountingLogger(verbose === 'verbose');
  const metrics = createCountingMetrics();
  const clients = createSharedClientFactory(config, { logger, metrics });
  const caches = createSharedCacheFactory(clients, {
    logger,
    metrics,
    defaultNamespace: namespace,
    defaultResyncMs: 0,
  });
  const kinds = outageKinds(Number(countText ?? 50));
  const waiting = new Set(kinds.map((kind) => kind.name));
  for (const kind of kinds) {
    const informer = await caches.forKind(kind.gvk);
    informer.addEventHandler({
      onAdd: (object) => {
        if (object.metadata?.name !== outageMarker || !waiting.delete(kind.name)) return;
        if (waiting.size === 0) toParent({ type: 'converged', at: Date.now() });
      },
    });
  }
  const stop = new AbortController();
  await caches.start(stop.signal);
  const synced = await caches.waitForCacheSync(AbortSignal.timeout(120_000));
  const unsynced = [...synced].filter(([, ok]) => !ok).map(([key]) => key);
  if (unsynced.length > 0) throw new Error(`not synced: ${unsynced.join(', ')}`);
  toParent({ type: 'synced' });
  process.on('message', (message: OutageRequest) => {
    if (message.type === 'requests') {
      toParent({
        type: 'requests',
        seq: message.seq,
        total: metrics.total('rest_client_requests_total'),
      });
      return;
    }
    stop.abort();
    void (async () => {
      await caches.stopped();
      await caches.close();
      await clients.close();
      toParent({
        type: 'stopped',
        logs: [...logger.counts].sort((a, b) => b[1] - a[1]).slice(0, 8),
        unhandledRejections,
        warnings,
      });
      leaveParent();
    })();
  });
}

main().catch((error: unknown) => {
  toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  leaveParent();
});
