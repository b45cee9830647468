// What a drained DeltaFIFO keeps alive. V8 allocates a Map's next hash table in the generation of its current one,
// and a replaced table keeps its entries: once a full GC has moved a long-lived FIFO's table to the old generation,
// every later table is old too and each dead one keeps the deltas it held alive through every scavenge, so every
// object that passed through the FIFO was promoted (W3: a peak heap of 50-200 MiB instead of ~20 after any full
// GC). Measured here with V8's own collector: scavenges after each fill-and-drain must free what was popped.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DeltaFIFO } from './delta-fifo.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: {
  type?: 'major' | 'minor';
  execution?: 'sync';
}) => void;

interface Payload {
  metadata: { namespace: string; name: string };
  data: number[];
}

const oldSpaceUsed = (): number =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;

/** One watch body chunk: `keys` objects of ~8 KiB queued, then every key popped. */
function fillAndDrain(fifo: DeltaFIFO<Payload>, round: number, keys: number): number {
  for (let index = 0; index < keys; index++) {
    fifo.update({
      metadata: { namespace: 'ns', name: `o${index}` },
      data: new Array<number>(1024).fill(round + 0.5),
    });
  }
  let popped = 0;
  while (fifo.tryPop() !== undefined) popped++;
  return popped;
}

describe('DeltaFIFO memory', () => {
  it('lets scavenges free what it popped after a full GC moved it to the old generation', () => {
    const fifo = new DeltaFIFO<Payload>();
    fillAndDrain(fifo, 0, 64);
    // A key still queued during the full GCs: the FIFO's current table moves to the old generation with it.
    fifo.update({ metadata: { namespace: 'ns', name: 'held' }, data: [] });
    gc({ type: 'major', execution: 'sync' });
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpaceUsed();
    const rounds = 40;
    let popped = 0;
    for (let round = 1; round <= rounds; round++) {
      popped += fillAndDrain(fifo, round, 64);
      gc({ type: 'minor', execution: 'sync' });
    }
    gc({ type: 'minor', execution: 'sync' });
    gc({ type: 'minor', execution: 'sync' });
    const promoted = oldSpaceUsed() - before;
    expect(popped).toBe(rounds * 64 + 1);
    // 40 rounds of 64 objects of ~8 KiB are ~20 MiB: retained by dead old tables, all of it is promoted. Freed by
    // the scavenges, what reaches the old generation is at most about one round (what the first drain held) and
    // the test's own bookkeeping.
    expect(promoted).toBeLessThan(3 * 1024 * 1024);
  });
});
