// The metrics of a shard ring member, through the injected MetricsProvider, one series set per ring.
import type { Counter, Gauge, Histogram, MetricsProvider } from '@lasso/core';

export interface RingMetrics {
  /** `lasso_shard_members{ring}`: live members as this member sees them. */
  readonly members: Gauge;
  /** `lasso_shard_owned_ranges{ring}`: ranges this member acts on. */
  readonly owned: Gauge;
  /** `lasso_shard_moves_total{ring,direction="in"}`: ranges claimed. */
  readonly movesIn: Counter;
  /** `lasso_shard_moves_total{ring,direction="out"}`: ranges released (fenced included). */
  readonly movesOut: Counter;
  /** `lasso_shard_handoff_seconds{ring}`: from a range becoming desired for this member to its claim. */
  readonly handoffSeconds: Histogram;
}

export function createRingMetrics(metrics: MetricsProvider, ring: string): RingMetrics {
  const labels = { ring };
  const moves = {
    name: 'lasso_shard_moves_total',
    help: 'Ranges of the shard ring this member claimed (in) or released (out).',
  };
  return {
    members: metrics.gauge({
      name: 'lasso_shard_members',
      help: 'Live members of the shard ring, as this member sees them.',
      labels,
    }),
    owned: metrics.gauge({
      name: 'lasso_shard_owned_ranges',
      help: 'Ranges of the shard ring this member acts on.',
      labels,
    }),
    movesIn: metrics.counter({ ...moves, labels: { ...labels, direction: 'in' } }),
    movesOut: metrics.counter({ ...moves, labels: { ...labels, direction: 'out' } }),
    handoffSeconds: metrics.histogram({
      name: 'lasso_shard_handoff_seconds',
      help: 'Time from a shard range becoming desired for this member to its claim, in seconds.',
      labels,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 30, 60],
    }),
  };
}
