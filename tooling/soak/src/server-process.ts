// The soak's API server process: @lasso/envtest's built-in server with the soak's CRD, its FaultInjector driven
// over the fork IPC channel (fault actions from faults.ts). Runs apart from the factory under test so that the
// server's memory and CPU are not charged to it. Stops when the parent disconnects.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Environment, type RequestMatch, startEnvironment } from '@lasso/envtest';
import type { FaultAction, MatchSpec } from './faults.ts';
import { leaveParent, toParent } from './ipc.ts';
import { gadgetCrd, outageKindCount, widgetCrd } from './kinds.ts';

/** Messages the server process sends. */
export type ServerMessage =
  | { type: 'ready'; kubeconfigPath: string; url: string }
  | { type: 'applied'; seq: number; error?: string }
  | { type: 'quiet' }
  /** The outage is over: the server answers again. */
  | { type: 'outage-over'; seq: number }
  | { type: 'failed'; message: string };

/** Messages the server process accepts. */
export type ServerRequest =
  | { type: 'fault'; seq: number; action: FaultAction }
  /** Remove every pending fault and latency, wait for a restart in progress, answer `quiet`. */
  | { type: 'quiet' }
  /** Close every connection and refuse new ones (ECONNREFUSED) for `downMs`; answer `outage-over` after. */
  | { type: 'outage'; seq: number; downMs: number };

/** One injector match per method of `spec` (one match without a method when it names none). */
function toMatches(spec: MatchSpec): RequestMatch[] {
  const base: RequestMatch = {};
  if (spec.pathPattern !== undefined) base.path = new RegExp(spec.pathPattern);
  if (spec.watch !== undefined) base.watch = spec.watch;
  return spec.methods === undefined ? [base] : spec.methods.map((method) => ({ ...base, method }));
}

async function main(): Promise<void> {
  const [directory] = process.argv.slice(2);
  // The Gadget CRDs make the outage soak's 50 kinds (with ConfigMap and Widget).
  const gadgets = Array.from({ length: outageKindCount - 2 }, (_, index) => gadgetCrd(index));
  const env: Environment = await startEnvironment({
    crds: [widgetCrd, ...gadgets],
    bookmarkIntervalMs: 5_000,
  });
  const server = env.server;
  if (server === undefined)
    throw new Error('the soak needs the built-in API server (its fault API)');
  const kubeconfigPath = join(directory ?? '.', 'kubeconfig.yaml');
  await writeFile(kubeconfigPath, env.kubeconfigYaml, { mode: 0o600 });
  const faults = server.faults;
  const timers = new Set<NodeJS.Timeout>();
  const restarts = new Set<Promise<void>>();
  const apply = (action: FaultAction): void => {
    switch (action.op) {
      case 'closeWatches':
        faults.closeWatches();
        return;
      case 'expireHistory':
        faults.expireHistory();
        return;
      case 'sendBookmarks':
        faults.sendBookmarks();
        return;
      case 'failNext': {
        for (const match of toMatches(action.match)) {
          const fault: Parameters<typeof faults.failNext>[1] = { ...match, status: action.status };
          if (action.reason !== undefined) fault.reason = action.reason;
          if (action.message !== undefined) fault.message = action.message;
          if (action.retryAfterSeconds !== undefined)
            fault.retryAfterSeconds = action.retryAfterSeconds;
          faults.failNext(action.count, fault);
        }
        return;
      }
      case 'setLatency': {
        const matches = toMatches(action.match);
        for (const match of matches) faults.setLatency(action.ms, match);
        const timer = setTimeout(() => {
          timers.delete(timer);
          for (const match of matches) faults.setLatency(0, match);
        }, action.forMs);
        timers.add(timer);
        return;
      }
      case 'cutNext':
        for (const match of toMatches(action.match)) {
          faults.cutNext(action.count, { ...match, afterBytes: action.afterBytes });
        }
        return;
      case 'restart': {
        const restart = faults.restart({ downMs: action.downMs });
        restarts.add(restart);
        void restart.finally(() => restarts.delete(restart)).catch(() => {});
        return;
      }
    }
  };
  process.on('message', (message: ServerRequest) => {
    if (message.type === 'fault') {
      try {
        apply(message.action);
        toParent({ type: 'applied', seq: message.seq });
      } catch (error) {
        toParent({ type: 'applied', seq: message.seq, error: String(error) });
      }
    } else if (message.type === 'outage') {
      const restart = faults.restart({ downMs: message.downMs });
      restarts.add(restart);
      void restart
        .then(
          () => toParent({ type: 'outage-over', seq: message.seq }),
          (error: unknown) => toParent({ type: 'failed', message: `outage: ${String(error)}` }),
        )
        .finally(() => restarts.delete(restart));
    } else if (message.type === 'quiet') {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      faults.reset();
      void Promise.allSettled([...restarts]).then(() => {
        faults.reset();
        toParent({ type: 'quiet' });
      });
    }
  });
  process.once('disconnect', () => {
    for (const timer of timers) clearTimeout(timer);
    void Promise.allSettled([...restarts]).then(() => env.stop());
  });
  toParent({ type: 'ready', kubeconfigPath, url: env.credentials.server });
}

main().catch((error: unknown) => {
  toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  leaveParent();
});
