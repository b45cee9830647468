// Entry of the server child process: W2's @lasso/envtest API server or W3's stream server, run in their own
// process so that their CPU time is not charged to the contender being measured (and, on 2+ cores, runs
// beside it). Talks to the parent over the fork IPC channel: one `ready` message, then it stops on `stop` or
// when the parent goes away.
import { startEnvironment } from '@lasso/envtest';
import { writeKubeconfig } from './fixtures.ts';
import { startStreamServer } from './stream-server.ts';

/** What the child sends once its server is ready. */
export interface ServerReady {
  type: 'ready';
  kubeconfigPath: string;
  namespace: string;
  /** How the server is run, for the benchmark's header. */
  description: string;
}

async function start(): Promise<() => Promise<void>> {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'envtest') {
    const env = await startEnvironment({ namespace: args[0] ?? 'bench' });
    send({
      type: 'ready',
      kubeconfigPath: env.kubeconfigPath,
      namespace: env.namespace,
      description: `@lasso/envtest (${env.mode}) at ${env.credentials.server}`,
    });
    return () => env.stop();
  }
  if (mode === 'stream') {
    const [namespace = 'bench', objects = '1000', events = '200000'] = args;
    const server = await startStreamServer({
      namespace,
      objects: Number(objects),
      events: Number(events),
    });
    const kubeconfig = await writeKubeconfig(server.url, namespace, 'bench-token');
    send({
      type: 'ready',
      kubeconfigPath: kubeconfig.path,
      namespace,
      description: `stream server at ${server.url}`,
    });
    return async () => {
      await server.stop();
      await kubeconfig.remove();
    };
  }
  throw new TypeError(`server-process: unknown mode ${String(mode)} (envtest | stream)`);
}

function send(message: ServerReady): void {
  if (process.send === undefined) throw new Error('server-process must be started with fork()');
  process.send(message);
}

start().then(
  (stop) => {
    let stopping = false;
    const shutdown = (): void => {
      if (stopping) return;
      stopping = true;
      stop().then(
        () => {
          if (process.connected) process.disconnect();
        },
        (error: unknown) => {
          console.error('server-process: stop failed', error);
          process.exitCode = 1;
          if (process.connected) process.disconnect();
        },
      );
    };
    process.on('message', (message) => {
      if (message === 'stop') shutdown();
    });
    process.on('disconnect', shutdown);
  },
  (error: unknown) => {
    console.error('server-process: start failed', error);
    process.exitCode = 1;
    if (process.connected) process.disconnect();
  },
);
