// Ports the intent of client-go reflector_test.go (TestReflectorListAndWatch*, TestBackoff*, TestReflectorExpiredRV*).
import { ApiError, type KubeObject } from '@lasso/client';
import { LassoError, TimeoutError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { runReflector } from '../test/reflector-harness.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import { Reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflector-options.ts';
import { createStore } from './store.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data };
}

function setup(
  count = 0,
  options: ReflectorOptions = {},
  prepare: (fake: FakeListerWatcher) => void = () => {},
) {
  const objects = Array.from({ length: count }, (_, i) => cm(`cm-${i}`));
  return runReflector(objects, options, {}, prepare);
}

/** kube-apiserver's storage.NewTooLargeResourceVersionError. */
const tooLarge = () =>
  ApiError.fromStatus({
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    code: 504,
    reason: 'Timeout',
    message: 'Timeout: Too large resource version: 9, current: 2',
    details: {
      // kube-apiserver's JSON; @lasso/client's StatusCause type calls this field `type`.
      causes: [
        { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' } as never,
      ],
      retryAfterSeconds: 1,
    },
  });

const gone = () =>
  new ApiError({ status: 410, reason: 'Expired', message: 'too old resource version' });

describe('Reflector', () => {
  it('lists at resourceVersion "0" in pages of 500 where streaming is refused, then watches from the list version with bookmarks', async () => {
    const t = setup(1200);
    const watch = await t.fake.nextWatch();
    expect(t.fake.streamingCalls).toHaveLength(1);
    expect(t.fake.listCalls).toHaveLength(3);
    expect(t.fake.listCalls[0]).toMatchObject({ limit: 500, resourceVersion: '0' });
    expect(t.fake.listCalls[0]).not.toHaveProperty('resourceVersionMatch');
    expect(t.fake.listCalls[1]).toMatchObject({ limit: 500, continue: expect.any(String) });
    expect(t.fake.listCalls[1]).not.toHaveProperty('resourceVersion');
    expect(t.store.size()).toBe(1200);
    expect(watch.options).toMatchObject({
      resourceVersion: t.fake.resourceVersion(),
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      // The reflector runs the watch's inactivity deadline itself: the lister-watcher must not run another.
      inactivityTimeoutMs: 0,
    });
    expect(t.reflector.state()).toBe('watching');
    expect(t.counter('lasso_reflector_lists_total')).toBe(1);
    await t.stop();
  });

  it('draws the server timeout from 5..10 minutes and gives up on the watch 30 s after it', async () => {
    const t = setup(0, { random: () => 0.999 });
    const watch = await t.fake.nextWatch();
    expect(watch.options.timeoutSeconds).toBe(599);
    await t.clock.advance(628_999);
    expect(watch.closed).toBe(false);
    await t.clock.advance(1);
    expect(watch.closed).toBe(true);
    expect(t.errors[0]?.cause).toBeInstanceOf(TimeoutError);
    await t.stop();
  });

  it('applies watch events to the store and advances the resourceVersion with every event and bookmark', async () => {
    const t = setup(1);
    await t.fake.nextWatch();
    t.fake.create(cm('b'));
    t.fake.modify(cm('cm-0', { x: '1' }));
    t.fake.remove('ns/b');
    await t.settle();
    expect(t.store.listKeys()).toEqual(['ns/cm-0']);
    expect(t.store.getByKey('ns/cm-0')?.data).toEqual({ x: '1' });
    expect(t.reflector.lastSyncResourceVersion()).toBe(t.fake.resourceVersion());
    const [watch] = t.fake.openWatches();
    watch?.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '999' } } });
    await t.settle();
    expect(t.reflector.lastSyncResourceVersion()).toBe('999');
    await t.stop();
  });

  it('starts the next watch from the resourceVersion of the last bookmark', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    watch.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '999' } } });
    await t.clock.advance(5_000);
    watch.end();
    expect((await t.fake.nextWatch()).options.resourceVersion).toBe('999');
    expect(t.fake.listCalls).toHaveLength(1);
    await t.stop();
  });

  it('resumes at once from the last resourceVersion when a watch ends normally', async () => {
    const t = setup(1);
    const first = await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.clock.advance(5_000);
    first.end();
    const second = await t.fake.nextWatch();
    expect(second.options.resourceVersion).toBe(t.fake.resourceVersion());
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.errors).toEqual([]);
    expect(t.counter('lasso_reflector_restarts_total')).toBe(1);
    expect(t.counter('lasso_reflector_watches_total')).toBe(2);
    await t.stop();
  });

  it('backs off after a watch that ends within a second without events', async () => {
    const t = setup();
    (await t.fake.nextWatch()).end();
    await t.settle();
    expect(t.reflector.state()).toBe('backoff');
    expect(t.errors[0]?.message).toMatch(/very short watch/);
    await t.clock.advance(799);
    expect(t.fake.watchCalls).toHaveLength(1);
    await t.clock.advance(1);
    await t.fake.nextWatch();
    await t.stop();
  });

  it('relists at once at the last resourceVersion (NotOlderThan) after a first 410 on the watch', async () => {
    const t = setup(2);
    const watch = await t.fake.nextWatch();
    t.fake.create(cm('c'));
    await t.settle();
    const lastVersion = t.reflector.lastSyncResourceVersion();
    watch.fail(gone());
    const next = await t.fake.nextWatch();
    expect(t.clock.monotonic()).toBe(0);
    expect(t.fake.listCalls[1]).toMatchObject({
      resourceVersion: lastVersion,
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(next.options.resourceVersion).toBe(t.fake.resourceVersion());
    expect(t.errors[0]).toMatchObject({ phase: 'watch', willRelist: true, retryInMs: 0 });
    expect(t.counter('lasso_reflector_relists_total')).toBe(1);
    expect(t.logger.find('resource version expired')).toHaveLength(1);
    await t.stop();
  });

  it('treats a yielded 410 ERROR event like a thrown 410, backing off longer when the next watch gets one too', async () => {
    const t = setup(1);
    const expired = {
      type: 'ERROR',
      object: {
        apiVersion: 'v1',
        kind: 'Status',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version: 2 (3)',
      },
    };
    (await t.fake.nextWatch()).push(expired);
    const second = await t.fake.nextWatch();
    expect(t.fake.listCalls[1]).toMatchObject({
      resourceVersion: '2',
      resourceVersionMatch: 'NotOlderThan',
    });
    second.push(expired);
    await t.settle();
    expect(t.reflector.state()).toBe('backoff');
    expect(t.errors.map((error) => [error.phase, error.willRelist, error.retryInMs])).toEqual([
      ['watch-start', true, 0],
      ['watch-start', true, 800],
    ]);
    expect(t.errors[0]?.cause).toMatchObject({ status: 410, reason: 'Expired' });
    await t.clock.advance(799);
    expect(t.fake.listCalls).toHaveLength(2);
    await t.clock.advance(1);
    await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(3);
    await t.stop();
  });

  it('relists after the backoff after a yielded ERROR event other than 410 (client-go ends the watch session)', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    t.fake.create(cm('b'));
    watch.push({
      type: 'ERROR',
      object: { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError' },
    });
    await t.settle();
    expect(t.errors[0]).toMatchObject({ phase: 'watch', willRelist: true, retryInMs: 800 });
    await t.clock.advance(800);
    expect((await t.fake.nextWatch()).options.resourceVersion).toBe('3');
    expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['0', '3']);
    await t.stop();
  });

  it('relists at "" when the list at the last resourceVersion is gone too', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    t.fake.failNextList(gone());
    watch.fail(gone());
    await t.clock.advance(800);
    await t.fake.nextWatch();
    expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['0', '2', '']);
    expect(t.errors.map((error) => error.phase)).toEqual(['watch-start', 'list']);
    await t.stop();
  });

  it('relists at "" at once when the server has not reached the last resourceVersion', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    t.fake.failNextList(tooLarge());
    watch.fail(gone());
    await t.fake.nextWatch();
    expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['0', '2', '']);
    expect(t.errors.map((error) => [error.phase, error.willRelist, error.retryInMs])).toEqual([
      ['watch-start', true, 0],
      ['list', true, 0],
    ]);
    await t.stop();
  });

  it('relists after backoff when a watch starts from a resourceVersion the server has not reached', async () => {
    const t = setup(1);
    (await t.fake.nextWatch()).fail(tooLarge());
    await t.settle();
    expect(t.errors.map((error) => [error.phase, error.willRelist])).toEqual([
      ['watch-start', true],
    ]);
    expect(t.errors[0]?.retryInMs).toBe(1_000); // the server's Retry-After beats the 800 ms backoff
    await t.clock.advance(1_000);
    await t.fake.nextWatch();
    expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['0', '2']);
    await t.stop();
  });

  it('backs off on a second 410 before a healthy watch, whether or not the watch delivered events', async () => {
    const t = setup(1);
    (await t.fake.nextWatch()).fail(gone());
    const second = await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.settle();
    second.fail(gone());
    await t.settle();
    expect(t.reflector.state()).toBe('backoff');
    expect(t.errors.map((error) => error.retryInMs)).toEqual([0, 800]);
    await t.clock.advance(799);
    expect(t.fake.listCalls).toHaveLength(2);
    await t.clock.advance(1);
    await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(3);
    await t.stop();
  });

  it.for([
    // The first 410 relists at once, then delays 800, 1600, 3200, 3200, ...: lists at 0, 0, 0.8, 2.4, 5.6, 8.8,
    // ... 300 s: 97 lists in 5 minutes (one per 3.2 s), where the hot loop sent thousands per second.
    { name: 'without jitter', random: 0, lists: 97 },
    // Every delay 25 % longer: one list per 4 s.
    { name: 'with the largest jitter', random: 0.999, lists: 78 },
  ])(
    'relists within the backoff schedule when every watch delivers one event and then 410 Gone ($name)',
    async ({ random, lists }) => {
      const clock = new FakeClock();
      const controller = new AbortController();
      const listedAt: number[] = [];
      let resourceVersion = 1;
      const listerWatcher: ListerWatcher = {
        async list() {
          listedAt.push(clock.monotonic());
          // Without a backoff the loop never yields to the clock: stop it so the test can fail instead of hang.
          if (listedAt.length >= 1_000) controller.abort();
          return {
            apiVersion: 'v1',
            kind: 'ConfigMapList',
            metadata: { resourceVersion: String(++resourceVersion) },
            items: [],
          };
        },
        async *watch() {
          yield {
            type: 'ADDED',
            object: {
              ...cm('churn'),
              metadata: {
                namespace: 'ns',
                name: 'churn',
                resourceVersion: String(++resourceVersion),
              },
            },
          };
          throw gone();
        },
      };
      const reflector = new Reflector(listerWatcher, createStore(), {
        clock,
        random: () => random,
      });
      const running = reflector.run({ signal: controller.signal });
      await clock.advance(300_000);
      controller.abort();
      await running;
      expect(listedAt).toHaveLength(lists);
      const gaps = listedAt.slice(2).map((at, index) => at - (listedAt[index + 1] as number));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(800);
    },
  );

  it('backs off 800 ms, 1.6 s, 3.2 s on repeated 429s and resumes the watch without relisting', async () => {
    const t = setup(1);
    for (const [attempt, delayMs] of [800, 1600, 3200].entries()) {
      (await t.fake.nextWatch()).fail(new ApiError({ status: 429, message: 'too many requests' }));
      await t.settle();
      expect(t.reflector.state()).toBe('backoff');
      await t.clock.advance(delayMs - 1);
      expect(t.fake.watchCalls).toHaveLength(attempt + 1);
      await t.clock.advance(1);
    }
    await t.fake.nextWatch();
    expect(t.errors.map((error) => error.retryInMs)).toEqual([800, 1600, 3200]);
    expect(t.errors.every((error) => error.phase === 'watch-start' && !error.willRelist)).toBe(
      true,
    );
    expect(t.fake.listCalls).toHaveLength(1);
    expect(t.fake.watchCalls.every((call) => call.resourceVersion === '2')).toBe(true);
    expect(t.counter('lasso_reflector_errors_total')).toBe(3);
    expect(t.logger.find('watch failed, resuming')).toHaveLength(3);
    await t.stop();
  });

  it('waits the Retry-After of a 429 when it is longer than the backoff', async () => {
    const t = setup();
    (await t.fake.nextWatch()).fail(
      new ApiError({ status: 429, message: 'slow down', retryAfterMs: 5_000 }),
    );
    await t.settle();
    expect(t.errors[0]?.retryInMs).toBe(5_000);
    await t.clock.advance(4_999);
    expect(t.fake.watchCalls).toHaveLength(1);
    await t.clock.advance(1);
    await t.fake.nextWatch();
    await t.stop();
  });

  it.for([
    { name: 'a 403', error: new ApiError({ status: 403, reason: 'Forbidden' }) },
    {
      name: 'a connection failure',
      error: new LassoError('LASSO_CONNECTION_FAILED', 'connect ECONNREFUSED 127.0.0.1:6443'),
    },
    { name: 'a plain error', error: new Error('socket hang up') },
  ])('retries the list with backoff after $name', async ({ error }) => {
    const t = setup(1, {}, (fake) => fake.failNextList(error));
    await t.settle();
    expect(t.reflector.state()).toBe('backoff');
    expect(t.errors[0]).toMatchObject({ phase: 'list', retryInMs: 800, cause: error });
    await t.clock.advance(800);
    await t.fake.nextWatch();
    expect(t.store.size()).toBe(1);
    await t.stop();
  });

  it('gives up on a list page that is never answered and retries it after backoff', async () => {
    const t = setup(1, {}, (fake) => {
      const list = fake.list.bind(fake);
      let calls = 0;
      fake.list = (options) => {
        if (++calls > 1) return list(options);
        return new Promise((_, reject) =>
          options.signal?.addEventListener('abort', () => reject(options.signal?.reason)),
        );
      };
    });
    await t.clock.advance(119_999);
    expect(t.errors).toEqual([]);
    await t.clock.advance(1);
    // The 2 minutes spent waiting are longer than the backoff: retried at once.
    expect(t.errors[0]).toMatchObject({ phase: 'list', retryInMs: 0 });
    expect(t.errors[0]?.cause).toBeInstanceOf(TimeoutError);
    await t.fake.nextWatch();
    expect(t.store.size()).toBe(1);
    await t.stop();
  });

  it('reports a malformed event and relists after backoff', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    watch.push({ type: 'SURPRISE', object: {} });
    await t.settle();
    expect(t.errors[0]).toMatchObject({ phase: 'event', willRelist: true, retryInMs: 800 });
    expect(t.errors[0]?.cause).toMatchObject({ code: 'LASSO_WATCH_DECODE' });
    await t.clock.advance(800);
    await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(2);
    await t.stop();
  });

  it('relists after a decode error thrown by the watch', async () => {
    const t = setup(1);
    (await t.fake.nextWatch()).fail(new LassoError('LASSO_WATCH_DECODE', 'bad line'));
    await t.settle();
    expect(t.errors[0]).toMatchObject({ phase: 'watch-start', willRelist: true });
    await t.clock.advance(800);
    await t.fake.nextWatch();
    expect(t.fake.listCalls).toHaveLength(2);
    await t.stop();
  });

  it('gives up on a silent watch after its inactivity deadline and resumes', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    await t.clock.advance(329_999);
    expect(t.errors).toEqual([]);
    await t.clock.advance(1);
    expect(watch.closed).toBe(true);
    expect(t.errors[0]?.cause).toBeInstanceOf(TimeoutError);
    await t.clock.advance(800);
    await t.fake.nextWatch();
    await t.stop();
  });

  it('restarts the inactivity deadline with every event', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    await t.clock.advance(300_000);
    t.fake.sendBookmarks();
    await t.clock.advance(329_999);
    expect(watch.closed).toBe(false);
    expect(t.errors).toEqual([]);
    await t.clock.advance(1);
    expect(watch.closed).toBe(true);
    expect(t.errors[0]).toMatchObject({ phase: 'watch', willRelist: false });
    expect(t.errors[0]?.cause).toBeInstanceOf(TimeoutError);
    await t.stop();
  });

  it('measures the inactivity deadline from the last of several events', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    await t.clock.advance(100_000);
    t.fake.sendBookmarks();
    await t.clock.advance(250_000);
    t.fake.sendBookmarks();
    await t.clock.advance(10_000);
    t.fake.sendBookmarks();
    await t.clock.advance(329_999);
    expect(watch.closed).toBe(false);
    expect(t.errors).toEqual([]);
    await t.clock.advance(1);
    expect(watch.closed).toBe(true);
    expect(t.errors[0]?.cause).toBeInstanceOf(TimeoutError);
    await t.stop();
  });

  it('caps the backoff at 3.2 s', async () => {
    const t = setup(1, {}, (fake) => fake.failNextWatch(new ApiError({ status: 429 }), 6));
    const expected = [800, 1600, 3200, 3200, 3200, 3200];
    for (const delayMs of expected) {
      await t.settle();
      expect(t.reflector.state()).toBe('backoff');
      await t.clock.advance(delayMs);
    }
    await t.settle();
    expect(t.errors.map((error) => error.retryInMs)).toEqual(expected);
    expect(t.reflector.state()).toBe('watching');
    expect(t.fake.listCalls).toHaveLength(1);
    await t.stop();
  });

  it('restarts the backoff from 800 ms after two healthy minutes', async () => {
    const t = setup(1);
    (await t.fake.nextWatch()).fail(new Error('reset'));
    await t.clock.advance(800);
    const healthy = await t.fake.nextWatch();
    t.fake.create(cm('x'));
    await t.clock.advance(121_000);
    healthy.fail(new Error('reset'));
    await t.settle();
    expect(t.errors.map((error) => [error.phase, error.retryInMs])).toEqual([
      ['watch-start', 800],
      ['watch', 0], // 800 ms from the start of a watch that ran 121 s
    ]);
    (await t.fake.nextWatch()).fail(new Error('reset'));
    await t.settle();
    expect(t.errors[2]?.retryInMs).toBe(1600);
    await t.stop();
  });

  it('restarts the backoff after a watch that stayed open 10 s, so a fault storm does not slow recovery', async () => {
    const t = setup(1);
    for (const delayMs of [800, 1600, 3200, 3200]) {
      (await t.fake.nextWatch()).fail(new ApiError({ status: 503 }));
      await t.settle();
      await t.clock.advance(delayMs);
    }
    const healthy = await t.fake.nextWatch();
    await t.clock.advance(10_000);
    healthy.fail(new Error('reset'));
    await t.settle();
    (await t.fake.nextWatch()).fail(new Error('reset'));
    await t.settle();
    // Restarted at 800 ms (spent by the 10 s watch: retried at once), then 1.6 s instead of 3.2 s.
    expect(t.errors.map((error) => error.retryInMs)).toEqual([800, 1600, 3200, 3200, 0, 1600]);
    await t.stop();
  });

  it('restarts the backoff after a watch that ended normally after something newer', async () => {
    const t = setup(1);
    for (const delayMs of [800, 1600]) {
      (await t.fake.nextWatch()).fail(new ApiError({ status: 500 }));
      await t.settle();
      await t.clock.advance(delayMs);
    }
    const watch = await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.settle();
    watch.end();
    const next = await t.fake.nextWatch();
    next.fail(new Error('reset'));
    await t.settle();
    expect(t.errors.map((error) => error.retryInMs)).toEqual([800, 1600, 800]);
    await t.stop();
  });

  it('counts a watch that ends within 10 s after only events it already had as a failure', async () => {
    const t = setup(1);
    await t.settle();
    const startVersion = t.reflector.lastSyncResourceVersion();
    const replayed = {
      ...cm('cm-0'),
      metadata: { namespace: 'ns', name: 'cm-0', resourceVersion: '1' },
    };
    // Open 9 s (longer than the 800 ms backoff: retried at once), then at once (the backoff grew to 1.6 s).
    for (const [openMs, delayMs] of [
      [9_000, 0],
      [0, 1600],
    ] as const) {
      const watch = await t.fake.nextWatch();
      // The object the list gave, and an older version of it: nothing newer than the reflector has.
      watch.push({ type: 'MODIFIED', object: t.fake.objects()[0] as KubeObject });
      watch.push({ type: 'MODIFIED', object: replayed });
      await t.clock.advance(openMs);
      watch.end();
      await t.settle();
      expect(t.reflector.lastSyncResourceVersion()).toBe(startVersion);
      await t.clock.advance(delayMs);
    }
    await t.fake.nextWatch();
    // Each ends the watch session: relisted (at the same version: nothing changed) after the backoff.
    expect(t.errors.map((error) => [error.phase, error.willRelist, error.retryInMs])).toEqual([
      ['watch', true, 0],
      ['watch', true, 1600],
    ]);
    expect(t.errors[0]?.message).toMatch(
      /very short watch: the watch ended after 9000 ms without anything newer/,
    );
    expect(t.fake.listCalls).toHaveLength(3);
    expect(t.fake.watchCalls.every((call) => call.resourceVersion === startVersion)).toBe(true);
    await t.stop();
  });

  it('counts the backoff from the start of the failed attempt: a list that hung is retried at once', async () => {
    const clock = new FakeClock();
    const t = setup(1, { clock }, (fake) => {
      const list = fake.list.bind(fake);
      let calls = 0;
      fake.list = async (options) => {
        // The first list waits 5 s (a health gate, a slow server), then fails.
        if (++calls === 1) {
          await new Promise<void>((resolve) => clock.schedule(5_000, resolve));
          throw new ApiError({ status: 500 });
        }
        return list(options);
      };
    });
    await clock.advance(5_000);
    await t.fake.nextWatch();
    expect(t.errors.map((error) => [error.phase, error.retryInMs])).toEqual([['list', 0]]);
    await t.stop();
  });

  it('resumes at once after a watch that stayed open 10 s without events (a quiet resource)', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    await t.clock.advance(10_000);
    watch.end();
    await t.fake.nextWatch();
    expect(t.errors).toEqual([]);
    await t.stop();
  });

  it('relists at once again after a healthy watch ended a 410 streak', async () => {
    const t = setup(1);
    (await t.fake.nextWatch()).fail(gone());
    const healthy = await t.fake.nextWatch();
    await t.clock.advance(10_000);
    healthy.fail(gone());
    await t.fake.nextWatch();
    expect(t.errors.map((error) => error.retryInMs)).toEqual([0, 0]);
    expect(t.fake.listCalls).toHaveLength(3);
    await t.stop();
  });

  it.for([
    { name: 'after an event: resumes at once', progress: true, errors: [] as number[], lists: 1 },
    {
      name: 'before any event: a very short watch, relisted',
      progress: false,
      errors: [800],
      lists: 2,
    },
  ])(
    'ends the watch when its body ends inside an event, logging and counting the dropped part ($name)',
    async ({ progress, errors, lists }) => {
      const t = setup(1);
      const watch = await t.fake.nextWatch();
      if (progress) t.fake.create(cm('b'));
      watch.fail(
        new LassoError('LASSO_WATCH_TRUNCATED', 'watch configmaps: body ended inside an event'),
      );
      await t.settle();
      expect(t.counter('lasso_reflector_truncated_events_total')).toBe(1);
      expect(t.logger.find('watch ended inside an event')).toHaveLength(1);
      expect(t.errors.map((error) => error.retryInMs)).toEqual(errors);
      await t.clock.advance(errors[0] ?? 0);
      const next = await t.fake.nextWatch();
      expect(next.options.resourceVersion).toBe(progress ? '3' : '2');
      expect(t.fake.listCalls).toHaveLength(lists);
      await t.stop();
    },
  );

  it('moves through listing, watching, backoff and stopped', async () => {
    const t = setup(0, {}, (fake) => fake.failNextList(new Error('down')));
    const states: string[] = [t.reflector.state()];
    await t.settle();
    states.push(t.reflector.state());
    await t.clock.advance(800);
    await t.fake.nextWatch();
    states.push(t.reflector.state());
    await t.stop();
    states.push(t.reflector.state());
    expect(states).toEqual(['listing', 'backoff', 'watching', 'stopped']);
  });

  it('releases the watch and resolves run when aborted', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    await t.stop();
    expect(watch.closed).toBe(true);
    expect(t.clock.pendingTimers()).toBe(0);
  });

  it('stops during backoff without waiting for it', async () => {
    const t = setup(0, {}, (fake) => fake.failNextList(new Error('down')));
    await t.settle();
    await t.stop();
    expect(t.reflector.state()).toBe('stopped');
    expect(t.clock.pendingTimers()).toBe(0);
  });

  it('restarts a fresh list when a continue token expires mid-pagination', async () => {
    const t = setup(5, { pageSize: 2 }, (fake) => {
      const list = fake.list.bind(fake);
      let calls = 0;
      fake.list = async (options) => {
        const page = await list(options);
        // History is forgotten between the first and the second page: the token is now too old.
        if (++calls === 1) {
          fake.create(cm('late'));
          fake.expireHistory();
        }
        return page;
      };
    });
    await t.fake.nextWatch();
    expect(t.store.size()).toBe(6);
    expect(t.fake.listCalls.map((call) => call.continue ?? call.resourceVersion)).toEqual([
      '0',
      '6:2',
      '',
      '7:2',
      '7:4',
    ]);
    expect(t.logger.find('list continuation expired')).toHaveLength(1);
    await t.stop();
  });

  it('keeps running when the watch error handler throws', async () => {
    const t = setup(1, {
      watchErrorHandler: () => {
        throw new Error('handler bug');
      },
    });
    (await t.fake.nextWatch()).fail(new Error('reset'));
    await t.clock.advance(800);
    await t.fake.nextWatch();
    expect(t.logger.find('watch error handler threw')).toHaveLength(1);
    await t.stop();
  });

  it('rejects a second concurrent run', async () => {
    const t = setup();
    await expect(t.reflector.run({ signal: new AbortController().signal })).rejects.toMatchObject({
      code: 'LASSO_CONFIG_INVALID',
    });
    await t.stop();
  });

  it('rejects invalid options with a RangeError naming them', () => {
    const fake = new FakeListerWatcher();
    expect(() => new Reflector(fake, createStore(), { pageSize: 0 })).toThrow(/pageSize/);
    expect(() => new Reflector(fake, createStore(), { initialBackoffMs: -1 })).toThrow(
      /initialBackoffMs/,
    );
    expect(() => new Reflector(fake, createStore(), { healthyWatchMs: 0 })).toThrow(
      /healthyWatchMs/,
    );
  });
});
