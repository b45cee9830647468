// Entry of a W4 consumer child process: one of e2e-consumers.ts's consumers, in its own process (its own event
// loop and heap, as a separate operator would be) so that the three can watch the same stream of creates at
// once. Args: consumer name, kubeconfig path, workers, objects. Over the fork IPC channel: `start` (a namespace)
// -> `started` once synced, then `seen` once every key's handler has seen its object; `stop` -> `stopped`. The
// process exits when the parent disconnects.
import { type Consumer, consumers, Recorder, type RunningConsumer } from './e2e-consumers.ts';

/** What the parent sends. */
export type ConsumerRequest = { type: 'start'; namespace: string } | { type: 'stop' };

/** What the consumer answers. */
export type ConsumerReply =
  | { type: 'started' }
  | {
      type: 'seen';
      /** By object index: when a handler first saw it (ms of process.hrtime). */
      seenMs: number[];
      /** By object index: that sighting minus the write timestamp in the object's data (ms). */
      latencyMs: number[];
      /** CPU time (user + system) of this process from `started` to `seen`. */
      cpuMs: number;
    }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

function send(message: ConsumerReply): void {
  if (process.send === undefined) throw new Error('consumer-process must be started with fork()');
  if (process.connected) process.send(message);
}

const failed = (error: unknown): void =>
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });

const [name, kubeconfigPath = '', workers = '5', objects = '5000'] = process.argv.slice(2);
const consumer: Consumer | undefined = consumers.find((candidate) => candidate.name === name);
if (consumer === undefined) {
  console.error(`consumer-process: unknown consumer ${String(name)}`);
  process.exit(1);
}

let running: RunningConsumer | undefined;

async function start(namespace: string): Promise<void> {
  const recorder = new Recorder(Number(objects));
  running = await (consumer as Consumer).start(
    kubeconfigPath,
    namespace,
    Number(workers),
    recorder,
  );
  const cpuBefore = process.cpuUsage();
  send({ type: 'started' });
  await Promise.race([recorder.all, running.failed]);
  const cpu = process.cpuUsage(cpuBefore);
  send({
    type: 'seen',
    seenMs: Array.from(recorder.seenMs),
    latencyMs: Array.from(recorder.latencyMs),
    cpuMs: (cpu.user + cpu.system) / 1000,
  });
}

async function stop(): Promise<void> {
  const current = running;
  running = undefined;
  await current?.stop();
}

process.on('message', (message: ConsumerRequest) => {
  if (message.type === 'start') start(message.namespace).catch(failed);
  else stop().then(() => send({ type: 'stopped' }), failed);
});
process.on('disconnect', () => {
  stop().catch((error: unknown) => console.error('consumer-process: stop failed', error));
});
