// Entry of W4's writer child process: it creates the namespaces and the ConfigMaps the consumers watch, with a
// bounded number of creates in flight, in its own process so that none of the writes' CPU time is charged to a
// consumer. Each ConfigMap carries, in
// its data, the `process.hrtime` (CLOCK_MONOTONIC: one clock for every process of the machine) read just
// before its create was issued. Talks to the parent over the fork IPC channel: `ready`, then one reply per
// request; it exits when the parent disconnects.
import { Client, type KubeObject, loadKubeConfig, RestTransport } from '@lasso/client';
import { configMapClient } from './configmap-client.ts';
import { benchConfigMap, writtenAtKey } from './fixtures.ts';
import { monotonicMs } from './measure.ts';

/** What the parent asks the writer. */
export type WriterRequest =
  | { type: 'namespace'; namespace: string }
  | { type: 'write'; namespace: string; objects: number; parallel: number }
  | { type: 'clear'; namespace: string };

/** The writer's answers: `ready` once, then one per request. */
export type WriterReply =
  | { type: 'ready' }
  | { type: 'ok' }
  /**
   * In ms of process.hrtime: `startMs` before the first create, `endMs` after the last response,
   * `respondedMs[i]` when object i's create was answered.
   */
  | { type: 'written'; startMs: number; endMs: number; respondedMs: number[] }
  | { type: 'failed'; message: string };

async function main(): Promise<void> {
  const [kubeconfigPath] = process.argv.slice(2);
  if (kubeconfigPath === undefined) throw new TypeError('writer-process: kubeconfig path missing');
  const rest = new RestTransport(await loadKubeConfig({ path: kubeconfigPath }));
  const configMaps = configMapClient(rest);
  const namespaces = new Client<KubeObject>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });

  const write = async (
    namespace: string,
    objects: number,
    parallel: number,
  ): Promise<WriterReply> => {
    // Bodies are built before the clock starts; only the timestamp is set per create.
    const bodies = Array.from({ length: objects }, (_, index) => benchConfigMap(index, namespace));
    const respondedMs = new Array<number>(objects).fill(Number.NaN);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < objects) {
        const index = next++;
        const body = bodies[index] as ReturnType<typeof benchConfigMap>;
        body.data[writtenAtKey] = String(process.hrtime.bigint());
        await configMaps.create(namespace, body);
        respondedMs[index] = monotonicMs();
      }
    };
    const startMs = monotonicMs();
    await Promise.all(Array.from({ length: Math.min(parallel, objects) }, worker));
    return { type: 'written', startMs, endMs: monotonicMs(), respondedMs };
  };

  const handle = async (request: WriterRequest): Promise<WriterReply> => {
    switch (request.type) {
      case 'namespace':
        await namespaces.create(undefined, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: request.namespace },
        });
        return { type: 'ok' };
      case 'write':
        return write(request.namespace, request.objects, request.parallel);
      case 'clear':
        // The server keeps what it stores: empty each round's namespace once its consumer has stopped.
        await configMaps.deleteCollection(request.namespace);
        return { type: 'ok' };
    }
  };

  process.on('message', (message) => {
    handle(message as WriterRequest).then(send, (error: unknown) =>
      send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => {
    rest.close().catch(() => undefined);
  });
  send({ type: 'ready' });
}

function send(message: WriterReply): void {
  if (process.send === undefined) throw new Error('writer-process must be started with fork()');
  if (process.connected) process.send(message);
}

main().catch((error: unknown) => {
  console.error('writer-process: start failed', error);
  process.exitCode = 1;
  if (process.connected) process.disconnect();
});
