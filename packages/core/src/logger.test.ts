import { describe, expect, it } from 'vitest';
import { noopLogger } from './logger.ts';
import { noopMetricsProvider } from './metrics.ts';
import { createTestLogger } from './testing/test-logger.ts';
import { createTestMetricsProvider } from './testing/test-metrics.ts';

describe('noopLogger', () => {
  it('stays silent through child loggers', () => {
    const child = noopLogger.child({ controller: 'pods' });
    expect(child).toBe(noopLogger);
    expect(() => child.error('ignored', { key: 'default/web' })).not.toThrow();
  });
});

describe('createTestLogger', () => {
  it('records entries of children with their merged attributes', () => {
    const logger = createTestLogger();
    logger.child({ controller: 'pods' }).child({ key: 'default/web' }).warn('sync failed', {
      attempt: 2,
    });
    logger.info('started');
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        message: 'sync failed',
        attributes: { controller: 'pods', key: 'default/web', attempt: 2 },
      },
      { level: 'info', message: 'started', attributes: {} },
    ]);
    expect(logger.find('sync')).toHaveLength(1);
  });
});

describe('noopMetricsProvider', () => {
  it('hands out series that accept every call and record nothing', () => {
    const options = { name: 'x_total', help: 'x' };
    expect(() => {
      noopMetricsProvider.counter(options).inc();
      noopMetricsProvider.gauge(options).set(3);
      noopMetricsProvider.histogram(options).observe(0.5);
    }).not.toThrow();
  });
});

describe('createTestMetricsProvider', () => {
  it('keeps one series per name and labels', () => {
    const metrics = createTestMetricsProvider();
    metrics.counter({ name: 'adds_total', help: 'h', labels: { name: 'a' } }).inc(2);
    metrics.counter({ name: 'adds_total', help: 'h', labels: { name: 'b' } }).inc();
    metrics.histogram({ name: 'seconds', help: 'h' }).observe(0.25);
    expect(metrics.value('adds_total', { name: 'a' })).toBe(2);
    expect(metrics.value('adds_total', { name: 'b' })).toBe(1);
    expect(metrics.observations('seconds')).toEqual([0.25]);
    expect(metrics.names()).toEqual(['adds_total', 'seconds']);
  });
});
