// One replica of the sharded soak: a SharedControllerFactory with the `sharding` option on one ring, handlers on
// Widgets (the primary kind, hashed by uid, filtered server-side) and on ConfigMaps each owned by a Widget (hashed
// by the owner's uid, filtered client-side), plus the owner handler that enqueues a ConfigMap's Widget. Every
// handler start and end and every change of the owned ranges is appended to this replica's log file
// (shard-log.ts). It leaves the ring (releasing its ranges) and exits when the soak disconnects.
import { setTimeout as delay } from 'node:timers/promises';
import { type KubeObject, loadKubeConfig } from '@lasso/client';
import { enqueueOwnerHandler } from '@lasso/controller';
import { shardHashSource } from '@lasso/core/sharding';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { createCountingLogger } from './counting.ts';
import { leaveParent, toParent } from './ipc.ts';
import { seededRandom } from './random.ts';
import { ShardLogWriter } from './shard-log.ts';
import { ringOwnedRanges, shardingOptions } from './shard-wiring.ts';

/** Messages a sharded replica sends. */
export type ShardReplicaMessage =
  | { type: 'ready' }
  | { type: 'stopped'; calls: number; warnings: Record<string, number> }
  | { type: 'failed'; message: string };

/** The replica's settings, passed as one JSON argument. */
export interface ShardReplicaSettings {
  kubeconfigPath: string;
  identity: string;
  logPath: string;
  ring: string;
  leaseNamespace: string;
  /** Namespaces whose objects the handlers log (the factory watches all). */
  namespaces: string[];
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  workers: number;
  seed: number;
  /** Handler work, ms: a random wait in [min, max] that ends early when its signal aborts. */
  workMinMs: number;
  workMaxMs: number;
  /** Print the factory's warnings and errors (with timestamps) to stderr. */
  verbose: boolean;
}

async function main(): Promise<void> {
  // First thing: a soak that stops this replica while it starts (IPC closed before any await ended) must stop it.
  const stop = new AbortController();
  process.once('disconnect', () => stop.abort());
  if (!process.connected) stop.abort();
  const settings = JSON.parse(process.argv[2] ?? '') as ShardReplicaSettings;
  const random = seededRandom(settings.seed);
  const log = new ShardLogWriter(settings.logPath, settings.identity);
  const logger = createCountingLogger(settings.verbose, `${settings.identity} `);
  const config = await loadKubeConfig({ path: settings.kubeconfigPath });
  const factory = createSharedControllerFactoryFromConfig(config, {
    logger,
    defaultWorkers: settings.workers,
    ...shardingOptions(settings),
  });
  const inNamespaces = new Set(settings.namespaces);
  let calls = 0;
  const handle =
    (kind: string, byOwner: boolean) =>
    async (
      key: string,
      object: KubeObject | undefined,
      context?: { signal?: AbortSignal },
    ): Promise<KubeObject | undefined> => {
      const namespace = key.split('/')[0] ?? '';
      if (!inNamespaces.has(namespace)) return object;
      calls++;
      const n = log.start(
        `${kind}:${key}`,
        object === undefined ? null : shardHashSource(object, 'object.metadata.uid', { byOwner }),
        object?.metadata?.resourceVersion ?? null,
      );
      let aborted = false;
      try {
        // A reconcile bound by API calls: it waits, and ends early when its signal aborts (a hand-off, the fence).
        await delay(random.int(settings.workMinMs, settings.workMaxMs), undefined, {
          signal: context?.signal,
        });
      } catch {
        aborted = true;
      } finally {
        log.end(n, aborted || context?.signal?.aborted === true);
      }
      return object;
    };
  const widgets = await factory.forKind<KubeObject>({
    group: 'soak.lasso.dev',
    version: 'v1',
    kind: 'Widget',
  });
  const configMaps = await factory.forKind<KubeObject>({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
  });
  widgets.registerHandler(stop.signal, 'soak-widget', handle('Widget', false));
  configMaps.registerHandler(stop.signal, 'soak-configmap', handle('ConfigMap', true));
  configMaps.registerHandler(
    stop.signal,
    'soak-owner',
    enqueueOwnerHandler(widgets, { kind: 'Widget', group: 'soak.lasso.dev' }),
  );
  // The owned ranges, logged on every change (polled: the log needs the time each change became visible).
  let last = '';
  const logOwned = (): void => {
    const ranges = ringOwnedRanges(factory);
    const text = ranges.join(',');
    if (text === last) return;
    last = text;
    log.owned(ranges);
  };
  const poll = setInterval(logOwned, 20);
  try {
    await factory.start(stop.signal, settings.workers);
  } catch (error) {
    // Stopped while it started (start rejects with the abort): a normal stop, closed below.
    if (!stop.signal.aborted) throw error;
  }
  toParent({ type: 'ready' });
  // (An abort before this point fires no event any more: check first.)
  if (!stop.signal.aborted) {
    await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
  }
  if (settings.verbose) {
    process.stderr.write(`${new Date().toISOString()} ${settings.identity} stopping\n`);
  }
  await Promise.all([widgets.stopped(), configMaps.stopped()]);
  await factory.close();
  clearInterval(poll);
  logOwned();
  if (last !== '') log.owned([]);
  log.close();
  const warnings: Record<string, number> = {};
  for (const [key, count] of logger.counts) if (!key.startsWith('info ')) warnings[key] = count;
  toParent({ type: 'stopped', calls, warnings });
  leaveParent();
}

main().catch((error: unknown) => {
  toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  // What it started may hold the event loop open: a failed replica ends anyway.
  setTimeout(() => process.exit(1), 5_000).unref();
  leaveParent();
});
