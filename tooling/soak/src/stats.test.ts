import { describe, expect, it } from 'vitest';
import { seededRandom } from './random.ts';
import { formatMs, type Interval, overlaps, percentile } from './stats.ts';

describe('seededRandom', () => {
  it('replays the same sequence from the same seed and another from another seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
  });

  it('draws integers within the bounds and picks every element eventually', () => {
    const random = seededRandom(7);
    const ints = Array.from({ length: 200 }, () => random.int(3, 5));
    expect(new Set(ints)).toEqual(new Set([3, 4, 5]));
    const picked = new Set(Array.from({ length: 100 }, () => random.pick(['a', 'b', 'c'])));
    expect(picked.size).toBe(3);
  });

  it('rejects a seed that is not a 32-bit unsigned integer', () => {
    expect(() => seededRandom(-1)).toThrow(RangeError);
    expect(() => seededRandom(1.5)).toThrow(/seed/);
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('overlaps', () => {
  const at = (replica: string, start: number, end: number): Interval => ({
    replica,
    key: 'k',
    start,
    end,
  });

  it('finds reconciles of different replicas that ran at once, not those of one replica', () => {
    const found = overlaps([at('a', 0, 10), at('a', 5, 15), at('b', 12, 20), at('b', 20, 30)]);
    expect(found.map((overlap) => [overlap.a.replica, overlap.b.replica, overlap.ms])).toEqual([
      ['a', 'b', 3],
    ]);
  });

  it('ignores reconciles that ended before the fencing point', () => {
    expect(overlaps([at('a', 0, 10), at('b', 5, 20)], 10)).toEqual([]);
    expect(overlaps([at('a', 0, 11), at('b', 5, 20)], 10)).toHaveLength(1);
  });

  it('formats durations', () => {
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(1234)).toBe('1.23 s');
  });
});

describe('parseArgs', async () => {
  const { parseArgs } = await import('./args.ts');

  it('takes the duration and the seed from flags or LASSO_SOAK_SEED, skipping a bare --', () => {
    const options = parseArgs(['--', '--duration', '30', '--seed=7']);
    expect(options).toMatchObject({ durationS: 30, seed: 7, leader: true });
    expect(parseArgs([], { LASSO_SOAK_SEED: '99' }).seed).toBe(99);
    expect(parseArgs(['--no-leader']).leader).toBe(false);
  });

  it('rejects unknown flags and bad numbers', () => {
    expect(() => parseArgs(['--durration', '3'])).toThrow(/unknown option --durration/);
    expect(() => parseArgs(['--duration', 'x'])).toThrow(/--duration needs a number/);
    expect(() => parseArgs(['--seed', '-1'])).toThrow(/--seed/);
  });

  it('runs the sharded soak with --sharded (after the others) or alone with --sharded-only', () => {
    expect(parseArgs([])).toMatchObject({ sharded: false, replicas: 3 });
    expect(parseArgs(['--sharded'])).toMatchObject({
      sharded: true,
      informers: true,
      leader: true,
    });
    expect(parseArgs(['--sharded-only', '--replicas', '4'])).toMatchObject({
      sharded: true,
      informers: false,
      leader: false,
      replicas: 4,
    });
    expect(() => parseArgs(['--replicas', '2'])).toThrow(/--replicas must be 3, 4 or 5/);
  });
});
