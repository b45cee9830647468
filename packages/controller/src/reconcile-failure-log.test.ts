// The error log of a failed reconcile points at the user's code: the stack of what the handler threw (and its
// cause chain), not only the stack of the library's aggregate error.
import type { Client, KubeObject } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { revokedProxy } from './__fixtures__/hostile.ts';
import { createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import { HandlerError, stackOf } from './errors.ts';
import { createSharedController } from './shared-controller.ts';

function deriveTheCopyForTest(): never {
  throw new Error('the copy cannot be written', { cause: new Error('quota exceeded') });
}

function loggedStack(logger: ReturnType<typeof createTestLogger>): string {
  const [entry] = logger.find('error syncing');
  expect(entry?.level).toBe('error');
  const stack = entry?.attributes?.stack;
  expect(typeof stack).toBe('string');
  return stack as string;
}

describe('the log of a failed reconcile', () => {
  it("carries the stack of the error a shared controller's handler threw, with its cause", async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const informer = createTestInformer();
    informer.sync();
    let calls = 0;
    const shared = createSharedController<KubeObject>({
      name: 'v1, Resource=configmaps',
      client: {} as Client<KubeObject>,
      logger,
      clock,
      createController: (handler) =>
        createController('v1, Kind=ConfigMap', informer, undefined, handler, { clock, logger }),
    });
    const stop = new AbortController();
    shared.registerHandler(stop.signal, 'fine', () => {});
    shared.registerHandler(stop.signal, 'derive', () => {
      calls++;
      deriveTheCopyForTest();
    });
    await shared.start(stop.signal, 1);
    shared.enqueueKey('default/source');
    for (let round = 0; round < 10 && logger.find('error syncing').length === 0; round++) {
      await clock.advance(0);
    }
    expect(calls).toBe(1);
    const stack = loggedStack(logger);
    expect(stack).toMatch(/^handler derive: Error: the copy cannot be written\n/);
    expect(stack).toContain('deriveTheCopyForTest');
    expect(stack).toContain('reconcile-failure-log.test.ts');
    expect(stack).toContain('caused by: Error: quota exceeded');
    // The aggregate's own frames come last.
    expect(stack).toContain('aggregated at: HandlerError');
    stop.abort();
    await shared.close();
  });

  it('carries the stack of the error a plain handler threw', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const informer = createTestInformer();
    informer.sync();
    const controller = createController<KubeObject>(
      'v1, Kind=ConfigMap',
      informer,
      undefined,
      () => deriveTheCopyForTest(),
      { clock, logger },
    );
    const stop = new AbortController();
    await controller.start(stop.signal, 1);
    controller.enqueueKey('default/source');
    for (let round = 0; round < 10 && logger.find('error syncing').length === 0; round++) {
      await clock.advance(0);
    }
    const stack = loggedStack(logger);
    expect(stack).toContain('deriveTheCopyForTest');
    expect(stack).toContain('caused by: Error: quota exceeded');
    stop.abort();
    await controller.close();
  });
});

describe('stackOf', () => {
  it('is total and bounded on hostile values', () => {
    const cyclic = new Error('a');
    const other = new Error('b', { cause: cyclic });
    Object.assign(cyclic, { cause: other });
    expect(stackOf(cyclic)).toMatch(/caused by: \[circular\]$/);

    let deep: Error = new Error('root');
    for (let i = 0; i < 50; i++) deep = new Error(`level ${i}`, { cause: deep });
    const deepStack = stackOf(deep) ?? '';
    expect(deepStack.match(/caused by: Error/g)).toHaveLength(5);
    expect(deepStack).toMatch(/caused by: \[more causes\]$/);

    const huge = new Error('huge');
    huge.stack = 'x'.repeat(100_000);
    expect((stackOf(huge) ?? '').length).toBeLessThan(17_000);

    const failures = [
      { handler: 'revoked', error: revokedProxy() },
      { handler: 'string', error: 'plain text' },
      {
        handler: 'getter',
        error: Object.defineProperty(new Error('g'), 'cause', {
          get() {
            throw new Error('no');
          },
        }),
      },
      ...Array.from({ length: 20 }, (_, i) => ({ handler: `h${i}`, error: new Error(`e${i}`) })),
    ];
    const aggregate = stackOf(new HandlerError('c', failures)) ?? '';
    expect(aggregate).toContain('handler string: thrown string: plain text');
    expect(aggregate).toContain('handler getter: Error: g');
    expect(aggregate).toContain('[13 more failed handlers]');
    expect(stackOf(revokedProxy())).toBeUndefined();
  });
});
