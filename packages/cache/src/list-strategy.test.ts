// The reflector's lists: client-go's reflector.list rules (relistResourceVersion, paginatedResult, the pager's page
// size, isLastSyncResourceVersionUnavailable) and streaming lists (reflector.watchList, KEP-3157) with their fallback.
import { ApiError, type KubeObject, type WatchEvent } from '@lasso/client';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { runReflector } from '../test/reflector-harness.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import { Reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflector-options.ts';
import { createStore } from './store.ts';
import { FakeListerWatcher, type FakeListerWatcherOptions } from './testing/fake-lister-watcher.ts';

function cm(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name } };
}

function setup(
  count: number,
  options: ReflectorOptions = {},
  fakeOptions: FakeListerWatcherOptions<KubeObject> = {},
  prepare: (fake: FakeListerWatcher) => void = () => {},
) {
  const objects = Array.from({ length: count }, (_, i) => cm(`cm-${String(i).padStart(4, '0')}`));
  const t = runReflector(objects, options, fakeOptions, prepare);
  return {
    ...t,
    byStrategy: (strategy: string) =>
      t.metrics.value('lasso_reflector_lists_by_strategy_total', { name: 'test', strategy }),
    fallbacks: () => t.counter('lasso_reflector_streaming_list_fallbacks_total'),
  };
}

const gone = () =>
  new ApiError({ status: 410, reason: 'Expired', message: 'too old resource version' });
const initialEventsEnd = (resourceVersion: string) => ({
  type: 'BOOKMARK',
  object: {
    metadata: { resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } },
  },
});

describe('lists (client-go reflector.list rules)', () => {
  it('lists first at "0" with a page size of 500 and no resourceVersionMatch', async () => {
    const t = setup(3, { initialList: 'cached' });
    await t.fake.nextWatch();
    expect(t.fake.streamingCalls).toEqual([]);
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.fake.listCalls[0]).toMatchObject({ resourceVersion: '0', limit: 500 });
    expect(t.fake.listCalls[0]).not.toHaveProperty('resourceVersionMatch');
    expect(t.byStrategy('cached')).toBe(1);
    await t.stop();
  });

  it('relists at the last resourceVersion without paging, so the watch cache can answer', async () => {
    // The watch cache answered the list at "0" whole: relists go unpaginated.
    const t = setup(600, { initialList: 'cached' }, { watchCache: true });
    const watch = await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(1);
    const version = t.reflector.lastSyncResourceVersion();
    watch.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.listCalls[1]).toMatchObject({
      resourceVersion: version,
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(t.fake.listCalls[1]).not.toHaveProperty('limit');
    expect(t.byStrategy('not-older-than')).toBe(1);
    await t.stop();
  });

  it('pages relists at a resourceVersion when the user set pageSize', async () => {
    const t = setup(3, { initialList: 'cached', pageSize: 2 }, { watchCache: true });
    const watch = await t.fake.nextWatch();
    watch.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.listCalls[1]).toMatchObject({ resourceVersionMatch: 'NotOlderThan', limit: 2 });
    await t.stop();
  });

  it('keeps paging relists when the list at "0" came back paginated (no watch cache: etcd serves)', async () => {
    const t = setup(1200, { initialList: 'cached' });
    const watch = await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(3); // "0" answered in pages of 500
    watch.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.listCalls[3]).toMatchObject({
      resourceVersionMatch: 'NotOlderThan',
      limit: 500,
    });
    expect(t.store.size()).toBe(1200);
    await t.stop();
  });

  it('lists at "" after a list answered 410, with paging, then at a resourceVersion again after a success', async () => {
    const t = setup(3, { initialList: 'cached' }, { watchCache: true });
    const watch = await t.fake.nextWatch();
    const version = t.reflector.lastSyncResourceVersion();
    t.fake.failNextList(gone());
    watch.fail(gone());
    await t.clock.advance(800);
    const second = await t.fake.nextWatch();
    expect(t.fake.listCalls.map((call) => [call.resourceVersion, call.limit])).toEqual([
      ['0', 500],
      [version, undefined],
      ['', 500],
    ]);
    expect(t.byStrategy('consistent')).toBe(1);
    second.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.listCalls[3]?.resourceVersion).toBe(t.fake.resourceVersion());
    await t.stop();
  });

  it("initialList 'consistent' lists at \"\" in pages, also on relists (Lasso Go's rule)", async () => {
    const t = setup(3, { initialList: 'consistent' }, { watchCache: true });
    const watch = await t.fake.nextWatch();
    watch.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.streamingCalls).toEqual([]);
    expect(t.fake.listCalls.map((call) => [call.resourceVersion, call.limit])).toEqual([
      ['', 500],
      ['4', 500],
    ]);
    expect(t.byStrategy('consistent')).toBe(1);
    await t.stop();
  });

  it('gives list pages a progress deadline, and no total one to a lister-watcher that enforces it', async () => {
    const t = setup(1, { initialList: 'cached' });
    await t.fake.nextWatch();
    expect(t.fake.listCalls[0]).toMatchObject({ progressTimeoutMs: 120_000 });
    await t.stop();
    // A lister that answers after 5 minutes (a client streaming a huge list): the reflector does not cut it.
    const clock = new FakeClock();
    const slow = new FakeListerWatcher({ objects: [cm('a')] });
    const list = slow.list.bind(slow);
    slow.list = async (options) => {
      await new Promise<void>((resolve) => clock.schedule(300_000, resolve));
      return list(options);
    };
    const store = createStore();
    const progressing: ListerWatcher = {
      list: (options) => slow.list(options),
      watch: (options) => slow.watch(options),
      listProgressDeadline: true,
    };
    const reflector = new Reflector(progressing, store, { clock, initialList: 'cached' });
    const controller = new AbortController();
    const running = reflector.run({ signal: controller.signal });
    await clock.advance(300_000);
    await slow.nextWatch();
    expect(store.size()).toBe(1);
    controller.abort();
    await running;
  });

  it('rejects an unknown initialList with a TypeError naming it', () => {
    expect(
      () =>
        new Reflector(new FakeListerWatcher(), createStore(), {
          initialList: 'etcd' as never,
        }),
    ).toThrow(/initialList/);
  });
});

describe('streaming lists (client-go reflector.watchList, KEP-3157)', () => {
  it('syncs from one watch with sendInitialEvents and keeps that watch as the watch', async () => {
    const t = setup(3, {}, { streamingLists: 'serve' });
    const watch = await t.fake.nextWatch();
    await t.clock.advance(0);
    expect(t.fake.listCalls).toEqual([]);
    expect(t.fake.streamingCalls).toHaveLength(1);
    expect(watch.options).toMatchObject({
      resourceVersion: '',
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      inactivityTimeoutMs: 0,
    });
    expect(t.store.size()).toBe(3);
    expect(t.reflector.lastSyncResourceVersion()).toBe(t.fake.resourceVersion());
    expect(t.reflector.state()).toBe('watching');
    // The same request delivers what changes next: no second watch.
    t.fake.create(cm('later'));
    await t.clock.advance(0);
    expect(t.store.getByKey('ns/later')).toBeDefined();
    expect(t.fake.watchCalls).toHaveLength(1);
    expect(t.byStrategy('streaming')).toBe(1);
    expect(t.fallbacks()).toBe(0);
    await t.stop();
    expect(watch.closed).toBe(true);
  });

  it('applies changes sent before the end bookmark and deletes what the stream did not send', async () => {
    // 'ignore' replays the history as a plain watch would; the test then sends the end bookmark itself.
    const t = setup(0, { initialList: 'cached' }, { streamingLists: 'ignore' });
    const first = await t.fake.nextWatch();
    t.fake.create(cm('kept'));
    t.fake.create(cm('gone-later'));
    await t.clock.advance(0);
    expect(t.store.size()).toBe(2);
    t.fake.remove(cm('gone-later'));
    t.fake.modify({ ...cm('kept'), data: { a: 'b' } });
    // A streaming relist: the same fake, now asked with sendInitialEvents (the reflector sent none before).
    await t.stop();
    const again = new Reflector(t.fake, t.store, {
      name: 'again',
      clock: t.clock,
      random: () => 0,
    });
    const controller = new AbortController();
    const running = again.run({ signal: controller.signal });
    const streaming = await t.fake.nextWatch();
    expect(streaming.options.sendInitialEvents).toBe(true);
    streaming.push(initialEventsEnd(t.fake.resourceVersion()));
    await t.clock.advance(0);
    expect(t.store.listKeys()).toEqual(['ns/kept']);
    expect((t.store.getByKey('ns/kept') as KubeObject & { data?: unknown }).data).toEqual({
      a: 'b',
    });
    expect(first.closed).toBe(true);
    controller.abort();
    await running;
  });

  it('falls back to a list at "0" when the server refuses, logs once, counts it, and does not stream again', async () => {
    const t = setup(3);
    const watch = await t.fake.nextWatch();
    expect(t.fake.streamingCalls).toHaveLength(1);
    expect(t.fake.listCalls[0]).toMatchObject({ resourceVersion: '0', limit: 500 });
    expect(t.store.size()).toBe(3);
    expect(t.fallbacks()).toBe(1);
    const warnings = t.logger.find('the server refused the streaming list');
    expect(warnings).toHaveLength(1);
    // Expected on every server without streaming lists: said once, at info, not as a warning.
    expect(warnings[0]?.level).toBe('info');
    expect(warnings[0]?.attributes).toMatchObject({ status: 422 });
    // Not a failure of the list/watch cycle: the watch error handler saw nothing.
    expect(t.errors).toEqual([]);
    watch.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.streamingCalls).toHaveLength(1);
    expect(t.fake.listCalls).toHaveLength(2);
    expect(t.logger.find('the server refused the streaming list')).toHaveLength(1);
    await t.stop();
  });

  it('falls back once on a transient failure and streams again on the next list', async () => {
    const t = setup(2, {}, { streamingLists: 'serve' }, (fake) =>
      fake.failNextWatch(new ApiError({ status: 503, reason: 'ServiceUnavailable' })),
    );
    expect((await t.fake.nextWatch()).options.sendInitialEvents).toBe(true); // the failed one
    const watch = await t.fake.nextWatch();
    expect(watch.options.sendInitialEvents).toBeUndefined(); // the fallback's plain watch
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.fallbacks()).toBe(1);
    expect(t.logger.find('the streaming list failed')).toHaveLength(1);
    watch.fail(gone());
    const next = await t.fake.nextWatch();
    expect(next.options).toMatchObject({
      sendInitialEvents: true,
      resourceVersion: t.reflector.lastSyncResourceVersion(),
      resourceVersionMatch: 'NotOlderThan',
    });
    await t.clock.advance(0);
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.byStrategy('streaming')).toBe(1);
    await t.stop();
  });

  it('streams again at "" at once when the last resourceVersion is gone', async () => {
    const t = setup(2, {}, { streamingLists: 'serve' });
    const watch = await t.fake.nextWatch();
    t.fake.create(cm('c'));
    await t.clock.advance(0);
    t.fake.failNextWatch(gone());
    watch.fail(gone());
    await t.fake.nextWatch(); // the streaming list at "4": 410
    await t.fake.nextWatch(); // at "": served
    const versions = t.fake.streamingCalls.map((call) => call.resourceVersion);
    expect(versions).toEqual(['', '4', '']);
    expect(t.clock.monotonic()).toBe(0);
    expect(t.fake.listCalls).toEqual([]);
    expect(t.fallbacks()).toBe(0);
    expect(t.store.size()).toBe(3);
    await t.stop();
  });

  it('never waits forever for a bookmark a server that ignores sendInitialEvents does not send', async () => {
    const t = setup(2, { streamingListSilenceMs: 60_000 }, { streamingLists: 'ignore' });
    const streaming = await t.fake.nextWatch();
    await t.clock.advance(0);
    expect(t.reflector.state()).toBe('listing');
    // Plain bookmarks are not the end of the initial events, nor progress.
    await t.clock.advance(30_000);
    t.fake.sendBookmarks();
    await t.clock.advance(29_999);
    expect(t.fake.listCalls).toEqual([]);
    await t.clock.advance(1);
    const watch = await t.fake.nextWatch();
    expect(streaming.closed).toBe(true);
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.store.size()).toBe(2);
    expect(watch.options.sendInitialEvents).toBeUndefined();
    expect(t.logger.find('the server refused the streaming list')[0]?.attributes).toMatchObject({
      error: expect.stringContaining('initial-events-end'),
    });
    await t.stop();
  });

  it('gives up on a silent streaming list after 10 s by default', async () => {
    const t = setup(0, {}, { streamingLists: 'ignore' });
    const streaming = await t.fake.nextWatch();
    await t.clock.advance(9_999);
    expect(streaming.closed).toBe(false);
    await t.clock.advance(1);
    await t.fake.nextWatch();
    expect(streaming.closed).toBe(true);
    expect(t.fake.listCalls).toHaveLength(1);
    await t.stop();
  });

  it('falls back when the stream ends before the end bookmark', async () => {
    const t = setup(2, {}, { streamingLists: 'ignore' });
    (await t.fake.nextWatch()).end();
    const watch = await t.fake.nextWatch();
    expect(watch.options.sendInitialEvents).toBeUndefined();
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.fallbacks()).toBe(1);
    await t.stop();
  });

  it("reads the client's batch view and hands the rest of the bookmark's chunk to the watch", async () => {
    const clock = new FakeClock();
    const chunks: unknown[][] = [
      [
        {
          type: 'ADDED',
          object: { ...cm('a'), metadata: { namespace: 'ns', name: 'a', resourceVersion: '2' } },
        },
        initialEventsEnd('2'),
        {
          type: 'ADDED',
          object: { ...cm('b'), metadata: { namespace: 'ns', name: 'b', resourceVersion: '3' } },
        },
      ],
      [
        {
          type: 'DELETED',
          object: { ...cm('a'), metadata: { namespace: 'ns', name: 'a', resourceVersion: '4' } },
        },
      ],
    ];
    let returned = false;
    let release: () => void = () => {};
    const batched: ListerWatcher = {
      list: () => Promise.reject(new Error('no list expected')),
      watch: () => ({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.reject(new Error('the batch view must be read')),
        }),
      }),
      watchBatches: () => ({
        [Symbol.asyncIterator]: () => ({
          next: (): Promise<IteratorResult<WatchEvent<KubeObject>[]>> => {
            const chunk = chunks.shift() as WatchEvent<KubeObject>[] | undefined;
            if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk });
            return new Promise((resolve) => {
              release = () => resolve({ done: true, value: undefined });
            });
          },
          return: async () => {
            returned = true;
            release();
            return { done: true, value: undefined };
          },
        }),
      }),
    };
    const store = createStore();
    const reflector = new Reflector(batched, store, { clock, random: () => 0 });
    const controller = new AbortController();
    const running = reflector.run({ signal: controller.signal });
    await clock.advance(0);
    await clock.advance(0);
    expect(store.listKeys()).toEqual(['ns/b']);
    expect(reflector.lastSyncResourceVersion()).toBe('4');
    expect(reflector.state()).toBe('watching');
    controller.abort();
    await running;
    expect(returned).toBe(true);
  });

  it('releases the streamed watch when stopped right after the end bookmark', async () => {
    const t = setup(1, {}, { streamingLists: 'serve' });
    const watch = await t.fake.nextWatch();
    await t.stop();
    await t.clock.advance(0);
    expect(watch.closed).toBe(true);
    expect(t.reflector.state()).toBe('stopped');
  });
});
