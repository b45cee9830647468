// What the soak's writer processes share: their arguments, their clients on one transport they own, the paced
// loop that keeps a few writes in flight until the soak says stop (or goes away), and the messages to the soak.
// Each writer brings only its `writeOnce`: which object it writes and how.
import { Client, type KubeObject, loadKubeConfig, RestTransport } from '@lasso/client';
import { leaveParent, toParent } from './ipc.ts';
import type { SoakKind } from './kinds.ts';
import { type Random, seededRandom } from './random.ts';

/** Messages a writer process sends. */
export type WriterMessage =
  | { type: 'ready' }
  | { type: 'stopped'; writes: number; failed: number; byOp: Record<string, number> }
  | { type: 'failed'; message: string };

/** What a writer's `writeOnce` is built from. */
export interface WriterContext {
  readonly random: Random;
  /** The writer's own objects per namespace at most (per kind, or Widgets: the writer says). */
  readonly cap: number;
  readonly namespaces: readonly string[];
  /**
   * A client of `kind` on the writer's transport. Short timeouts: a write stuck behind injected latency or a
   * restart is counted as failed, not waited out.
   */
  client(kind: SoakKind): Client<KubeObject>;
  /** Count a write of `op` (before it is sent). */
  count(op: string): void;
  /** Count a failed write: failures are counted, not retried (the server's state is the truth). */
  fail(): void;
}

/**
 * Run this process as a soak writer. Arguments: kubeconfig, seed, writes per second, cap, namespaces (a comma
 * list). Writes start every 1/rate s with at most `maxInFlight` in flight; a `stop` message or the soak's
 * disconnect ends the loop, the writes in flight are awaited, and the counts are sent as `stopped`.
 */
export function runWriterProcess(
  name: string,
  maxInFlight: number,
  prepare: (context: WriterContext) => () => Promise<void>,
): void {
  main(name, maxInFlight, prepare).catch((error: unknown) => {
    toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
    process.exitCode = 1;
    leaveParent();
  });
}

async function main(
  name: string,
  maxInFlight: number,
  prepare: (context: WriterContext) => () => Promise<void>,
): Promise<void> {
  const [kubeconfigPath, seedText, rateText, capText, namespaceList] = process.argv.slice(2);
  if (kubeconfigPath === undefined || namespaceList === undefined) {
    throw new TypeError(`${name}: kubeconfig, seed, rate, cap and namespaces are required`);
  }
  const rate = Number(rateText);
  const transport = new RestTransport(await loadKubeConfig({ path: kubeconfigPath }));
  let writes = 0;
  let failed = 0;
  const byOp: Record<string, number> = {};
  const writeOnce = prepare({
    random: seededRandom(Number(seedText)),
    cap: Number(capText),
    namespaces: namespaceList.split(','),
    client: (kind) =>
      new Client<KubeObject>({
        gvr: kind.gvr,
        kind: kind.gvk.kind,
        namespaced: true,
        rest: transport,
        defaultTimeoutMs: 5_000,
      }),
    count: (op) => {
      byOp[op] = (byOp[op] ?? 0) + 1;
      writes++;
    },
    fail: () => {
      failed++;
    },
  });
  let stopping = false;
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') stopping = true;
  });
  process.once('disconnect', () => {
    stopping = true;
  });
  toParent({ type: 'ready' });
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / rate;
  let due = performance.now();
  while (!stopping) {
    // A few writes at once: writes to one object may then race; the server's final state is the truth anyway.
    if (inFlight.size < maxInFlight) {
      const write = writeOnce();
      inFlight.add(write);
      void write.finally(() => inFlight.delete(write));
    }
    due += intervalMs;
    const waitMs = due - performance.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    else due = performance.now();
  }
  await Promise.allSettled([...inFlight]);
  toParent({ type: 'stopped', writes, failed, byOp });
  await transport.close();
  leaveParent();
}
