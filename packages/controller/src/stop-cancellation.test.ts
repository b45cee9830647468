// A reconcile cut short by the controller's stop is logged at info without a stack and queued again; a real
// failure during the stop stays an error. On FakeClock, with the controller's own worker.
import type { KubeObject } from '@lasso/client';
import { LassoError } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import type { Handler } from './controller-types.ts';
import { HandlerError } from './errors.ts';
import { LeadershipLostError } from './leader-elector-api.ts';
import { isStopCancellation } from './stop-cancellation.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A controller whose handler waits for its signal, then rejects with what `failWith` makes of the reason. */
async function stoppedMidReconcile(failWith: (reason: unknown) => unknown, reason?: unknown) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const informer = createTestInformer();
  informer.sync();
  const calls: string[] = [];
  const handler: Handler<KubeObject> = (key, _object, { signal }) => {
    calls.push(key);
    return new Promise<void>((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(failWith(signal.reason)), { once: true });
    });
  };
  const controller = createController('v1, Kind=ConfigMap', informer, () => {}, handler, {
    clock,
    logger,
  });
  cleanups.push(() => void controller.close());
  const stop = new AbortController();
  await controller.start(stop.signal, 1);
  controller.enqueueKey('ns/a');
  await clock.advance(0);
  stop.abort(reason);
  const result = await controller.stopped();
  return {
    result,
    logger,
    errors: () => logger.entries.filter((entry) => entry.level === 'error'),
    cancelled: () => logger.find('cancelled by the stop'),
    /** Start again: the keys the handler gets without any time passing (no backoff). */
    async restart(): Promise<string[]> {
      const again = new AbortController();
      cleanups.push(() => again.abort());
      calls.length = 0;
      await controller.start(again.signal, 1);
      await clock.advance(0);
      return [...calls];
    },
  };
}

describe('createController: a reconcile cancelled by the stop', () => {
  it('is logged at info, without a stack, and queued again for the next run', async () => {
    const t = await stoppedMidReconcile(
      (reason) => reason,
      new LassoError('LASSO_ABORTED', 'received SIGTERM'),
    );
    expect(t.result).toEqual({ drained: true, pending: [] });
    expect(t.errors()).toEqual([]);
    const [entry, ...more] = t.cancelled();
    expect(more).toEqual([]);
    expect(entry?.level).toBe('info');
    expect(entry?.message).toBe("reconcile of 'ns/a' cancelled by the stop, requeued");
    expect(entry?.attributes).toMatchObject({ key: 'ns/a', reason: 'received SIGTERM' });
    expect(entry?.attributes).not.toHaveProperty('stack');
    // Queued again without a raised backoff: the next run takes it at once.
    expect(await t.restart()).toEqual(['ns/a']);
  });

  it('counts a DOM AbortError (a plain stop), an error caused by the reason, and leadership lost', async () => {
    for (const [failWith, reason] of [
      [(r: unknown) => r, undefined],
      [(r: unknown) => new Error('update failed', { cause: r }), undefined],
      [(r: unknown) => r, new LeadershipLostError('lost the lease', 'b')],
      [
        (r: unknown) =>
          new HandlerError('v1, Kind=ConfigMap', [
            { handler: 'one', error: r },
            { handler: 'two', error: new Error('wrapped', { cause: r }) },
          ]),
        undefined,
      ],
    ] as const) {
      const t = await stoppedMidReconcile(failWith, reason);
      expect(t.errors()).toEqual([]);
      expect(t.cancelled()).toHaveLength(1);
    }
  });

  it('stays an error, with its stack, when the reconcile failed for another reason during the stop', async () => {
    for (const failWith of [
      () => new Error('the API server refused the write'),
      (r: unknown) =>
        new HandlerError('v1, Kind=ConfigMap', [
          { handler: 'one', error: r },
          { handler: 'two', error: new Error('real failure') },
        ]),
    ]) {
      const t = await stoppedMidReconcile(failWith);
      expect(t.cancelled()).toEqual([]);
      const [entry] = t.errors();
      expect(entry?.message).toBe("error syncing 'ns/a', requeuing");
      expect(typeof entry?.attributes?.stack).toBe('string');
    }
  });
});

describe('isStopCancellation', () => {
  const reason = new Error('stopping');

  it('matches the reason, abort errors and their wrappers, and nothing else', () => {
    expect(isStopCancellation(reason, reason)).toBe(true);
    expect(isStopCancellation(new Error('x', { cause: reason }), reason)).toBe(true);
    expect(isStopCancellation(new DOMException('aborted', 'AbortError'), reason)).toBe(true);
    expect(isStopCancellation(new LassoError('LASSO_ABORTED', 'aborted'), reason)).toBe(true);
    expect(isStopCancellation(new Error('real'), reason)).toBe(false);
    expect(isStopCancellation(undefined, reason)).toBe(false);
    expect(isStopCancellation('a string', reason)).toBe(false);
  });

  it('never throws on hostile values or cycles', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(isStopCancellation(revoked.proxy, reason)).toBe(false);
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(isStopCancellation(cyclic, reason)).toBe(false);
    const throwing = {
      get cause(): unknown {
        throw new Error('getter');
      },
    };
    expect(isStopCancellation(throwing, reason)).toBe(false);
    const nested = Object.assign(new LassoError('LASSO_HANDLER_FAILED', 'nested'), {
      failures: [] as Array<{ handler: string; error: unknown }>,
    });
    nested.failures.push({ handler: 'self', error: nested });
    expect(isStopCancellation(nested, reason)).toBe(false);
  });
});
