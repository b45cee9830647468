// The lazily made signal of a reconcile context: the same outcome whether it is read before or after a stop
// or a timeout, and no listener left on the run's signal once the reconcile ended.
import { createTestLogger } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { LazyReconcileContext } from './reconcile-context.ts';

describe('LazyReconcileContext', () => {
  it('aborts with the run signal’s reason, read before or after the stop', () => {
    const run = new AbortController();
    const early = new LazyReconcileContext('ns/a', createTestLogger(), run.signal);
    const earlySignal = early.signal;
    const late = new LazyReconcileContext('ns/b', createTestLogger(), run.signal);
    const reason = new Error('leadership lost');
    run.abort(reason);
    expect(earlySignal.aborted).toBe(true);
    expect(earlySignal.reason).toBe(reason);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(reason);
    expect(early.signal).toBe(earlySignal);
  });

  it('aborts with the timeout’s reason, read before or after it', () => {
    const run = new AbortController();
    const before = new LazyReconcileContext('ns/a', createTestLogger(), run.signal);
    const signal = before.signal;
    const after = new LazyReconcileContext('ns/b', createTestLogger(), run.signal);
    const timeout = new Error('timed out');
    before.abort(timeout);
    after.abort(timeout);
    expect(signal.reason).toBe(timeout);
    expect(after.signal.reason).toBe(timeout);
    run.abort(new Error('later stop'));
    expect(after.signal.reason).toBe(timeout);
  });

  it('stops listening to the run signal once finished', () => {
    const run = new AbortController();
    const context = new LazyReconcileContext('ns/a', createTestLogger(), run.signal);
    const signal = context.signal;
    context.finish();
    run.abort();
    expect(signal.aborted).toBe(false);
  });

  it('never aborts without a run signal, and logs with the key', () => {
    const logger = createTestLogger();
    const context = new LazyReconcileContext('ns/a', logger);
    expect(context.signal.aborted).toBe(false);
    context.logger.info('hello');
    expect(logger.entries[0]?.attributes).toMatchObject({ key: 'ns/a' });
    expect(context.key).toBe('ns/a');
  });
});

describe('LazyReconcileContext with many workers', () => {
  it('ties 25 reconciles in flight to one stop signal and one fence without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const run = new AbortController();
      const fence = new AbortController();
      const contexts = Array.from(
        { length: 25 },
        (_, index) =>
          new LazyReconcileContext(`ns/${index}`, createTestLogger(), run.signal, fence.signal),
      );
      const signals = contexts.map((context) => context.signal);
      // Node emits the warning on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual(
        [],
      );
      fence.abort(new Error('fenced'));
      expect(signals.every((signal) => signal.aborted)).toBe(true);
      for (const context of contexts) context.finish();
    } finally {
      process.off('warning', onWarning);
    }
  });
});
