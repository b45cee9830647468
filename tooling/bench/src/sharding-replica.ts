// One replica of `pnpm bench:sharding` (sharding.ts), in its own process: a SharedControllerFactory with the
// `sharding` option on the bench's ring, a ConfigMap handler over one namespace. The handler does nothing until the
// parent says `measure`; then it waits `handlerMs` (a reconcile bound by API calls) and every key the replica holds
// is enqueued once: the parent times the drain of that backlog. Reports its owned ranges on every change (wall
// clock, comparable across the bench's processes), and on request its reconciles, objects held, heap and RSS.
import { setTimeout as delay } from 'node:timers/promises';
import { type KubeObject, loadKubeConfig } from '@lasso/client';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { settledHeapUsed } from './measure.ts';
import { ringOwnedRanges, shardingOptions } from './shard-wiring.ts';

/** The replica's settings (one JSON argument). */
export interface ShardBenchReplicaSettings {
  kubeconfigPath: string;
  identity: string;
  ring: string;
  leaseNamespace: string;
  namespace: string;
  workers: number;
  handlerMs: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** What a replica sends. */
export type ShardBenchReplicaMessage =
  | { type: 'ready' }
  | { type: 'own'; at: number; ranges: number[] }
  | { type: 'drained'; at: number; keys: number; reconciles: number }
  | {
      type: 'stats';
      reconciles: number;
      objects: number;
      heapUsed: number;
      rss: number;
    }
  | { type: 'count'; objects: number }
  | { type: 'failed'; message: string };

/** What the parent sends. */
export type ShardBenchReplicaRequest = { type: 'measure' } | { type: 'stats' } | { type: 'count' };

const wallNow = (): number => performance.timeOrigin + performance.now();

function send(message: ShardBenchReplicaMessage): void {
  if (process.connected) process.send?.(message);
}

async function main(): Promise<void> {
  // First thing: a parent that stops this replica while it starts (IPC closed before any await ended) must stop it.
  const stop = new AbortController();
  process.once('disconnect', () => stop.abort());
  if (!process.connected) stop.abort();
  const settings = JSON.parse(process.argv[2] ?? '') as ShardBenchReplicaSettings;
  const config = await loadKubeConfig({ path: settings.kubeconfigPath });
  const factory = createSharedControllerFactoryFromConfig(config, {
    cache: { defaultNamespace: settings.namespace, defaultResyncMs: 0 },
    defaultWorkers: settings.workers,
    ...shardingOptions(settings),
  });
  let measuring = false;
  let reconciles = 0;
  // The backlog being drained: keys enqueued by `measure`, deleted as each is reconciled.
  let backlog: Set<string> | undefined;
  let backlogSize = 0;
  const configMaps = await factory.forKind<KubeObject>({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
  });
  configMaps.registerHandler(stop.signal, 'bench', async (key, object, context) => {
    if (!measuring) return object;
    await delay(settings.handlerMs, undefined, { signal: context?.signal }).catch(() => {});
    reconciles++;
    if (backlog?.delete(key) === true && backlog.size === 0) {
      send({ type: 'drained', at: wallNow(), keys: backlogSize, reconciles });
      backlog = undefined;
    }
    return object;
  });
  let last = '';
  const poll = setInterval(() => {
    const ranges = ringOwnedRanges(factory);
    const text = ranges.join(',');
    if (text === last) return;
    last = text;
    send({ type: 'own', at: wallNow(), ranges });
  }, 20);
  process.on('message', (message: ShardBenchReplicaRequest) => {
    if (message.type === 'measure') {
      measuring = true;
      const keys = configMaps
        .list(settings.namespace)
        .map((object) => `${object.metadata?.namespace}/${object.metadata?.name}`);
      backlog = new Set(keys);
      backlogSize = keys.length;
      if (keys.length === 0) send({ type: 'drained', at: wallNow(), keys: 0, reconciles });
      for (const key of keys) configMaps.enqueueKey(key);
    } else if (message.type === 'count') {
      send({ type: 'count', objects: configMaps.list(settings.namespace).length });
    } else if (message.type === 'stats') {
      const heapUsed = settledHeapUsed();
      send({
        type: 'stats',
        reconciles,
        objects: configMaps.list(settings.namespace).length,
        heapUsed,
        rss: process.memoryUsage().rss,
      });
    }
  });
  try {
    await factory.start(stop.signal, settings.workers);
  } catch (error) {
    // Stopped while it started (start rejects with the abort): a normal stop, closed below.
    if (!stop.signal.aborted) throw error;
  }
  send({ type: 'ready' });
  // (An abort before this point fires no event any more: check first.)
  if (!stop.signal.aborted) {
    await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
  }
  clearInterval(poll);
  await configMaps.stopped();
  await factory.close();
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  // What it started may hold the event loop open: a failed replica ends anyway.
  setTimeout(() => process.exit(1), 5_000).unref();
  if (process.connected) process.disconnect();
});
