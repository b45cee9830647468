// Parent side of the soak's child processes: fork a script next to this file in dist, exchange messages over the
// fork IPC channel, and wait for its exit.
import { type ChildProcess, fork } from 'node:child_process';

/** A forked soak process. */
export interface Child<Out> {
  readonly process: ChildProcess;
  /** The next message from the child (buffered); rejects when the child exits first. */
  next(): Promise<Out>;
  /** The next message of this type (others are dropped), or a rejection naming the child's exit. */
  nextOf<K extends string>(type: K): Promise<Extract<Out, { type: K }>>;
  send(message: unknown): void;
  /** Close the IPC channel (the soak's children stop and exit when it closes). */
  disconnect(): void;
  /** Resolves with the exit code (or signal name) once the child has exited. */
  readonly exited: Promise<number | string>;
}

/** Every child forked by this process (for the soak's watchdog). */
export const forkedChildren = new Set<ChildProcess>();

/** Fork `file` (a script next to this file in dist) with `args`. */
export function forkChild<Out extends { type: string }>(
  file: string,
  args: string[],
  options: { execArgv?: string[] } = {},
): Child<Out> {
  const child: ChildProcess = fork(new URL(`./${file}`, import.meta.url), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: options.execArgv ?? [],
  });
  forkedChildren.add(child);
  child.once('exit', () => forkedChildren.delete(child));
  const buffered: Out[] = [];
  const waiting: Array<{ resolve(message: Out): void; reject(error: Error): void }> = [];
  let exitError: Error | undefined;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      exitError = new Error(`${file} exited (${code ?? signal})`);
      for (const waiter of waiting.splice(0)) waiter.reject(exitError);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  child.on('message', (message) => {
    const waiter = waiting.shift();
    if (waiter === undefined) buffered.push(message as Out);
    else waiter.resolve(message as Out);
  });
  const next = (): Promise<Out> => {
    const message = buffered.shift();
    if (message !== undefined) return Promise.resolve(message);
    if (exitError !== undefined) return Promise.reject(exitError);
    return new Promise<Out>((resolve, reject) => waiting.push({ resolve, reject }));
  };
  return {
    process: child,
    next,
    async nextOf<K extends string>(type: K) {
      for (;;) {
        const message = await next();
        if (message.type === 'failed') {
          throw new Error(`${file}: ${(message as unknown as { message: string }).message}`);
        }
        if (message.type === type) return message as Extract<Out, { type: K }>;
      }
    },
    send(message) {
      if (child.connected) child.send(message as Parameters<ChildProcess['send']>[0]);
    },
    disconnect() {
      if (child.connected) child.disconnect();
    },
    exited,
  };
}

/** Send a message to the parent (the soak); a no-op once the parent has gone. */
export function toParent(message: unknown): void {
  if (process.send === undefined) throw new Error('this script must be started by the soak (fork)');
  if (process.connected) process.send(message as Parameters<NonNullable<typeof process.send>>[0]);
}

/** Close the channel to the parent (what lets a child process exit on its own); a no-op once closed. */
export function leaveParent(): void {
  if (process.connected) process.disconnect();
}

/** Resolve within `ms` or reject naming `what`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
