import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createShardMatcher,
  fnv1a64,
  type ShardRange,
  shardHashSpaceEnd,
  shardRangesContain,
} from './index.ts';

const uid = 'object.metadata.uid' as const;

describe('createShardMatcher over many ranges (sorted, merged, binary search)', () => {
  it('agrees with the BigInt check for up to 64 ranges, overlapping, touching and around the hash', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(
          fc.tuple(
            fc.bigInt({ min: 0n, max: shardHashSpaceEnd }),
            fc.bigInt({ min: -2n, max: 2n }),
            fc.bigInt({ min: 1n, max: 1n << 40n }),
            fc.boolean(),
          ),
          { minLength: 1, maxLength: 64 },
        ),
        (value, specs) => {
          const hash = fnv1a64(value);
          const ranges: ShardRange[] = [];
          for (const [random, offset, width, nearHash] of specs) {
            // Half the ranges start just around the hash, so bounds at hash-2..hash+2 are exercised.
            let start = nearHash ? hash + offset : random;
            if (start < 0n) start = 0n;
            if (start >= shardHashSpaceEnd) start = shardHashSpaceEnd - 1n;
            let end = start + width;
            if (end > shardHashSpaceEnd) end = shardHashSpaceEnd;
            ranges.push({ start, end });
          }
          expect(createShardMatcher({ key: uid, ranges })(value)).toBe(
            shardRangesContain(ranges, hash),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('joins touching ranges and keeps the top of the hash space', () => {
    const matches = createShardMatcher({
      key: uid,
      ranges: [
        { start: 1n << 63n, end: shardHashSpaceEnd },
        { start: 0n, end: 1n << 62n },
        { start: 1n << 62n, end: 1n << 63n },
      ],
    });
    for (const value of ['a', 'b', 'c', '', 'uid-1']) expect(matches(value)).toBe(true);
  });
});
