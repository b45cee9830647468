import type { KubeObject } from '@lasso/client';
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createSharedIndexInformer } from './shared-informer.ts';
import { cacheStaleness, stalenessMetricNames } from './staleness.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

function cm(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data: {} };
}

const name = 'v1, Kind=ConfigMap';
const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };

async function setup() {
  const clock = new FakeClock(1_000_000);
  const metrics = createTestMetricsProvider();
  const fake = new FakeListerWatcher<KubeObject>({ objects: [cm('a'), cm('b')] });
  const informer = createSharedIndexInformer(fake, { name, gvk, clock, metrics, random: () => 0 });
  const controller = new AbortController();
  await informer.start(controller.signal);
  await informer.whenSynced();
  const watch = await fake.nextWatch();
  const stop = async (): Promise<void> => {
    controller.abort();
    await informer.stopped();
  };
  return { clock, metrics, fake, informer, watch, stop };
}

/** Waits (bounded) until the informer's store holds `count` objects. */
async function untilStored(read: () => number, count: number): Promise<void> {
  for (let turn = 0; turn < 1_000 && read() !== count; turn++) await Promise.resolve();
  expect(read()).toBe(count);
}

describe('cacheStaleness', () => {
  it('is undefined for an informer this package did not create', () => {
    expect(cacheStaleness({})).toBeUndefined();
  });

  it('reports nothing current before the first list', () => {
    const informer = createSharedIndexInformer(new FakeListerWatcher<KubeObject>(), {
      clock: new FakeClock(),
    });
    expect(cacheStaleness(informer)).toEqual({
      resourceVersion: '',
      currentAt: undefined,
      secondsSinceCurrent: undefined,
      cachedObjects: 0,
    });
  });

  it('grows with the clock and restarts at the list, each event and each bookmark', async () => {
    const { clock, metrics, fake, informer, stop } = await setup();
    const listedVersion = fake.resourceVersion();
    expect(cacheStaleness(informer)).toMatchObject({
      resourceVersion: listedVersion,
      currentAt: 1_000_000,
      secondsSinceCurrent: 0,
      cachedObjects: 2,
    });
    expect(metrics.value(stalenessMetricNames.resourceVersion, { name })).toBe(
      Number(listedVersion),
    );
    expect(metrics.value(stalenessMetricNames.currentTimestamp, { name })).toBe(1_000);

    await clock.advance(45_000);
    expect(cacheStaleness(informer)?.secondsSinceCurrent).toBe(45);
    // The exported timestamp does not move while nothing arrives: dashboards compute time() - it.
    expect(metrics.value(stalenessMetricNames.currentTimestamp, { name })).toBe(1_000);

    fake.create(cm('c'));
    await untilStored(() => informer.getStore().size(), 3);
    expect(cacheStaleness(informer)).toMatchObject({
      resourceVersion: fake.resourceVersion(),
      currentAt: 1_045_000,
      secondsSinceCurrent: 0,
      cachedObjects: 3,
    });
    expect(metrics.value(stalenessMetricNames.currentTimestamp, { name })).toBe(1_045);

    // A bookmark never reaches the store, and still proves the cache current at its resourceVersion.
    await clock.advance(30_000);
    expect(cacheStaleness(informer)?.secondsSinceCurrent).toBe(30);
    const before = fake.resourceVersion();
    fake.sendBookmarks();
    for (let turn = 0; turn < 1_000 && cacheStaleness(informer)?.secondsSinceCurrent !== 0; turn++)
      await Promise.resolve();
    expect(cacheStaleness(informer)).toMatchObject({
      resourceVersion: before,
      currentAt: 1_075_000,
      secondsSinceCurrent: 0,
    });
    expect(metrics.value(stalenessMetricNames.currentTimestamp, { name })).toBe(1_075);
    await stop();
  });

  it('counts cached objects per kind, down on deletions', async () => {
    const { metrics, fake, informer, stop } = await setup();
    const labels = { group: '', version: 'v1', kind: 'ConfigMap' };
    expect(metrics.value(stalenessMetricNames.cachedObjects, labels)).toBe(2);
    fake.create(cm('c'));
    await untilStored(() => informer.getStore().size(), 3);
    expect(metrics.value(stalenessMetricNames.cachedObjects, labels)).toBe(3);
    fake.remove('ns/a');
    await untilStored(() => informer.getStore().size(), 2);
    expect(metrics.value(stalenessMetricNames.cachedObjects, labels)).toBe(2);
    await stop();
  });

  it('records no cached-object count without a gvk', async () => {
    const metrics = createTestMetricsProvider();
    const fake = new FakeListerWatcher<KubeObject>({ objects: [cm('a')] });
    const informer = createSharedIndexInformer(fake, { clock: new FakeClock(), metrics });
    const controller = new AbortController();
    await informer.start(controller.signal);
    await informer.whenSynced();
    await untilStored(() => informer.getStore().size(), 1);
    expect(metrics.value(stalenessMetricNames.cachedObjects, gvk)).toBe(0);
    controller.abort();
    await informer.stopped();
  });
});
