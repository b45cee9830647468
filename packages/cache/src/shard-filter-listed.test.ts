// ShardFilterSource.listed: the reflector tells a sharded informer's source each time the store holds what a filter
// generation selects (a list stored, or idle with no range), which the factory's ring uses to hold back a gain while
// the list of the last one is in flight instead of abandoning it.
import type { KubeObject } from '@lasso/client';
import { fnv1a64 } from '@lasso/core/sharding';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createShardFilterSource, type ShardFilterSource } from './shard-filter.ts';
import { createSharedIndexInformer } from './shared-informer.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

const half = 1n << 63n;

function objects(): KubeObject[] {
  const found: KubeObject[] = [];
  for (let index = 0; found.length < 4; index++) {
    const uid = `uid-${index}`;
    if (fnv1a64(uid) < half === found.length < 2) {
      found.push({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'ns', name: uid, uid },
      });
    }
  }
  return found;
}

function setup(listed: (generation: number) => void) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const settable = createShardFilterSource({ ranges: [] });
  const source: ShardFilterSource = {
    current: () => settable.current(),
    subscribe: (listener) => settable.subscribe(listener),
    listed,
  };
  const fake = new FakeListerWatcher<KubeObject>({ objects: objects() });
  const informer = createSharedIndexInformer(fake, {
    name: 'cms',
    clock,
    logger,
    random: () => 0,
    initialList: 'consistent',
    shard: source,
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  return {
    clock,
    logger,
    fake,
    informer,
    settable,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

describe('ShardFilterSource.listed', () => {
  it('is told the generation of each filter whose list was stored, and of an idle filter', async () => {
    const told: number[] = [];
    const t = setup((generation) => told.push(generation));
    await t.informer.whenSynced();
    // No range: idle, nothing listed, but the (empty) store is what generation 1 selects.
    expect(told).toEqual([1]);
    t.settable.set([{ start: 0n, end: half }]);
    await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(1);
    expect(told).toEqual([1, 2]);
    expect(t.informer.getStore().listKeys()).toHaveLength(2);
    // Giving ranges up lists nothing: nothing to tell.
    t.settable.set([{ start: 0n, end: 1n << 62n }]);
    await t.clock.advance(0);
    expect(told).toEqual([1, 2]);
    await t.stop();
  });

  it('logs a source that throws and goes on', async () => {
    const t = setup(() => {
      throw new Error('boom');
    });
    await t.informer.whenSynced();
    t.settable.set([{ start: 0n, end: half }]);
    await t.fake.nextWatch();
    expect(t.informer.getStore().listKeys()).toHaveLength(2);
    expect(
      t.logger.entries.filter(
        (entry) => entry.message === 'the shard filter source failed when told of a list',
      ),
    ).toHaveLength(2);
    await t.stop();
  });
});
