import { describe, expect, it } from 'vitest';
import { guardLogger } from './guarded-logger.ts';
import type { Logger } from './logger.ts';
import { createTestLogger } from './testing/test-logger.ts';

function throwingLogger(value: unknown): Logger {
  const fail = (): never => {
    throw value;
  };
  return { debug: fail, info: fail, warn: fail, error: fail, child: fail };
}

describe('guardLogger', () => {
  it('passes entries and child attributes through to the wrapped logger', () => {
    const inner = createTestLogger();
    const logger = guardLogger(inner);
    logger.child({ controller: 'pods' }).warn('sync failed', { attempt: 2 });
    logger.error('boom');
    expect(inner.entries).toEqual([
      { level: 'warn', message: 'sync failed', attributes: { controller: 'pods', attempt: 2 } },
      { level: 'error', message: 'boom', attributes: {} },
    ]);
  });

  it.each([
    ['an Error', new Error('disk full')],
    ['a string', 'nope'],
    [
      'a revoked Proxy',
      (() => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      })(),
    ],
  ])('never throws when the logger throws %s, and reports the failure', (_name, value) => {
    const failures: unknown[] = [];
    const logger = guardLogger(throwingLogger(value), (failure) => failures.push(failure));
    expect(() => {
      logger.debug('a');
      logger.info('b');
      logger.warn('c');
      logger.error('d');
      logger.child({ x: 1 }).error('e');
    }).not.toThrow();
    // Four entries, the failing child(), then the child's fallback (the parent) failing again.
    expect(failures).toHaveLength(6);
    expect(failures[0]).toBe(value);
  });

  it('survives a reporter that throws', () => {
    const logger = guardLogger(throwingLogger(new Error('x')), () => {
      throw new Error('reporter broke');
    });
    expect(() => logger.error('still fine')).not.toThrow();
  });

  it('guards once: a guarded logger is returned as is', () => {
    const logger = guardLogger(createTestLogger());
    expect(guardLogger(logger)).toBe(logger);
  });
});

describe('guardLogger default reporter', () => {
  it('emits one LassoLoggerWarning process warning, whatever the number of failures', () => {
    const warnings: Array<{ code: string | undefined }> = [];
    const original = process.emitWarning;
    process.emitWarning = ((_message: string, options?: { code?: string }) => {
      warnings.push({ code: options?.code });
    }) as typeof process.emitWarning;
    try {
      const logger = guardLogger(throwingLogger(new Error('disk full')));
      logger.error('a');
      logger.error('b');
    } finally {
      process.emitWarning = original;
    }
    expect(warnings).toEqual([{ code: 'LASSO_LOGGER_THREW' }]);
  });
});
