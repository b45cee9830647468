import { describe, expect, it } from 'vitest';
import { ChunkedQueue, queueChunkSize } from './chunked-queue.ts';

describe('ChunkedQueue', () => {
  it('returns items in FIFO order across chunk boundaries, pushes interleaved with shifts', () => {
    const queue = new ChunkedQueue<number>();
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 700; i++) queue.push(next++);
      for (let i = 0; i < 500; i++) out.push(queue.shift() as number);
    }
    while (queue.size > 0) out.push(queue.shift() as number);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(queue.shift()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  it('allocates one chunk, not one per item, when every push is shifted at once (a handler that keeps up)', () => {
    const queue = new ChunkedQueue<number>();
    for (let index = 0; index < 10_000; index++) {
      queue.push(index);
      expect(queue.shift()).toBe(index);
    }
    expect(queue.chunksAllocated()).toBe(1);
    expect(queue.heldSlots()).toBe(0);
  });

  it('holds no storage once a 50,000-item burst is drained', () => {
    const queue = new ChunkedQueue<object>();
    for (let i = 0; i < 50_000; i++) queue.push({ i });
    while (queue.shift() !== undefined);
    expect(queue.heldSlots()).toBe(0);
  });

  it('holds at most one chunk beyond its backlog at every step of a drain', () => {
    const queue = new ChunkedQueue<object>();
    for (let i = 0; i < 50_000; i++) queue.push({ i });
    let worstExcess = 0;
    while (queue.shift() !== undefined) {
      worstExcess = Math.max(worstExcess, queue.heldSlots() - queue.size);
    }
    expect(worstExcess).toBeLessThan(queueChunkSize);
  });

  it('reuses no storage between bursts: a second burst starts from an empty queue', () => {
    const queue = new ChunkedQueue<number>();
    for (let i = 0; i < 3_000; i++) queue.push(i);
    for (let i = 0; i < 3_000; i++) queue.shift();
    queue.push(1);
    expect(queue.heldSlots()).toBe(1);
    expect(queue.shift()).toBe(1);
    expect(queue.heldSlots()).toBe(0);
  });
});
