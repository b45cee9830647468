import { createShardMatcher, fnv1a64, parseShardSelector } from '@lasso/core/sharding';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignShardRanges,
  defaultShardRangeCount,
  mergeShardRanges,
  shardRangeBounds,
  shardRangeCapacity,
  shardRangeScore,
  shardSelectorFor,
} from './assignment.ts';

const R = defaultShardRangeCount;
const memberName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
const members = (min: number, max: number) =>
  fc.uniqueArray(memberName, { minLength: min, maxLength: max });

function moved(before: readonly string[], after: readonly string[]): number {
  return before.filter((owner, index) => owner !== after[index]).length;
}

function counts(owners: readonly string[]): Map<string, number> {
  const byOwner = new Map<string, number>();
  for (const owner of owners) byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1);
  return byOwner;
}

// Whether member `m` prefers range `a` to range `b` (the implementation's strict order).
function memberPrefers(m: string, a: number, b: number): boolean {
  const scoreA = shardRangeScore(m, a);
  const scoreB = shardRangeScore(m, b);
  return scoreA > scoreB || (scoreA === scoreB && a < b);
}

// Whether range `r` prefers member `a` to member `b`.
function rangePrefers(r: number, a: string, b: string): boolean {
  const scoreA = shardRangeScore(a, r);
  const scoreB = shardRangeScore(b, r);
  return scoreA > scoreB || (scoreA === scoreB && a < b);
}

// Deferred acceptance written another way, in rounds, with the free ranges proposing in an order drawn from
// `random`: the range-optimal stable matching is unique, so the order must not change the outcome.
function referenceAssignment(names: string[], rangeCount: number, random: () => number): string[] {
  const unique = [...new Set(names)].sort();
  const capacity = shardRangeCapacity(unique.length, rangeCount);
  const preferences = Array.from({ length: rangeCount }, (_, range) =>
    [...unique].sort((a, b) => (rangePrefers(range, a, b) ? -1 : 1)),
  );
  const next = new Array<number>(rangeCount).fill(0);
  const held = new Map(unique.map((name) => [name, [] as number[]]));
  let free = Array.from({ length: rangeCount }, (_, range) => range);
  while (free.length > 0) {
    const shuffled = free
      .map((range) => ({ range, key: random() }))
      .sort((a, b) => a.key - b.key)
      .map(({ range }) => range);
    free = [];
    for (const range of shuffled) {
      const name = preferences[range]![next[range]!++]!;
      const ranges = held.get(name)!;
      ranges.push(range);
      if (ranges.length > capacity) {
        ranges.sort((a, b) => (memberPrefers(name, a, b) ? -1 : 1));
        free.push(ranges.pop()!);
      }
    }
  }
  const owners = new Array<string>(rangeCount);
  for (const [name, ranges] of held) for (const range of ranges) owners[range] = name;
  return owners;
}

describe('assignShardRanges', () => {
  it('is a function of the member set: order and duplicates do not matter', () => {
    fc.assert(
      fc.property(members(1, 8), fc.integer(), (names, seed) => {
        const shuffled = [...names].sort((a, b) =>
          fnv1a64(a + seed) < fnv1a64(b + seed) ? -1 : 1,
        );
        expect(assignShardRanges([...shuffled, ...shuffled])).toEqual(assignShardRanges(names));
      }),
    );
  });

  it('does not depend on the order in which ranges propose (the range-optimal stable matching)', () => {
    fc.assert(
      fc.property(
        members(1, 8),
        fc.constantFrom(16, 64, 256),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        (names, rangeCount, stream) => {
          const draws = stream[Symbol.iterator]();
          const random = () => draws.next().value as number;
          expect(assignShardRanges(names, rangeCount)).toEqual(
            referenceAssignment(names, rangeCount, random),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('is stable: no range prefers a member that has room for it or holds a range it likes less', () => {
    fc.assert(
      fc.property(members(2, 8), (names) => {
        const owners = assignShardRanges(names);
        const capacity = shardRangeCapacity(names.length);
        const held = new Map(names.map((name) => [name, [] as number[]]));
        owners.forEach((owner, range) => {
          held.get(owner)!.push(range);
        });
        owners.forEach((owner, range) => {
          for (const name of names) {
            if (name === owner || !rangePrefers(range, name, owner)) continue;
            const ranges = held.get(name)!;
            expect(ranges.length).toBe(capacity);
            expect(ranges.every((other) => memberPrefers(name, other, range))).toBe(true);
          }
        });
      }),
      { numRuns: 30 },
    );
  });

  it('pins a known assignment (a change here moves ranges between releases)', () => {
    const owners = assignShardRanges(['replica-a', 'replica-b', 'replica-c']);
    expect(owners.slice(0, 8)).toMatchInlineSnapshot(`
      [
        "replica-b",
        "replica-b",
        "replica-a",
        "replica-b",
        "replica-a",
        "replica-c",
        "replica-a",
        "replica-a",
      ]
    `);
    expect(owners.filter((owner) => owner === 'replica-a').length).toMatchInlineSnapshot(`82`);
    // With 4 the bound (68) binds: plain rendezvous gave replica-c 70 ranges; ranges 41 and 192 go elsewhere.
    const four = assignShardRanges(['replica-a', 'replica-b', 'replica-c', 'replica-d']);
    expect(Object.fromEntries([...counts(four)].sort())).toMatchInlineSnapshot(`
      {
        "replica-a": 67,
        "replica-b": 67,
        "replica-c": 68,
        "replica-d": 54,
      }
    `);
    expect([four[41], four[192]]).toMatchInlineSnapshot(`
      [
        "replica-b",
        "replica-d",
      ]
    `);
  });

  it('gives no member more than ceil(1.05·R/N) ranges, for N = 1..12 and any range count', () => {
    expect([1, 2, 3, 4, 5, 8, 16].map((n) => shardRangeCapacity(n))).toEqual([
      269, 135, 90, 68, 54, 34, 17,
    ]);
    expect(shardRangeCapacity(300, 256)).toBe(1);
    fc.assert(
      fc.property(members(1, 12), fc.constantFrom(1, 2, 16, 256, 1024), (names, rangeCount) => {
        const owners = assignShardRanges(names, rangeCount);
        expect(owners).toHaveLength(rangeCount);
        const capacity = shardRangeCapacity(names.length, rangeCount);
        for (const count of counts(owners).values()) expect(count).toBeLessThanOrEqual(capacity);
      }),
      { numRuns: 60 },
    );
    // More members than ranges: each holds at most one.
    const many = Array.from({ length: 40 }, (_, index) => `m${index}`);
    for (const count of counts(assignShardRanges(many, 32)).values()) expect(count).toBe(1);
  });

  it('bounds the largest share: 52.7% of 256 with 2 members, 26.6% with 4, 13.3% with 8', () => {
    // Plain rendezvous reached 60%, 34% and 20% over random rings; the goals need ≤ 55.6% and ≤ 29.4%.
    for (const [n, largest] of [
      [2, 135],
      [3, 90],
      [4, 68],
      [8, 34],
    ] as const) {
      fc.assert(
        fc.property(members(n, n), (names) => {
          const values = [...counts(assignShardRanges(names)).values()];
          expect(values).toHaveLength(n);
          expect(Math.max(...values)).toBeLessThanOrEqual(largest);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('a join moves ranges to the newcomer and at most 24 between members that stayed', () => {
    // Measured over 20,000 random rings for each N = 2..8: at most 17 (mean 1.2 with N = 2 to 5.4 with 8).
    fc.assert(
      fc.property(members(1, 8), memberName, (names, extra) => {
        fc.pre(!names.includes(extra));
        const before = assignShardRanges(names);
        const after = assignShardRanges([...names, extra]);
        const toNewcomer = after.filter(
          (owner, range) => owner !== before[range] && owner === extra,
        );
        expect(toNewcomer.length).toBeGreaterThan(0);
        expect(moved(before, after) - toNewcomer.length).toBeLessThanOrEqual(24);
      }),
      { numRuns: 200 },
    );
  });

  it('a leave moves the leaver’s ranges and at most 24 others; 2 → 1 moves only the leaver’s', () => {
    // Measured over 20,000 random rings for each N = 2..8: at most 17 others (mean 1.3 with N = 3 to 4.6 with 8).
    fc.assert(
      fc.property(members(2, 8), (names) => {
        const [leaver, ...stayers] = names as [string, ...string[]];
        const before = assignShardRanges(names);
        const after = assignShardRanges(stayers);
        after.forEach((owner, range) => {
          if (before[range] === leaver) expect(owner).not.toBe(leaver);
        });
        const others = before.filter(
          (owner, range) => owner !== leaver && owner !== after[range],
        ).length;
        expect(others).toBeLessThanOrEqual(stayers.length === 1 ? 0 : 24);
      }),
      { numRuns: 200 },
    );
  });

  it('moves about 1/(N+1) of the ranges going 3→4 and back 4→3 (measured over 400 random rings)', () => {
    const samples: number[] = [];
    fc.assert(
      fc.property(members(4, 4), (names) => {
        const three = assignShardRanges(names.slice(0, 3));
        const four = assignShardRanges(names);
        const join = moved(three, four);
        // Over 5,000 rings: 52 to 81 ranges (20.3% to 31.6%), mean 25.9%.
        expect(join).toBeGreaterThanOrEqual(40);
        expect(join).toBeLessThanOrEqual(96);
        expect(moved(four, three)).toBe(join);
        samples.push(join);
      }),
      { numRuns: 400 },
    );
    const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    expect(mean / R).toBeGreaterThan(0.23);
    expect(mean / R).toBeLessThan(0.29);
  });

  it('refuses no members, an empty name and a count that is not a power of two', () => {
    expect(() => assignShardRanges([])).toThrow(RangeError);
    expect(() => assignShardRanges(['a', ''])).toThrow(/empty name/);
    expect(() => assignShardRanges(['a'], 100)).toThrow(/rangeCount/);
    expect(() => shardRangeBounds(256)).toThrow(/index/);
    expect(() => shardRangeCapacity(0)).toThrow(/memberCount/);
    expect(() => shardRangeCapacity(2, 3)).toThrow(/rangeCount/);
  });
});

describe('selectors of an assignment', () => {
  it('merges adjacent ranges and covers the whole space once', () => {
    expect(mergeShardRanges([3, 1, 2, 7], 8)).toEqual([
      { start: 1n << 61n, end: 4n << 61n },
      { start: 7n << 61n, end: 8n << 61n },
    ]);
    expect(mergeShardRanges(Array.from({ length: R }, (_, index) => index))).toEqual([
      { start: 0n, end: 1n << 64n },
    ]);
    expect(shardSelectorFor('only', assignShardRanges(['only']))).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
    );
  });

  it('every object falls in exactly one member’s selector', () => {
    fc.assert(
      fc.property(
        members(1, 6),
        fc.array(fc.uuid(), { minLength: 1, maxLength: 20 }),
        (names, uids) => {
          const owners = assignShardRanges(names);
          const matchers = names.map((name) => {
            const text = shardSelectorFor(name, owners);
            return text === undefined ? () => false : createShardMatcher(parseShardSelector(text));
          });
          for (const uid of uids) {
            expect(matchers.filter((matches) => matches(uid))).toHaveLength(1);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps a member’s selector short enough for a URL (2 members, the worst case)', () => {
    let longest = 0;
    fc.assert(
      fc.property(members(2, 2), (names) => {
        const owners = assignShardRanges(names);
        for (const name of names) {
          const text = shardSelectorFor(name, owners) ?? '';
          longest = Math.max(
            longest,
            new URLSearchParams({ shardSelector: text }).toString().length,
          );
        }
      }),
      { numRuns: 100 },
    );
    expect(longest).toBeLessThan(8192);
  });

  it('names the key the selector hashes', () => {
    const text = shardSelectorFor('a', assignShardRanges(['a', 'b']), 'object.metadata.namespace');
    expect(parseShardSelector(text!).key).toBe('object.metadata.namespace');
  });
});
