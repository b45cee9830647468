// Entry of a W4 consumer child process: one of e2e-consumers.ts's consumers, in its own process (its own event
// loop and heap, as a separate operator would be) so that the three can watch the same stream of creates at
// once. Args: consumer name, kubeconfig path, workers, objects (and the baseline's directory, for `baseline`). Over the fork IPC channel: `start` (a namespace)
// -> `started` once synced, then `seen` once every key's handler has seen its object; `stop` -> `stopped`. The
// process exits when the parent disconnects. With LASSO_BENCH_CPU_PROF=<dir> in the environment, each round's
// measured window (`started` -> `seen`) is profiled into <dir>/<consumer>-<pid>-<n>.cpuprofile (the inspector
// session is opened before `started`, so its own cost stays out of the window's first samples). With
// LASSO_BENCH_ALLOC_PROF=<dir>, the window's allocations are sampled (every 4 KiB, garbage included) into
// <dir>/<consumer>-<pid>-<n>.heapprofile. With LASSO_BENCH_THREADS=1, each round's CPU is also printed per thread (Linux /proc: main, V8 workers, libuv),
// with the CPU spent before the first object was seen, the GCs and the heap in use at the end.
// LASSO_BENCH_V8_FLAGS='--trace-deopt ...' sets V8 flags at the consumer's start (v8.setFlagsFromString), in every
// consumer or only those named in LASSO_BENCH_V8_FOR (comma-separated); each round's window is then marked on stdout.
// LASSO_BENCH_HEAP=1 forces a full GC before each window and prints the heap then in use (what earlier rounds retain).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Consumer, consumerNamed, Recorder, type RunningConsumer } from './e2e-consumers.ts';
import { tracingConsumers } from './e2e-tracing.ts';

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

const [name = '', kubeconfigPath = '', workers = '5', objects = '5000', baselineDir] =
  process.argv.slice(2);
const consumer: Consumer | undefined =
  consumerNamed(name, baselineDir) ?? tracingConsumers.find((candidate) => candidate.name === name);
if (consumer === undefined) {
  console.error(`consumer-process: unknown consumer ${String(name)}`);
  process.exit(1);
}

let running: RunningConsumer | undefined;

const v8Flags = process.env.LASSO_BENCH_V8_FLAGS || undefined;
const v8For = process.env.LASSO_BENCH_V8_FOR?.split(',');
const tracing = v8Flags !== undefined && (v8For === undefined || v8For.includes(String(name)));
if (tracing) setFlagsFromString(v8Flags as string);
let rounds = 0;

const cpuProfileDir = process.env.LASSO_BENCH_CPU_PROF || undefined;
const allocProfileDir = process.env.LASSO_BENCH_ALLOC_PROF || undefined;
let profileSession: Session | undefined;
let profiles = 0;

/** CPU ms (user + system) per thread name (`main` for the main thread), from /proc (Linux only; empty elsewhere). */
function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const threadName =
        Number(task) === process.pid ? 'main' : stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat (11 and 12 after the name), in clock ticks (100 Hz).
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      byName.set(threadName, (byName.get(threadName) ?? 0) + ms);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}

/** Garbage collections seen by the main thread since `gcStats` was last reset: count and pause ms by kind. */
const gcStats = new Map<string, { count: number; ms: number }>();
const gcKinds: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };
let gcObserver: PerformanceObserver | undefined;

function watchGc(): void {
  gcStats.clear();
  gcObserver ??= new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: { kind?: number } }).detail;
      const kind = gcKinds[detail?.kind ?? 0] ?? 'other';
      const stats = gcStats.get(kind) ?? { count: 0, ms: 0 };
      stats.count++;
      stats.ms += entry.duration;
      gcStats.set(kind, stats);
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}

function printThreadCpu(
  before: Map<string, number>,
  cpu: NodeJS.CpuUsage,
  toFirst: NodeJS.CpuUsage | undefined,
): void {
  const after = threadCpu();
  const parts = [...after]
    .map(([thread, ms]) => [thread, ms - (before.get(thread) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .map(([thread, ms]) => `${thread} ${ms} ms`);
  const gc = [...gcStats].map(([kind, { count, ms }]) => `${kind} ${count} (${ms.toFixed(1)} ms)`);
  console.error(
    `  ${String(name)}: user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms ` +
      `(${toFirst === undefined ? '?' : ((toFirst.user + toFirst.system) / 1000).toFixed(0)} ms before the first object); ` +
      `threads: ${parts.join(', ')}; gc: ${gc.join(', ')}; heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MiB`,
  );
}

async function startProfile(): Promise<void> {
  if (cpuProfileDir === undefined && allocProfileDir === undefined) return;
  if (profileSession === undefined) {
    profileSession = new Session();
    profileSession.connect();
    if (cpuProfileDir !== undefined) {
      mkdirSync(cpuProfileDir, { recursive: true });
      await profileSession.post('Profiler.enable');
      await profileSession.post('Profiler.setSamplingInterval', { interval: 200 });
    }
    if (allocProfileDir !== undefined) {
      mkdirSync(allocProfileDir, { recursive: true });
      await profileSession.post('HeapProfiler.enable');
    }
  }
  if (cpuProfileDir !== undefined) await profileSession.post('Profiler.start');
  if (allocProfileDir !== undefined) {
    // The two include flags (V8 11+) keep what the young and old GC collected: the window's garbage is the point.
    await profileSession.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as { samplingInterval: number });
  }
}

async function stopProfile(): Promise<void> {
  if (profileSession === undefined) return;
  const base = `${String(name).replace(/[^\w.-]+/g, '_')}-${process.pid}-${++profiles}`;
  if (cpuProfileDir !== undefined) {
    const { profile } = await profileSession.post('Profiler.stop');
    writeFileSync(join(cpuProfileDir, `${base}.cpuprofile`), JSON.stringify(profile));
  }
  if (allocProfileDir !== undefined) {
    const { profile } = await profileSession.post('HeapProfiler.stopSampling');
    writeFileSync(join(allocProfileDir, `${base}.heapprofile`), JSON.stringify(profile));
  }
}

async function start(namespace: string): Promise<void> {
  const recorder = new Recorder(Number(objects));
  running = await (consumer as Consumer).start(
    kubeconfigPath,
    namespace,
    Number(workers),
    recorder,
  );
  const round = ++rounds;
  if (process.env.LASSO_BENCH_HEAP === '1') {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    const used = process.memoryUsage().heapUsed / 2 ** 20;
    console.error(
      `  ${String(name)}: window ${round}: heap used after a full GC ${used.toFixed(1)} MiB`,
    );
  }
  await startProfile();
  const threadsBefore = process.env.LASSO_BENCH_THREADS === '1' ? threadCpu() : undefined;
  if (threadsBefore !== undefined) watchGc();
  if (tracing) console.log(`=== ${String(name)} window ${round} start`);
  const cpuBefore = process.cpuUsage();
  let cpuToFirst: NodeJS.CpuUsage | undefined;
  if (threadsBefore !== undefined) {
    void recorder.first.then(() => {
      cpuToFirst = process.cpuUsage(cpuBefore);
    });
  }
  send({ type: 'started' });
  await Promise.race([recorder.all, running.failed]);
  const cpu = process.cpuUsage(cpuBefore);
  if (tracing) console.log(`=== ${String(name)} window ${round} end`);
  if (threadsBefore !== undefined) printThreadCpu(threadsBefore, cpu, cpuToFirst);
  await stopProfile();
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
