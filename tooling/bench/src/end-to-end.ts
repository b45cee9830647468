// `pnpm bench:e2e`: W4 (ARCHITECTURE.md section 5). 5,000 ConfigMaps (1 KiB of data, 3 labels) created in one
// namespace of the @lasso/envtest API server by a writer, 16 creates in flight, while three consumers watch that
// namespace at once, each in its own process: a @lasso/factory SharedControllerFactory with a handler,
// client-node's informer feeding a hand-rolled work queue, and the limit (a raw watch: undici + JSON.parse, no
// cache, no queue). Per consumer: the time from the first create to the moment every key's handler has seen its
// object, and the p50/p99 latency from each create (a timestamp written into the object's data just before its
// request) to its handler. Several rounds (median), each on a fresh namespace, the consumers' start order
// rotated. Sizes: --objects N --rounds N --workers N --parallel N.
import { setTimeout as sleep } from 'node:timers/promises';
import { forkMessageChild, type MessageChild, startServerChild } from './child.ts';
import type { ConsumerReply } from './consumer-process.ts';
import { consumers } from './e2e-consumers.ts';
import { machineNote, median, parseSizes, percentile } from './measure.ts';
import type { WriterReply, WriterRequest } from './writer-process.ts';

const sizes = parseSizes(process.argv.slice(2), {
  objects: 5_000,
  rounds: 5,
  workers: 5,
  parallel: 16,
});

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
    const running: ConsumerChild[] = consumers.map(({ name }) => {
      const child = forkMessageChild<ConsumerReply>('consumer-process.js', [
        name,
        server.kubeconfigPath,
        String(sizes.workers),
        String(sizes.objects),
      ]);
      children.push(child);
      return { name, child };
    });
    console.log(
      `method: ${server.description}, the writer and each consumer in its own process; the three consumers ` +
        'watch the same creates at once, each on a fresh namespace per round; total = first create issued -> ' +
        "last key first seen by that consumer's handler; latency = timestamp in the object before its create " +
        '-> its handler (process.hrtime, CLOCK_MONOTONIC)',
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
          `(after response ${millis(r.responseP50Ms)} / ${millis(r.responseP99Ms)})`
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
    const [lasso, peer, limit] = running.map(({ name }) => summary(name)) as [
      ConsumerResult,
      ConsumerResult,
      ConsumerResult,
    ];
    running.forEach(({ name }, index) => {
      const s = [lasso, peer, limit][index] as ConsumerResult;
      console.log(
        `${name.padEnd(14)} median total ${seconds(s.totalMs)}, p50 ${millis(s.p50Ms)}, ` +
          `p99 ${millis(s.p99Ms)}; after the create's response p50 ${millis(s.responseP50Ms)}, ` +
          `p99 ${millis(s.responseP99Ms)}; process CPU ${seconds(s.cpuMs)}`,
      );
    });
    const ratios = (other: ConsumerResult): string =>
      `total ${(lasso.totalMs / other.totalMs).toFixed(2)}x, p50 ${(lasso.p50Ms / other.p50Ms).toFixed(2)}x, ` +
      `p99 ${(lasso.p99Ms / other.p99Ms).toFixed(2)}x, CPU ${(lasso.cpuMs / other.cpuMs).toFixed(2)}x`;
    console.log(
      `ratios lasso / client-node: ${ratios(peer)}; lasso / limit: ${ratios(limit)} ` +
        '(above 1: lasso takes longer)',
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
