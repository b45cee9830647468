// The lifecycle rules of issue 17 on createController: the reconcile context and its cancellation, the reconcile
// timeout, the bounded graceful shutdown, one queue across restarts, close(), and delays <= 0. All on FakeClock.
import type { KubeObject } from '@lasso/client';
import { TimeoutError } from '@lasso/core';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { configMap, createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import type { ControllerOptions, Handler } from './controller-types.ts';
import type { ReconcileContext } from './reconcile-context.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(handler: Handler<KubeObject>, options: ControllerOptions = {}) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const informer = createTestInformer();
  informer.sync();
  const controller = createController('v1, Kind=ConfigMap', informer, () => {}, handler, {
    clock,
    logger,
    metrics,
    ...options,
  });
  // Not awaited: a test that failed with a handler still blocked must not hang the hook for the drain bound.
  cleanups.push(() => void controller.close());
  const newSignal = (): AbortController => {
    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    return stop;
  };
  return {
    clock,
    logger,
    metrics,
    informer,
    controller,
    newSignal,
    settle: () => clock.advance(0),
    errors: () => logger.entries.filter((entry) => entry.level === 'error'),
  };
}

/** A handler that records each context and waits until the test releases it (or never). */
function blockingHandler() {
  const contexts: ReconcileContext[] = [];
  const releases: Array<() => void> = [];
  const handler: Handler<KubeObject> = (_key, _object, context) => {
    contexts.push(context);
    return new Promise<void>((resolve) => releases.push(resolve));
  };
  return { handler, contexts, release: () => releases.shift()?.() };
}

describe('createController: the reconcile context', () => {
  it('hands every handler a context with the key, a live signal and a logger that adds the key', async () => {
    const seen: ReconcileContext[] = [];
    const t = setup((_key, _object, context) => {
      seen.push(context);
      context.logger.info('inside');
    });
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.key).toBe('ns/a');
    expect(seen[0]?.signal.aborted).toBe(false);
    const entry = t.logger.entries.find((candidate) => candidate.message === 'inside');
    expect(entry?.attributes).toMatchObject({ controller: 'v1, Kind=ConfigMap', key: 'ns/a' });
  });

  it('keeps two-argument handlers working', async () => {
    const keys: string[] = [];
    const twoArguments = (key: string, _object: KubeObject | undefined): void => {
      keys.push(key);
    };
    const t = setup(twoArguments);
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    expect(keys).toEqual(['ns/a']);
  });

  it('aborts every in-flight context at once when the start signal aborts, with its reason', async () => {
    const blocking = blockingHandler();
    const t = setup(blocking.handler);
    const stop = t.newSignal();
    await t.controller.start(stop.signal, 2);
    t.controller.enqueueKey('ns/a');
    t.controller.enqueueKey('ns/b');
    await t.settle();
    expect(blocking.contexts.map((context) => context.signal.aborted)).toEqual([false, false]);
    const reason = new Error('leadership lost');
    stop.abort(reason);
    expect(blocking.contexts.map((context) => context.signal.aborted)).toEqual([true, true]);
    expect(blocking.contexts[0]?.signal.reason).toBe(reason);
    blocking.release();
    blocking.release();
    await expect(t.controller.stopped()).resolves.toEqual({ drained: true, pending: [] });
  });

  it('aborts a reconcile after reconcileTimeoutMs with a TimeoutError, counts it, and retries the failure', async () => {
    let calls = 0;
    const reasons: unknown[] = [];
    const t = setup(
      (_key, _object, { signal }) => {
        calls++;
        if (calls > 1) return;
        // Honours its signal: rejects with the reason once it aborts.
        return new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          });
        });
      },
      { reconcileTimeoutMs: 1_000 },
    );
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueKey('ns/slow');
    await t.clock.advance(999);
    expect(reasons).toEqual([]);
    await t.clock.advance(1);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(TimeoutError);
    expect(String((reasons[0] as Error).message)).toMatch(/'ns\/slow' timed out after 1000 ms/);
    expect(
      t.metrics.value('lasso_controller_reconcile_timeouts_total', {
        controller_name: 'v1, Kind=ConfigMap',
      }),
    ).toBe(1);
    expect(t.errors().map((entry) => entry.message)).toEqual([
      "error syncing 'ns/slow', requeuing",
    ]);
    // The first failure waits 5 ms in the rate limiter, then succeeds.
    await t.clock.advance(5);
    expect(calls).toBe(2);
  });

  it('releases the timeout timer of a reconcile that finished in time, and counts nothing', async () => {
    const t = setup(() => {}, { reconcileTimeoutMs: 60_000 });
    await t.controller.start(t.newSignal().signal, 1);
    const before = t.clock.pendingTimers();
    for (const name of ['a', 'b', 'c']) t.controller.enqueueKey(`ns/${name}`);
    await t.settle();
    // The workqueue metrics' coarse clock keeps its reading fresh for 1 ms with a timer of its own.
    await t.clock.advance(1);
    expect(t.clock.pendingTimers()).toBe(before);
    expect(
      t.metrics.value('lasso_controller_reconcile_timeouts_total', {
        controller_name: 'v1, Kind=ConfigMap',
      }),
    ).toBe(0);
  });
});

describe('createController: bounded graceful shutdown', () => {
  it('settles stopped() drained once every in-flight reconcile finished', async () => {
    const blocking = blockingHandler();
    const t = setup(blocking.handler);
    const stop = t.newSignal();
    await t.controller.start(stop.signal, 1);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    let result: unknown;
    void t.controller.stopped().then((value) => {
      result = value;
    });
    stop.abort();
    await t.clock.advance(10_000);
    expect(result).toBeUndefined();
    expect(t.controller.isRunning()).toBe(true);
    blocking.release();
    await t.settle();
    expect(result).toEqual({ drained: true, pending: [] });
    expect(t.controller.isRunning()).toBe(false);
  });

  it('settles after the default 30 s with the reconciles still running, each logged as an error by key', async () => {
    const blocking = blockingHandler();
    const t = setup(blocking.handler);
    const stop = t.newSignal();
    await t.controller.start(stop.signal, 2);
    t.controller.enqueueKey('ns/a');
    t.controller.enqueueKey('ns/b');
    await t.settle();
    let result: unknown;
    void t.controller.stopped().then((value) => {
      result = value;
    });
    const timers = t.clock.pendingTimers();
    stop.abort();
    await t.clock.advance(29_999);
    expect(result).toBeUndefined();
    await t.clock.advance(1);
    expect(result).toEqual({
      drained: false,
      pending: ['v1, Kind=ConfigMap ns/a', 'v1, Kind=ConfigMap ns/b'],
    });
    expect(t.controller.isRunning()).toBe(false);
    const errors = t.errors();
    expect(errors.map((entry) => entry.attributes?.key)).toEqual(['ns/a', 'ns/b']);
    expect(errors[0]?.message).toMatch(/still running after the graceful shutdown bound/);
    expect(errors[0]?.attributes).toMatchObject({
      controller: 'v1, Kind=ConfigMap',
      runningMs: 30_000,
      gracefulShutdownTimeoutMs: 30_000,
    });
    // The bound's timer is gone; the handlers still hold their workers (JavaScript cannot kill them).
    expect(t.clock.pendingTimers()).toBe(timers);
  });

  it('honours gracefulShutdownTimeoutMs, and 0 settles at once', async () => {
    for (const [bound, expected] of [
      [5_000, 5_000],
      [0, 0],
    ] as const) {
      const blocking = blockingHandler();
      const t = setup(blocking.handler, { gracefulShutdownTimeoutMs: bound });
      const stop = t.newSignal();
      await t.controller.start(stop.signal, 1);
      t.controller.enqueueKey('ns/a');
      await t.settle();
      const started = t.clock.monotonic();
      stop.abort();
      let settledAt: number | undefined;
      void t.controller.stopped().then(() => {
        settledAt = t.clock.monotonic();
      });
      await t.clock.advance(expected);
      expect(settledAt).toBe(started + expected);
    }
  });

  it('lets a later start run again once the bound passed, without handing the hung key to a second worker', async () => {
    const blocking = blockingHandler();
    const t = setup(blocking.handler, { gracefulShutdownTimeoutMs: 1_000 });
    const first = t.newSignal();
    await t.controller.start(first.signal, 1);
    t.controller.enqueueKey('ns/hung');
    await t.settle();
    first.abort();
    await t.clock.advance(1_000);
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueKey('ns/hung');
    t.controller.enqueueKey('ns/other');
    await t.settle();
    // ns/other runs; ns/hung waits for the hung reconcile to finish (one key, one worker).
    expect(blocking.contexts.map((context) => context.key)).toEqual(['ns/hung', 'ns/other']);
    blocking.release();
    blocking.release();
    await t.settle();
    expect(blocking.contexts.map((context) => context.key)).toEqual([
      'ns/hung',
      'ns/other',
      'ns/hung',
    ]);
    blocking.release();
  });
});

describe('createController: one queue for its lifetime', () => {
  it('queues informer events and enqueues while stopped, and runs them on the next start', async () => {
    const keys: string[] = [];
    const t = setup((key) => void keys.push(key));
    const first = t.newSignal();
    await t.controller.start(first.signal, 1);
    first.abort();
    await t.controller.stopped();
    t.informer.add(configMap('event'));
    t.controller.enqueueKey('ns/enqueued');
    t.controller.enqueueAfter('ns', 'delayed', 100);
    await t.clock.advance(200);
    expect(keys).toEqual([]);
    await t.controller.start(t.newSignal().signal, 1);
    await t.settle();
    expect(keys).toEqual(['ns/event', 'ns/enqueued', 'ns/delayed']);
  });

  it('keeps the keys not yet taken queued across stops, in order, with idle workers woken at the stop', async () => {
    const keys: string[] = [];
    const t = setup((key) => void keys.push(key));
    const first = t.newSignal();
    // Two idle workers wait in the queue when the signal aborts.
    await t.controller.start(first.signal, 2);
    first.abort();
    await t.controller.stopped();
    t.controller.enqueueKey('ns/a');
    t.controller.enqueueKey('ns/b');
    await t.settle();
    // Nobody processed them: they wait in the queue, once each.
    expect(keys).toEqual([]);
    expect(t.metrics.value('workqueue_depth', { name: 'v1, Kind=ConfigMap' })).toBe(2);
    const second = t.newSignal();
    await t.controller.start(second.signal, 1);
    await t.settle();
    expect(keys).toEqual(['ns/a', 'ns/b']);
    // Stop and start again, several times: the waits left behind do not pile up or lose keys.
    for (let round = 0; round < 3; round++) {
      const stop = round === 0 ? second : t.newSignal();
      if (round > 0) await t.controller.start(stop.signal, 3);
      stop.abort();
      await t.controller.stopped();
    }
    t.controller.enqueueKey('ns/c');
    await t.settle();
    await t.controller.start(t.newSignal().signal, 1);
    await t.settle();
    expect(keys).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('runs a start made while an aborted start is still pending, instead of sharing it', async () => {
    const blocking = blockingHandler();
    const t = setup(blocking.handler);
    const first = t.newSignal();
    await t.controller.start(first.signal, 1);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    first.abort();
    // Waits for the first run's stop (its reconcile is still running), then finds its own signal aborted.
    const second = t.newSignal();
    const secondStart = t.controller.start(second.signal, 1);
    second.abort();
    const third = t.newSignal();
    const thirdStart = t.controller.start(third.signal, 1);
    blocking.release();
    await expect(secondStart).rejects.toThrow(/v1, Kind=ConfigMap/);
    await thirdStart;
    expect(t.controller.isRunning()).toBe(true);
    t.controller.enqueueKey('ns/b');
    await t.settle();
    expect(blocking.contexts.map((context) => context.key)).toEqual(['ns/a', 'ns/b']);
    blocking.release();
  });

  it('puts back a key handed to a worker as its signal aborted, for the next start', async () => {
    const keys: string[] = [];
    const t = setup((key) => void keys.push(key));
    const first = t.newSignal();
    await t.controller.start(first.signal, 1);
    // The idle worker's get resolves with the key, and the signal aborts before the worker sees it.
    t.controller.enqueueKey('ns/a');
    first.abort();
    await t.controller.stopped();
    await t.settle();
    expect(keys).toEqual([]);
    await t.controller.start(t.newSignal().signal, 1);
    await t.settle();
    expect(keys).toEqual(['ns/a']);
  });

  it('adds at once for enqueueAfter with a delay <= 0 (a deadline already passed)', async () => {
    const keys: string[] = [];
    const t = setup((key) => void keys.push(key));
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueAfter('ns', 'past', -250);
    t.controller.enqueueAfter('ns', 'zero', 0);
    t.controller.enqueueAfter('ns', 'negative-zero', -0);
    await t.settle();
    expect(keys).toEqual(['ns/past', 'ns/zero', 'ns/negative-zero']);
  });
});

describe('createController: close', () => {
  it('aborts in-flight reconciles, drops delayed keys with their timers, and refuses to start again', async () => {
    const blocking = blockingHandler();
    const t = setup(blocking.handler);
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueKey('ns/a');
    t.controller.enqueueAfter('ns', 'later', 60_000);
    await t.settle();
    const closing = t.controller.close();
    expect(blocking.contexts[0]?.signal.aborted).toBe(true);
    blocking.release();
    await closing;
    expect(t.controller.isRunning()).toBe(false);
    expect(t.clock.pendingTimers()).toBe(0);
    await expect(t.controller.start(t.newSignal().signal, 1)).rejects.toThrow(/is closed/);
    t.controller.enqueueKey('ns/b');
    t.informer.add(configMap('c'));
    await t.clock.advance(60_000);
    expect(blocking.contexts.map((context) => context.key)).toEqual(['ns/a']);
    // Idempotent, and Symbol.asyncDispose is close.
    await t.controller.close();
    await t.controller[Symbol.asyncDispose]();
  });

  it('ends a start still waiting for the cache to sync', async () => {
    const clock = new FakeClock();
    const informer = createTestInformer();
    const controller = createController(
      'v1, Kind=ConfigMap',
      informer,
      () => {},
      () => {},
      {
        clock,
        logger: createTestLogger(),
      },
    );
    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    const starting = controller.start(stop.signal, 1);
    await controller.close();
    await expect(starting).rejects.toThrow(/v1, Kind=ConfigMap/);
    expect(controller.isRunning()).toBe(false);
  });

  it('resolves stopped() at once, drained, for a controller that never started', async () => {
    const t = setup(() => {});
    await expect(t.controller.stopped()).resolves.toEqual({ drained: true, pending: [] });
  });
});

describe('createController: a logger that throws everywhere', () => {
  it('still reconciles, retries, times out, and stops within the bound', async () => {
    const throwing = (): never => {
      throw new Error('logger down');
    };
    const logger = {
      debug: throwing,
      info: throwing,
      warn: throwing,
      error: throwing,
      child: throwing,
    };
    let calls = 0;
    const blocking = blockingHandler();
    const t = setup(
      (key, object, context) => {
        calls++;
        context.logger.info('handler logs too');
        if (calls === 1) throw new Error('first attempt fails');
        if (key === 'ns/hang') return blocking.handler(key, object, context);
      },
      { logger, reconcileTimeoutMs: 1_000, gracefulShutdownTimeoutMs: 2_000 },
    );
    const stop = t.newSignal();
    await t.controller.start(stop.signal, 1);
    t.controller.enqueueKey('ns/a');
    await t.clock.advance(5);
    expect(calls).toBe(2);
    t.controller.enqueueKey('ns/hang');
    await t.clock.advance(1_000);
    expect(blocking.contexts[0]?.signal.aborted).toBe(true);
    stop.abort();
    let result: unknown;
    void t.controller.stopped().then((value) => {
      result = value;
    });
    await t.clock.advance(2_000);
    expect(result).toEqual({ drained: false, pending: ['v1, Kind=ConfigMap ns/hang'] });
    blocking.release();
  });
});

describe('createController: error logs', () => {
  it('carry the stack as an attribute', async () => {
    const failure = new Error('boom');
    const t = setup(() => {
      throw failure;
    });
    await t.controller.start(t.newSignal().signal, 1);
    t.controller.enqueueKey('ns/a');
    await t.settle();
    const [entry] = t.errors();
    expect(entry?.attributes).toMatchObject({ key: 'ns/a', error: 'boom', stack: failure.stack });
  });

  it.for([
    { name: 'reconcileTimeoutMs 0', options: { reconcileTimeoutMs: 0 } },
    {
      name: 'reconcileTimeoutMs Infinity',
      options: { reconcileTimeoutMs: Number.POSITIVE_INFINITY },
    },
    { name: 'reconcileTimeoutMs NaN', options: { reconcileTimeoutMs: Number.NaN } },
    { name: 'gracefulShutdownTimeoutMs -1', options: { gracefulShutdownTimeoutMs: -1 } },
    { name: 'gracefulShutdownTimeoutMs "5"', options: { gracefulShutdownTimeoutMs: '5' as never } },
  ])('refuses $name with a RangeError naming the option', ({ options }) => {
    const option = Object.keys(options)[0] as string;
    expect(() =>
      createController(
        'c',
        createTestInformer(),
        undefined,
        () => {},
        options as ControllerOptions,
      ),
    ).toThrow(new RegExp(option));
    expect(() =>
      createController(
        'c',
        createTestInformer(),
        undefined,
        () => {},
        options as ControllerOptions,
      ),
    ).toThrow(RangeError);
  });
});
