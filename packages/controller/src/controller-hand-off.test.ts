// The pieces a sharded controller's hand-off needs: queued keys dropped, in-flight reconciles cancelled through
// their signal and awaited, keys admitted one by one, and every reconcile signal tied to a fence.
import type { KubeObject } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecorder } from './__fixtures__/recorder.ts';
import { configMap, createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import type { ControllerOptions, Handler } from './controller-types.ts';
import { createHandlerTransaction } from './handler-transaction.ts';
import { enqueueOwnerHandler, isOwnerHandler } from './owner-handler.ts';
import { createSharedController } from './shared-controller.ts';

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

function setup(handler: Handler<KubeObject>, options: ControllerOptions = {}) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const informer = createTestInformer();
  const controller = createController('v1, Kind=ConfigMap', informer, () => {}, handler, {
    clock,
    logger,
    ...options,
  });
  const stop = new AbortController();
  stops.push(stop);
  return {
    clock,
    logger,
    informer,
    controller,
    stop,
    async start(workers = 1) {
      informer.sync();
      await controller.start(stop.signal, workers);
    },
  };
}

/** A promise with its resolve, for handlers the test releases. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('dropQueued', () => {
  it('drops queued and delayed keys the predicate accepts, which are then never reconciled', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    for (const name of ['a1', 'b1', 'a2']) t.informer.add(configMap(name));
    t.controller.enqueueAfter('ns', 'a3', 1_000);
    t.controller.enqueueAfter('ns', 'b2', 1_000);
    const seen: Array<[string, string | undefined]> = [];
    const dropped = t.controller.dropQueued((key, object) => {
      seen.push([key, object?.metadata?.name]);
      return key.startsWith('ns/a');
    });
    expect(dropped).toBe(3);
    expect(seen).toContainEqual(['ns/a1', 'a1']);
    expect(seen).toContainEqual(['ns/a3', undefined]);
    await t.start();
    await t.clock.advance(1_000);
    await recorder.until((calls) => calls.length === 2);
    expect(recorder.keys()).toEqual(['ns/b1', 'ns/b2']);
  });

  it('never drops the wake-up items of stopping workers', async () => {
    const recorder = createRecorder();
    const t = setup((key, object) => recorder.handler(key, object));
    await t.start(2);
    t.stop.abort();
    t.controller.dropQueued(() => true);
    const result = await t.controller.stopped();
    expect(result.drained).toBe(true);
  });

  it('throws a TypeError for a predicate that is not a function', () => {
    const t = setup(() => {});
    expect(() => t.controller.dropQueued('ns/a' as never)).toThrow(TypeError);
  });
});

describe('cancelReconciles', () => {
  it('aborts the signal of matching in-flight reconciles, waits for them, and does not retry them', async () => {
    const reasons = new Map<string, unknown>();
    const started = { a: gate(), b: gate() };
    const releaseB = gate();
    let calls = 0;
    const t = setup(async (key, _object, { signal }) => {
      calls++;
      if (key === 'ns/a') {
        started.a.open();
        await new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            reasons.set(key, signal.reason);
            reject(signal.reason);
          });
        });
      }
      started.b.open();
      await releaseB.promise;
    });
    t.informer.add(configMap('a'));
    t.informer.add(configMap('b'));
    await t.start(2);
    await started.a.promise;
    await started.b.promise;
    const moved = new Error('moved');
    const cancelled = await t.controller.cancelReconciles((key) => key === 'ns/a', moved);
    expect(cancelled).toBe(1);
    expect(reasons.get('ns/a')).toBe(moved);
    // Not requeued, neither at once nor after a backoff.
    await t.clock.advance(60_000);
    expect(calls).toBe(2);
    expect(t.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    releaseB.open();
  });

  it('waits for a handler that ignores its signal, saying so once the graceful bound passed', async () => {
    const release = gate();
    const started = gate();
    const t = setup(
      async () => {
        started.open();
        await release.promise;
      },
      { gracefulShutdownTimeoutMs: 5_000 },
    );
    t.informer.add(configMap('a'));
    await t.start();
    await started.promise;
    let done = false;
    const cancelling = t.controller
      .cancelReconciles(() => true, new Error('moved'))
      .then((count) => {
        done = true;
        return count;
      });
    await t.clock.advance(5_000);
    expect(done).toBe(false);
    expect(t.logger.entries.some((entry) => entry.message.includes('holding the hand-off'))).toBe(
      true,
    );
    release.open();
    expect(await cancelling).toBe(1);
  });

  it('resolves 0 when nothing matches or the controller does not run', async () => {
    const t = setup(() => {});
    expect(await t.controller.cancelReconciles(() => true, new Error('x'))).toBe(0);
    await t.start();
    expect(await t.controller.cancelReconciles(() => true, new Error('x'))).toBe(0);
  });
});

describe('admit', () => {
  it('reconciles only admitted keys, with the last state of a deleted object, and skips unknown keys', async () => {
    const recorder = createRecorder();
    const admitted: Array<[string, string | undefined]> = [];
    const t = setup((key, object) => recorder.handler(key, object), {
      admit: (key, object) => {
        admitted.push([key, object.metadata?.uid]);
        return !key.endsWith('-other');
      },
    });
    await t.start();
    t.informer.add(configMap('mine'));
    t.informer.add(configMap('mine-other'));
    await recorder.until((calls) => calls.length === 1);
    // Another replica's object (not cached, no delete seen): skipped without asking admit.
    t.controller.enqueueKey('ns/elsewhere');
    t.informer.delete(configMap('mine'));
    await recorder.until((calls) => calls.length === 2);
    expect(recorder.calls.map((call) => [call.key, call.object?.metadata?.name])).toEqual([
      ['ns/mine', 'mine'],
      ['ns/mine', undefined],
    ]);
    expect(admitted).toEqual([
      ['ns/mine', 'uid-mine'],
      ['ns/mine-other', 'uid-mine-other'],
      ['ns/mine', 'uid-mine'],
    ]);
    // Once reconciled, the deletion is forgotten: a bare enqueue of the key is skipped.
    t.controller.enqueueKey('ns/mine');
    t.controller.enqueueKey('ns/marker');
    t.informer.add(configMap('marker'));
    await recorder.until((calls) => calls.length === 3);
    expect(recorder.keys()).toEqual(['ns/mine', 'ns/mine', 'ns/marker']);
  });

  it('retries a key whose admit throws, logged as an error', async () => {
    const recorder = createRecorder();
    let failures = 1;
    const t = setup((key, object) => recorder.handler(key, object), {
      admit: () => {
        if (failures-- > 0) throw new Error('ranges unknown');
        return true;
      },
    });
    t.informer.add(configMap('a'));
    await t.start();
    await t.clock.advance(1_000);
    await recorder.until((calls) => calls.length === 1);
    expect(
      t.logger.entries.some(
        (entry) => entry.level === 'error' && entry.message.includes('admit of'),
      ),
    ).toBe(true);
  });

  it('throws a TypeError naming the option for an admit that is not a function', () => {
    expect(() => setup(() => {}, { admit: true as never })).toThrow(/admit must be a function/);
  });
});

describe('deletionObserver and enqueueDeleted', () => {
  it('tells every event in order and settles a deletion once a reconcile that saw it succeeded', async () => {
    const recorder = createRecorder();
    const told: string[] = [];
    const settledOnce = gate();
    let fail = 1;
    const t = setup(
      async (key, object) => {
        await recorder.handler(key, object);
        if (object === undefined && fail-- > 0) throw new Error('cleanup failed');
      },
      {
        admit: () => true,
        deletionObserver: {
          event: (type, key, object) => told.push(`${type} ${key} ${object?.metadata?.name}`),
          settled: (key) => {
            told.push(`settled ${key}`);
            settledOnce.open();
          },
        },
      },
    );
    await t.start();
    t.informer.add(configMap('a'));
    await recorder.until((calls) => calls.length === 1);
    t.informer.delete(configMap('a'));
    // The first reconcile of the deletion fails: not settled; its retry succeeds: settled.
    await recorder.until((calls) => calls.length === 2);
    expect(told).toEqual(['add ns/a a', 'delete ns/a a']);
    await t.clock.advance(1_000);
    await recorder.until((calls) => calls.length === 3);
    await settledOnce.promise;
    expect(told).toEqual(['add ns/a a', 'delete ns/a a', 'settled ns/a']);
  });

  it('reconciles a replayed deletion with no object, admitted on its last state, and settles it', async () => {
    const recorder = createRecorder();
    const settled: string[] = [];
    const settledOnce = gate();
    const t = setup((key, object) => recorder.handler(key, object), {
      admit: (_key, object) => object.metadata?.name !== 'elsewhere',
      deletionObserver: {
        event: () => {},
        settled: (key) => {
          settled.push(key);
          settledOnce.open();
        },
      },
    });
    await t.start();
    t.controller.enqueueDeleted('ns/elsewhere', configMap('elsewhere'));
    t.controller.enqueueDeleted('ns/gone', configMap('gone'));
    await recorder.until((calls) => calls.length === 1);
    expect(recorder.calls.map((call) => [call.key, call.object])).toEqual([['ns/gone', undefined]]);
    await settledOnce.promise;
    expect(settled).toEqual(['ns/gone']);
    expect(() => t.controller.enqueueDeleted('ns/x', undefined as never)).toThrow(TypeError);
  });

  it('throws a TypeError naming the option for an observer without its functions', () => {
    expect(() => setup(() => {}, { admit: () => true, deletionObserver: {} as never })).toThrow(
      /deletionObserver must have event and settled/,
    );
  });
});

describe('fence', () => {
  it('aborts every reconcile signal with the fence’s reason, read before or after the fence fell', async () => {
    const fence = new AbortController();
    const signals: AbortSignal[] = [];
    const started = gate();
    const t = setup(
      async (_key, _object, { signal }) => {
        signals.push(signal);
        started.open();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      },
      { fence: fence.signal },
    );
    t.informer.add(configMap('a'));
    await t.start();
    await started.promise;
    const expired = new Error('lease past its renew deadline');
    fence.abort(expired);
    expect(signals[0]?.reason).toBe(expired);
  });

  it('reads a fence function as each reconcile starts (a fence re-armed with a new signal)', async () => {
    let fence = new AbortController();
    fence.abort(new Error('old fence'));
    const recorder = createRecorder();
    const states: boolean[] = [];
    const t = setup(
      (key, object, { signal }) => {
        states.push(signal.aborted);
        return recorder.handler(key, object);
      },
      { fence: () => fence.signal },
    );
    await t.start();
    t.informer.add(configMap('a'));
    await recorder.until((calls) => calls.length === 1);
    fence = new AbortController();
    t.informer.add(configMap('b'));
    await recorder.until((calls) => calls.length === 2);
    expect(states).toEqual([true, false]);
  });

  it('throws a TypeError naming the option for a fence that is neither a signal nor a function', () => {
    expect(() => setup(() => {}, { fence: 'x' as never })).toThrow(/fence must be an AbortSignal/);
  });
});

describe('onRegister and isOwnerHandler', () => {
  it('tells of each registration as it takes effect, owner handlers recognisable', () => {
    const informer = createTestInformer();
    const registered: Array<[string, boolean]> = [];
    const shared = createSharedController<KubeObject>({
      name: 'configmaps',
      client: {} as never,
      createController: (handler) => createController('cm', informer, () => {}, handler),
      onRegister: (name, handler) => registered.push([name, isOwnerHandler(handler)]),
    });
    const stop = new AbortController();
    stops.push(stop);
    shared.registerHandler(stop.signal, 'plain', () => {});
    const transaction = createHandlerTransaction(stop.signal);
    shared.registerHandler(
      transaction,
      'owners',
      enqueueOwnerHandler(shared, { group: 'example.com', kind: 'App' }),
    );
    expect(registered).toEqual([['plain', false]]);
    transaction.commit();
    expect(registered).toEqual([
      ['plain', false],
      ['owners', true],
    ]);
    expect(isOwnerHandler(() => {})).toBe(false);
    expect(isOwnerHandler(undefined)).toBe(false);
  });
});
