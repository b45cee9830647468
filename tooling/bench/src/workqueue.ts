// `pnpm bench:workqueue`: W1 on @lasso/workqueue (unmetered, and metered: a name and a metrics
// provider) against the bare reference queue, several rounds, each round running the three in a rotated
// order; prints the median ops/s of each and the two ratios against their goals.
import { createQueue, type QueueOptions } from '@lasso/workqueue';
import { ReferenceQueue } from './reference-queue.ts';
import { runW1, type W1Result } from './w1.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 9);

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

// reference / unmetered: the queue's own overhead; metered / unmetered: what the seven metrics cost.
const goal = 1.5;
const meteredGoal = 1.3;

const contenders = {
  unmetered: () => createQueue<string>(),
  metered: () => createQueue<string>({ name: 'w1', metrics: summingMetrics() }),
  reference: () => new ReferenceQueue<string>(),
} as const;
type Contender = keyof typeof contenders;
const names = Object.keys(contenders) as Contender[];

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
  const results: Record<Contender, W1Result[]> = { unmetered: [], metered: [], reference: [] };
  // Warm up each so the JIT has compiled it before anything is measured.
  for (const name of names) await runW1(contenders[name]());
  for (let round = 1; round <= rounds; round++) {
    // Rotate which goes first so none always runs on a warmer (or more fragmented) heap.
    const order = names.map((_, i) => names[(i + round) % names.length] as Contender);
    for (const name of order) {
      const queue = contenders[name]();
      results[name].push(await runW1(queue)); // runW1 shuts the queue down (and its metrics timer)
    }
    console.log(
      `  round ${round}: @lasso/workqueue ${format((results.unmetered.at(-1) as W1Result).opsPerSecond)}` +
        `   metered ${format((results.metered.at(-1) as W1Result).opsPerSecond)}` +
        `   reference ${format((results.reference.at(-1) as W1Result).opsPerSecond)}`,
    );
  }
  const ops = (name: Contender): number => median(results[name].map((r) => r.opsPerSecond));
  const lassoOps = ops('unmetered');
  const meteredOps = ops('metered');
  const referenceOps = ops('reference');
  const ratio = referenceOps / lassoOps;
  const meteredRatio = lassoOps / meteredOps;
  console.log(`@lasso/workqueue            median ${format(lassoOps)}`);
  console.log(`@lasso/workqueue + metrics  median ${format(meteredOps)}`);
  console.log(`reference (limit)           median ${format(referenceOps)}`);
  console.log(
    `ratio (reference / lasso): ${ratio.toFixed(2)}x; goal <= ${goal}x: ${ratio <= goal ? 'met' : 'NOT met'}`,
  );
  console.log(
    `ratio (lasso / lasso + metrics): ${meteredRatio.toFixed(2)}x; goal <= ${meteredGoal}x: ${meteredRatio <= meteredGoal ? 'met' : 'NOT met'}`,
  );
  const processed = new Set(names.flatMap((name) => results[name].map((r) => r.processed)));
  if (processed.size !== 1) {
    console.error(`queues processed different item counts: ${[...processed].join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
