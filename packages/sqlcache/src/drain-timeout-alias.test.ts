// drainTimeoutMs, the SQL cache factory's old name of the drain bound, still works beside the one name
// (gracefulShutdownTimeoutMs), with one warning per process. Its own file: the warning is per module instance.
import { createTestLogger } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createSqlCacheFactory } from './factory.ts';

describe('drainTimeoutMs (deprecated)', () => {
  it('is an alias of gracefulShutdownTimeoutMs that warns once', () => {
    const logger = createTestLogger();
    createSqlCacheFactory({ logger, drainTimeoutMs: 1_000 });
    createSqlCacheFactory({ logger, drainTimeoutMs: 1_000 });
    expect(logger.find('drainTimeoutMs is deprecated')).toHaveLength(1);
    // The one name wins when both are given: only its bad value is refused.
    expect(() =>
      createSqlCacheFactory({ logger, drainTimeoutMs: -1, gracefulShutdownTimeoutMs: 5 }),
    ).not.toThrow();
  });
});
