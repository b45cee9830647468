// `pnpm bench:e2e`: W4 (ARCHITECTURE.md section 5). 5,000 ConfigMaps (1 KiB of data, 3 labels) created in one
// namespace of the @lasso/envtest API server by a writer, 16 creates in flight, while three consumers watch that
// namespace at once, each in its own process: a @lasso/factory SharedControllerFactory with a handler,
// client-node's informer feeding a hand-rolled work queue, and the limit (a raw watch: undici + JSON.parse, no
// cache, no queue). Per consumer: the time from the first create to the moment every key's handler has seen its
// object, and the p50/p99 latency from each create (a timestamp written into the object's data just before its
// request) to its handler. Several rounds (median), each on a fresh namespace, the consumers' start order
// rotated. Sizes: --objects N --rounds N --workers N --parallel N. `--legacy 1` adds client-node 1.4 as a fourth
// consumer; `--tracing 1` the factory traced by an OpenTelemetry SDK and the factory without the API
// (e2e-tracing.ts). `--baseline DIR` adds a second @lasso/factory build (see e2e-consumers.ts `baselineConsumer`)
// for A/B runs side by side; such a run is an experiment and is not recorded in results/. Profiling and per-thread CPU
// of the consumers: consumer-process.ts (LASSO_BENCH_CPU_PROF, LASSO_BENCH_ALLOC_PROF, LASSO_BENCH_THREADS).
import { setTimeout as sleep } from 'node:timers/promises';
import { takeBaseline } from './baseline.ts';
import { forkMessageChild, type MessageChild, startServerChild } from './child.ts';
import type { ConsumerReply } from './consumer-process.ts';
import { clientNode14Consumer, consumers } from './e2e-consumers.ts';
import { tracingConsumers } from './e2e-tracing.ts';
import { loadNote, machineNote, median, parseSizes, percentile, recordResults } from './measure.ts';
import type { WriterReply, WriterRequest } from './writer-process.ts';

const { baselineDir, rest: sizeArgs } = takeBaseline(process.argv.slice(2));
const sizes = parseSizes(sizeArgs, {
  objects: 5_000,
  rounds: 5,
  workers: 5,
  parallel: 16,
  legacy: 1,
  tracing: 1,
});
// --legacy takes 1 to add client-node 1.4 (parseSizes only takes positive integers: absent means off).
const withLegacy = sizeArgs.some((arg) => arg === '--legacy' || arg.startsWith('--legacy='));
// --tracing 1 adds the factory with a recording OpenTelemetry SDK and the factory without @opentelemetry/api.
const withTracing = sizeArgs.some((arg) => arg === '--tracing' || arg.startsWith('--tracing='));

/** Idle time between the last consumer reporting synced and the first create, so that every watch is open. */
const settleMs = 300;

/** A forked child that answers each request with one reply (`failed` rejects). */
async function ask<Reply extends { type: string }>(
  child: MessageChild<Reply>,
  what: string,
  request: unknown,
): Promise<Reply> {
  child.send(request);
  return expectReply(child, what);
}

/** The child's next message; a `failed` reply rejects, naming `what` was asked. */
async function expectReply<Reply extends { type: string }>(
  child: MessageChild<Reply>,
  what: string,
): Promise<Reply> {
  const reply = await child.next();
  if (reply.type === 'failed') {
    throw new Error(`${what}: ${(reply as unknown as { message: string }).message}`);
  }
  return reply;
}

/** One consumer's numbers for one round. */
interface ConsumerResult {
  /** First create issued -> every key's handler has seen its object. */
  totalMs: number;
  /** Latency from the write timestamp in the object (just before its create) to its handler. */
  p50Ms: number;
  p99Ms: number;
  /** From the create's response (in the writer) to the handler: negative when the handler saw it first. */
  responseP50Ms: number;
  responseP99Ms: number;
  /** CPU time (user + system) of the consumer's process during the round. */
  cpuMs: number;
}

interface RoundResult {
  /** First create issued -> last create's response. */
  writeMs: number;
  byConsumer: Map<string, ConsumerResult>;
}

interface ConsumerChild {
  readonly name: string;
  readonly child: MessageChild<ConsumerReply>;
}

let namespaceCounter = 0;

/** Within this, every key must have reached every consumer's handler. */
const roundTimeoutMs = (): number => 60_000 + sizes.objects * 20;

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()} after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One round: a fresh namespace; every consumer started on it (in `order`, so none always opens its watch
 * first); then the writer's creates; every consumer reports when its handler has seen every key.
 */
async function round(
  writer: MessageChild<WriterReply>,
  order: readonly ConsumerChild[],
): Promise<RoundResult> {
  const namespace = `bench-w4-${++namespaceCounter}`;
  const request = (message: WriterRequest): unknown => message;
  await ask(writer, 'writer: namespace', request({ type: 'namespace', namespace }));
  for (const consumer of order) {
    await ask(consumer.child, `${consumer.name}: start`, { type: 'start', namespace });
  }
  await sleep(settleMs);
  const written = ask(
    writer,
    'writer: write',
    request({ type: 'write', namespace, objects: sizes.objects, parallel: sizes.parallel }),
  );
  const seen = order.map((consumer) => expectReply(consumer.child, consumer.name));
  const [reply, ...replies] = await withTimeout(
    Promise.all([written, ...seen]),
    roundTimeoutMs(),
    () => `round on ${namespace}: not every consumer saw every key`,
  );
  if (reply?.type !== 'written') throw new Error(`writer: ${JSON.stringify(reply)}`);
  const byConsumer = new Map<string, ConsumerResult>();
  replies.forEach((result, index) => {
    const name = (order[index] as ConsumerChild).name;
    if (result.type !== 'seen') throw new Error(`${name}: ${JSON.stringify(result.type)}`);
    const afterResponse = result.seenMs.map((seen, at) => seen - (reply.respondedMs[at] as number));
    byConsumer.set(name, {
      totalMs: result.seenMs.reduce((last, seen) => Math.max(last, seen)) - reply.startMs,
      p50Ms: percentile(result.latencyMs, 0.5),
      p99Ms: percentile(result.latencyMs, 0.99),
      responseP50Ms: percentile(afterResponse, 0.5),
      responseP99Ms: percentile(afterResponse, 0.99),
      cpuMs: result.cpuMs,
    });
  });
  // On failure the error ends the benchmark instead: main() disconnects the children, which then stop.
  for (const consumer of order) {
    await ask(consumer.child, `${consumer.name}: stop`, { type: 'stop' });
  }
  // The server keeps what it stores: empty the namespace once nobody watches it.
  await ask(writer, 'writer: clear', request({ type: 'clear', namespace }));
  return { writeMs: reply.endMs - reply.startMs, byConsumer };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const millis = (ms: number): string => `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  console.log(
    `W4 end-to-end: ${sizes.objects.toLocaleString('en-US')} ConfigMaps (1 KiB data, 3 labels) created in one ` +
      `namespace, ${sizes.parallel} creates in flight; ${sizes.workers} workers; ${sizes.rounds} rounds ` +
      `(+1 warm-up); ${machineNote()}`,
  );
  const server = await startServerChild(['envtest', 'bench-w4']);
  const children: MessageChild<unknown>[] = [];
  try {
    const writer = forkMessageChild<WriterReply>('writer-process.js', [server.kubeconfigPath]);
    children.push(writer);
    await expectReply(writer, 'writer');
    const names = [
      ...consumers.map(({ name }) => name),
      ...(withLegacy ? [clientNode14Consumer.name] : []),
      ...(withTracing ? tracingConsumers.map(({ name }) => name) : []),
      ...(baselineDir !== undefined ? ['baseline'] : []),
    ];
    const running: ConsumerChild[] = names.map((name) => {
      const child = forkMessageChild<ConsumerReply>('consumer-process.js', [
        name,
        server.kubeconfigPath,
        String(sizes.workers),
        String(sizes.objects),
        ...(name === 'baseline' ? [baselineDir as string] : []),
      ]);
      children.push(child);
      return { name, child };
    });
    console.log(
      `method: ${server.description}, the writer and each consumer in its own process; the ${running.length} ` +
        'consumers watch the same creates at once, each on a fresh namespace per round; total = first create ' +
        "issued -> last key first seen by that consumer's handler; latency = timestamp in the object before its " +
        'create -> its handler (process.hrtime, CLOCK_MONOTONIC)',
    );
    await round(writer, running); // warm-up
    const rounds: RoundResult[] = [];
    for (let index = 1; index <= sizes.rounds; index++) {
      const order = running.map((_, at) => running[(at + index) % running.length] as ConsumerChild);
      const result = await round(writer, order);
      rounds.push(result);
      const line = running.map(({ name }) => {
        const r = result.byConsumer.get(name) as ConsumerResult;
        return (
          `${name} ${seconds(r.totalMs)} p50 ${millis(r.p50Ms)} p99 ${millis(r.p99Ms)} ` +
          `(after response ${millis(r.responseP50Ms)} / ${millis(r.responseP99Ms)}) CPU ${seconds(r.cpuMs)}`
        );
      });
      console.log(`  round ${index} (writes ${seconds(result.writeMs)}): ${line.join('   ')}`);
    }
    const writeMs = median(rounds.map((r) => r.writeMs));
    const summary = (name: string): ConsumerResult => {
      const runs = rounds.map((r) => r.byConsumer.get(name) as ConsumerResult);
      return {
        totalMs: median(runs.map((r) => r.totalMs)),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        responseP50Ms: median(runs.map((r) => r.responseP50Ms)),
        responseP99Ms: median(runs.map((r) => r.responseP99Ms)),
        cpuMs: median(runs.map((r) => r.cpuMs)),
      };
    };
    console.log(
      `writes: median ${seconds(writeMs)} (${Math.round(sizes.objects / (writeMs / 1000))} creates/s), ` +
        'first create issued -> last create answered',
    );
    const summaries = new Map(names.map((name) => [name, summary(name)]));
    for (const [name, s] of summaries) {
      console.log(
        `${name.padEnd(16)} median total ${seconds(s.totalMs)}, p50 ${millis(s.p50Ms)}, ` +
          `p99 ${millis(s.p99Ms)}; after the create's response p50 ${millis(s.responseP50Ms)}, ` +
          `p99 ${millis(s.responseP99Ms)}; process CPU ${seconds(s.cpuMs)}`,
      );
    }
    const lassoName = consumers[0]?.name as string;
    const lasso = summaries.get(lassoName) as ConsumerResult;
    const ratios = (other: ConsumerResult): string =>
      `total ${(lasso.totalMs / other.totalMs).toFixed(2)}x, p50 ${(lasso.p50Ms / other.p50Ms).toFixed(2)}x, ` +
      `p99 ${(lasso.p99Ms / other.p99Ms).toFixed(2)}x, CPU ${(lasso.cpuMs / other.cpuMs).toFixed(2)}x`;
    const others = names.filter((name) => name !== lassoName);
    console.log(
      `ratios ${others.map((name) => `lasso / ${name}: ${ratios(summaries.get(name) as ConsumerResult)}`).join('; ')} ` +
        '(above 1: lasso takes longer)',
    );
    // The CPU ratios per round (side by side, so the machine's load hits each consumer of a round alike).
    for (const name of others) {
      const perRound = rounds.map((r) => {
        const own = r.byConsumer.get(lassoName) as ConsumerResult;
        return (own.cpuMs / (r.byConsumer.get(name) as ConsumerResult).cpuMs).toFixed(2);
      });
      console.log(`CPU lasso / ${name} per round: ${perRound.join(', ')}`);
    }
    console.log(`load average ${loadNote()}`);
    if (baselineDir === undefined) {
      const peer = summaries.get(consumers[1]?.name as string) as ConsumerResult;
      const limit = summaries.get(consumers[2]?.name as string) as ConsumerResult;
      recordResults('W4', {
        sizes: {
          objects: sizes.objects,
          rounds: sizes.rounds,
          workers: sizes.workers,
          parallel: sizes.parallel,
        },
        contenders: Object.fromEntries(
          [...summaries].map(([name, s]) => [
            name,
            { totalMs: s.totalMs, p50Ms: s.p50Ms, p99Ms: s.p99Ms, cpuMs: s.cpuMs },
          ]),
        ),
        ratios: {
          [`CPU lasso / ${consumers[1]?.name}`]: lasso.cpuMs / peer.cpuMs,
          [`CPU lasso / ${consumers[2]?.name}`]: lasso.cpuMs / limit.cpuMs,
        },
        goals: { [`CPU lasso <= ${consumers[1]?.name}`]: lasso.cpuMs <= peer.cpuMs },
        notes: `writes: median ${Math.round(writeMs)} ms; the envtest API server; consumers side by side`,
      });
    }
  } finally {
    for (const child of children.reverse()) await child.stop();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
