import { describe, expect, it } from 'vitest';
import { trackMetrics, withMetricLabels } from './metric-labels.ts';
import { createTestMetricsProvider } from './testing/test-metrics.ts';

describe('withMetricLabels', () => {
  it('adds constant labels to every series, the series own label winning, and passes remove on', () => {
    const base = createTestMetricsProvider();
    const local = withMetricLabels(base, { ctx: 'local', team: 'a' });
    local.counter({ name: 'jobs_total', help: 'h', labels: { queue: 'q' } }).inc(2);
    local.gauge({ name: 'depth', help: 'h', labels: { team: 'mine' } }).set(5);
    local.histogram({ name: 'seconds', help: 'h' }).observe(0.5);
    expect(base.value('jobs_total', { ctx: 'local', team: 'a', queue: 'q' })).toBe(2);
    expect(base.value('depth', { ctx: 'local', team: 'mine' })).toBe(5);
    expect(base.observations('seconds', { ctx: 'local', team: 'a' })).toEqual([0.5]);
    local.remove?.({ name: 'jobs_total', help: 'h', labels: { queue: 'q' } });
    expect(base.removed('jobs_total', { ctx: 'local', team: 'a', queue: 'q' })).toBe(true);
  });

  it('refuses labels that are not strings, naming them', () => {
    const base = createTestMetricsProvider();
    expect(() => withMetricLabels(base, { ctx: 5 as never })).toThrow(/label ctx must be a string/);
    expect(() => withMetricLabels(base, null as never)).toThrow(/labels must be an object/);
  });
});

describe('trackMetrics', () => {
  it('removes every series it created, once, and tracks series created afterwards afresh', () => {
    const base = createTestMetricsProvider();
    const tracked = trackMetrics(base);
    tracked.provider.counter({ name: 'a_total', help: 'h', labels: { name: 'x' } }).inc();
    tracked.provider.counter({ name: 'a_total', help: 'h', labels: { name: 'x' } }).inc();
    tracked.provider.histogram({ name: 'b_seconds', help: 'h' }).observe(1);
    base.counter({ name: 'other_total', help: 'h' }).inc();
    tracked.removeAll();
    expect(base.removed('a_total', { name: 'x' })).toBe(true);
    expect(base.removed('b_seconds')).toBe(true);
    expect(base.value('other_total')).toBe(1);
    tracked.provider.gauge({ name: 'c', help: 'h' }).set(1);
    tracked.removeAll();
    expect(base.removed('c')).toBe(true);
  });

  it('does nothing on removeAll over a provider that cannot remove', () => {
    const calls: string[] = [];
    const tracked = trackMetrics({
      counter: (options) => {
        calls.push(options.name);
        return { inc: () => {} };
      },
      gauge: () => ({ set: () => {}, inc: () => {}, dec: () => {} }),
      histogram: () => ({ observe: () => {} }),
    });
    tracked.provider.counter({ name: 'x_total', help: 'h' });
    expect(() => tracked.removeAll()).not.toThrow();
    expect(tracked.provider.remove).toBeUndefined();
    expect(calls).toEqual(['x_total']);
  });
});
