// What `pnpm bench:sharding` computes from the owned-range reports of its replicas: who owns each range at a
// time, which ranges (and keys) changed hands between two moments, and how long each hand-off left its range
// without an owner.

/** A replica's owned ranges from `at` on (wall-clock ms), as it reported them. */
export interface OwnReport {
  r: string;
  at: number;
  ranges: readonly number[];
}

/** Range -> the replicas owning it at `at` by their last report at or before it (replicas in `gone` excluded). */
export function ownersAt(
  reports: readonly OwnReport[],
  at: number,
  gone: ReadonlySet<string> = new Set(),
): Map<number, string[]> {
  const latest = new Map<string, OwnReport>();
  for (const report of reports) {
    if (report.at > at || gone.has(report.r)) continue;
    const seen = latest.get(report.r);
    if (seen === undefined || report.at >= seen.at) latest.set(report.r, report);
  }
  const owners = new Map<number, string[]>();
  for (const report of latest.values()) {
    for (const range of report.ranges) owners.set(range, [...(owners.get(range) ?? []), report.r]);
  }
  return owners;
}

/** True when each of `rangeCount` ranges has exactly one owner in `owners`. */
export function settled(
  owners: ReadonlyMap<number, readonly string[]>,
  rangeCount: number,
): boolean {
  for (let range = 0; range < rangeCount; range++)
    if (owners.get(range)?.length !== 1) return false;
  return true;
}

/** One range that changed hands between two moments, and its keys. */
export interface RangeMove {
  range: number;
  from: string;
  to: string;
  /** When `from` reported it gone (or was killed), and when `to` first reported it, after the change began. */
  releasedAt: number;
  gainedAt: number;
}

/**
 * The ranges whose single owner at `before` differs from the one at `after`, with the hand-off times: release =
 * the old owner's first report after `since` without the range (or `killedAt` for a killed owner), gain = the new
 * owner's first report after `since` with it.
 */
export function rangeMoves(
  reports: readonly OwnReport[],
  since: number,
  before: ReadonlyMap<number, readonly string[]>,
  after: ReadonlyMap<number, readonly string[]>,
  killed?: { r: string; at: number },
): RangeMove[] {
  const sorted = [...reports].sort((a, b) => a.at - b.at);
  const moves: RangeMove[] = [];
  for (const [range, owners] of before) {
    const from = owners[0];
    const to = after.get(range)?.[0];
    if (from === undefined || to === undefined || from === to) continue;
    const releasedAt =
      killed?.r === from
        ? killed.at
        : (sorted.find(
            (report) => report.r === from && report.at >= since && !report.ranges.includes(range),
          )?.at ?? Number.NaN);
    const gainedAt =
      sorted.find(
        (report) => report.r === to && report.at >= since && report.ranges.includes(range),
      )?.at ?? Number.NaN;
    moves.push({ range, from, to, releasedAt, gainedAt });
  }
  return moves.sort((a, b) => a.range - b.range);
}

/** Keys per range of `rangeCount` from the uids' hashes (`rangeOf`). */
export function keysPerRange(
  uids: Iterable<string>,
  rangeOf: (uid: string) => number,
  rangeCount: number,
): number[] {
  const counts = new Array<number>(rangeCount).fill(0);
  for (const uid of uids) {
    const range = rangeOf(uid);
    counts[range] = (counts[range] ?? 0) + 1;
  }
  return counts;
}
