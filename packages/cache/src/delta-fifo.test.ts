// Ports client-go delta_fifo_test.go cases (TestDeltaFIFO_*).
import type { KubeObject } from '@lasso/client';
import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown, DeltaFIFO, isDeletedFinalStateUnknown } from './delta-fifo.ts';
import { createIndexer } from './store.ts';

function cm(name: string, resourceVersion = '1', extra: Record<string, unknown> = {}): KubeObject {
  return { metadata: { namespace: 'ns', name, resourceVersion, ...extra } };
}

const types = (fifo: DeltaFIFO<KubeObject>, key: string) =>
  fifo.getByKey(key)?.map((delta) => delta.type);

describe('DeltaFIFO', () => {
  it('keeps one queue position per key and every delta in order', () => {
    const fifo = new DeltaFIFO<KubeObject>();
    fifo.add(cm('a'));
    fifo.add(cm('b'));
    fifo.update(cm('a', '2'));
    expect(fifo.listKeys()).toEqual(['ns/a', 'ns/b']);
    const popped = fifo.tryPop();
    expect(popped?.key).toBe('ns/a');
    expect(
      popped?.deltas.map((d) => [d.type, (d.object as KubeObject).metadata?.resourceVersion]),
    ).toEqual([
      ['Added', '1'],
      ['Updated', '2'],
    ]);
    expect(fifo.len()).toBe(1);
  });

  it('ignores a delete of a key it neither queues nor knows', () => {
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: createIndexer() });
    fifo.delete(cm('ghost'));
    expect(fifo.len()).toBe(0);
  });

  it('collapses two deletes into one and prefers the real object to a tombstone', () => {
    const known = createIndexer();
    known.add(cm('a'));
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: known });
    fifo.delete(new DeletedFinalStateUnknown('ns/a', cm('a')) as never);
    fifo.delete(cm('a', '5'));
    const deltas = fifo.getByKey('ns/a') ?? [];
    expect(deltas).toHaveLength(1);
    expect(isDeletedFinalStateUnknown(deltas[0]?.object)).toBe(false);

    const second = new DeltaFIFO<KubeObject>({ knownObjects: known });
    second.delete(cm('a', '5'));
    second.delete(cm('a', '6'));
    expect(
      second.getByKey('ns/a')?.map((d) => (d.object as KubeObject).metadata?.resourceVersion),
    ).toEqual(['5']);
  });

  it('queues Replaced deltas and tombstones with the last known state for keys missing from a relist', () => {
    const known = createIndexer();
    known.add(cm('stored', '3'));
    known.add(cm('kept', '3'));
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: known });
    fifo.update(cm('queued', '7'));
    fifo.replace([cm('kept', '3'), cm('new', '9')], '10');
    expect(types(fifo, 'ns/kept')).toEqual(['Replaced']);
    expect(types(fifo, 'ns/new')).toEqual(['Replaced']);
    const stored = fifo.getByKey('ns/stored')?.[0]?.object;
    expect(stored).toBeInstanceOf(DeletedFinalStateUnknown);
    expect((stored as DeletedFinalStateUnknown<KubeObject>).object.metadata?.resourceVersion).toBe(
      '3',
    );
    const queued = fifo.getByKey('ns/queued') ?? [];
    expect(queued.map((d) => d.type)).toEqual(['Updated', 'Deleted']);
    expect(queued[1]?.object).toMatchObject({ object: { metadata: { resourceVersion: '7' } } });
  });

  it('reports synced only after every item of the first replace was popped', () => {
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: createIndexer() });
    expect(fifo.hasSynced()).toBe(false);
    fifo.replace([cm('a'), cm('b')], '2');
    expect(fifo.hasSynced()).toBe(false);
    expect(fifo.tryPop()?.isInInitialList).toBe(true);
    fifo.add(cm('c'));
    expect(fifo.tryPop()?.isInInitialList).toBe(true);
    expect(fifo.hasSynced()).toBe(true);
    expect(fifo.tryPop()?.isInInitialList).toBe(false);
  });

  it('is synced at once after an empty first list', () => {
    const fifo = new DeltaFIFO<KubeObject>();
    fifo.replace([], '1');
    expect(fifo.hasSynced()).toBe(true);
  });

  it('queues Sync deltas on resync only for known keys without pending deltas', () => {
    const known = createIndexer();
    known.add(cm('a'));
    known.add(cm('b'));
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: known });
    fifo.update(cm('b', '2'));
    fifo.resync();
    expect(types(fifo, 'ns/a')).toEqual(['Sync']);
    expect(types(fifo, 'ns/b')).toEqual(['Updated']);
  });

  it('transforms objects before queueing them, but not Sync deltas or tombstones', () => {
    const known = createIndexer();
    known.add(cm('s'));
    let calls = 0;
    const fifo = new DeltaFIFO<KubeObject>({
      knownObjects: known,
      transform: (object) => {
        calls++;
        return { ...object, transformed: true };
      },
    });
    fifo.add(cm('a'));
    expect(fifo.getByKey('ns/a')?.[0]?.object).toMatchObject({ transformed: true });
    fifo.resync();
    fifo.replace([cm('a')], '3');
    expect(calls).toBe(2);
    expect(types(fifo, 'ns/s')).toEqual(['Sync', 'Deleted']);
  });

  it('wakes a waiting pop, drains after close and then resolves undefined', async () => {
    const fifo = new DeltaFIFO<KubeObject>();
    const waiting = fifo.pop();
    fifo.add(cm('a'));
    expect((await waiting)?.key).toBe('ns/a');
    fifo.add(cm('b'));
    fifo.close();
    expect((await fifo.pop())?.key).toBe('ns/b');
    expect(await fifo.pop()).toBeUndefined();
  });

  it('rejects a waiting pop with the abort reason', async () => {
    const fifo = new DeltaFIFO<KubeObject>();
    const controller = new AbortController();
    const waiting = fifo.pop({ signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('keeps FIFO order across many keys', () => {
    const fifo = new DeltaFIFO<KubeObject>();
    for (let i = 0; i < 3000; i++) fifo.add(cm(`k${i}`));
    for (let i = 0; i < 3000; i++) expect(fifo.tryPop()?.key).toBe(`ns/k${i}`);
    expect(fifo.tryPop()).toBeUndefined();
  });
});
