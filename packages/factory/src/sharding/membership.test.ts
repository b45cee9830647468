// The held-ranges codec and the observer's view of the ring: expiry counted from when this observer saw a version,
// whatever the Lease's renewTime or the wall clock says.
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  decodeHeldRanges,
  encodeHeldRanges,
  formatRangeList,
  shardHeldAnnotation,
} from './held-ranges.ts';
import { type Lease, MemberObservations, memberOfLease } from './membership.ts';

describe('held ranges codec', () => {
  it('round-trips any set, fixed width, range 0 in the high bit of the first digit', () => {
    expect(encodeHeldRanges([], 16)).toBe('16:0000');
    expect(encodeHeldRanges([0], 16)).toBe('16:8000');
    expect(encodeHeldRanges([0, 1, 2, 3, 15], 16)).toBe('16:f001');
    expect(encodeHeldRanges([0], 1)).toBe('1:8');
    for (const count of [1, 2, 4, 16, 256]) {
      const ranges = new Set([...Array(count).keys()].filter((r) => (r * 7919) % 3 === 0));
      expect(decodeHeldRanges(encodeHeldRanges(ranges, count), count)).toEqual(ranges);
    }
    expect(encodeHeldRanges([...Array(256).keys()], 256)).toBe(`256:${'f'.repeat(64)}`);
  });

  it('reads what it cannot trust as holding everything, and nothing when absent', () => {
    expect(decodeHeldRanges(undefined, 16)).toEqual(new Set());
    expect(decodeHeldRanges('256:00', 16)).toBe('all');
    expect(decodeHeldRanges('16:000', 16)).toBe('all');
    expect(decodeHeldRanges('16:zzzz', 16)).toBe('all');
    expect(decodeHeldRanges('ffff', 16)).toBe('all');
    expect(decodeHeldRanges('2:c', 2)).toEqual(new Set([0, 1]));
    expect(decodeHeldRanges('2:e', 2)).toBe('all');
    expect(() => encodeHeldRanges([16], 16)).toThrow(RangeError);
  });

  it('formats range lists for logs', () => {
    expect(formatRangeList([])).toBe('');
    expect(formatRangeList([3, 0, 1, 2, 7, 9, 10, 11])).toBe('0-3,7,9-11');
  });
});

function lease(name: string, version: string, holder = name, seconds = 15): Lease {
  return {
    metadata: {
      name,
      resourceVersion: version,
      annotations: { [shardHeldAnnotation]: encodeHeldRanges([1], 4) },
    },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: seconds,
      renewTime: '1999-01-01T00:00:00.000000Z',
    },
  };
}

describe('member observations', () => {
  it('counts expiry from when this observer first saw a version, not from renewTime or the wall clock', async () => {
    const clock = new FakeClock();
    const observations = new MemberObservations(clock);
    observations.replace([memberOfLease(lease('a', '1'), 4)]);
    expect(observations.get('a')?.held).toEqual(new Set([1]));
    // A renewTime 25 years old and a wall clock that jumps do not matter.
    clock.setTime(Date.UTC(2040, 0, 1));
    expect(observations.isLive('a')).toBe(true);
    await clock.advance(14_999);
    // Seeing the same version again keeps the first sighting.
    observations.replace([memberOfLease(lease('a', '1'), 4)]);
    expect(observations.isLive('a')).toBe(true);
    expect(observations.nextExpiryAt()).toBe(15_000);
    await clock.advance(1);
    expect(observations.isLive('a')).toBe(false);
    expect(observations.isExpired('a')).toBe(true);
    // A new version restarts the count.
    observations.replace([memberOfLease(lease('a', '2'), 4)]);
    expect(observations.isLive('a')).toBe(true);
    expect(observations.nextExpiryAt()).toBe(30_000);
  });

  it('an emptied Lease is no member; a Lease gone from the view is forgotten', () => {
    const observations = new MemberObservations(new FakeClock());
    observations.replace([
      memberOfLease(lease('a', '1', ''), 4),
      memberOfLease(lease('b', '1'), 4),
    ]);
    expect(observations.live().map((member) => member.name)).toEqual(['b']);
    expect(observations.isExpired('a')).toBe(false);
    observations.replace([memberOfLease(lease('a', '1', ''), 4)]);
    expect(observations.get('b')).toBeUndefined();
    expect(observations.nextExpiryAt()).toBeUndefined();
  });
});
