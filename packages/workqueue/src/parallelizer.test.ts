// Ports the behaviours of client-go util/workqueue/parallelizer_test.go (own tests, not copies).
import { describe, expect, it } from 'vitest';
import { parallelizeUntil } from './parallelizer.ts';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('parallelizeUntil', () => {
  it.for([
    { name: 'one worker', workers: 1, pieces: 10, chunkSize: 1 },
    { name: 'more workers than pieces', workers: 20, pieces: 5, chunkSize: 1 },
    { name: 'chunks that do not divide the pieces', workers: 3, pieces: 100, chunkSize: 7 },
    { name: 'no pieces', workers: 4, pieces: 0, chunkSize: 1 },
  ])('runs every piece exactly once with $name', async ({ workers, pieces, chunkSize }) => {
    const seen: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    await parallelizeUntil(
      workers,
      pieces,
      async (piece) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await flush();
        seen.push(piece);
        inFlight--;
      },
      { chunkSize },
    );
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: pieces }, (_, i) => i));
    expect(maxInFlight).toBeLessThanOrEqual(workers);
  });

  it('stops handing out pieces and rejects with the signal reason when aborted', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const run = parallelizeUntil(
      2,
      100,
      async (piece) => {
        seen.push(piece);
        if (piece === 3) controller.abort(new Error('enough'));
        await flush();
      },
      { signal: controller.signal },
    );
    await expect(run).rejects.toThrow('enough');
    expect(seen.length).toBeLessThan(10);
  });

  it('rejects with the first error after the running pieces end', async () => {
    const seen: number[] = [];
    const run = parallelizeUntil(3, 50, async (piece) => {
      seen.push(piece);
      await flush();
      if (piece === 1) throw new Error('piece 1 failed');
    });
    await expect(run).rejects.toThrow('piece 1 failed');
    expect(seen.length).toBeLessThan(50);
  });

  it.for([
    { name: 'workers = 0', workers: 0, pieces: 1, chunkSize: 1, option: 'workers' },
    { name: 'workers = 1.5', workers: 1.5, pieces: 1, chunkSize: 1, option: 'workers' },
    { name: 'pieces = -1', workers: 1, pieces: -1, chunkSize: 1, option: 'pieces' },
    { name: 'chunkSize = 0', workers: 1, pieces: 1, chunkSize: 0, option: 'chunkSize' },
  ])(
    'throws a RangeError naming the option for $name',
    async ({ workers, pieces, chunkSize, option }) => {
      const run = parallelizeUntil(workers, pieces, () => {}, { chunkSize });
      await expect(run).rejects.toThrow(RangeError);
      await expect(run).rejects.toThrow(option);
    },
  );
});
