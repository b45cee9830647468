// Parent side of server-process.ts: fork it, wait for `ready`, and stop it again.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { ServerReady } from './server-process.ts';

/** A running server child process. */
export interface ServerChild extends Omit<ServerReady, 'type'> {
  /** Ask the child to stop its server and wait until it has exited. */
  stop(): Promise<void>;
}

/** Fork `server-process.js` (next to this file in dist) with `args` and wait for its server. */
export async function startServerChild(args: string[]): Promise<ServerChild> {
  const child: ChildProcess = fork(new URL('./server-process.js', import.meta.url), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    child.once('message', (message) => resolve(message as ServerReady));
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`server process exited early with code ${code}`)),
    );
  });
  return {
    kubeconfigPath: ready.kubeconfigPath,
    namespace: ready.namespace,
    description: ready.description,
    stop: async () => {
      if (child.exitCode === null && child.connected) child.send('stop');
      const [code] = (await exited) as [number | null];
      if (code !== 0) throw new Error(`server process exited with code ${code}`);
    },
  };
}
