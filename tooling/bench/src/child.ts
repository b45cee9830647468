// Parent side of the bench child processes: server-process.ts (fork, wait for `ready`, stop), and W4's writer and
// consumer processes, which answer messages.
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

/** A forked bench process (W4's writer and consumers) that answers messages over the IPC channel. */
export interface MessageChild<Out> {
  /** The next message from the child (buffered); rejects when the child exits first. */
  next(): Promise<Out>;
  send(message: unknown): void;
  /** Disconnect (the child then stops what it runs and exits) and wait for its exit. */
  stop(): Promise<void>;
}

/** Fork `file` (a script next to this file in dist) with `args`. */
export function forkMessageChild<Out>(file: string, args: string[]): MessageChild<Out> {
  const child: ChildProcess = fork(new URL(`./${file}`, import.meta.url), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const buffered: Out[] = [];
  const waiting: Array<{ resolve(message: Out): void; reject(error: Error): void }> = [];
  let exitError: Error | undefined;
  child.on('message', (message) => {
    const waiter = waiting.shift();
    if (waiter === undefined) buffered.push(message as Out);
    else waiter.resolve(message as Out);
  });
  child.once('exit', (code) => {
    exitError = new Error(`${file} exited with code ${code}`);
    for (const waiter of waiting.splice(0)) waiter.reject(exitError);
  });
  return {
    next: () => {
      const message = buffered.shift();
      if (message !== undefined) return Promise.resolve(message);
      if (exitError !== undefined) return Promise.reject(exitError);
      return new Promise<Out>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    send: (message) => {
      child.send(message as Parameters<ChildProcess['send']>[0]);
    },
    stop: async () => {
      if (child.exitCode === null && child.connected) child.disconnect();
      await exited;
    },
  };
}
