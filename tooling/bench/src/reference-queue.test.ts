// The limit reference must have @lasso/workqueue's semantics, or W1's ratio compares different work.
import { createQueue } from '@lasso/workqueue';
import { describe, expect, it } from 'vitest';
import { type BenchQueue, ReferenceQueue } from './reference-queue.ts';
import { runW1 } from './w1.ts';

type Step = { add: string } | { get: true } | { done: string } | { shutDown: true };

const script: Step[] = [
  { add: 'a' },
  { add: 'b' },
  { add: 'a' },
  { get: true },
  { add: 'a' },
  { get: true },
  { add: 'c' },
  { done: 'a' },
  { get: true },
  { done: 'b' },
  { add: 'b' },
  { get: true },
  { get: true },
  { done: 'a' },
  { shutDown: true },
  { add: 'd' },
  { get: true },
  { done: 'c' },
  { done: 'b' },
  { get: true },
];

async function trace(queue: BenchQueue<string>): Promise<string[]> {
  const events: string[] = [];
  const pending: Array<Promise<void>> = [];
  for (const step of script) {
    if ('add' in step) queue.add(step.add);
    else if ('done' in step) queue.done(step.done);
    else if ('shutDown' in step) queue.shutDown();
    else {
      const index = pending.length;
      pending.push(
        queue.get().then((next) => {
          events.push(`get#${index} -> ${next.shutdown ? 'shutdown' : next.item}`);
        }),
      );
    }
    await new Promise((resolve) => setImmediate(resolve));
    events.push(`len ${queue.len()}`);
  }
  await Promise.all(pending);
  return events;
}

describe('ReferenceQueue', () => {
  it('behaves like @lasso/workqueue on a scripted add/get/done/shutdown sequence', async () => {
    const expected = await trace(createQueue<string>());
    expect(await trace(new ReferenceQueue<string>())).toEqual(expected);
    // Spot-check the script exercises dedup, re-queue after done and shutdown.
    expect(expected.filter((e) => e.startsWith('get#'))).toEqual([
      'get#0 -> a',
      'get#1 -> b',
      'get#2 -> c',
      'get#3 -> a',
      'get#4 -> b',
      'get#5 -> shutdown',
      'get#6 -> shutdown',
    ]);
  });

  it('processes the same number of items as @lasso/workqueue in a small W1 run', async () => {
    const options = { keys: 100, adds: 5_000, workers: 3, batch: 250 };
    const lasso = await runW1(createQueue<string>(), options);
    const reference = await runW1(new ReferenceQueue<string>(), options);
    expect(reference.processed).toBe(lasso.processed);
    expect(lasso.processed).toBeGreaterThanOrEqual(100);
  });
});
