// Numbers the soak prints and checks: percentiles, and overlaps between the reconcile intervals of two replicas.

/** The `p`-th percentile (0..100, nearest rank) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** One reconcile as a replica recorded it: wall-clock ms of its start and end. */
export interface Interval {
  replica: string;
  key: string;
  start: number;
  end: number;
}

/** A pair of reconciles of two different replicas that ran at the same time. */
export interface Overlap {
  a: Interval;
  b: Interval;
  /** How long both ran, in ms. */
  ms: number;
}

/**
 * Every pair of intervals of different replicas that overlap in time (touching ends do not), among those that
 * end after `from` (reconciles that ended before the fencing point are not checked).
 */
export function overlaps(intervals: readonly Interval[], from = -Infinity): Overlap[] {
  const relevant = intervals
    .filter((interval) => interval.end > from)
    .sort((a, b) => a.start - b.start);
  const found: Overlap[] = [];
  for (let i = 0; i < relevant.length; i++) {
    const a = relevant[i] as Interval;
    for (let j = i + 1; j < relevant.length; j++) {
      const b = relevant[j] as Interval;
      if (b.start >= a.end) break;
      if (a.replica === b.replica) continue;
      found.push({ a, b, ms: Math.min(a.end, b.end) - b.start });
    }
  }
  return found;
}

/** `1234.5` -> `'1.23 s'`, `12.3` -> `'12 ms'`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}
