// Range assignment of a sharded controller (issue 32): the hash space cut into a fixed number of equal
// ranges, each owned by one member of the ring, computed by every replica alike from the member list alone.
//
// Owner per range: rendezvous (highest-random-weight) hashing with bounded load, computed as a stable matching.
// Plain rendezvous moves the minimum (a join moves only what the newcomer wins, a leave only the leaver's
// ranges) but balances poorly with few members: over random rings of 2 the largest share reached 60%, of 4 it
// reached 34%, and the benchmark measured throughput limited by exactly that (1.77x with 2 replicas, 3.07-3.26x
// with 4, against goals of 1.8x and 3.4x, every replica busy). So each member takes at most a capacity of
// ranges (`shardRangeCapacity`), and ranges beyond it go to their next choice. The price: a join or a leave
// may also move a few ranges between members that stayed (numbers at `defaultShardRangeCount`); the hand-off
// treats those like any move between live members (released, acknowledged, then claimed).
//
// Internal: nothing here is exported from the package.
import {
  fnv1a64Hex,
  formatShardSelector,
  type ShardKey,
  type ShardRange,
  shardHashSpaceEnd,
} from '@lasso/core/sharding';

/**
 * Ranges the hash space is cut into. 256: far more than replicas, so a share is many ranges and the load bound
 * is fine-grained (one range is 0.4% of the keys), while the selector of a member, whose ranges the hashing
 * scatters, stays short enough for a URL: with 2 members (the worst case) about 64 separate runs, 7.8 KB
 * URL-encoded at most over 5,000 random rings, under the 8 KB request line common proxies allow and Node's
 * 16 KB header limit; 1024 ranges would need four times that.
 *
 * Measured over 5,000 random rings of N members (bounded load, ε = 0.05): largest share 52.7% (N=2), 35.2%
 * (N=3), 26.6% (N=4), 21.1% (N=5), 13.3% (N=8), each the capacity (plain rendezvous: up to 60.5%, 43.4%,
 * 34.8%, -, 20.3%). A join 3→4 moved 25.9% of the ranges on average (min 20.3%, max 31.6%), of which a mean
 * of 2.1 (max 13) between members that stayed; 4→5 moved 21.3%, 3.3 (max 17) between stayers. A leave moved
 * the leaver's ranges plus a mean of 1.3 others (3→2, max 13), 2.1 (4→3, max 16 over 20,000 rings), 4.6
 * (8→7); never any with 2 → 1. Over 20,000 rings per N = 2..8, no join or leave moved more than 17 ranges
 * between members that stayed.
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

function memberSeed(member: string): readonly [hi: number, lo: number] {
  const hex = fnv1a64Hex(member);
  return [Number.parseInt(hex.slice(0, 8), 16), Number.parseInt(hex.slice(8), 16)];
}

/** `member`'s rendezvous score for range `index`: the higher, the more the range prefers that member. */
export function shardRangeScore(member: string, index: number): number {
  const [hi, lo] = memberSeed(member);
  return score(hi, lo, index);
}

/**
 * The most ranges one of `memberCount` members may own: `ceil((1 + ε)·rangeCount/memberCount)` with ε = 0.05.
 *
 * Why 0.05: the throughput goals (2 replicas ≥ 1.8x one, 4 ≥ 3.4x) need the largest share at most
 * 1/1.8 = 55.6% with 2 members and 1/3.4 = 29.4% with 4. ε = 0.05 caps it at 135/256 = 52.7% and 68/256 =
 * 26.6%, leaving about 3 points for keys spreading unevenly over ranges (with ~80 keys a range, a share of 135
 * ranges varies by well under 1%). A smaller ε gains little balance (0.02: 51.2%, 25.8%) and binds more members,
 * so more ranges move between members that stayed (simulated, 3→4: a mean of 3.1 against 2.3; 4→3: 3.2 against
 * 2.1); a larger one eats the margin (0.1: 55.1% with 2 members, 1.81x at best).
 */
export function shardRangeCapacity(
  memberCount: number,
  rangeCount: number = defaultShardRangeCount,
): number {
  checkCount(rangeCount);
  if (!Number.isInteger(memberCount) || memberCount < 1) {
    throw new RangeError(`memberCount must be a positive integer, got ${String(memberCount)}`);
  }
  // (1 + 0.05) = 21/20 in integers: no rounding of a float decides a capacity.
  return Math.ceil((rangeCount * 21) / (memberCount * 20));
}

/**
 * The owner of each of `rangeCount` ranges among `members` (duplicates ignored; order irrelevant). Throws
 * `RangeError` when `members` is empty or names an empty member, or for a count that is not a power of two.
 *
 * Deferred acceptance (Gale–Shapley with the ranges proposing): each range proposes to the members in the
 * order of their rendezvous score for it; a member over {@link shardRangeCapacity} keeps the ranges it scores
 * highest and rejects the rest, who propose to their next choice. The outcome is the stable matching best for
 * every range at once, so it does not depend on the order of proposals: every replica computes it alike from
 * the member set. Capacities sum to at least `rangeCount`, so every range finds an owner.
 */
export function assignShardRanges(
  members: readonly string[],
  rangeCount: number = defaultShardRangeCount,
): readonly string[] {
  checkCount(rangeCount);
  const unique = [...new Set(members)].sort();
  if (unique.length === 0) throw new RangeError('members must not be empty');
  if (unique.includes('')) throw new RangeError('members must not contain an empty name');
  const n = unique.length;
  const capacity = shardRangeCapacity(n, rangeCount);
  const scores = new Float64Array(rangeCount * n);
  unique.forEach((member, m) => {
    const [hi, lo] = memberSeed(member);
    for (let range = 0; range < rangeCount; range++) scores[range * n + m] = score(hi, lo, range);
  });
  // Both sides need a strict order for the matching to be unique. A range prefers the higher score, ties
  // (2^-53 likely) to the member that sorts first; a member prefers the higher score, ties to the lower range.
  // A range's next choice is found by a scan when it needs one: most ranges stay with their first.
  const last = new Int32Array(rangeCount).fill(-1);
  const nextChoice = (range: number): number => {
    const base = range * n;
    const after = last[range]!;
    const ceiling = after < 0 ? Number.POSITIVE_INFINITY : scores[base + after]!;
    let best = -1;
    let bestScore = -1;
    for (let member = 0; member < n; member++) {
      const value = scores[base + member]!;
      const below = value < ceiling || (value === ceiling && member > after);
      if (below && value > bestScore) {
        best = member;
        bestScore = value;
      }
    }
    last[range] = best;
    return best;
  };
  const held = unique.map((_, member) => new RangeHeap(scores, n, member));
  const free = Array.from({ length: rangeCount }, (_, range) => range);
  for (let range = free.pop(); range !== undefined; range = free.pop()) {
    const heap = held[nextChoice(range)]!;
    heap.push(range);
    if (heap.size > capacity) free.push(heap.popWorst());
  }
  const owners = new Array<string>(rangeCount);
  held.forEach((heap, member) => {
    for (const range of heap.ranges()) owners[range] = unique[member]!;
  });
  return owners;
}

// The ranges one member holds, its least preferred on top: a binary min-heap on (score, -range).
class RangeHeap {
  readonly #scores: Float64Array;
  readonly #members: number;
  readonly #member: number;
  readonly #items: number[] = [];

  constructor(scores: Float64Array, members: number, member: number) {
    this.#scores = scores;
    this.#members = members;
    this.#member = member;
  }

  get size(): number {
    return this.#items.length;
  }

  ranges(): readonly number[] {
    return this.#items;
  }

  push(range: number): void {
    const items = this.#items;
    items.push(range);
    let child = items.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.#worse(items[child]!, items[parent]!)) break;
      [items[child], items[parent]] = [items[parent]!, items[child]!];
      child = parent;
    }
  }

  popWorst(): number {
    const items = this.#items;
    const worst = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let parent = 0;
      for (;;) {
        const left = parent * 2 + 1;
        const right = left + 1;
        let smallest = parent;
        if (left < items.length && this.#worse(items[left]!, items[smallest]!)) smallest = left;
        if (right < items.length && this.#worse(items[right]!, items[smallest]!)) smallest = right;
        if (smallest === parent) break;
        [items[smallest], items[parent]] = [items[parent]!, items[smallest]!];
        parent = smallest;
      }
    }
    return worst;
  }

  // Whether the member prefers range `b` to range `a`.
  #worse(a: number, b: number): boolean {
    const scoreA = this.#scores[a * this.#members + this.#member]!;
    const scoreB = this.#scores[b * this.#members + this.#member]!;
    return scoreA < scoreB || (scoreA === scoreB && a > b);
  }
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
