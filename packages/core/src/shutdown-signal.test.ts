// The shutdown signal on an injected process-like target: no real signal is sent to the test process.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isLassoError } from './errors.ts';
import { createShutdownSignal, type ShutdownSignalTarget } from './shutdown-signal.ts';
import { createTestLogger } from './testing/index.ts';

/** An EventEmitter standing in for `process`: `emit('SIGTERM', 'SIGTERM')` is a delivered signal. */
function fakeProcess(): EventEmitter & ShutdownSignalTarget & { exits: number[] } {
  const exits: number[] = [];
  return Object.assign(new EventEmitter(), {
    exits,
    exit: (code: number) => {
      exits.push(code);
    },
  });
}

describe('createShutdownSignal', () => {
  it('aborts the signal on the first SIGTERM and exits with code 1 on the second', () => {
    const target = fakeProcess();
    const logger = createTestLogger();
    const shutdown = createShutdownSignal({ target, logger });
    expect(shutdown.signal.aborted).toBe(false);
    target.emit('SIGTERM', 'SIGTERM');
    expect(shutdown.signal.aborted).toBe(true);
    expect(isLassoError(shutdown.signal.reason, 'LASSO_ABORTED')).toBe(true);
    expect((shutdown.signal.reason as Error).message).toBe('received SIGTERM');
    expect(target.exits).toEqual([]);
    target.emit('SIGINT', 'SIGINT');
    expect(target.exits).toEqual([1]);
    expect(logger.find('second shutdown signal received, exiting')).toHaveLength(1);
    shutdown.dispose();
  });

  it('aborts on SIGINT as well', () => {
    const target = fakeProcess();
    const shutdown = createShutdownSignal({ target });
    target.emit('SIGINT', 'SIGINT');
    expect(shutdown.signal.aborted).toBe(true);
    shutdown.dispose();
  });

  it('removes its listeners on dispose, once, and with using', () => {
    const target = fakeProcess();
    const shutdown = createShutdownSignal({ target });
    expect(target.listenerCount('SIGINT')).toBe(1);
    expect(target.listenerCount('SIGTERM')).toBe(1);
    shutdown.dispose();
    shutdown.dispose();
    expect(target.listenerCount('SIGINT')).toBe(0);
    expect(target.listenerCount('SIGTERM')).toBe(0);
    target.emit('SIGTERM', 'SIGTERM');
    expect(shutdown.signal.aborted).toBe(false);
    {
      using scoped = createShutdownSignal({ target, signals: ['SIGHUP'] });
      expect(target.listenerCount('SIGHUP')).toBe(1);
      expect(scoped.signal.aborted).toBe(false);
    }
    expect(target.listenerCount('SIGHUP')).toBe(0);
  });

  it('listens to process by default', () => {
    const before = process.listenerCount('SIGTERM');
    const shutdown = createShutdownSignal();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    shutdown.dispose();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('throws a TypeError naming a bad target or signals', () => {
    expect(() => createShutdownSignal({ target: {} as never })).toThrow(/target/);
    expect(() => createShutdownSignal({ target: fakeProcess(), signals: [] })).toThrow(/signals/);
  });
});
