import { describe, expect, it } from 'vitest';
import { keysPerRange, type OwnReport, ownersAt, rangeMoves, settled } from './sharding-moves.ts';

const reports: OwnReport[] = [
  { r: 'a', at: 0, ranges: [0, 1, 2, 3] },
  { r: 'b', at: 10, ranges: [] },
  // b joins: a releases 2 and 3 at 100, b claims them at 130 and 160.
  { r: 'a', at: 100, ranges: [0, 1] },
  { r: 'b', at: 130, ranges: [2] },
  { r: 'b', at: 160, ranges: [2, 3] },
];

describe('ownersAt and settled', () => {
  it('reads each replica at its last report up to the moment, without the gone', () => {
    expect(ownersAt(reports, 50)).toEqual(
      new Map([
        [0, ['a']],
        [1, ['a']],
        [2, ['a']],
        [3, ['a']],
      ]),
    );
    expect(settled(ownersAt(reports, 50), 4)).toBe(true);
    expect(settled(ownersAt(reports, 140), 4)).toBe(false);
    expect(ownersAt(reports, 200).get(3)).toEqual(['b']);
    expect(ownersAt(reports, 200, new Set(['b'])).get(3)).toBeUndefined();
  });
});

describe('rangeMoves', () => {
  it('lists the ranges that changed hands with their release and gain times', () => {
    const moves = rangeMoves(reports, 20, ownersAt(reports, 20), ownersAt(reports, 200));
    expect(moves).toEqual([
      { range: 2, from: 'a', to: 'b', releasedAt: 100, gainedAt: 130 },
      { range: 3, from: 'a', to: 'b', releasedAt: 100, gainedAt: 160 },
    ]);
  });

  it('counts a killed owner as released at the kill; a range nobody owns yet is no move', () => {
    const killed = [
      ...reports,
      { r: 'a', at: 300, ranges: [0] },
      { r: 'b', at: 5_000, ranges: [1, 2, 3] },
    ];
    const before = ownersAt(killed, 250);
    const after = ownersAt(killed, 6_000, new Set(['a']));
    expect(rangeMoves(killed, 250, before, after, { r: 'a', at: 250 })).toEqual([
      { range: 1, from: 'a', to: 'b', releasedAt: 250, gainedAt: 5_000 },
    ]);
  });
});

describe('keysPerRange', () => {
  it('counts keys by their range', () => {
    expect(keysPerRange(['0', '1', '1', '3'], Number, 4)).toEqual([1, 2, 0, 1]);
  });
});
