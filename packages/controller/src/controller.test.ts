// Ports the intent of rancher/lasso pkg/controller/controller_test.go and client-go's controller tests: every
// rule of createController driven by a hand-driven informer and a FakeClock.
import { CacheNotSyncedError, createSharedIndexInformer } from '@lasso/cache';
import { FakeListerWatcher } from '@lasso/cache/testing';
import { ApiError, type KubeObject } from '@lasso/client';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { exponentialFailureRateLimiter } from '@lasso/workqueue';
import { afterEach, describe, expect, it } from 'vitest';
import { revokedProxy, throwingGetter } from './__fixtures__/hostile.ts';
import { createRecorder } from './__fixtures__/recorder.ts';
import { configMap, createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import type { ControllerOptions, GiveUp, Handler } from './controller-types.ts';
import { ErrIgnore, retryAfter } from './errors.ts';

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

function setup(handler: Handler<KubeObject>, options: ControllerOptions = {}) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const informer = createTestInformer();
  let cacheStarts = 0;
  const controller = createController(
    'v1, Kind=ConfigMap',
    informer,
    () => {
      cacheStarts++;
    },
    handler,
    { clock, logger, metrics, ...options },
  );
  const stop = new AbortController();
  stops.push(stop);
  return {
    clock,
    logger,
    metrics,
    informer,
    controller,
    stop,
    cacheStarts: () => cacheStarts,
    settle: () => clock.advance(0),
    async start(workers = 1) {
      informer.sync();
      await controller.start(stop.signal, workers);
    },
  };
}

describe('createController', () => {
  it('hands each added, updated and deleted key with its cached object, undefined once deleted', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    await t.start();
    t.informer.add(configMap('a', { data: { v: '1' } }));
    await recorder.until((calls) => calls.length === 1);
    t.informer.update(configMap('a', { resourceVersion: '2', data: { v: '2' } }));
    await recorder.until((calls) => calls.length === 2);
    t.informer.delete(configMap('a'));
    await recorder.until((calls) => calls.length === 3);
    expect(recorder.calls.map((call) => [call.key, call.object?.data])).toEqual([
      ['ns/a', { v: '1' }],
      ['ns/a', { v: '2' }],
      ['ns/a', undefined],
    ]);
  });

  it('unwraps deletion tombstones to their key', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    t.informer.add(configMap('gone'));
    await t.start();
    await recorder.until((calls) => calls.length === 1);
    t.informer.delete(configMap('gone'), { tombstone: true });
    await recorder.until((calls) => calls.length === 2);
    expect(recorder.calls[1]).toEqual({ key: 'ns/gone', object: undefined });
  });

  it('skips updates whose resourceVersion did not change when syncOnlyChangedObjects is set', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object), {
      syncOnlyChangedObjects: true,
    });
    await t.start();
    t.informer.add(configMap('a'));
    await recorder.until((calls) => calls.length === 1);
    t.informer.update(configMap('a')); // a resync: same resourceVersion
    // Settled on its own, so it is not merged into the next key by the queue's dedup.
    await t.settle();
    expect(recorder.calls).toHaveLength(1);
    t.informer.update(configMap('a', { resourceVersion: '2' }));
    await recorder.until((calls) => calls.length === 2);
    await t.settle();
    expect(recorder.calls.map((call) => call.object?.metadata?.resourceVersion)).toEqual([
      '1',
      '2',
    ]);
  });

  it('delivers resyncs (same resourceVersion) by default', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    await t.start();
    t.informer.add(configMap('a'));
    await recorder.until((calls) => calls.length === 1);
    t.informer.update(configMap('a'));
    await recorder.until((calls) => calls.length === 2);
  });

  it('keeps keys enqueued before start, with their delays counted from when they were enqueued', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    t.controller.enqueue('ns', 'now');
    t.controller.enqueueKey('ns/key');
    t.controller.enqueueAfter('ns', 'later', 1_000);
    await t.clock.advance(600);
    await t.start();
    await recorder.until((calls) => calls.length === 2);
    // enqueue goes through the rate limiter (5 ms) even before start: enqueueKey's key is queued first.
    expect(recorder.keys()).toEqual(['ns/key', 'ns/now']);
    await t.clock.advance(399);
    expect(recorder.calls).toHaveLength(2);
    await t.clock.advance(1);
    await recorder.until((calls) => calls.length === 3);
    expect(recorder.keys()[2]).toBe('ns/later');
  });

  it('retries a failing key through the rate limiter, with a growing backoff, and forgets it on success', async () => {
    let failures = 3;
    const recorder = createRecorder(() => {
      if (failures-- > 0) throw new Error('boom');
    });
    const t = setup((key, object) => recorder.handler(key, object), {
      rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 }),
    });
    await t.start();
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 1);
    await t.settle();
    // Backoffs 100, 200, 400 ms: each retry comes exactly when its delay has passed.
    for (const [index, delayMs] of [100, 200, 400].entries()) {
      await t.clock.advance(delayMs - 1);
      expect(recorder.calls).toHaveLength(index + 1);
      await t.clock.advance(1);
      await recorder.until((calls) => calls.length === index + 2);
      await t.settle();
    }
    expect(t.logger.entries.filter((entry) => entry.level === 'error')).toHaveLength(3);
    expect(t.logger.entries.find((entry) => entry.level === 'error')?.attributes).toMatchObject({
      key: 'ns/a',
      error: 'boom',
    });
    // Success forgot the backoff: the next failure waits the base delay again.
    failures = 1;
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 5);
    await t.settle();
    await t.clock.advance(100);
    await recorder.until((calls) => calls.length === 6);
  });

  it('gives a key up after maxRetries failed retries: one error, a count, the hook told; the next event starts afresh', async () => {
    const recorder = createRecorder(() => {
      throw new Error('still broken');
    });
    const given: GiveUp[] = [];
    const t = setup((key, object) => recorder.handler(key, object), {
      rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 }),
      maxRetries: 2,
      onGiveUp: (giveUp) => {
        given.push(giveUp);
        throw new Error('hook broke');
      },
    });
    await t.start();
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 1);
    await t.settle();
    await t.clock.advance(100);
    await recorder.until((calls) => calls.length === 2);
    await t.settle();
    await t.clock.advance(200);
    await recorder.until((calls) => calls.length === 3);
    await t.settle();
    // Given up: nothing more however long we wait.
    await t.clock.advance(60_000);
    expect(recorder.calls).toHaveLength(3);
    expect(given).toEqual([
      {
        controller: 'v1, Kind=ConfigMap',
        key: 'ns/a',
        error: new Error('still broken'),
        retries: 2,
      },
    ]);
    expect(t.logger.find("giving up on 'ns/a' after 2 retries")).toHaveLength(1);
    expect(t.logger.find('onGiveUp threw')).toHaveLength(1);
    expect(
      t.metrics.value('lasso_controller_give_ups_total', { controller_name: 'v1, Kind=ConfigMap' }),
    ).toBe(1);
    // Its backoff was forgotten: the next enqueue runs at once and retries from the base delay.
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 4);
    await t.settle();
    await t.clock.advance(100);
    await recorder.until((calls) => calls.length === 5);
  });

  it('refuses a bad maxRetries or onGiveUp naming it', () => {
    const informer = createTestInformer();
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      expect(() => createController('x', informer, undefined, () => {}, { maxRetries })).toThrow(
        /maxRetries must be an integer >= 0 or Infinity/,
      );
    }
    expect(() =>
      createController('x', informer, undefined, () => {}, { onGiveUp: 'no' as never }),
    ).toThrow(/onGiveUp must be a function/);
  });

  it.for([
    { name: 'ErrIgnore', error: ErrIgnore },
    { name: 'an error caused by ErrIgnore', error: new Error('skip', { cause: ErrIgnore }) },
  ])('treats $name as success: no retry, no error log', async ({ error }) => {
    const recorder = createRecorder(() => {
      throw error;
    });
    const t = setup((key, object) => recorder.handler(key, object));
    await t.start();
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 1);
    await t.clock.advance(60_000);
    expect(recorder.calls).toHaveLength(1);
    expect(t.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('requeues a retryAfter error after its delay without raising the backoff or logging an error', async () => {
    const recorder = createRecorder((_call, index) => {
      if (index < 2) throw retryAfter(5_000);
    });
    const limiter = exponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 });
    const t = setup((key, object) => recorder.handler(key, object), { rateLimiter: limiter });
    await t.start();
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 1);
    await t.settle();
    await t.clock.advance(4_999);
    expect(recorder.calls).toHaveLength(1);
    await t.clock.advance(1);
    await recorder.until((calls) => calls.length === 2);
    await t.settle();
    await t.clock.advance(5_000);
    await recorder.until((calls) => calls.length === 3);
    expect(limiter.numRequeues('ns/a')).toBe(0);
    expect(t.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('requeues a conflict through the rate limiter without an error log', async () => {
    const conflict = new ApiError({
      status: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    });
    const recorder = createRecorder((_call, index) => {
      if (index === 0) throw conflict;
    });
    const t = setup((key, object) => recorder.handler(key, object), {
      rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1_000 }),
    });
    await t.start();
    t.controller.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 1);
    await t.settle();
    await t.clock.advance(10);
    await recorder.until((calls) => calls.length === 2);
    expect(t.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('rate-limits enqueue, but not enqueueKey', async () => {
    const recorder = createRecorder();
    const limiter = exponentialFailureRateLimiter({ baseDelayMs: 1_000, maxDelayMs: 10_000 });
    const t = setup((key, object) => recorder.handler(key, object), { rateLimiter: limiter });
    await t.start();
    t.controller.enqueue('ns', 'limited');
    t.controller.enqueueKey('ns/free');
    await recorder.until((calls) => calls.length === 1);
    expect(recorder.keys()).toEqual(['ns/free']);
    await t.clock.advance(1_000);
    await recorder.until((calls) => calls.length === 2);
    expect(recorder.keys()[1]).toBe('ns/limited');
  });

  it('delays enqueueAfter', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    await t.start();
    t.controller.enqueueAfter('', 'cluster-scoped', 250);
    await t.clock.advance(249);
    expect(recorder.calls).toEqual([]);
    await t.clock.advance(1);
    await recorder.until((calls) => calls.length === 1);
    expect(recorder.keys()).toEqual(['cluster-scoped']);
  });

  const throwingMessage = throwingGetter('message', new Error('x'));
  it.for([
    { name: 'null', value: null as unknown },
    { name: 'undefined', value: undefined },
    { name: 'a string', value: 'text' },
    { name: 'a Symbol', value: Symbol('s') },
    { name: 'a null-prototype object', value: Object.create(null) },
    {
      name: 'an object whose toString throws',
      value: {
        toString() {
          throw new Error('no');
        },
      },
    },
    { name: 'an Error whose message getter throws', value: throwingMessage },
    { name: 'a revoked Proxy', value: revokedProxy() },
  ])('survives a handler throwing $name, synchronously or as a rejection', async ({ value }) => {
    let calls = 0;
    const seen: string[] = [];
    const t = setup((key) => {
      calls++;
      seen.push(key);
      if (calls === 1) throw value;
      if (calls === 2) return Promise.reject(value);
      if (calls === 3) {
        // A thenable whose then throws.
        return {
          // biome-ignore lint/suspicious/noThenProperty: the hostile value under test
          then() {
            throw value;
          },
        } as unknown as Promise<void>;
      }
    });
    await t.start(1);
    for (const name of ['a', 'b', 'c', 'd']) t.controller.enqueueKey(`ns/${name}`);
    for (let round = 0; round < 5 && seen.length < 4; round++) await t.settle();
    expect(seen).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d']);
    const errors = t.logger.entries.filter((entry) => entry.level === 'error');
    expect(errors.map((entry) => entry.message)).toEqual([
      "error syncing 'ns/a', requeuing",
      "error syncing 'ns/b', requeuing",
      "error syncing 'ns/c', requeuing",
    ]);
    // Each failed key is retried through the rate limiter (5 ms for a first failure), not dropped.
    await t.clock.advance(5);
    for (let round = 0; round < 5 && seen.length < 7; round++) await t.settle();
    expect(seen.slice(4).sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('fails (and retries) a reconcile whose handler returns a value whose then cannot be read', async () => {
    const seen: string[] = [];
    const t = setup((key) => {
      seen.push(key);
      if (seen.length === 1) return revokedProxy() as never;
      if (seen.length === 2) return throwingGetter('then') as never;
    });
    await t.start(1);
    for (const name of ['a', 'b', 'c']) t.controller.enqueueKey(`ns/${name}`);
    for (let round = 0; round < 5 && seen.length < 3; round++) await t.settle();
    expect(seen).toEqual(['ns/a', 'ns/b', 'ns/c']);
    const errors = t.logger.entries.filter((entry) => entry.level === 'error');
    expect(errors.map((entry) => entry.message)).toEqual([
      "error syncing 'ns/a', requeuing",
      "error syncing 'ns/b', requeuing",
    ]);
    await t.clock.advance(5);
    for (let round = 0; round < 5 && seen.length < 5; round++) await t.settle();
    expect(seen.slice(3).sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('requeues the key before logging the outcome, so a throwing logger loses no key', async () => {
    let calls = 0;
    const logger = createTestLogger();
    const outcomes = /^(requeuing after delay|error syncing)/;
    const throwing = {
      ...logger,
      debug: (message: string) => {
        if (outcomes.test(message)) throw new Error('logger down');
      },
      error: (message: string) => {
        if (outcomes.test(message)) throw new Error('logger down');
      },
      child() {
        return throwing;
      },
    };
    const t = setup(
      () => {
        calls++;
        if (calls === 1) throw retryAfter(100);
        if (calls === 2) throw new Error('boom');
      },
      { logger: throwing },
    );
    await t.start(1);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    expect(calls).toBe(1);
    await t.clock.advance(100);
    expect(calls).toBe(2);
    // The first rate-limited failure waits 5 ms (defaultLassoRateLimiter).
    await t.clock.advance(5);
    expect(calls).toBe(3);
  });

  it('rejects start with CacheNotSyncedError when the signal aborts before the cache synced', async () => {
    const t = setup(() => {});
    const starting = t.controller.start(t.stop.signal, 1);
    t.stop.abort(new Error('shutting down'));
    await expect(starting).rejects.toBeInstanceOf(CacheNotSyncedError);
    await expect(starting).rejects.toThrow(/v1, Kind=ConfigMap/);
    expect(t.controller.isRunning()).toBe(false);
  });

  it('is idempotent while running and runs startCache on every start', async () => {
    const t = setup(() => {});
    await t.start();
    await t.controller.start(t.stop.signal, 3);
    await Promise.all([t.controller.start(t.stop.signal, 1), t.controller.start(t.stop.signal, 1)]);
    expect(t.cacheStarts()).toBe(1);
    expect(t.controller.isRunning()).toBe(true);
  });

  it('drains in-flight keys on abort, settles stopped() after the last worker, and restarts with the keys left', async () => {
    const release: Array<() => void> = [];
    const recorder = createRecorder(
      () =>
        new Promise<void>((resolve) => {
          release.push(resolve);
        }),
    );
    const t = setup((key, object) => recorder.handler(key, object));
    await t.start(1);
    t.controller.enqueueKey('ns/in-flight');
    t.controller.enqueueKey('ns/queued');
    await t.settle();
    expect(recorder.keys()).toEqual(['ns/in-flight']);
    let stopped = false;
    void t.controller.stopped().then(() => {
      stopped = true;
    });
    t.stop.abort();
    await t.settle();
    expect(stopped).toBe(false);
    t.controller.enqueueKey('ns/while-stopping');
    release.shift()?.();
    await t.controller.stopped();
    expect(stopped).toBe(true);
    expect(t.controller.isRunning()).toBe(false);
    expect(recorder.keys()).toEqual(['ns/in-flight']);

    const again = new AbortController();
    stops.push(again);
    await t.controller.start(again.signal, 1);
    await t.settle();
    release.shift()?.();
    await t.settle();
    release.shift()?.();
    await recorder.until((calls) => calls.length === 3);
    expect(recorder.keys().slice(1).sort()).toEqual(['ns/queued', 'ns/while-stopping']);
  });

  it('queues one entry per key while stopped, however often it is enqueued', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    t.informer.add(configMap('a'));
    for (let index = 0; index < 1_000; index++) {
      t.informer.update(configMap('a', { resourceVersion: String(index + 2) }));
      t.controller.enqueueKey('ns/a');
      t.controller.enqueue('ns', 'a');
      t.controller.enqueueAfter('ns', 'a', 500 + index);
    }
    await t.start();
    expect(
      t.logger.entries.find((entry) => entry.message === 'controller started')?.attributes,
    ).toMatchObject({ workers: 1, queued: 1 });
    // The immediate adds collapse into one run; the delayed ones (the rate limiter's first 5 ms and the
    // enqueueAfter deadlines) into one run at the earliest deadline.
    await recorder.until((calls) => calls.length === 1);
    await t.clock.advance(4);
    expect(recorder.calls).toHaveLength(1);
    await t.clock.advance(1);
    await recorder.until((calls) => calls.length === 2);
    await t.clock.advance(2_000);
    expect(recorder.keys()).toEqual(['ns/a', 'ns/a']);
  });

  it('carries a delay flushed at start over to the next start when stopped before it is due', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    t.controller.enqueueAfter('ns', 'later', 1_000);
    await t.start();
    t.stop.abort();
    await t.controller.stopped();
    const again = new AbortController();
    stops.push(again);
    await t.controller.start(again.signal, 1);
    await t.clock.advance(999);
    expect(recorder.calls).toEqual([]);
    await t.clock.advance(1);
    await recorder.until((calls) => calls.length === 1);
    expect(recorder.keys()).toEqual(['ns/later']);
  });

  it('never hands one key to two workers at once', async () => {
    let active = 0;
    let maxActive = 0;
    const release: Array<() => void> = [];
    const t = setup(async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((resolve) => release.push(resolve));
      active--;
    });
    await t.start(4);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    t.controller.enqueueKey('ns/a');
    t.controller.enqueueKey('ns/a');
    await t.settle();
    expect(active).toBe(1);
    release.shift()?.();
    await t.settle();
    release.shift()?.();
    await t.settle();
    expect(maxActive).toBe(1);
    expect(release).toHaveLength(0);
  });

  it('records the workqueue metrics under the controller name', async () => {
    const t = setup(() => {});
    await t.start();
    t.controller.enqueueKey('ns/a');
    await t.settle();
    expect(t.metrics.value('workqueue_adds_total', { name: 'v1, Kind=ConfigMap' })).toBe(1);
  });

  it('removes its series when closed (a closed controller is not scraped forever)', async () => {
    const t = setup(() => {}, { reconcileTimeoutMs: 1_000, maxRetries: 3 });
    await t.start();
    t.controller.enqueueKey('ns/a');
    await t.settle();
    const queue = { name: 'v1, Kind=ConfigMap' };
    const controller = { controller_name: 'v1, Kind=ConfigMap' };
    expect(t.metrics.removed('workqueue_adds_total', queue)).toBe(false);
    t.stop.abort();
    await t.controller.stopped();
    // Stopped but not closed: it can start again, its series stay.
    expect(t.metrics.removed('workqueue_adds_total', queue)).toBe(false);
    await t.controller.close();
    expect(t.metrics.removed('workqueue_adds_total', queue)).toBe(true);
    expect(t.metrics.removed('workqueue_depth', queue)).toBe(true);
    expect(t.metrics.removed('lasso_controller_reconcile_timeouts_total', controller)).toBe(true);
    expect(t.metrics.removed('lasso_controller_give_ups_total', controller)).toBe(true);
  });

  describe('with a shared informer over FakeListerWatcher', () => {
    function cm(name: string): KubeObject {
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name } };
    }

    function setupInformer(names: string[]) {
      const clock = new FakeClock();
      const fake = new FakeListerWatcher<KubeObject>({ objects: names.map(cm) });
      const informer = createSharedIndexInformer(fake, {
        name: 'v1, Kind=ConfigMap',
        clock,
        random: () => 0,
        logger: createTestLogger(),
      });
      const seen: string[] = [];
      // No startCache: the controller runs the informer itself.
      const controller = createController(
        'v1, Kind=ConfigMap',
        informer,
        undefined,
        (key, object) => {
          seen.push(`${key}=${object?.metadata?.resourceVersion ?? 'deleted'}`);
        },
        { clock, logger: createTestLogger() },
      );
      const stop = new AbortController();
      stops.push(stop);
      return { clock, fake, informer, controller, seen, stop };
    }

    it('hands a deletion missed during a 410 to the handler as undefined, through the relist tombstone', async () => {
      const t = setupInformer(['a', 'b']);
      await t.controller.start(t.stop.signal, 2);
      const watch = await t.fake.nextWatch();
      await t.clock.advance(0);
      expect([...t.seen].sort()).toEqual(['ns/a=2', 'ns/b=3']);
      // A stream that breaks after delivering something is resumed from its last version (client-go).
      t.fake.sendBookmarks();
      await t.clock.advance(0);
      watch.fail(new Error('connection reset'));
      await t.clock.advance(0);
      // During the reflector's backoff b is deleted, a changes, and the server forgets that history.
      t.fake.remove('ns/b');
      t.fake.modify(cm('a'));
      t.fake.expireHistory();
      const listsBefore = t.fake.listCalls.length + t.fake.streamingCalls.length;
      await t.clock.advance(800);
      // Resumed from the forgotten version: 410, so the reflector relists at once and watches again.
      await t.fake.nextWatch();
      expect(t.fake.listCalls.length + t.fake.streamingCalls.length).toBeGreaterThan(listsBefore);
      await t.clock.advance(0);
      expect(t.seen.slice(2).sort()).toEqual(['ns/a=5', 'ns/b=deleted']);
      t.stop.abort();
      await t.controller.stopped();
    });

    it('runs the informer it runs itself again on a restart, which relists', async () => {
      const t = setupInformer(['a']);
      await t.controller.start(t.stop.signal, 1);
      await t.clock.advance(0);
      expect(t.seen).toEqual(['ns/a=2']);
      t.stop.abort();
      await t.controller.stopped();
      await t.clock.advance(0);
      expect(t.informer.isRunning()).toBe(false);
      // Changed while nothing watched: the relist of the next start brings it.
      t.fake.modify(cm('a'));
      const again = new AbortController();
      stops.push(again);
      await t.controller.start(again.signal, 1);
      expect(t.informer.isRunning()).toBe(true);
      await t.clock.advance(0);
      expect(t.seen).toEqual(['ns/a=2', 'ns/a=3']);
      await t.controller.close();
      expect(t.informer.isRunning()).toBe(false);
    });

    it('rejects a start whose startCache leaves the informer stopped, instead of running on a dead cache', async () => {
      const t = setupInformer(['a']);
      const informerStop = new AbortController();
      await t.informer.start(informerStop.signal);
      await t.clock.advance(0);
      informerStop.abort();
      await t.informer.stopped();
      const controller = createController(
        'v1, Kind=ConfigMap',
        t.informer,
        () => {},
        () => {},
        {
          clock: t.clock,
          logger: createTestLogger(),
        },
      );
      const error = await controller.start(t.stop.signal, 1).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CacheNotSyncedError);
      expect((error as Error).message).toMatch(/has stopped: the startCache/);
      expect(controller.isRunning()).toBe(false);
    });
  });

  describe('bad input', () => {
    const informer = createTestInformer();
    it.for([
      {
        name: 'a name that is not a string',
        call: () =>
          createController(
            42 as never,
            informer,
            () => {},
            () => {},
          ),
      },
      {
        name: 'a handler that is not a function',
        call: () => createController('c', informer, () => {}, 'nope' as never),
      },
      {
        name: 'a startCache that is not a function',
        call: () => createController('c', informer, 'nope' as never, () => {}),
      },
      {
        name: 'an informer that is not one',
        call: () =>
          createController(
            'c',
            {} as never,
            () => {},
            () => {},
          ),
      },
    ])('throws a TypeError for $name', ({ call }) => {
      expect(call).toThrow(TypeError);
    });

    it('throws a RangeError naming the name for an empty one', () => {
      const call = () =>
        createController(
          '',
          informer,
          () => {},
          () => {},
        );
      expect(call).toThrow(RangeError);
      expect(call).toThrow(/name must not be empty/);
    });

    it.for([0, -1, 1.5, Number.NaN])(
      'rejects start with a RangeError for workers %s',
      async (workers) => {
        const t = setup(() => {});
        const error = await t.controller.start(t.stop.signal, workers).catch((caught) => caught);
        expect(error).toBeInstanceOf(RangeError);
        expect(error).toMatchObject({
          message: expect.stringMatching(/workers must be an integer >= 1/),
        });
      },
    );

    it.for([
      { name: 'NaN', value: Number.NaN },
      { name: 'Infinity', value: Number.POSITIVE_INFINITY },
      { name: '-Infinity', value: Number.NEGATIVE_INFINITY },
      { name: 'a string', value: '5' as unknown as number },
    ])('throws a RangeError for an enqueueAfter delay of $name', ({ value }) => {
      const t = setup(() => {});
      expect(() => t.controller.enqueueAfter('ns', 'a', value)).toThrow(RangeError);
      expect(() => t.controller.enqueueAfter('ns', 'a', value)).toThrow(/delayMs/);
    });
  });
});
