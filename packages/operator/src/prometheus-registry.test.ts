// The text exposition of createPrometheusRegistry: what a Prometheus scrape parses.
import { createTestLogger } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createPrometheusRegistry, prometheusContentType } from './prometheus-registry.ts';

describe('createPrometheusRegistry', () => {
  it('writes counters and gauges with sorted, escaped labels, one series per label set', () => {
    const registry = createPrometheusRegistry();
    const { metrics } = registry;
    metrics.counter({ name: 'jobs_total', help: 'Jobs done.', labels: { queue: 'b' } }).inc();
    const a = metrics.counter({ name: 'jobs_total', help: 'Jobs done.', labels: { queue: 'a' } });
    a.inc(2);
    a.inc(-5); // a counter never goes down
    metrics.counter({ name: 'jobs_total', help: 'Jobs done.', labels: { queue: 'a' } }).inc();
    const depth = metrics.gauge({
      name: 'depth',
      help: 'Line one\nwith a \\ backslash',
      labels: { z: 'quote " and \\ and\nnewline', a: '1' },
    });
    depth.set(5);
    depth.dec(2);
    depth.inc();
    expect(registry.expose()).toBe(
      [
        '# HELP depth Line one\\nwith a \\\\ backslash',
        '# TYPE depth gauge',
        'depth{a="1",z="quote \\" and \\\\ and\\nnewline"} 4',
        '# HELP jobs_total Jobs done.',
        '# TYPE jobs_total counter',
        'jobs_total{queue="b"} 1',
        'jobs_total{queue="a"} 3',
        '',
      ].join('\n'),
    );
    expect(registry.contentType).toBe(prometheusContentType);
  });

  it('writes histograms as cumulative buckets with +Inf, sum and count', () => {
    const registry = createPrometheusRegistry();
    const latency = registry.metrics.histogram({
      name: 'latency_seconds',
      help: 'Latency.',
      buckets: [1, 0.1],
    });
    for (const value of [0.05, 0.5, 2, 0.1]) latency.observe(value);
    registry.metrics.histogram({
      name: 'empty_seconds',
      help: 'Default buckets.',
      labels: { k: 'v' },
    });
    const text = registry.expose();
    expect(text).toContain(
      [
        '# TYPE latency_seconds histogram',
        'latency_seconds_bucket{le="0.1"} 2',
        'latency_seconds_bucket{le="1"} 3',
        'latency_seconds_bucket{le="+Inf"} 4',
        'latency_seconds_sum 2.65',
        'latency_seconds_count 4',
      ].join('\n'),
    );
    expect(text).toContain('empty_seconds_bucket{k="v",le="0.005"} 0\n');
    expect(text).toContain('empty_seconds_bucket{k="v",le="10"} 0\n');
    expect(text).toContain('empty_seconds_bucket{k="v",le="+Inf"} 0\nempty_seconds_sum{k="v"} 0\n');
  });

  it('records nothing for a name asked for with another type or not valid, warning once', () => {
    const logger = createTestLogger();
    const registry = createPrometheusRegistry({ logger });
    registry.metrics.counter({ name: 'things', help: 'h' }).inc();
    registry.metrics.gauge({ name: 'things', help: 'h' }).set(99);
    registry.metrics.gauge({ name: 'things', help: 'h' }).set(98);
    registry.metrics.counter({ name: 'bad name', help: 'h' }).inc();
    expect(registry.expose()).toBe('# HELP things h\n# TYPE things counter\nthings 1\n');
    expect(
      logger.entries.map((entry) => [entry.level, entry.message, entry.attributes.metric]),
    ).toEqual([
      ['warn', 'metric asked for with another type, not recorded', 'things'],
      ['warn', 'metric name not valid in Prometheus, not recorded', 'bad name'],
    ]);
  });

  it('runs onCollect hooks before each exposition until they are removed, surviving one that throws', () => {
    const logger = createTestLogger();
    const registry = createPrometheusRegistry({ logger });
    const gauge = registry.metrics.gauge({ name: 'now', help: 'h' });
    let reads = 0;
    const remove = registry.metrics.onCollect?.(() => gauge.set(++reads));
    registry.metrics.onCollect?.(() => {
      throw new Error('collector broke');
    });
    expect(registry.expose()).toContain('now 1\n');
    expect(registry.expose()).toContain('now 2\n');
    remove?.();
    expect(registry.expose()).toContain('now 2\n');
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toHaveLength(1);
  });

  it('is empty before anything is recorded, and refuses bad options', () => {
    expect(createPrometheusRegistry().expose()).toBe('');
    expect(() => createPrometheusRegistry(null as never)).toThrow(TypeError);
  });
});
