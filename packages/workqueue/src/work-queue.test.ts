// Ports the behaviours of client-go util/workqueue/queue_test.go (own tests, not copies).
import { defaultLogger } from '@lasso/core';
import { createTestLogger, createTestMetricsProvider } from '@lasso/core/testing';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createQueue, type WorkQueue } from './work-queue.ts';

/** Let every pending promise continuation run (a macrotask turn, no timers). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function getItem<T>(queue: WorkQueue<T>): Promise<T> {
  const next = await queue.get();
  if (next.shutdown) throw new Error('queue unexpectedly shut down');
  return next.item;
}

describe('createQueue', () => {
  // TestBasic: many producers and consumers, each item processed.
  it('hands every added item to exactly one of several concurrent workers', async () => {
    const queue = createQueue<number>();
    const seen: number[] = [];
    const workers = Array.from({ length: 5 }, async () => {
      for (;;) {
        const next = await queue.get();
        if (next.shutdown) return;
        seen.push(next.item);
        await flush();
        queue.done(next.item);
      }
    });
    for (let i = 0; i < 50; i++) queue.add(i);
    await flush();
    for (let i = 50; i < 100; i++) queue.add(i);
    while (queue.len() > 0) await flush();
    await queue.shutDownWithDrain();
    await Promise.all(workers);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  // TestDeduping (queue part).
  it('hands out an item once when it is added many times before being handed out', async () => {
    const queue = createQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await getItem(queue)).toBe('a');
    expect(await getItem(queue)).toBe('b');
    expect(queue.len()).toBe(0);
  });

  it('hands items out in the order they were first added', async () => {
    const queue = createQueue<string>();
    for (const key of ['c', 'a', 'b', 'a', 'c']) queue.add(key);
    expect([await getItem(queue), await getItem(queue), await getItem(queue)]).toEqual([
      'c',
      'a',
      'b',
    ]);
  });

  // TestAddWhileProcessing.
  it('re-queues an item added while it is processed only after done', async () => {
    const queue = createQueue<string>();
    queue.add('a');
    const item = await getItem(queue);
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    let second: string | undefined;
    const waiting = queue.get().then((next) => {
      if (!next.shutdown) second = next.item;
    });
    await flush();
    expect(second).toBeUndefined();
    queue.done(item);
    await waiting;
    expect(second).toBe('a');
  });

  // TestReinsert.
  it('hands out an item again when it is re-added after done', async () => {
    const queue = createQueue<string>();
    queue.add('foo');
    const item = await getItem(queue);
    queue.done(item);
    queue.add(item);
    expect(queue.len()).toBe(1);
    expect(await getItem(queue)).toBe('foo');
  });

  // TestLen.
  it('counts queued items but not items being processed', async () => {
    const queue = createQueue<string>();
    queue.add('a');
    queue.add('b');
    expect(queue.len()).toBe(2);
    await getItem(queue);
    expect(queue.len()).toBe(1);
  });

  it('ignores done for an item that is not being processed', async () => {
    const queue = createQueue<string>();
    queue.add('a');
    queue.done('a');
    queue.done('never');
    expect(queue.len()).toBe(1);
    expect(await getItem(queue)).toBe('a');
    expect(queue.len()).toBe(0);
  });

  it('waits in get without spinning until an item arrives', async () => {
    const queue = createQueue<string>();
    let resolved = false;
    const waiting = queue.get().then((next) => {
      resolved = true;
      return next;
    });
    await flush();
    await flush();
    expect(resolved).toBe(false);
    queue.add('late');
    await expect(waiting).resolves.toEqual({ item: 'late', shutdown: false });
  });

  describe('shutDown()', () => {
    it('wakes every waiting worker with shutdown', async () => {
      const queue = createQueue<string>();
      const waiting = [queue.get(), queue.get(), queue.get()];
      queue.shutDown();
      expect(await Promise.all(waiting)).toEqual([
        { shutdown: true },
        { shutdown: true },
        { shutdown: true },
      ]);
      expect(queue.shuttingDown()).toBe(true);
    });

    it('ignores add after shutdown', async () => {
      const queue = createQueue<string>();
      queue.shutDown();
      queue.add('a');
      expect(queue.len()).toBe(0);
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    it('still hands out items queued before shutdown, then reports shutdown', async () => {
      const queue = createQueue<string>();
      queue.add('a');
      queue.shutDown();
      await expect(queue.get()).resolves.toEqual({ item: 'a', shutdown: false });
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    // TestForceQueueShutdownUsingShutDown.
    it('ends a pending shutDownWithDrain wait', async () => {
      const queue = createQueue<string>();
      queue.add('a');
      await getItem(queue);
      const drained = queue.shutDownWithDrain();
      queue.shutDown();
      await expect(drained).resolves.toBeUndefined();
    });
  });

  describe('shutDownWithDrain()', () => {
    // TestQueueDrainageUsingShutDownWithDrain.
    it('resolves only after every handed-out item is done', async () => {
      const queue = createQueue<string>();
      queue.add('a');
      queue.add('b');
      const a = await getItem(queue);
      const b = await getItem(queue);
      let drained = false;
      const drain = queue.shutDownWithDrain().then(() => {
        drained = true;
      });
      queue.done(a);
      await flush();
      expect(drained).toBe(false);
      queue.done(b);
      await drain;
      expect(drained).toBe(true);
    });

    // TestQueueDrainageUsingShutDownWithDrainWithDirtyItem.
    it('still hands out an item that was re-added while processing when draining', async () => {
      const queue = createQueue<string>();
      queue.add('a');
      const first = await getItem(queue);
      queue.add('a');
      const drain = queue.shutDownWithDrain();
      queue.add('b'); // ignored: shutting down
      queue.done(first);
      // Like client-go, the drain waits for handed-out items only; the dirty item is queued again.
      await drain;
      expect(queue.len()).toBe(1);
      const again = await getItem(queue);
      expect(again).toBe('a');
      queue.done(again);
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    it('also waits for items handed out while draining', async () => {
      const queue = createQueue<string>();
      queue.add('a');
      queue.add('b');
      const a = await getItem(queue);
      const b = await getItem(queue);
      queue.add('a');
      let drained = false;
      const drain = queue.shutDownWithDrain().then(() => {
        drained = true;
      });
      queue.done(a);
      const again = await getItem(queue);
      queue.done(b);
      await flush();
      expect(drained).toBe(false);
      queue.done(again);
      await drain;
      expect(drained).toBe(true);
    });

    it('resolves at once when nothing is being processed', async () => {
      const queue = createQueue<string>();
      await expect(queue.shutDownWithDrain()).resolves.toBeUndefined();
    });

    it('rejects with the signal reason when the signal aborts first', async () => {
      const queue = createQueue<string>();
      queue.add('a');
      await getItem(queue);
      const controller = new AbortController();
      const drain = queue.shutDownWithDrain({ signal: controller.signal });
      const reason = new Error('drain deadline');
      controller.abort(reason);
      await expect(drain).rejects.toBe(reason);
      expect(queue.shuttingDown()).toBe(true);
    });
  });

  it('warns and records nothing when metrics are given without a name', () => {
    const logger = createTestLogger();
    const metrics = createTestMetricsProvider();
    const queue = createQueue<string>({ metrics, logger });
    queue.add('a');
    expect(metrics.names()).toEqual([]);
    expect(logger.find('metrics disabled')).toHaveLength(1);
    queue.shutDown();
  });

  it('shuts down and releases waiting workers when the injected logger throws', async () => {
    const fail = (): never => {
      throw new Error('log sink down');
    };
    const original = process.emitWarning;
    const warnings: string[] = [];
    process.emitWarning = ((message: string) => {
      warnings.push(message);
    }) as typeof process.emitWarning;
    try {
      const queue = createQueue<string>({
        logger: { debug: fail, info: fail, warn: fail, error: fail, child: fail },
      });
      const waiting = queue.get();
      queue.shutDown();
      await expect(waiting).resolves.toMatchObject({ shutdown: true });
      expect(queue.shuttingDown()).toBe(true);
    } finally {
      process.emitWarning = original;
    }
    expect(warnings).toHaveLength(1);
  });

  it('warns through defaultLogger when no logger is given', () => {
    const warn = vi.spyOn(defaultLogger, 'warn').mockImplementation(() => {});
    const queue = createQueue<string>({ metrics: createTestMetricsProvider() });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('metrics disabled'));
    queue.shutDown();
  });

  describe('property: concurrent workers', () => {
    type Op =
      | { type: 'add'; key: number }
      | { type: 'finish'; worker: number }
      | { type: 'settle' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ type: fc.constant('add' as const), key: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ type: fc.constant('finish' as const), worker: fc.integer({ min: 0, max: 7 }) }),
      fc.constant({ type: 'settle' as const }),
    );

    it('never hands one item to two workers at once and processes every add after its last add', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 8 }),
          fc.array(op, { maxLength: 80 }),
          async (workerCount, ops) => {
            const queue = createQueue<number>();
            const holding = new Map<number, number>(); // item -> worker
            const lastAdd = new Map<number, number>();
            const lastHandOut = new Map<number, number>();
            const finishers: Array<(() => void) | undefined> = [];
            // Event counter: an add and a worker seeing an item each take the next number.
            let step = 0;
            let violation: string | undefined;
            const workers = Array.from({ length: workerCount }, async (_, id) => {
              for (;;) {
                const next = await queue.get();
                if (next.shutdown) return;
                const holder = holding.get(next.item);
                if (holder !== undefined) {
                  violation = `item ${next.item} held by ${holder} and ${id}`;
                }
                holding.set(next.item, id);
                lastHandOut.set(next.item, ++step);
                await new Promise<void>((resolve) => {
                  finishers[id] = resolve;
                });
                finishers[id] = undefined;
                holding.delete(next.item);
                queue.done(next.item);
              }
            });
            for (const o of ops) {
              if (o.type === 'add') {
                queue.add(o.key);
                lastAdd.set(o.key, ++step);
              } else if (o.type === 'finish') {
                finishers[o.worker % workerCount]?.();
              } else {
                await flush();
              }
            }
            // Quiesce: keep finishing work until nothing is queued or held.
            for (let round = 0; round < 1_000; round++) {
              await flush();
              if (queue.len() === 0 && holding.size === 0) break;
              for (const finish of finishers) finish?.();
            }
            queue.shutDown();
            await Promise.all(workers);
            expect(violation).toBeUndefined();
            expect(queue.len()).toBe(0);
            for (const [key, addedAt] of lastAdd) {
              expect(lastHandOut.get(key) ?? -1).toBeGreaterThan(addedAt);
            }
          },
        ),
        { numRuns: 200, seed: 42 },
      );
    });
  });
});
