import { createShardMatcher, fnv1a64, parseShardSelector } from '@lasso/core/sharding';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignShardRanges,
  defaultShardRangeCount,
  mergeShardRanges,
  shardRangeBounds,
  shardSelectorFor,
} from './assignment.ts';

const R = defaultShardRangeCount;
const memberName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
const members = (min: number, max: number) =>
  fc.uniqueArray(memberName, { minLength: min, maxLength: max });

function moved(before: readonly string[], after: readonly string[]): number {
  return before.filter((owner, index) => owner !== after[index]).length;
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
  });

  it('a join moves only ranges to the newcomer; a leave moves only the leaver’s ranges', () => {
    fc.assert(
      fc.property(members(2, 8), memberName, (names, extra) => {
        fc.pre(!names.includes(extra));
        const before = assignShardRanges(names);
        const after = assignShardRanges([...names, extra]);
        after.forEach((owner, index) => {
          if (owner !== before[index]) expect(owner).toBe(extra);
        });
        // And back: the leaver's ranges return exactly where they were.
        expect(assignShardRanges(names)).toEqual(before);
      }),
    );
  });

  it('moves about 1/(N+1) of the ranges going 3→4 and back 4→3 (measured over 400 random rings)', () => {
    const samples: number[] = [];
    fc.assert(
      fc.property(members(4, 4), (names) => {
        const three = assignShardRanges(names.slice(0, 3));
        const four = assignShardRanges(names);
        const join = moved(three, four);
        const leave = moved(four, three);
        expect(leave).toBe(join);
        // Binomial(256, 1/4): mean 64, σ ≈ 6.9; 5σ either side.
        expect(join).toBeGreaterThanOrEqual(64 - 35);
        expect(join).toBeLessThanOrEqual(64 + 35);
        samples.push(join);
      }),
      { numRuns: 400 },
    );
    const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    expect(mean / R).toBeGreaterThan(0.23);
    expect(mean / R).toBeLessThan(0.27);
  });

  it('balances every member within bounds for N = 2..8 (max/min ranges per member)', () => {
    for (let n = 2; n <= 8; n++) {
      fc.assert(
        fc.property(members(n, n), (names) => {
          const counts = new Map(names.map((name) => [name, 0]));
          for (const owner of assignShardRanges(names)) counts.set(owner, counts.get(owner)! + 1);
          const values = [...counts.values()];
          const mean = R / n;
          // Binomial(256, 1/n) per member: within 5σ of the mean.
          const sigma = Math.sqrt(R * (1 / n) * (1 - 1 / n));
          for (const value of values) expect(Math.abs(value - mean)).toBeLessThanOrEqual(5 * sigma);
          expect(Math.min(...values)).toBeGreaterThan(0);
        }),
        { numRuns: 60 },
      );
    }
  });

  it('refuses no members, an empty name and a count that is not a power of two', () => {
    expect(() => assignShardRanges([])).toThrow(RangeError);
    expect(() => assignShardRanges(['a', ''])).toThrow(/empty name/);
    expect(() => assignShardRanges(['a'], 100)).toThrow(/rangeCount/);
    expect(() => shardRangeBounds(256)).toThrow(/index/);
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
