// `pnpm bench:workqueue`: W1 on @lasso/workqueue against the bare reference queue, several rounds,
// printing the median ops/s of each, their ratio and whether it meets the 1.5x goal.
import { createQueue, type QueueOptions } from '@lasso/workqueue';
import { ReferenceQueue } from './reference-queue.ts';
import { runW1, type W1Result } from './w1.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);

// A provider whose series do real (cheap) work, to show what the seven workqueue_* metrics cost per item.
function summingMetrics(): NonNullable<QueueOptions['metrics']> {
  // Written, never read: the work must not be optimised away, and a property write is not dead code.
  const state = { sink: 0 };
  const series = {
    inc: (value = 1) => {
      state.sink += value;
    },
    dec: (value = 1) => {
      state.sink -= value;
    },
    set: (value: number) => {
      state.sink = value;
    },
    observe: (value: number) => {
      state.sink += value;
    },
  };
  return { counter: () => series, gauge: () => series, histogram: () => series };
}
const goal = 1.5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const format = (opsPerSecond: number): string =>
  `${(opsPerSecond / 1e6).toFixed(2)} M ops/s`.padStart(14);

async function main(): Promise<void> {
  console.log(
    `W1 queue-churn: 10,000 keys, 1,000,000 adds, 4 workers; ${rounds} rounds (+1 warm-up), node ${process.version}`,
  );
  const lasso: W1Result[] = [];
  const reference: W1Result[] = [];
  // Warm up both so the JIT has compiled each before anything is measured.
  await runW1(createQueue<string>());
  await runW1(new ReferenceQueue<string>());
  for (let round = 1; round <= rounds; round++) {
    // Alternate which goes first so neither always runs on a warmer (or more fragmented) heap.
    const order = round % 2 === 1 ? ['lasso', 'reference'] : ['reference', 'lasso'];
    for (const which of order) {
      if (which === 'lasso') lasso.push(await runW1(createQueue<string>()));
      else reference.push(await runW1(new ReferenceQueue<string>()));
    }
    console.log(
      `  round ${round}: @lasso/workqueue ${format((lasso.at(-1) as W1Result).opsPerSecond)}` +
        `   reference ${format((reference.at(-1) as W1Result).opsPerSecond)}`,
    );
  }
  const lassoOps = median(lasso.map((r) => r.opsPerSecond));
  const referenceOps = median(reference.map((r) => r.opsPerSecond));
  const ratio = referenceOps / lassoOps;
  console.log(`@lasso/workqueue  median ${format(lassoOps)}`);
  console.log(`reference (limit) median ${format(referenceOps)}`);
  console.log(
    `ratio (reference / lasso): ${ratio.toFixed(2)}x; goal <= ${goal}x: ${ratio <= goal ? 'met' : 'NOT met'}`,
  );
  const withMetrics: W1Result[] = [];
  for (let round = 0; round < 3; round++) {
    const queue = createQueue<string>({ name: 'w1', metrics: summingMetrics() });
    withMetrics.push(await runW1(queue));
    queue.shutDown();
  }
  const metricsOps = median(withMetrics.map((r) => r.opsPerSecond));
  console.log(
    `(info) @lasso/workqueue with name + metrics: median ${format(metricsOps)}, ${(referenceOps / metricsOps).toFixed(2)}x the limit`,
  );
  const processed = new Set([...lasso, ...reference].map((r) => r.processed));
  if (processed.size !== 1) {
    console.error(`queues processed different item counts: ${[...processed].join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
