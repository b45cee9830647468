// The set of ranges a member of a shard ring holds, as written in its Lease: one annotation, `<count>:<hex>`, a
// bitmap of `count` bits (range 0 is the high bit of the first hex digit). Fixed width, so a reader can check
// it was written for the same number of ranges as its own; anything it cannot read counts as holding every
// range (a claim then waits for that Lease to go away instead of trusting a value it does not understand).

/** The Lease annotation that holds a member's held ranges. */
export const shardHeldAnnotation = 'lasso.cattle.io/shard-held';

/** Encode `ranges` (each in `[0, count)`) as `<count>:<hex bitmap>`. */
export function encodeHeldRanges(ranges: Iterable<number>, count: number): string {
  const digits = new Uint8Array(Math.ceil(count / 4));
  for (const range of ranges) {
    if (!Number.isInteger(range) || range < 0 || range >= count) {
      throw new RangeError(`held range ${String(range)} is outside [0, ${count})`);
    }
    digits[range >> 2]! |= 8 >> (range & 3);
  }
  let hex = '';
  for (const digit of digits) hex += digit.toString(16);
  return `${count}:${hex}`;
}

/**
 * The ranges of an annotation value written by {@link encodeHeldRanges} for `count` ranges; `'all'` when the value
 * is malformed or was written for another count (read as holding everything); an empty set when absent.
 */
export function decodeHeldRanges(
  value: string | undefined,
  count: number,
): ReadonlySet<number> | 'all' {
  if (value === undefined) return new Set();
  const match = /^(\d{1,6}):([0-9a-f]*)$/.exec(value);
  if (match === null || Number(match[1]) !== count) return 'all';
  const hex = match[2]!;
  if (hex.length !== Math.ceil(count / 4)) return 'all';
  const ranges = new Set<number>();
  for (let i = 0; i < hex.length; i++) {
    const digit = Number.parseInt(hex[i]!, 16);
    for (let bit = 0; bit < 4; bit++) {
      if ((digit & (8 >> bit)) === 0) continue;
      const range = i * 4 + bit;
      if (range >= count) return 'all';
      ranges.add(range);
    }
  }
  return ranges;
}

/** Ranges as a short list for logs: `0-3,7,9-12` (empty string when none). */
export function formatRangeList(ranges: Iterable<number>): string {
  const sorted = [...new Set(ranges)].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = -1;
  let previous = -1;
  for (const range of sorted) {
    if (range === previous + 1 && start !== -1) {
      previous = range;
      continue;
    }
    if (start !== -1) parts.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = range;
    previous = range;
  }
  if (start !== -1) parts.push(start === previous ? `${start}` : `${start}-${previous}`);
  return parts.join(',');
}
