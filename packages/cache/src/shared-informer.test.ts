// Ports the intent of client-go shared_informer_test.go (TestListenerResyncPeriods, TestSharedInformerRemoveHandler,
// TestAddWhileActive, TestSharedInformerTransformer) with a fake lister-watcher and a FakeClock.
import { ApiError, type KubeObject } from '@lasso/client';
import { guardLogger } from '@lasso/core';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { waitForCacheSync } from './cache.ts';
import { dropManagedFields } from './compact.ts';
import { DeletedFinalStateUnknown } from './delta-fifo.ts';
import { CacheNotSyncedError } from './errors.ts';
import type { ResourceEventHandler } from './processor-listener.ts';
import { createSharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data };
}

type Seen = Array<string>;

/** Thrown values that break naive formatting (`.message`, `instanceof`, `String()`). */
function hostileValues(): Array<{ name: string; value: unknown }> {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const messageThrows = new Error('original');
  Object.defineProperty(messageThrows, 'message', {
    get() {
      throw new Error('message getter');
    },
  });
  return [
    { name: 'null', value: null },
    { name: 'undefined', value: undefined },
    { name: 'a string', value: 'plain words' },
    { name: 'a Symbol', value: Symbol('boom') },
    { name: 'a null-prototype object', value: Object.create(null) },
    {
      name: 'an object whose toString throws',
      value: {
        toString() {
          throw new Error('toString');
        },
      },
    },
    { name: 'an Error whose message getter throws', value: messageThrows },
    { name: 'a revoked Proxy', value: revoked },
    {
      name: 'a thenable whose then throws',
      value: {
        // biome-ignore lint/suspicious/noThenProperty: the hostile value under test is a thenable
        then() {
          throw new Error('then');
        },
      },
    },
  ];
}

/** A handler that records `add:name`, `update:name:rv`, `delete:name` (and `tombstone:name`). */
function recorder(seen: Seen): ResourceEventHandler<KubeObject> {
  return {
    onAdd: (object, initial) =>
      void seen.push(`add:${object.metadata?.name}${initial ? ':initial' : ''}`),
    onUpdate: (old, object) =>
      void seen.push(
        `update:${object.metadata?.name}:${old.metadata?.resourceVersion}->${object.metadata?.resourceVersion}`,
      ),
    onDelete: (object) =>
      void seen.push(
        object instanceof DeletedFinalStateUnknown
          ? `tombstone:${object.key}:${object.object.metadata?.resourceVersion}`
          : `delete:${(object as KubeObject).metadata?.name}`,
      ),
  };
}

function setup(names: string[] = [], options: SharedIndexInformerOptions<KubeObject> = {}) {
  const clock = new FakeClock();
  const fake = new FakeListerWatcher({ objects: names.map((name) => cm(name)) });
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const informer = createSharedIndexInformer(fake, {
    name: 'cms',
    clock,
    logger,
    metrics,
    random: () => 0,
    ...options,
  });
  const controller = new AbortController();
  return {
    clock,
    fake,
    logger,
    metrics,
    informer,
    controller,
    settle: () => clock.advance(0),
    /** Starts a run; settles once it has ended. */
    start: async () => {
      await informer.start(controller.signal);
      await informer.stopped();
    },
    stop: async () => {
      controller.abort();
      await informer.stopped();
    },
  };
}

describe('SharedIndexInformer', () => {
  it('delivers the initial list as adds, then syncs the informer and every registration', async () => {
    const t = setup(['a', 'b']);
    const seen: Seen = [];
    const registration = t.informer.addEventHandler(recorder(seen));
    expect(registration.hasSynced()).toBe(false);
    void t.start();
    await t.informer.whenSynced();
    await t.settle();
    expect(seen).toEqual(['add:a:initial', 'add:b:initial']);
    expect(t.informer.hasSynced()).toBe(true);
    expect(registration.hasSynced()).toBe(true);
    expect(t.informer.lastSyncResourceVersion()).toBe('3');
    expect(t.informer.getStore().listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    await t.stop();
  });

  it('syncs with an empty first list', async () => {
    const t = setup();
    void t.start();
    await waitForCacheSync(t.controller.signal, t.informer);
    expect(t.informer.hasSynced()).toBe(true);
    await t.stop();
  });

  it('turns watch events into add, update(old, new) and delete', async () => {
    const t = setup(['a']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    t.fake.create(cm('b'));
    t.fake.modify(cm('a', { x: '1' }));
    t.fake.remove('ns/b');
    await t.settle();
    expect(seen).toEqual(['add:a:initial', 'add:b', 'update:a:2->4', 'delete:b']);
    expect(t.informer.getIndexer().getByKey('ns/a')?.data).toEqual({ x: '1' });
    await t.stop();
  });

  it('delivers a tombstone with the last known state for a deletion missed during a 410', async () => {
    const t = setup(['a', 'b']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    const watch = await t.fake.nextWatch();
    // Refused: the watch resumes after the backoff (any other failure would relist at once).
    watch.fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await t.settle();
    // During the backoff b is deleted, a changes, c appears, and the server forgets that history.
    t.fake.remove('ns/b');
    t.fake.modify(cm('a', { changed: 'yes' }));
    t.fake.create(cm('c'));
    t.fake.expireHistory();
    await t.clock.advance(800);
    await t.fake.nextWatch(); // resumed from the forgotten version: 410, relist after the next backoff
    await t.clock.advance(1600);
    await t.fake.nextWatch();
    await t.settle();
    expect(seen.slice(2).sort()).toEqual(['add:c', 'tombstone:ns/b:3', 'update:a:2->5'].sort());
    expect(t.informer.getStore().listKeys().sort()).toEqual(['ns/a', 'ns/c']);
    await t.stop();
  });

  it('does not deliver unchanged objects of a relist to handlers without a due resync', async () => {
    const t = setup(['a', 'b']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    (await t.fake.nextWatch()).fail(new ApiError({ status: 410, reason: 'Gone' }));
    t.fake.modify(cm('b', { x: '1' }));
    await t.clock.advance(800);
    await t.fake.nextWatch();
    await t.settle();
    expect(t.fake.listCalls).toHaveLength(2);
    expect(seen).toEqual(['add:a:initial', 'add:b:initial', 'update:b:3->4']);
    await t.stop();
  });

  it('delivers every watched update even when the resourceVersion is absent or unchanged', async () => {
    const t = setup(['a']);
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    const watch = await t.fake.nextWatch();
    // Objects of some aggregated APIs carry no resourceVersion; a MODIFIED event is never a resync.
    watch.push({
      type: 'ADDED',
      object: { metadata: { namespace: 'ns', name: 'x' }, data: { v: '1' } },
    });
    watch.push({
      type: 'MODIFIED',
      object: { metadata: { namespace: 'ns', name: 'x' }, data: { v: '2' } },
    });
    watch.push({ type: 'MODIFIED', object: cm('a', { v: '3' }) });
    await t.settle();
    const a = t.informer.getStore().getByKey('ns/a');
    watch.push({
      type: 'MODIFIED',
      object: { ...cm('a', { v: '4' }), metadata: { ...a?.metadata } },
    });
    await t.settle();
    expect(seen).toEqual([
      'add:a:initial',
      'add:x',
      'update:x:undefined->undefined',
      'update:a:2->undefined',
      `update:a:undefined->${a?.metadata?.resourceVersion}`,
    ]);
    expect(t.informer.getStore().getByKey('ns/x')?.data).toEqual({ v: '2' });
    await t.stop();
  });

  it('reports a throwing transform, relists and keeps running', async () => {
    const t = setup(['a']);
    const seen: Seen = [];
    const errors: string[] = [];
    let failing = false;
    t.informer.setTransform((object) => {
      if (failing && object.metadata?.name === 'bad') throw new Error('transform failed');
      return object;
    });
    t.informer.setWatchErrorHandler((error) => errors.push(`${error.phase}:${error.willRelist}`));
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    failing = true;
    t.fake.create(cm('bad'));
    await t.settle();
    expect(errors).toEqual(['event:true']);
    expect(t.informer.isRunning()).toBe(true);
    failing = false;
    await t.clock.advance(800);
    await t.fake.nextWatch();
    await t.settle();
    expect(t.fake.listCalls).toHaveLength(2);
    expect(seen).toEqual(['add:a:initial', 'add:bad']);
    expect(t.informer.getStore().listKeys().sort()).toEqual(['ns/a', 'ns/bad']);
    await t.stop();
  });

  it('gives a handler added after start synthetic adds for what is stored', async () => {
    const t = setup(['a', 'b']);
    void t.start();
    await t.informer.whenSynced();
    const seen: Seen = [];
    const registration = t.informer.addEventHandler(recorder(seen));
    expect(registration.hasSynced()).toBe(false);
    expect(seen).toEqual([]);
    await t.settle();
    expect(seen.sort()).toEqual(['add:a:initial', 'add:b:initial']);
    expect(registration.hasSynced()).toBe(true);
    t.fake.create(cm('c'));
    await t.settle();
    expect(seen).toContain('add:c');
    await t.stop();
  });

  it('keeps delivering to other handlers while one is slow', async () => {
    const t = setup(['a']);
    let release: () => void = () => {};
    const slowSeen: Seen = [];
    t.informer.addEventHandler({
      onAdd: async (object) => {
        slowSeen.push(`add:${object.metadata?.name}`);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const fastSeen: Seen = [];
    t.informer.addEventHandler(recorder(fastSeen));
    void t.start();
    await t.fake.nextWatch();
    t.fake.create(cm('b'));
    t.fake.create(cm('c'));
    await t.settle();
    expect(fastSeen).toEqual(['add:a:initial', 'add:b', 'add:c']);
    expect(slowSeen).toEqual(['add:a']);
    release();
    await t.settle();
    expect(slowSeen).toEqual(['add:a', 'add:b']);
    release();
    await t.settle();
    expect(slowSeen).toEqual(['add:a', 'add:b', 'add:c']);
    release();
    await t.stop();
  });

  it('reports a throwing or rejecting handler and keeps delivering to it and to the others', async () => {
    const t = setup(['a']);
    const seen: Seen = [];
    let calls = 0;
    t.informer.addEventHandler(
      {
        onAdd: (object) => {
          calls++;
          if (object.metadata?.name === 'a') throw new Error('sync bug');
          return Promise.reject(new Error('async bug'));
        },
      },
      { name: 'buggy' },
    );
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.settle();
    expect(calls).toBe(2);
    expect(seen).toEqual(['add:a:initial', 'add:b']);
    expect(t.logger.find('event handler failed').map((entry) => entry.attributes.error)).toEqual([
      'sync bug',
      'async bug',
    ]);
    expect(
      t.metrics.value('lasso_informer_handler_errors_total', { name: 'cms', handler: 'buggy' }),
    ).toBe(2);
    await t.stop();
  });

  describe('with hostile thrown values', () => {
    const values = hostileValues();
    const cases = (
      [
        'onAdd',
        'onUpdate',
        'onDelete',
        'rejected onAdd',
        'transform',
        'watch error handler',
      ] as const
    ).flatMap((source) => values.map(({ name, value }) => ({ name, value, source })));

    it.for(cases)('keeps delivering when the $source throws $name', async ({ value, source }) => {
      const t = setup(['a']);
      const seen: Seen = [];
      const record = recorder(seen);
      t.informer.addEventHandler(
        {
          onAdd: (object, initial) => {
            void record.onAdd?.(object, initial);
            if (source === 'onAdd') throw value;
            if (source === 'rejected onAdd') return Promise.reject(value);
          },
          onUpdate: (old, object) => {
            void record.onUpdate?.(old, object);
            if (source === 'onUpdate') throw value;
          },
          onDelete: (object) => {
            void record.onDelete?.(object);
            if (source === 'onDelete') throw value;
          },
        },
        { name: 'hostile' },
      );
      let poisoned = false;
      t.informer.setTransform((object) => {
        if (source === 'transform' && object.metadata?.name === 'b' && !poisoned) {
          poisoned = true;
          throw value;
        }
        return object;
      });
      if (source === 'watch error handler') {
        t.informer.setWatchErrorHandler(() => {
          throw value;
        });
      }
      void t.start();
      const watch = await t.fake.nextWatch();
      if (source === 'watch error handler') {
        watch.fail(new ApiError({ status: 500 }));
        await t.clock.advance(800);
        await t.fake.nextWatch();
      }
      t.fake.create(cm('b'));
      // A transform failure relists after the backoff, which delivers b.
      if (source === 'transform') await t.clock.advance(800);
      await t.settle();
      t.fake.modify(cm('b', { x: '1' }));
      t.fake.remove('ns/b');
      await t.settle();
      expect(seen).toEqual(['add:a:initial', 'add:b', 'update:b:3->4', 'delete:b']);
      expect(t.informer.isRunning()).toBe(true);
      const failures = t.logger.find(
        source === 'transform'
          ? 'watch failed'
          : source === 'watch error handler'
            ? 'watch error handler threw'
            : 'event handler failed',
      );
      expect(failures.length).toBeGreaterThan(0);
      for (const entry of failures) expect(typeof entry.attributes.error).toBe('string');
      await t.stop();
    });
  });

  it('keeps delivering when the injected logger throws on every entry', async () => {
    const fail = (): never => {
      throw new Error('log sink down');
    };
    const throwing = { debug: fail, info: fail, warn: fail, error: fail, child: fail };
    const reported: unknown[] = [];
    const t = setup(['a'], {
      logger: guardLogger(throwing, (failure) => reported.push(failure)),
    });
    const seen: Seen = [];
    const record = recorder(seen);
    t.informer.addEventHandler({
      ...record,
      onAdd: (object, initial) => {
        void record.onAdd?.(object, initial);
        // Each failure is logged, and the logger throws while it is.
        throw new Error('handler failed');
      },
    });
    void t.start();
    await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.settle();
    t.fake.modify(cm('b', { x: '1' }));
    await t.settle();
    expect(seen).toEqual(['add:a:initial', 'add:b', 'update:b:3->4']);
    expect(t.informer.isRunning()).toBe(true);
    expect(reported.length).toBeGreaterThan(0);
    await t.stop();
  });

  it('guards an unguarded throwing logger itself', async () => {
    const fail = (): never => {
      throw new Error('log sink down');
    };
    const warnings: string[] = [];
    const original = process.emitWarning;
    process.emitWarning = ((message: string) => {
      warnings.push(message);
    }) as typeof process.emitWarning;
    try {
      const t = setup(['a'], {
        logger: { debug: fail, info: fail, warn: fail, error: fail, child: fail },
      });
      const seen: Seen = [];
      t.informer.addEventHandler({
        onAdd: (object) => {
          seen.push(`add:${object.metadata?.name}`);
          throw new Error('handler failed');
        },
      });
      void t.start();
      await t.fake.nextWatch();
      t.fake.create(cm('b'));
      await t.settle();
      expect(seen).toEqual(['add:a', 'add:b']);
      await t.stop();
    } finally {
      process.emitWarning = original;
    }
    expect(warnings.length).toBeLessThanOrEqual(1);
  });

  it('re-delivers stored objects as updates per handler resync period', async () => {
    const t = setup(['a']);
    const fast: Seen = [];
    const slow: Seen = [];
    const never: Seen = [];
    t.informer.addEventHandler(recorder(fast), { resyncPeriodMs: 1_000 });
    t.informer.addEventHandler(recorder(slow), { resyncPeriodMs: 3_000 });
    t.informer.addEventHandler(recorder(never));
    void t.start();
    await t.fake.nextWatch();
    await t.clock.advance(3_000);
    expect(fast).toEqual(['add:a:initial', 'update:a:2->2', 'update:a:2->2', 'update:a:2->2']);
    expect(slow).toEqual(['add:a:initial', 'update:a:2->2']);
    expect(never).toEqual(['add:a:initial']);
    await t.stop();
    expect(t.clock.pendingTimers()).toBe(0);
  });

  it('resyncs a handler added after start on its own period, counted from when it was added', async () => {
    const t = setup(['a']);
    const early: Seen = [];
    t.informer.addEventHandler(recorder(early));
    void t.start();
    await t.fake.nextWatch();
    await t.clock.advance(500);
    const late: Seen = [];
    t.informer.addEventHandler(recorder(late), { resyncPeriodMs: 1_000 });
    await t.clock.advance(999);
    expect(late).toEqual(['add:a:initial']);
    await t.clock.advance(1);
    expect(late).toEqual(['add:a:initial', 'update:a:2->2']);
    expect(early).toEqual(['add:a:initial']);
    await t.stop();
    expect(t.clock.pendingTimers()).toBe(0);
  });

  it('never resyncs with a period of 0', async () => {
    const t = setup(['a'], { resyncPeriodMs: 0 });
    const seen: Seen = [];
    t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    await t.clock.advance(86_400_000);
    expect(seen.filter((entry) => entry.startsWith('update'))).toEqual([]);
    await t.stop();
  });

  it('drops metadata.managedFields before storing by default', async () => {
    const t = setup();
    t.fake.create({
      ...cm('a'),
      metadata: { namespace: 'ns', name: 'a', managedFields: [{ manager: 'kubectl' }] },
    });
    void t.start();
    await t.informer.whenSynced();
    expect(t.informer.getStore().getByKey('ns/a')?.metadata).not.toHaveProperty('managedFields');
    const input = { metadata: { name: 'x', managedFields: [] } };
    expect(dropManagedFields(input).metadata).toEqual({ name: 'x' });
    expect(input.metadata).toHaveProperty('managedFields');
    await t.stop();
  });

  it('applies a custom transform to listed and watched objects and refuses one after start', async () => {
    const t = setup(['a']);
    t.informer.setTransform((object) => ({ ...object, data: { transformed: 'yes' } }));
    void t.start();
    await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.settle();
    expect(
      t.informer
        .getStore()
        .list()
        .map((object) => object.data),
    ).toEqual([{ transformed: 'yes' }, { transformed: 'yes' }]);
    expect(() => t.informer.setTransform((object) => object)).toThrow(/already started/);
    await t.stop();
  });

  it('indexes stored objects when indexers are added after start', async () => {
    const t = setup(['a', 'b']);
    void t.start();
    await t.informer.whenSynced();
    t.informer.addIndexers({ byName: (object) => [object.metadata?.name ?? ''] });
    expect(t.informer.getIndexer().indexKeys('byName', 'b')).toEqual(['ns/b']);
    // Handlers and listers get a read-only view.
    const view = t.informer.getStore();
    expect(Object.isFrozen(view)).toBe(true);
    expect('add' in view || 'delete' in view || 'replace' in view).toBe(false);
    await t.stop();
  });

  it('stops delivering to a removed handler', async () => {
    const t = setup(['a']);
    const seen: Seen = [];
    const registration = t.informer.addEventHandler(recorder(seen));
    void t.start();
    await t.fake.nextWatch();
    await t.settle();
    registration.remove();
    t.fake.create(cm('b'));
    await t.settle();
    expect(seen).toEqual(['add:a:initial']);
    await t.stop();
  });

  it('delivers nothing more to a handler that removes itself during delivery, and keeps the others going', async () => {
    const t = setup(['a', 'b', 'c']);
    const seen: Seen = [];
    const other: Seen = [];
    const registration = t.informer.addEventHandler({
      onAdd: (object) => {
        seen.push(`add:${object.metadata?.name}`);
        registration.remove();
      },
    });
    t.informer.addEventHandler(recorder(other));
    void t.start();
    await t.fake.nextWatch();
    t.fake.create(cm('d'));
    await t.settle();
    expect(seen).toEqual(['add:a']);
    expect(other).toEqual(['add:a:initial', 'add:b:initial', 'add:c:initial', 'add:d']);
    await t.stop();
  });

  it('waits in run for a removed handler that is still inside a callback', async () => {
    const t = setup(['a']);
    let release: () => void = () => {};
    let finished = false;
    const registration = t.informer.addEventHandler({
      onAdd: async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        finished = true;
      },
    });
    const running = t.start();
    await t.fake.nextWatch();
    await t.settle();
    registration.remove();
    t.controller.abort();
    let stopped = false;
    void running.then(() => {
      stopped = true;
    });
    await t.settle();
    expect(stopped).toBe(false);
    release();
    await running;
    expect(finished).toBe(true);
  });

  it('passes list/watch failures to the watch error handler', async () => {
    const t = setup(['a']);
    const phases: string[] = [];
    t.informer.setWatchErrorHandler((error) => phases.push(error.phase));
    void t.start();
    (await t.fake.nextWatch()).fail(new ApiError({ status: 500 }));
    await t.settle();
    expect(phases).toEqual(['watch-start']);
    await t.stop();
  });

  // Pins the deprecated dialect (run, isStopped): it still works.
  it('resolves the deprecated run after abort with the watch released and every handler loop ended; isStopped turns true', async () => {
    const t = setup(['a']);
    let finished = false;
    t.informer.addEventHandler({
      onAdd: async () => {
        await t.clock.advance(0);
        finished = true;
      },
    });
    expect(t.informer.isStopped()).toBe(false);
    const running = t.informer.run({ signal: t.controller.signal });
    const watch = await t.fake.nextWatch();
    t.controller.abort();
    await running;
    expect(watch.closed).toBe(true);
    expect(finished).toBe(true);
    expect(t.informer.isStopped()).toBe(true);
    expect(t.informer.isRunning()).toBe(false);
    expect(t.clock.pendingTimers()).toBe(0);
  });

  it('asks a watchable function at the start of every run: false lists on an interval and never watches', async () => {
    let watchable = true;
    const t = setup(['a'], { watchable: () => watchable, pollIntervalMs: 1_000 });
    void t.start();
    await t.fake.nextWatch();
    await t.stop();
    const callsBefore = t.fake.watchCalls.length + t.fake.streamingCalls.length;
    const listsBefore = t.fake.listCalls.length;
    watchable = false;
    const again = new AbortController();
    await t.informer.start(again.signal);
    await t.informer.whenSynced();
    expect(t.fake.listCalls).toHaveLength(listsBefore + 1);
    await t.clock.advance(1_000);
    expect(t.fake.listCalls).toHaveLength(listsBefore + 2);
    expect(t.fake.watchCalls.length + t.fake.streamingCalls.length).toBe(callsBefore);
    again.abort();
    await t.informer.stopped();
  });

  it('refuses a watchable option that is neither a boolean nor a function', () => {
    expect(() =>
      createSharedIndexInformer(new FakeListerWatcher(), { watchable: 'no' as never }),
    ).toThrow(TypeError);
  });

  it('refuses a second run while one is in progress', async () => {
    const t = setup(['a']);
    void t.start();
    await expect(t.informer.run({ signal: new AbortController().signal })).rejects.toThrow(
      /already running/,
    );
    await t.stop();
  });

  describe('lifecycle: start, stopped, isRunning, restart', () => {
    it('start resolves at once, is idempotent while running, and stopped() settles drained after the abort', async () => {
      const t = setup(['a']);
      expect(t.informer.isRunning()).toBe(false);
      await expect(t.informer.stopped()).resolves.toEqual({ drained: true, pending: [] });
      const stop = new AbortController();
      await t.informer.start(stop.signal);
      await t.informer.start(new AbortController().signal);
      expect(t.informer.isRunning()).toBe(true);
      await t.informer.whenSynced();
      expect(t.fake.listCalls).toHaveLength(1);
      let settled = false;
      const stopped = t.informer.stopped().then((result) => {
        settled = true;
        return result;
      });
      await t.settle();
      expect(settled).toBe(false);
      stop.abort();
      await expect(stopped).resolves.toEqual({ drained: true, pending: [] });
      expect(t.informer.isRunning()).toBe(false);
      expect(t.clock.pendingTimers()).toBe(0);
    });

    it('close() ends the running run, refuses later runs and is idempotent; asyncDispose closes', async () => {
      const t = setup(['a']);
      const stop = new AbortController();
      await t.informer.start(stop.signal);
      await t.informer.whenSynced();
      await t.informer.close();
      expect(t.informer.isRunning()).toBe(false);
      expect(stop.signal.aborted).toBe(false);
      await expect(t.informer.start(new AbortController().signal)).rejects.toMatchObject({
        code: 'LASSO_CONFIG_INVALID',
        message: expect.stringContaining('is closed'),
      });
      await expect(t.informer.run({ signal: new AbortController().signal })).rejects.toMatchObject({
        code: 'LASSO_CONFIG_INVALID',
      });
      await t.informer.close();
      const other = setup(['b']);
      await other.informer[Symbol.asyncDispose]();
      await expect(other.informer.start(new AbortController().signal)).rejects.toThrow('is closed');
      expect(t.clock.pendingTimers()).toBe(0);
    });

    it('runs again after a stop: relists, and the new list replaces the store (deletions and updates delivered)', async () => {
      const t = setup(['a', 'b']);
      const seen: Seen = [];
      t.informer.addEventHandler(recorder(seen));
      const first = new AbortController();
      await t.informer.start(first.signal);
      await t.informer.whenSynced();
      await t.settle();
      first.abort();
      await t.informer.stopped();
      expect(t.informer.isRunning()).toBe(false);
      // Changes while stopped: b deleted, a changed, c created.
      const a = t.fake.objects().find((object) => object.metadata?.name === 'a') as KubeObject;
      t.fake.modify({ ...a, data: { changed: 'yes' } });
      t.fake.remove('ns/b');
      t.fake.create(cm('c'));
      // A handler added while stopped gets the stored objects first.
      const late: Seen = [];
      t.informer.addEventHandler(recorder(late));
      seen.length = 0;
      const second = new AbortController();
      await t.informer.start(second.signal);
      expect(t.informer.isRunning()).toBe(true);
      expect(t.informer.hasSynced()).toBe(false);
      await t.informer.whenSynced();
      await t.settle();
      expect(t.fake.listCalls).toHaveLength(2);
      expect(t.informer.getStore().listKeys().sort()).toEqual(['ns/a', 'ns/c']);
      expect(seen.map((entry) => entry.replace(/:\d+(->\d+)?$/, ''))).toEqual(
        expect.arrayContaining(['update:a', 'tombstone:ns/b', 'add:c:initial']),
      );
      expect(seen).toHaveLength(3);
      expect(late.slice(0, 2).sort()).toEqual(['add:a:initial', 'add:b:initial']);
      second.abort();
      await t.informer.stopped();
    });

    it('keeps what a handler had not received when the run ended, and delivers it on the next run', async () => {
      const t = setup(['a', 'b']);
      const seen: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      t.informer.addEventHandler({
        onAdd: async (object) => {
          seen.push(object.metadata?.name ?? '');
          if (object.metadata?.name === 'a') await held;
        },
      });
      const first = new AbortController();
      await t.informer.start(first.signal);
      await t.informer.whenSynced();
      await t.settle();
      expect(seen).toEqual(['a']);
      first.abort();
      // The run ends while the handler is inside its call for a: b is not delivered by this run.
      await t.settle();
      release();
      await t.informer.stopped();
      expect(seen).toEqual(['a']);
      const second = new AbortController();
      await t.informer.start(second.signal);
      await t.informer.whenSynced();
      await t.settle();
      expect(seen).toEqual(['a', 'b']);
      second.abort();
      await t.informer.stopped();
    });
  });

  it('rejects waitForCacheSync with CacheNotSyncedError when the signal aborts first', async () => {
    const t = setup(['a']);
    t.fake.failNextList(new ApiError({ status: 503 }), 100);
    void t.start();
    const deadline = new AbortController();
    const waiting = waitForCacheSync(deadline.signal, t.informer);
    deadline.abort(new Error('deadline'));
    await expect(waiting).rejects.toBeInstanceOf(CacheNotSyncedError);
    await expect(waiting).rejects.toMatchObject({ informers: ['cms'] });
    await t.stop();
    await expect(t.informer.whenSynced()).rejects.toBeInstanceOf(CacheNotSyncedError);
  });

  it('says in CacheNotSyncedError why each informer did not sync: its last list or watch error', async () => {
    const forbidden = new ApiError({
      status: 403,
      reason: 'Forbidden',
      message: 'configmaps is forbidden: User "dev" cannot list resource "configmaps"',
    });
    const t = setup(['a']);
    t.fake.failNextList(forbidden, 100);
    void t.start();
    await t.settle();
    const deadline = new AbortController();
    const waiting = waitForCacheSync(deadline.signal, t.informer);
    deadline.abort(new Error('deadline'));
    const error = (await waiting.catch((e: unknown) => e)) as CacheNotSyncedError;
    expect(error).toBeInstanceOf(CacheNotSyncedError);
    expect(error.message).toBe(
      'caches did not sync: cms (list failed: configmaps is forbidden: User "dev" cannot list resource "configmaps")',
    );
    expect(error.cause).toMatchObject({ phase: 'list', cause: forbidden });
    expect(error.lastErrors.get('cms')).toBe(error.cause);
    await t.stop();
    const stopped = (await t.informer.whenSynced().catch((e: unknown) => e)) as CacheNotSyncedError;
    expect(stopped.message).toMatch(
      /^caches did not sync: cms \(list failed: configmaps is forbidden/,
    );
    expect(stopped.cause).toMatchObject({ phase: 'list', cause: forbidden });
  });

  it("gives every unsynced informer's last error in CacheNotSyncedError, shortened in the message", async () => {
    const failing = setup(['a'], { name: 'failing' });
    failing.fake.failNextList(new Error(`connect ECONNREFUSED\n${'x'.repeat(500)}`), 100);
    const quiet = setup(['a'], { name: 'quiet' });
    quiet.fake.list = () => new Promise(() => {}); // never answers, never fails
    const refused = setup(['a'], { name: 'refused' });
    refused.fake.failNextList(new ApiError({ status: 503, message: 'etcd leader changed' }), 100);
    for (const t of [failing, quiet, refused]) void t.start();
    await failing.settle();
    const deadline = new AbortController();
    const waiting = waitForCacheSync(
      deadline.signal,
      failing.informer,
      quiet.informer,
      refused.informer,
    );
    deadline.abort(new Error('deadline'));
    const error = (await waiting.catch((e: unknown) => e)) as CacheNotSyncedError;
    expect(error.informers).toEqual(['failing', 'quiet', 'refused']);
    expect(error.message).toMatch(
      /^caches did not sync: failing \(list failed: connect ECONNREFUSED x+…\), quiet, refused \(list failed: etcd leader changed\)$/,
    );
    expect(error.message.length).toBeLessThan(400);
    expect([...error.lastErrors.keys()]).toEqual(['failing', 'refused']);
    expect(error.cause).toBeInstanceOf(AggregateError);
    expect((error.cause as AggregateError).errors).toEqual([
      error.lastErrors.get('failing'),
      error.lastErrors.get('refused'),
    ]);
    for (const t of [failing, quiet, refused]) await t.stop();
  });

  it('keeps the abort reason as the cause of CacheNotSyncedError when no informer reported an error', async () => {
    const t = setup(['a']);
    t.fake.list = () => new Promise(() => {});
    void t.start();
    const deadline = new AbortController();
    const reason = new Error('deadline');
    const waiting = waitForCacheSync(deadline.signal, t.informer);
    deadline.abort(reason);
    const error = (await waiting.catch((e: unknown) => e)) as CacheNotSyncedError;
    expect(error.message).toBe('caches did not sync: cms');
    expect(error.cause).toBe(reason);
    expect(error.lastErrors.size).toBe(0);
    await t.stop();
  });

  it('converges to the server state under any interleaving of writes and faults', async () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      }),
      fc.record({
        kind: fc.constant('modify' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      }),
      fc.record({
        kind: fc.constant('remove' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      }),
      fc.record({
        kind: fc.constantFrom(
          'closeWatches' as const,
          'fail500' as const,
          'fail410' as const,
          'expireHistory' as const,
          'failList' as const,
          'bookmark' as const,
        ),
      }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 5_000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const t = setup(['a', 'b']);
        const seen = new Map<string, string | undefined>();
        t.informer.addEventHandler({
          onAdd: (object) =>
            void seen.set(`ns/${object.metadata?.name}`, object.metadata?.resourceVersion),
          onUpdate: (_old, object) =>
            void seen.set(`ns/${object.metadata?.name}`, object.metadata?.resourceVersion),
          onDelete: (object) =>
            void seen.delete(
              object instanceof DeletedFinalStateUnknown
                ? object.key
                : `ns/${(object as KubeObject).metadata?.name}`,
            ),
        });
        void t.start();
        let version = 0;
        for (const action of steps) {
          const exists = t.fake
            .objects()
            .some((object) => 'name' in action && object.metadata?.name === action.name);
          switch (action.kind) {
            case 'create':
              if (!exists) t.fake.create(cm(action.name));
              break;
            case 'modify':
              if (exists) t.fake.modify(cm(action.name, { v: String(++version) }));
              break;
            case 'remove':
              if (exists) t.fake.remove(`ns/${action.name}`);
              break;
            case 'closeWatches':
              t.fake.closeWatches();
              break;
            case 'fail500':
              for (const watch of t.fake.openWatches()) watch.fail(new ApiError({ status: 500 }));
              break;
            case 'fail410':
              for (const watch of t.fake.openWatches()) watch.fail(new ApiError({ status: 410 }));
              break;
            case 'expireHistory':
              t.fake.expireHistory();
              break;
            case 'failList':
              t.fake.failNextList(new ApiError({ status: 503 }));
              break;
            case 'bookmark':
              t.fake.sendBookmarks();
              break;
            case 'wait':
              await t.clock.advance(action.ms);
              break;
          }
        }
        // Long enough for any pending backoff (at most 30 s with random = 0) to pass.
        await t.clock.advance(61_000);
        const server = new Map(
          t.fake
            .objects()
            .map((object) => [`ns/${object.metadata?.name}`, object.metadata?.resourceVersion]),
        );
        const store = new Map(
          t.informer
            .getStore()
            .list()
            .map((object) => [`ns/${object.metadata?.name}`, object.metadata?.resourceVersion]),
        );
        expect(store).toEqual(server);
        expect(seen).toEqual(server);
        await t.stop();
      }),
      { numRuns: 40, seed: 97_101 },
    );
  });
});
