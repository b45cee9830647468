// A soak writer process: churns ConfigMaps and Widgets (create, update, delete) in its namespaces at a steady rate
// with a few writes in flight, through @lasso/client, while the server injects faults. Failed writes are counted
// and not retried: the server's state is the truth the factory is checked against. Each write carries the
// wall-clock time it was sent (`writtenAt`) so the consumer can measure write-to-handler lag.
import { Client, type KubeObject, loadKubeConfig, restTransportFor } from '@lasso/client';
import { leaveParent, toParent } from './ipc.ts';
import { soakKinds, writtenAtKey } from './kinds.ts';
import { seededRandom } from './random.ts';

/** Messages a writer sends. */
export type WriterMessage =
  | { type: 'ready' }
  | { type: 'stopped'; writes: number; failed: number; byOp: Record<string, number> }
  | { type: 'failed'; message: string };

/** Arguments: kubeconfig, seed, writes per second, objects per kind per namespace, namespaces (comma list). */
async function main(): Promise<void> {
  const [kubeconfigPath, seedText, rateText, capText, namespaceList] = process.argv.slice(2);
  if (kubeconfigPath === undefined || namespaceList === undefined) {
    throw new TypeError('writer-process: kubeconfig, seed, rate, cap and namespaces are required');
  }
  const random = seededRandom(Number(seedText));
  const rate = Number(rateText);
  const cap = Number(capText);
  const namespaces = namespaceList.split(',');
  const rest = restTransportFor(await loadKubeConfig({ path: kubeconfigPath }));
  // Short timeouts: a write stuck behind injected latency or a restart is counted as failed, not waited out.
  const clients = soakKinds.map(
    (kind) =>
      new Client<KubeObject>({
        gvr: kind.gvr,
        kind: kind.gvk.kind,
        namespaced: true,
        rest,
        defaultTimeoutMs: 5_000,
      }),
  );
  // What this writer believes exists (its namespaces are its own): namespace/kind -> names.
  const existing = new Map<string, Set<string>>();
  let serial = 0;
  let writes = 0;
  let failed = 0;
  const byOp: Record<string, number> = {};
  const payload = (field: 'data' | 'spec'): Record<string, unknown> => {
    const values = { [writtenAtKey]: String(Date.now()), n: String(random.int(0, 1_000_000)) };
    return field === 'data' ? values : { ...values, size: random.int(1, 10) };
  };
  const writeOnce = async (): Promise<void> => {
    const kindIndex = random.int(0, soakKinds.length - 1);
    const kind = soakKinds[kindIndex] as (typeof soakKinds)[number];
    const client = clients[kindIndex] as Client<KubeObject>;
    const namespace = random.pick(namespaces);
    const slot = `${namespace}/${kind.name}`;
    const names = existing.get(slot) ?? new Set<string>();
    existing.set(slot, names);
    const draw = random();
    const op =
      names.size === 0 || (names.size < cap && draw < 0.4)
        ? 'create'
        : draw < 0.85 || names.size < cap / 2
          ? 'update'
          : 'delete';
    const name =
      op === 'create' ? `${kind.name.toLowerCase()}-${serial++}` : random.pick([...names]);
    byOp[op] = (byOp[op] ?? 0) + 1;
    writes++;
    try {
      if (op === 'create') {
        names.add(name);
        await client.create(namespace, {
          apiVersion: kind.gvk.group === '' ? 'v1' : `${kind.gvk.group}/${kind.gvk.version}`,
          kind: kind.gvk.kind,
          metadata: { name, namespace },
          [kind.field]: payload(kind.field),
        } as KubeObject);
      } else if (op === 'update') {
        await client.patch(namespace, name, 'merge', { [kind.field]: payload(kind.field) });
      } else {
        names.delete(name);
        await client.delete(namespace, name);
      }
    } catch (error) {
      failed++;
      const status = (error as { status?: unknown }).status;
      // Not there (deleted by a write whose answer was lost): forget it. A create that failed may have been
      // stored: keep it, an update or delete will find out.
      if (status === 404) names.delete(name);
      if (status === 409 && op === 'create') names.add(name);
    }
  };
  let stopping = false;
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / rate;
  const loop = async (): Promise<void> => {
    let due = performance.now();
    while (!stopping) {
      if (inFlight.size < 8) {
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
  };
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    stopping = true;
  });
  toParent({ type: 'ready' });
  await loop();
  toParent({ type: 'stopped', writes, failed, byOp });
  await rest.close();
  leaveParent();
}

main().catch((error: unknown) => {
  toParent({ type: 'failed', message: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
  leaveParent();
});
