// The soak's process under test: a @lasso/factory SharedControllerFactory with a handler on ConfigMaps and one on
// Widgets (2 workers each). It checks while it runs that no key is reconciled by two workers at once, measures the
// write-to-handler lag, and once the soak goes quiet waits until every store equals the server and every key's
// last handler call saw its final state. Then it reports, stops everything it started and must exit on its own.
import { setTimeout as delay } from 'node:timers/promises';
import { Client, type KubeObject, loadKubeConfig, restTransportFor } from '@lasso/client';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { createCountingLogger, createCountingMetrics } from './counting.ts';
import { leaveParent, toParent } from './ipc.ts';
import { type SoakKind, soakKinds, writtenAtKey } from './kinds.ts';
import { seededRandom } from './random.ts';

/** Messages the consumer sends. */
export type ConsumerMessage =
  | { type: 'synced'; heapMiB: number }
  | { type: 'result'; result: ConsumerResult }
  | { type: 'failed'; message: string };

/** Messages the consumer accepts: the wall-clock ms at which faults and writes stopped. */
export type ConsumerRequest = { type: 'quiet'; at: number; timeoutMs: number };

/** What the consumer measured and checked. */
export interface ConsumerResult {
  handlerCalls: number;
  events: { added: number; updated: number; deleted: number };
  concurrentReconciles: number;
  concurrentExamples: string[];
  lagsMs: number[];
  /** Per kind: ms from quiet to store == server and to every handler having seen the final state; -1 never. */
  convergence: Record<string, { storeMs: number; handlersMs: number }>;
  /** Per kind: the longest time without an informer event while the writers were writing (ms). */
  longestSilenceMs: Record<string, number>;
  /** Differences left at the end (empty when converged). */
  differences: string[];
  heapBaselineMiB: number;
  heapEndMiB: number;
  metrics: Record<string, number>;
  logs: Array<[string, number]>;
  unhandledRejections: string[];
  warnings: string[];
}

const deleted = '(deleted)';

async function main(): Promise<void> {
  const [kubeconfigPath, seedText, verbose] = process.argv.slice(2);
  if (kubeconfigPath === undefined)
    throw new TypeError('consumer-process: kubeconfig path missing');
  const unhandledRejections: string[] = [];
  const warnings: string[] = [];
  process.on('unhandledRejection', (reason) => unhandledRejections.push(String(reason)));
  process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));
  const random = seededRandom(Number(seedText ?? 1));
  const config = await loadKubeConfig({ path: kubeconfigPath });
  const logger = createCountingLogger(verbose === 'verbose');
  const metrics = createCountingMetrics();
  const factory = createSharedControllerFactoryFromConfig(config, {
    logger,
    metrics,
    defaultWorkers: 2,
  });
  const stop = new AbortController();
  const active = new Set<string>();
  const lastSeen = new Map<string, string>();
  const lagsMs: number[] = [];
  const concurrentExamples: string[] = [];
  const events = { added: 0, updated: 0, deleted: 0 };
  let concurrentReconciles = 0;
  let handlerCalls = 0;
  const controllers = [];
  // The longest gap between two informer events of a kind while the soak was not quiet: writers write every kind
  // many times a second, so a long gap is an informer that stalled while the server answered writes.
  const lastEventAt = new Map<string, number>();
  const longestSilenceMs: Record<string, number> = {};
  let quiet = false;
  const sawEvent = (kind: string): void => {
    const now = Date.now();
    const last = lastEventAt.get(kind);
    if (!quiet && last !== undefined)
      longestSilenceMs[kind] = Math.max(longestSilenceMs[kind] ?? 0, now - last);
    lastEventAt.set(kind, now);
  };
  for (const kind of soakKinds) {
    const controller = await factory.forKind<KubeObject>(kind.gvk);
    controller.registerHandler(stop.signal, 'soak', async (key, object) => {
      const id = `${kind.name} ${key}`;
      if (active.has(id)) {
        concurrentReconciles++;
        if (concurrentExamples.length < 5) concurrentExamples.push(id);
      }
      active.add(id);
      try {
        handlerCalls++;
        const resourceVersion = object?.metadata?.resourceVersion ?? deleted;
        if (object !== undefined && lastSeen.get(id) !== resourceVersion) {
          const payload = (object as Record<string, unknown>)[kind.field] as
            | Record<string, unknown>
            | undefined;
          const writtenAt = Number(payload?.[writtenAtKey]);
          if (Number.isFinite(writtenAt)) lagsMs.push(Date.now() - writtenAt);
        }
        lastSeen.set(id, resourceVersion);
        // Give another worker the chance to pick the same key while this one is in flight.
        if (random() < 0.3) await delay(random.int(0, 3));
      } finally {
        active.delete(id);
      }
      return object;
    });
    controller.informer().addEventHandler({
      onAdd: () => {
        events.added++;
        sawEvent(kind.name);
      },
      onUpdate: () => {
        events.updated++;
        sawEvent(kind.name);
      },
      onDelete: () => {
        events.deleted++;
        sawEvent(kind.name);
      },
    });
    controllers.push({ kind, controller });
  }
  await factory.start(stop.signal, 2);
  const heap = (): number => {
    globalThis.gc?.();
    globalThis.gc?.();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };
  const heapBaselineMiB = heap();
  toParent({ type: 'synced', heapMiB: heapBaselineMiB });

  const { at, timeoutMs } = await new Promise<ConsumerRequest>((resolve) => {
    process.once('message', (message: ConsumerRequest) => resolve(message));
  });
  quiet = true;
  // Silence up to the moment the writers stopped counts too (an informer that never came back).
  for (const [kind, last] of lastEventAt) {
    longestSilenceMs[kind] = Math.max(longestSilenceMs[kind] ?? 0, at - last);
  }

  // The server's final state, read with a client of our own (retried: the server may be coming back).
  const transport = restTransportFor(config);
  const readers = soakKinds.map(
    (kind) =>
      new Client<KubeObject>({
        gvr: kind.gvr,
        kind: kind.gvk.kind,
        namespaced: true,
        rest: transport,
      }),
  );
  const serverState = async (kind: SoakKind, reader: Client<KubeObject>) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const list = await reader.list(undefined, { timeoutMs: 10_000 });
        return new Map(
          list.items.map((item) => [
            `${item.metadata?.namespace}/${item.metadata?.name}`,
            item.metadata?.resourceVersion ?? '',
          ]),
        );
      } catch (error) {
        if (attempt >= 20) throw new Error(`listing ${kind.name} from the server failed: ${error}`);
        await delay(250);
      }
    }
  };
  const compare = (
    kind: SoakKind,
    server: Map<string, string>,
    store: readonly KubeObject[],
  ): { store: string[]; handlers: string[] } => {
    const storeDiff: string[] = [];
    const stored = new Map(
      store.map((item) => [
        `${item.metadata?.namespace}/${item.metadata?.name}`,
        item.metadata?.resourceVersion ?? '',
      ]),
    );
    for (const [key, version] of server) {
      const have = stored.get(key);
      if (have === undefined) storeDiff.push(`${kind.name} ${key}: missing from the store`);
      else if (have !== version)
        storeDiff.push(`${kind.name} ${key}: stale in the store (${have} != ${version})`);
    }
    for (const key of stored.keys()) {
      if (!server.has(key)) storeDiff.push(`${kind.name} ${key}: ghost in the store`);
    }
    const handlerDiff: string[] = [];
    for (const [key, version] of server) {
      const seen = lastSeen.get(`${kind.name} ${key}`);
      if (seen !== version)
        handlerDiff.push(`${kind.name} ${key}: last handler call saw ${seen}, final ${version}`);
    }
    for (const [id, seen] of lastSeen) {
      if (!id.startsWith(`${kind.name} `)) continue;
      const key = id.slice(kind.name.length + 1);
      if (!server.has(key) && seen !== deleted)
        handlerDiff.push(`${id}: last handler call saw ${seen}, deleted on the server`);
    }
    return { store: storeDiff, handlers: handlerDiff };
  };

  const convergence: ConsumerResult['convergence'] = {};
  let differences: string[] = [];
  for (const [index, { kind, controller }] of controllers.entries()) {
    const reader = readers[index] as Client<KubeObject>;
    let server = await serverState(kind, reader);
    let storeMs = -1;
    let handlersMs = -1;
    for (;;) {
      const elapsed = Date.now() - at;
      const diff = compare(kind, server, controller.informer().getStore().list());
      if (diff.store.length === 0 && storeMs < 0) storeMs = elapsed;
      if (diff.store.length === 0 && diff.handlers.length === 0 && active.size === 0) {
        // Equal to the snapshot: confirm that the server has not moved since (a write answered late).
        const again = await serverState(kind, reader);
        if (
          [...again].every(([key, version]) => server.get(key) === version) &&
          again.size === server.size
        ) {
          handlersMs = elapsed;
          break;
        }
        server = again;
        storeMs = -1;
        continue;
      }
      if (elapsed > timeoutMs) {
        differences = differences.concat(diff.store, diff.handlers);
        break;
      }
      await delay(25);
    }
    convergence[kind.name] = { storeMs, handlersMs };
  }
  const heapEndMiB = heap();
  const metricNames = [
    'lasso_reflector_lists_total',
    'lasso_reflector_relists_total',
    'lasso_reflector_watches_total',
    'lasso_reflector_errors_total',
  ];
  toParent({
    type: 'result',
    result: {
      handlerCalls,
      events,
      concurrentReconciles,
      concurrentExamples,
      lagsMs,
      convergence,
      longestSilenceMs,
      differences: differences.slice(0, 20),
      heapBaselineMiB,
      heapEndMiB,
      metrics: Object.fromEntries(metricNames.map((name) => [name, metrics.total(name)])),
      logs: [...logger.counts].sort((a, b) => b[1] - a[1]).slice(0, 15),
      unhandledRejections,
      warnings,
    },
  } satisfies ConsumerMessage);

  // Stop everything this process started; the soak then checks that it exits on its own.
  stop.abort();
  await Promise.all(controllers.map(({ controller }) => controller.stopped()));
  await factory.sharedCacheFactory().sharedClientFactory().close();
  await transport.close();
  leaveParent();
}

main().catch((error: unknown) => {
  toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  leaveParent();
});
