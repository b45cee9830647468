// `pnpm bench:workqueue`: W1 on @lasso/workqueue (unmetered, and metered: a name and a metrics
// provider) against the bare reference queue, several rounds, each round running the contenders in a rotated
// order; prints the median ops/s of each, the bytes each allocates per add, and the two ratios against their
// goals. `--baseline DIR` adds a second @lasso/workqueue build (a copied package dir holding `dist/`, whose
// `@lasso/core` import resolves from there) as two more contenders, for A/B runs in one process.
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { createQueue, type QueueOptions } from '@lasso/workqueue';
import { takeBaseline } from './baseline.ts';
import { loadNote, machineNote, median, recordResults } from './measure.ts';
import { type BenchQueue, ReferenceQueue } from './reference-queue.ts';
import { runW1, type W1Result } from './w1.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 9);

type CreateQueue = typeof createQueue;

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

/** `--baseline DIR` (or `--baseline=DIR`), the only argument W1 takes. */
function baselineArgument(argv: string[]): string | undefined {
  const { baselineDir, rest } = takeBaseline(argv);
  if (rest[0] !== undefined) {
    throw new TypeError(`unknown argument ${rest[0]}; options: --baseline DIR`);
  }
  if (baselineDir === '') throw new TypeError('--baseline needs a directory');
  return baselineDir;
}

async function loadBaseline(dir: string): Promise<CreateQueue> {
  const root = isAbsolute(dir) ? dir : resolve(process.cwd(), dir);
  const module = (await import(pathToFileURL(join(root, 'dist', 'index.js')).href)) as {
    createQueue: CreateQueue;
  };
  return module.createQueue;
}

/** One W1 run with the bytes allocated meanwhile: heap growth plus what each collection freed. */
interface MeasuredRun extends W1Result {
  /** Process CPU time (user + system) per add: unlike wall time, not inflated while other processes run. */
  cpuNsPerAdd: number;
  bytesPerAdd: number;
  gcsPerMillionAdds: number;
}

async function measuredRun(queue: BenchQueue<string>): Promise<MeasuredRun> {
  const profiler = new GCProfiler();
  const before = getHeapStatistics().used_heap_size;
  profiler.start();
  const cpu = process.cpuUsage();
  const result = await runW1(queue); // runW1 shuts the queue down (and its metrics timer)
  const { user, system } = process.cpuUsage(cpu);
  const after = getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  let freed = 0;
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  }
  const adds = (result.opsPerSecond * result.elapsedMs) / 1000;
  return {
    ...result,
    cpuNsPerAdd: ((user + system) * 1000) / adds,
    bytesPerAdd: (after - before + freed) / adds,
    gcsPerMillionAdds: (statistics.length / adds) * 1e6,
  };
}

const format = (opsPerSecond: number): string =>
  `${(opsPerSecond / 1e6).toFixed(2)} M ops/s`.padStart(14);

async function main(): Promise<void> {
  const baselineDir = baselineArgument(process.argv.slice(2));
  const contenders: Record<string, () => BenchQueue<string>> = {
    unmetered: () => createQueue<string>(),
    metered: () => createQueue<string>({ name: 'w1', metrics: summingMetrics() }),
    reference: () => new ReferenceQueue<string>(),
  };
  if (baselineDir !== undefined) {
    const baseline = await loadBaseline(baselineDir);
    contenders['unmetered (baseline)'] = () => baseline<string>();
    contenders['metered (baseline)'] = () =>
      baseline<string>({ name: 'w1', metrics: summingMetrics() });
  }
  const names = Object.keys(contenders);
  console.log(
    `W1 queue-churn: 10,000 keys, 1,000,000 adds, 4 workers; ${rounds} rounds (+1 warm-up), ${machineNote()}` +
      (baselineDir === undefined ? '' : `; baseline ${baselineDir}`),
  );
  const results: Record<string, MeasuredRun[]> = Object.fromEntries(
    names.map((name) => [name, []]),
  );
  // Warm up each so the JIT has compiled it before anything is measured.
  for (const name of names) await runW1((contenders[name] as () => BenchQueue<string>)());
  for (let round = 1; round <= rounds; round++) {
    // Rotate which goes first so none always runs on a warmer (or more fragmented) heap.
    const order = names.map((_, i) => names[(i + round) % names.length] as string);
    for (const name of order) {
      const queue = (contenders[name] as () => BenchQueue<string>)();
      (results[name] as MeasuredRun[]).push(await measuredRun(queue));
    }
    console.log(
      `  round ${round}:` +
        names
          .map(
            (name) =>
              `  ${name} ${format(((results[name] as MeasuredRun[]).at(-1) as MeasuredRun).opsPerSecond)}`,
          )
          .join(''),
    );
  }
  const ops = (name: string): number =>
    median((results[name] as MeasuredRun[]).map((r) => r.opsPerSecond));
  const bytes = (name: string): number =>
    median((results[name] as MeasuredRun[]).map((r) => r.bytesPerAdd));
  const gcs = (name: string): number =>
    median((results[name] as MeasuredRun[]).map((r) => r.gcsPerMillionAdds));
  const cpu = (name: string): number =>
    median((results[name] as MeasuredRun[]).map((r) => r.cpuNsPerAdd));
  for (const name of names) {
    console.log(
      `${name.padEnd(22)} median ${format(ops(name))}, ${cpu(name).toFixed(0).padStart(4)} ns CPU per add, ` +
        `${bytes(name).toFixed(1).padStart(6)} B allocated per add, ${gcs(name).toFixed(0)} GCs per 1M adds`,
    );
  }
  // The ratio of medians, and the median of each round's ratio (rounds are neighbours in time: steadier under load).
  const roundRatio = (slow: string, fast: string): number =>
    median(
      (results[slow] as MeasuredRun[]).map(
        (r, i) =>
          ((results[fast] as MeasuredRun[])[i] as MeasuredRun).opsPerSecond / r.opsPerSecond,
      ),
    );
  const ratio = ops('reference') / ops('unmetered');
  const meteredRatio = ops('unmetered') / ops('metered');
  console.log(
    `ratio (reference / lasso): ${ratio.toFixed(2)}x; goal <= ${goal}x: ${ratio <= goal ? 'met' : 'NOT met'}`,
  );
  console.log(
    `ratio (lasso / lasso + metrics): ${meteredRatio.toFixed(2)}x (median per round ${roundRatio('metered', 'unmetered').toFixed(2)}x); ` +
      `goal <= ${meteredGoal}x: ${meteredRatio <= meteredGoal ? 'met' : 'NOT met'}; ` +
      `CPU per add ${(cpu('metered') / cpu('unmetered')).toFixed(2)}x; ` +
      `metrics allocate ${(bytes('metered') - bytes('unmetered')).toFixed(1)} B per add`,
  );
  if (baselineDir !== undefined) {
    const base = 'unmetered (baseline)';
    const meteredBase = 'metered (baseline)';
    console.log(
      `baseline ratio (lasso / lasso + metrics): ${(ops(base) / ops(meteredBase)).toFixed(2)}x ` +
        `(median per round ${roundRatio(meteredBase, base).toFixed(2)}x); ` +
        `CPU per add ${(cpu(meteredBase) / cpu(base)).toFixed(2)}x; ` +
        `metrics allocate ${(bytes(meteredBase) - bytes(base)).toFixed(1)} B per add`,
    );
  }
  console.log(`load average ${loadNote()}`);
  const processed = new Set(
    names.flatMap((name) => (results[name] as MeasuredRun[]).map((r) => r.processed)),
  );
  if (processed.size !== 1) {
    console.error(`queues processed different item counts: ${[...processed].join(', ')}`);
    process.exitCode = 1;
  }
  // A/B runs against a copied build are experiments, not results.
  if (baselineDir === undefined) {
    recordResults('W1', {
      sizes: { keys: 10_000, adds: 1_000_000, workers: 4, rounds },
      contenders: Object.fromEntries(
        names.map((name) => [
          name,
          {
            opsPerSecond: ops(name),
            cpuNsPerAdd: cpu(name),
            bytesPerAdd: bytes(name),
            gcsPerMillionAdds: gcs(name),
          },
        ]),
      ),
      ratios: {
        'reference / lasso': ratio,
        'lasso / lasso + metrics': meteredRatio,
        'CPU per add, lasso + metrics / lasso': cpu('metered') / cpu('unmetered'),
      },
      goals: {
        [`reference / lasso <= ${goal}`]: ratio <= goal,
        [`metered <= ${meteredGoal}`]: meteredRatio <= meteredGoal,
      },
    });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
