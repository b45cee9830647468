// Workload W1 (queue churn, ARCHITECTURE.md section 5): distinct keys, many adds cycling over them,
// async workers doing get -> done. The producer yields a macrotask every `batch` adds so workers run.
import type { BenchQueue } from './reference-queue.ts';

/** W1 parameters; the defaults are the workload's definition. */
export interface W1Options {
  keys?: number;
  adds?: number;
  workers?: number;
  /** Adds between producer yields. */
  batch?: number;
}

/** One W1 run: wall time, add calls per second, and how many items the workers processed. */
export interface W1Result {
  elapsedMs: number;
  opsPerSecond: number;
  processed: number;
}

const yieldMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Run W1 once on `queue`, from the first add until every worker has seen shutdown. */
export async function runW1(queue: BenchQueue<string>, options: W1Options = {}): Promise<W1Result> {
  const { keys = 10_000, adds = 1_000_000, workers = 4, batch = 1_000 } = options;
  const keyList = Array.from({ length: keys }, (_, i) => `default/object-${i}`);
  let processed = 0;
  const start = performance.now();
  const loops = Array.from({ length: workers }, async () => {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      processed++;
      queue.done(next.item);
    }
  });
  for (let i = 0; i < adds; ) {
    const end = Math.min(adds, i + batch);
    for (; i < end; i++) queue.add(keyList[i % keys] as string);
    await yieldMacrotask();
  }
  queue.shutDown();
  await Promise.all(loops);
  const elapsedMs = performance.now() - start;
  return { elapsedMs, opsPerSecond: (adds / elapsedMs) * 1000, processed };
}
