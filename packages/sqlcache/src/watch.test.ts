// The SQL store's watch: replay from a resourceVersion, the bounded history and its garbage collection, TooOld
// (410), relists and drops, and the end on an AbortSignal; on every SQLite driver that loads here.
import type { KubeObject } from '@lasso/client';
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { testDrivers } from '../test/drivers.ts';
import { openSqlDatabase } from './database.ts';
import { InvalidQueryError, ResourceVersionTooOldError } from './errors.ts';
import { createSqlStore } from './store.ts';
import type { SqlStoreOptions } from './store-api.ts';
import type { SqlWatchEvent } from './watch-history.ts';

const cm = (
  name: string,
  rv: string,
  namespace = 'ns',
  data = {},
): KubeObject & { data?: object } => ({
  metadata: { namespace, name, resourceVersion: rv },
  data,
});

/** The next `count` events of `iterator`, bounded by a deadline so a missing event fails instead of hanging. */
async function take<T>(
  iterator: AsyncIterator<SqlWatchEvent<T>>,
  count: number,
): Promise<[string, string | undefined, string | undefined][]> {
  const out: [string, string | undefined, string | undefined][] = [];
  for (let i = 0; i < count; i++) {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no event ${i + 1} of ${count} within 5 s`)),
        5_000,
      );
    });
    try {
      const result = await Promise.race([iterator.next(), deadline]);
      if (result.done) break;
      const object = result.value.object as KubeObject;
      out.push([result.value.type, object.metadata?.name, object.metadata?.resourceVersion]);
    } finally {
      clearTimeout(timer);
    }
  }
  return out;
}

describe.each(testDrivers)('SqlStore.watch ($name)', ({ driver }) => {
  const database = openSqlDatabase({ driver: driver() });
  afterAll(() => database.close());
  let kinds = 0;
  const store = (options: Omit<SqlStoreOptions<KubeObject>, 'gvk'> = {}) =>
    createSqlStore<KubeObject>(database, {
      gvk: { group: 'watch.test', version: 'v1', kind: `Thing${kinds++}` },
      ...options,
    });

  it('sends the writes after a list, in order, as fresh copies', async () => {
    const s = store();
    s.replace([cm('a', '10')], '10');
    const controller = new AbortController();
    const events = s
      .watch({
        resourceVersion: s.listByOptions({ partitions: [] }).resourceVersion,
        signal: controller.signal,
      })
      [Symbol.asyncIterator]();
    s.add(cm('b', '11'));
    s.update(cm('a', '12', 'ns', { v: 1 }));
    s.delete(cm('b', '13'));
    expect(await take(events, 3)).toEqual([
      ['ADDED', 'b', '11'],
      ['MODIFIED', 'a', '12'],
      ['DELETED', 'b', '13'],
    ]);
    s.update(cm('a', '14'));
    const next = await events.next();
    const object = next.value?.object as KubeObject;
    object.metadata = {};
    expect(s.getByKey('ns/a')?.metadata?.resourceVersion).toBe('14');
    controller.abort();
  });

  it('replays the events after a resourceVersion of the history, then follows new ones', async () => {
    const s = store();
    s.replace([], '1');
    for (let i = 2; i <= 5; i++) s.add(cm(`o${i}`, String(i)));
    s.flush();
    const controller = new AbortController();
    const events = s
      .watch({ resourceVersion: '3', signal: controller.signal })
      [Symbol.asyncIterator]();
    s.add(cm('o6', '6'));
    expect(await take(events, 3)).toEqual([
      ['ADDED', 'o4', '4'],
      ['ADDED', 'o5', '5'],
      ['ADDED', 'o6', '6'],
    ]);
    controller.abort();
  });

  it('sends only later writes without a resourceVersion (or with "0")', async () => {
    const s = store();
    s.replace([], '1');
    s.add(cm('before', '2'));
    for (const resourceVersion of [undefined, '0']) {
      const controller = new AbortController();
      const events = s
        .watch({ resourceVersion, signal: controller.signal })
        [Symbol.asyncIterator]();
      s.add(cm(`after-${resourceVersion}`, String(3 + kinds)));
      expect((await take(events, 1))[0]?.[1]).toBe(`after-${resourceVersion}`);
      controller.abort();
    }
  });

  it('filters by namespace', async () => {
    const s = store();
    s.replace([], '1');
    const controller = new AbortController();
    const events = s.watch({ namespace: 'b', signal: controller.signal })[Symbol.asyncIterator]();
    s.add(cm('x', '2', 'a'));
    s.add(cm('y', '3', 'b'));
    expect(await take(events, 1)).toEqual([['ADDED', 'y', '3']]);
    controller.abort();
  });

  it('keeps maxEvents events and answers an older resourceVersion with TooOld, a 410', () => {
    const metrics = createTestMetricsProvider();
    const s = store({ watchHistory: { maxEvents: 3 }, metrics });
    s.replace([], '1');
    for (let i = 2; i <= 6; i++) s.add(cm(`o${i}`, String(i)));
    s.flush();
    expect(s.watchHistorySize()).toBe(3);
    // 2 and 3 were forgotten: the history holds 4, 5, 6, so a watch can start from 3 on.
    let error: unknown;
    try {
      s.watch({ resourceVersion: '2' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ResourceVersionTooOldError);
    expect(error).toMatchObject({
      code: 'LASSO_SQLCACHE_RESOURCE_VERSION_TOO_OLD',
      status: 410,
      reason: 'Expired',
      requestedResourceVersion: '2',
      oldestResourceVersion: '3',
    });
    expect(() => s.watch({ resourceVersion: '3' })).not.toThrow();
    const labels = { name: s.tableName };
    expect(metrics.value('lasso_sqlcache_watch_too_old_total', labels)).toBe(1);
    expect(metrics.value('lasso_sqlcache_watch_history_events', labels)).toBe(3);
  });

  it('forgets events older than maxAgeMs (garbage collection by age)', async () => {
    const clock = new FakeClock();
    const s = store({ clock, watchHistory: { maxEvents: 100, maxAgeMs: 60_000 } });
    s.replace([], '1');
    s.add(cm('old', '2'));
    s.flush();
    await clock.advance(30_000);
    s.add(cm('newer', '3'));
    s.flush();
    expect(s.watchHistorySize()).toBe(2);
    await clock.advance(30_001);
    // The next watch (or write) collects: the first event is now older than a minute.
    expect(() => s.watch({ resourceVersion: '1' })).toThrow(ResourceVersionTooOldError);
    expect(s.watchHistorySize()).toBe(1);
    const controller = new AbortController();
    const events = s
      .watch({ resourceVersion: '2', signal: controller.signal })
      [Symbol.asyncIterator]();
    expect(await take(events, 1)).toEqual([['ADDED', 'newer', '3']]);
    controller.abort();
  });

  it('ends a watch with TooOld when the kind relists, and serves a watch from the new list', async () => {
    const s = store();
    s.replace([cm('a', '5')], '5');
    const controller = new AbortController();
    const events = s
      .watch({ resourceVersion: '5', signal: controller.signal })
      [Symbol.asyncIterator]();
    s.add(cm('b', '6'));
    expect(await take(events, 1)).toEqual([['ADDED', 'b', '6']]);
    s.replace([cm('a', '5'), cm('c', '9')], '9');
    await expect(events.next()).rejects.toBeInstanceOf(ResourceVersionTooOldError);
    expect(() => s.watch({ resourceVersion: '6' })).toThrow(ResourceVersionTooOldError);
    const after = s
      .watch({ resourceVersion: '9', signal: controller.signal })
      [Symbol.asyncIterator]();
    s.update(cm('c', '10'));
    expect(await take(after, 1)).toEqual([['MODIFIED', 'c', '10']]);
    controller.abort();
  });

  it('ends a watcher that fell more than the history behind with TooOld', async () => {
    const s = store({ watchHistory: { maxEvents: 2 } });
    s.replace([], '1');
    const events = s.watch({ resourceVersion: '1' })[Symbol.asyncIterator]();
    for (let i = 2; i <= 5; i++) s.add(cm(`o${i}`, String(i)));
    s.flush();
    await expect(events.next()).rejects.toThrow(/fell more than 2 events behind/);
  });

  it('completes a waiting watch when its signal aborts, and a for-await loop ends without error', async () => {
    const s = store();
    s.replace([], '1');
    const controller = new AbortController();
    const seen: string[] = [];
    const loop = (async () => {
      for await (const event of s.watch({ signal: controller.signal })) {
        seen.push(event.object.metadata?.name ?? '');
        if (seen.length === 1) queueMicrotask(() => controller.abort());
      }
      return 'ended';
    })();
    s.add(cm('a', '2'));
    await expect(loop).resolves.toBe('ended');
    expect(seen).toEqual(['a']);
    // An aborted signal: nothing at all.
    const done = await s.watch({ signal: controller.signal })[Symbol.asyncIterator]().next();
    expect(done.done).toBe(true);
  });

  it('completes every watch when the store is dropped', async () => {
    const s = store();
    s.replace([], '1');
    const events = s.watch({ resourceVersion: '1' })[Symbol.asyncIterator]();
    const pending = events.next();
    s.drop();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
  });

  it('stops after return() (a for-await break)', async () => {
    const s = store();
    s.replace([], '1');
    const iterator = s.watch({})[Symbol.asyncIterator]();
    await iterator.return?.();
    s.add(cm('a', '2'));
    expect((await iterator.next()).done).toBe(true);
  });

  it('refuses bad options, naming them', () => {
    expect(() => store({ watchHistory: { maxEvents: 0 } })).toThrow(
      /watchHistory\.maxEvents must be an integer >= 1/,
    );
    expect(() => store({ watchHistory: { maxAgeMs: 0 } })).toThrow(/watchHistory\.maxAgeMs/);
    const s = store();
    expect(() => s.watch({ resourceVersion: 'abc' })).toThrow(InvalidQueryError);
  });
});
