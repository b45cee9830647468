// Unit tests of the prom-client MetricsProvider adapter (prometheus-metrics.ts).
import { createTestLogger } from '@lasso/core/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from './prometheus-metrics.ts';

describe('createPrometheusMetrics', () => {
  it('exposes a counter with labels in the registry text', async () => {
    const { metrics, registry } = createPrometheusMetrics(createTestLogger());
    metrics
      .counter({ name: 'scoops_total', help: 'Scoops served.', labels: { flavor: 'vanilla' } })
      .inc();
    metrics
      .counter({ name: 'scoops_total', help: 'Scoops served.', labels: { flavor: 'vanilla' } })
      .inc(2);
    metrics
      .counter({ name: 'scoops_total', help: 'Scoops served.', labels: { flavor: 'mint' } })
      .inc();
    const text = await registry.metrics();
    expect(text).toContain('# HELP scoops_total Scoops served.');
    expect(text).toContain('# TYPE scoops_total counter');
    expect(text).toContain('scoops_total{flavor="vanilla"} 3');
    expect(text).toContain('scoops_total{flavor="mint"} 1');
  });

  it('exposes a gauge that goes up and down', async () => {
    const { metrics, registry } = createPrometheusMetrics(createTestLogger());
    const depth = metrics.gauge({
      name: 'queue_depth',
      help: 'Depth.',
      labels: { name: 'icecream' },
    });
    depth.set(5);
    depth.inc();
    depth.dec(2);
    expect(await registry.metrics()).toContain('queue_depth{name="icecream"} 4');
  });

  it('exposes a histogram with its buckets', async () => {
    const { metrics, registry } = createPrometheusMetrics(createTestLogger());
    const latency = metrics.histogram({
      name: 'reconcile_seconds',
      help: 'Reconcile time.',
      labels: { controller: 'icecream' },
      buckets: [0.1, 1],
    });
    latency.observe(0.05);
    latency.observe(0.5);
    const text = await registry.metrics();
    expect(text).toContain('reconcile_seconds_bucket{le="0.1",controller="icecream"} 1');
    expect(text).toContain('reconcile_seconds_bucket{le="1",controller="icecream"} 2');
    expect(text).toContain('reconcile_seconds_bucket{le="+Inf",controller="icecream"} 2');
    expect(text).toContain('reconcile_seconds_count{controller="icecream"} 2');
  });

  it('exposes a metric without labels', async () => {
    const { metrics, registry } = createPrometheusMetrics(createTestLogger());
    metrics.counter({ name: 'restarts_total', help: 'Restarts.' }).inc();
    expect(await registry.metrics()).toContain('restarts_total 1');
  });

  it('takes label names in any order for one metric', async () => {
    const { metrics, registry } = createPrometheusMetrics(createTestLogger());
    metrics
      .counter({ name: 'requests_total', help: 'Requests.', labels: { code: '200', verb: 'GET' } })
      .inc();
    metrics
      .counter({ name: 'requests_total', help: 'Requests.', labels: { verb: 'GET', code: '200' } })
      .inc();
    expect(await registry.metrics()).toContain('requests_total{code="200",verb="GET"} 2');
  });

  it.for([
    {
      name: 'other label names',
      ask: (m: ReturnType<typeof createPrometheusMetrics>['metrics']) =>
        m.counter({ name: 'scoops_total', help: 'Scoops.', labels: { size: 'large' } }).inc(),
    },
    {
      name: 'no labels',
      ask: (m: ReturnType<typeof createPrometheusMetrics>['metrics']) =>
        m.counter({ name: 'scoops_total', help: 'Scoops.' }).inc(),
    },
    {
      name: 'another type',
      ask: (m: ReturnType<typeof createPrometheusMetrics>['metrics']) =>
        m.gauge({ name: 'scoops_total', help: 'Scoops.', labels: { flavor: 'vanilla' } }).set(9),
    },
  ])(
    'drops a metric asked for again with $name, with a warning instead of a throw',
    async ({ ask }) => {
      const logger = createTestLogger();
      const { metrics, registry } = createPrometheusMetrics(logger);
      metrics
        .counter({ name: 'scoops_total', help: 'Scoops.', labels: { flavor: 'vanilla' } })
        .inc();
      expect(() => ask(metrics)).not.toThrow();
      const text = await registry.metrics();
      expect(text).toContain('scoops_total{flavor="vanilla"} 1');
      expect(text).not.toContain('size="large"');
      expect(text).not.toMatch(/^scoops_total 1$/m);
      expect(text).not.toContain('scoops_total{flavor="vanilla"} 9');
      expect(logger.entries).toEqual([
        {
          level: 'warn',
          message: 'metric asked for with other labels or type, not recorded',
          attributes: { metric: 'scoops_total' },
        },
      ]);
    },
  );

  it("registers in the registry it is given, with Node's default metrics", async () => {
    const registry = new Registry();
    const { metrics, registry: returned } = createPrometheusMetrics(createTestLogger(), registry);
    metrics.counter({ name: 'scoops_total', help: 'Scoops.' }).inc();
    expect(returned).toBe(registry);
    const text = await registry.metrics();
    expect(text).toContain('scoops_total 1');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_used_bytes');
  });
});
