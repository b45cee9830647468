// The shard ring's protocol on an in-memory Lease store and a FakeClock: joining, the assignment, the hand-off
// (claim after the ack, claim after expiry), the fence, leaving, and the invariant under each.
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { FakeLeaseCluster, FakeProcess, unavailable } from './__fixtures__/fake-ring-store.ts';
import { type HarnessMember, RingHarness } from './__fixtures__/ring-harness.ts';
import { assignShardRanges } from './assignment.ts';
import { decodeHeldRanges, shardHeldAnnotation } from './held-ranges.ts';
import { shardRingLabel } from './membership.ts';
import { createShardRingOnStore } from './ring.ts';
import { ShardFencedError } from './ring-api.ts';

function expected(members: string[], rangeCount = 16): Map<string, number[]> {
  const byMember = new Map<string, number[]>(members.map((member) => [member, []]));
  for (const [range, owner] of assignShardRanges(members, rangeCount).entries()) {
    byMember.get(owner)?.push(range);
  }
  return byMember;
}

function heldOf(harness: RingHarness, identity: string): number[] {
  const lease = harness.cluster.lease(`widgets-${identity}`);
  const held = decodeHeldRanges(lease?.metadata?.annotations?.[shardHeldAnnotation], 16);
  if (held === 'all') throw new Error('unreadable');
  return [...held].sort((a, b) => a - b);
}

async function startAll(harness: RingHarness, ...members: HarnessMember[]): Promise<void> {
  for (const member of members) await member.start();
  await harness.run(10_000);
}

describe('shard ring: membership and assignment', () => {
  it('a lone member joins, writes its Lease with the ring label and holds every range', async () => {
    const harness = new RingHarness(new FakeClock());
    const a = harness.add('a');
    await a.start();
    await harness.run(1_000);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    expect(a.ring.members).toEqual(['a']);
    const lease = harness.cluster.lease('widgets-a');
    expect(lease?.metadata?.labels?.[shardRingLabel]).toBe('widgets');
    expect(lease?.spec?.holderIdentity).toBe('a');
    expect(lease?.spec?.leaseDurationSeconds).toBe(15);
    expect(heldOf(harness, 'a')).toEqual([...Array(16).keys()]);
    expect(a.metrics.value('lasso_shard_owned_ranges', { ring: 'widgets' })).toBe(16);
    expect(a.metrics.value('lasso_shard_members', { ring: 'widgets' })).toBe(1);
    expect(a.metrics.value('lasso_shard_moves_total', { ring: 'widgets', direction: 'in' })).toBe(
      16,
    );
    expect(a.metrics.observations('lasso_shard_handoff_seconds', { ring: 'widgets' })).toHaveLength(
      16,
    );
    expect(a.ring.fence.aborted).toBe(false);
    expect(a.ring.status()).toMatchObject({
      joined: true,
      members: ['a'],
      waiting: [],
      releasing: [],
    });
    expect(a.logger.find('joined the shard ring')).toHaveLength(1);
    a.stop.abort();
    await a.ring.stopped();
  });

  it('three members converge on the assignment every member computes, each range owned once', async () => {
    const harness = new RingHarness(new FakeClock());
    const members = ['a', 'b', 'c'].map((id) => harness.add(id));
    await startAll(harness, ...members);
    const want = expected(['a', 'b', 'c']);
    for (const member of members) {
      expect(member.ring.owned).toEqual(want.get(member.identity));
      expect(member.ring.members).toEqual(['a', 'b', 'c']);
      expect(heldOf(harness, member.identity)).toEqual(want.get(member.identity));
    }
    expect(harness.owners().every((owner) => owner !== undefined)).toBe(true);
    expect(harness.violations).toEqual([]);
  });

  it('a 4th member takes about 1/4 of the ranges; a range moving between two that stayed is handed off acknowledged', async () => {
    const harness = new RingHarness(new FakeClock(), { rangeCount: 256 });
    const members = ['a', 'b', 'c'].map((id) => harness.add(id, { rangeCount: 256 }));
    await startAll(harness, ...members);
    const before = harness.owners();
    expect(before).toEqual(assignShardRanges(['a', 'b', 'c'], 256));
    const want = assignShardRanges(['a', 'b', 'c', 'd'], 256);
    // The load bound sends a range of one stayer to another (these names: 1 of 256).
    const betweenStayers = want.flatMap((owner, range) =>
      owner !== 'd' && owner !== before[range] ? [range] : [],
    );
    expect(betweenStayers.length).toBeGreaterThan(0);
    const losers = new Set(betweenStayers.map((range) => before[range]!));
    for (const loser of losers) harness.get(loser).drainMs = 7_000;
    const d = harness.add('d', { rangeCount: 256 });
    const startedAt = harness.clock.monotonic();
    await d.start();
    await harness.run(6_500);
    // The old owners still drain: nobody owns those ranges yet.
    for (const range of betweenStayers) expect(harness.owners()[range]).toBeUndefined();
    await harness.run(5_000);
    const after = harness.owners();
    expect(after).toEqual(want);
    for (const range of betweenStayers) {
      const gainer = harness.get(want[range]!);
      expect(gainer.gainedAt.get(range)).toBeGreaterThanOrEqual(startedAt + 7_000);
    }
    const moved = after.filter((owner, range) => owner !== before[range]);
    expect(moved.length / 256).toBeGreaterThan(0.15);
    expect(moved.length / 256).toBeLessThan(0.35);
    expect(harness.violations).toEqual([]);
  });

  it('a member that leaves hands over its ranges, and deletes its Lease', async () => {
    const harness = new RingHarness(new FakeClock());
    const [a, b, c] = ['a', 'b', 'c'].map((id) => harness.add(id)) as [
      HarnessMember,
      HarnessMember,
      HarnessMember,
    ];
    await startAll(harness, a, b, c);
    const before = harness.owners();
    const releasedByOthers = [a, b].map(
      (member) => member.logger.find('releasing shard ranges').length,
    );
    c.stop.abort();
    await harness.run(5_000);
    expect(await c.ring.stopped()).toEqual({ drained: true, pending: [] });
    expect(harness.cluster.lease('widgets-c')).toBeUndefined();
    const after = harness.owners();
    // With these members the load bound moves nothing else (in general a leave may move a few ranges between
    // stayers too: the join test above covers that hand-off).
    after.forEach((owner, range) => {
      if (before[range] !== 'c') expect(owner).toBe(before[range]);
    });
    expect(after).toEqual(assignShardRanges(['a', 'b'], 16));
    expect([a, b].map((member) => member.logger.find('releasing shard ranges').length)).toEqual(
      releasedByOthers,
    );
    expect(c.logger.find('left the shard ring')).toHaveLength(1);
    expect(harness.violations).toEqual([]);
  });
});

describe('shard ring: hand-off', () => {
  it('a range moving from a live member is claimed only after that member acknowledged it', async () => {
    const harness = new RingHarness(new FakeClock());
    const a = harness.add('a');
    await startAll(harness, a);
    a.drainMs = 7_000;
    const b = harness.add('b');
    const startedAt = harness.clock.monotonic();
    await b.start();
    await harness.run(6_500);
    // a still drains what moves to b: b claimed none of it.
    expect(b.ring.owned).toEqual([]);
    expect(b.ring.status().waiting).toEqual(expected(['a', 'b']).get('b'));
    expect(heldOf(harness, 'a')).toEqual([...Array(16).keys()]);
    await harness.run(4_000);
    expect(b.ring.owned).toEqual(expected(['a', 'b']).get('b'));
    for (const range of b.ring.owned) {
      expect(b.gainedAt.get(range)).toBeGreaterThanOrEqual(startedAt + 7_000);
    }
    const lastOut = a.ring.status().lastHandoff;
    expect(lastOut?.direction).toBe('out');
    expect(lastOut?.waitedMs).toBeGreaterThanOrEqual(7_000);
    expect(b.ring.status().lastHandoff?.direction).toBe('in');
    expect(
      b.metrics
        .observations('lasso_shard_handoff_seconds', { ring: 'widgets' })
        .every((s) => s >= 7),
    ).toBe(true);
    expect(harness.violations).toEqual([]);
  });

  it('a killed member’s ranges are taken only after its lease duration on the observers’ clocks', async () => {
    const harness = new RingHarness(new FakeClock());
    const [a, b, c] = ['a', 'b', 'c'].map((id) => harness.add(id)) as [
      HarnessMember,
      HarnessMember,
      HarnessMember,
    ];
    await startAll(harness, a, b, c);
    const cRanges = c.ring.owned;
    c.process.kill();
    // The last renewal of c that a and b saw (their views follow the store without lag here).
    const lastWrite = harness.cluster.lastWriteAt('widgets-c');
    await harness.run(12_000);
    for (const range of cRanges) expect(harness.owners()[range]).toBeUndefined();
    await harness.run(8_000);
    expect(harness.owners()).toEqual(assignShardRanges(['a', 'b'], 16));
    for (const range of cRanges) {
      const gained = a.gainedAt.get(range) ?? b.gainedAt.get(range);
      expect(gained).toBeGreaterThanOrEqual(lastWrite + 15_000);
      // Noticed at the expiry timer, claimed and checked in the same round.
      expect(gained).toBeLessThanOrEqual(lastWrite + 15_000 + 500);
    }
    expect(harness.cluster.lease('widgets-c')).toBeUndefined();
    expect(
      [a, b].flatMap((member) =>
        member.logger.find('took over the Lease of an expired shard ring member'),
      ),
    ).toHaveLength(1);
    expect(harness.violations).toEqual([]);
  });

  it('a partitioned member fences itself at its renew deadline, before anyone claims its ranges, and rejoins', async () => {
    const harness = new RingHarness(new FakeClock());
    const [a, b] = ['a', 'b'].map((id) => harness.add(id)) as [HarnessMember, HarnessMember];
    await startAll(harness, a, b);
    const bRanges = b.ring.owned;
    const fence = b.ring.fence;
    b.store.fault = () => unavailable();
    await harness.run(30_000);
    expect(fence.aborted).toBe(true);
    expect(fence.reason).toBeInstanceOf(ShardFencedError);
    expect(b.ring.owned).toEqual([]);
    expect(b.fencedAt).toHaveLength(1);
    const firstClaim = Math.min(
      ...bRanges.map((range) => a.gainedAt.get(range) ?? Number.POSITIVE_INFINITY),
    );
    expect(b.fencedAt[0]).toBeLessThan(firstClaim);
    expect(firstClaim - b.fencedAt[0]!).toBeGreaterThanOrEqual(4_000);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    expect(b.logger.find('shard ring member fenced')).toHaveLength(1);
    // Healed: b creates its Lease again (a deleted it as expired), rejoins with a new fence, and gets its share back.
    b.store.fault = undefined;
    await harness.run(15_000);
    expect(b.ring.fence).not.toBe(fence);
    expect(b.ring.fence.aborted).toBe(false);
    expect(b.ring.owned).toEqual(bRanges);
    expect(harness.violations).toEqual([]);
  });

  it('a member paused past its lease wakes fenced, before it uses any answer', async () => {
    const harness = new RingHarness(new FakeClock());
    const [a, b] = ['a', 'b'].map((id) => harness.add(id)) as [HarnessMember, HarnessMember];
    await startAll(harness, a, b);
    const fence = b.ring.fence;
    b.process.pause();
    await harness.run(40_000);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    const writesBefore = b.store.calls.length;
    b.process.resume();
    // The first thing that ran was a timer past the deadline, or the fence read below: either way b acts on nothing.
    expect(b.ring.owns(0) || b.ring.owned.length > 0).toBe(false);
    expect(fence.aborted).toBe(true);
    await harness.run(20_000);
    expect(b.store.calls.length).toBeGreaterThan(writesBefore);
    expect(harness.owners()).toEqual(assignShardRanges(['a', 'b'], 16));
    expect(harness.violations).toEqual([]);
  });

  it('releasing ranges are acknowledged at once when nothing listens', async () => {
    const clock = new FakeClock();
    const cluster = new FakeLeaseCluster(clock);
    const process = new FakeProcess();
    const ring = createShardRingOnStore(
      { ring: 'w', leaseNamespace: 'ns', identity: 'solo', rangeCount: 4, clock },
      cluster.store(process),
    );
    const stop = new AbortController();
    await ring.start(stop.signal);
    await clock.advance(1_000);
    expect(ring.owned).toEqual([0, 1, 2, 3]);
    stop.abort();
    await clock.advance(1_000);
    expect(await ring.stopped()).toEqual({ drained: true, pending: [] });
    expect(cluster.lease('w-solo')).toBeUndefined();
    expect(ring.fence.aborted).toBe(true);
    // Restartable; closed refuses.
    const again = new AbortController();
    await ring.start(again.signal);
    await clock.advance(1_000);
    expect(ring.owned).toEqual([0, 1, 2, 3]);
    const closing = ring.close();
    await clock.advance(1_000);
    await closing;
    await expect(ring.start(new AbortController().signal)).rejects.toMatchObject({
      code: 'LASSO_FACTORY_CLOSED',
    });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a listener that throws is logged and does not stop the ring; status() reports the hand-offs', async () => {
    const harness = new RingHarness(new FakeClock());
    const a = harness.add('a');
    a.ring.subscribe(() => {
      throw new Error('listener broke');
    });
    await startAll(harness, a);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    expect(a.logger.find('shard ring listener failed')[0]?.attributes?.error).toBe(
      'listener broke',
    );
    const b = harness.add('b');
    await b.start();
    await harness.run(5_000);
    expect(a.ring.status()).toMatchObject({
      ring: 'widgets',
      identity: 'a',
      rangeCount: 16,
      joined: true,
      members: ['a', 'b'],
      desired: expected(['a', 'b']).get('a'),
      owned: expected(['a', 'b']).get('a'),
      releasing: [],
      waiting: [],
      moves: { in: 16, out: expected(['a', 'b']).get('b')?.length },
      lastHandoff: { direction: 'out', ranges: expected(['a', 'b']).get('b') },
    });
    expect(a.metrics.value('lasso_shard_moves_total', { ring: 'widgets', direction: 'out' })).toBe(
      expected(['a', 'b']).get('b')?.length,
    );
    expect(harness.violations).toEqual([]);
  });

  it('a stop whose ranges are never released leaves the Lease to expire after the graceful bound', async () => {
    const harness = new RingHarness(new FakeClock());
    const a = harness.add('a', { gracefulShutdownTimeoutMs: 5_000 });
    await startAll(harness, a);
    a.drainMs = 60_000;
    a.stop.abort();
    const stopped = a.ring.stopped();
    await harness.run(6_000);
    const result = await stopped;
    expect(result.drained).toBe(false);
    expect(result.pending).toHaveLength(16);
    expect(harness.cluster.lease('widgets-a')).toBeDefined();
    expect(a.logger.find('not released within the graceful shutdown timeout')).toHaveLength(1);
  });
});

describe('shard ring: its own Lease', () => {
  it('a write whose answer was lost is recognised as its own when read back, without a gap', async () => {
    const harness = new RingHarness(new FakeClock());
    const a = harness.add('a');
    await startAll(harness, a);
    let lost = 0;
    a.store.fault = (operation) =>
      operation === 'update' && lost++ === 0 ? 'lose-answer' : undefined;
    await harness.run(10_000);
    expect(lost).toBeGreaterThan(1);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    expect(a.fencedAt).toEqual([]);
    expect(a.logger.find('changed under this member')).toHaveLength(1);
    expect(a.logger.find('waiting for it to expire')).toHaveLength(0);
  });

  it('a Lease of its identity that another process wrote is waited out before joining', async () => {
    const harness = new RingHarness(new FakeClock());
    harness.cluster.create({
      metadata: {
        name: 'widgets-a',
        labels: { [shardRingLabel]: 'widgets' },
        annotations: { [shardHeldAnnotation]: '16:f000' },
      },
      spec: {
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        renewTime: '2030-01-01T00:00:00.000000Z',
      },
    });
    const a = harness.add('a');
    await a.start();
    await harness.run(12_000);
    expect(a.ring.owned).toEqual([]);
    expect(a.ring.status().joined).toBe(false);
    expect(a.logger.find('waiting for it to expire')).toHaveLength(1);
    await harness.run(6_000);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    expect(a.gainedAt.get(0)).toBeGreaterThanOrEqual(15_000);
    expect(heldOf(harness, 'a')).toEqual([...Array(16).keys()]);
  });
});

describe('shard ring: options', () => {
  const store = new FakeLeaseCluster(new FakeClock()).store(new FakeProcess());
  const base = { ring: 'w', leaseNamespace: 'ns', identity: 'a' };
  it.each([
    [{ ...base, ring: 'Bad_Ring' }, RangeError, /ring must be a DNS-1123 label/],
    [{ ...base, identity: '' }, RangeError, /identity/],
    [{ ...base, identity: 'UPPER' }, RangeError, /identity/],
    [
      { ...base, leaseNamespace: 7 as unknown as string },
      TypeError,
      /leaseNamespace must be a string/,
    ],
    [{ ...base, rangeCount: 100 }, RangeError, /rangeCount must be a power of two/],
    [
      { ...base, leaseDurationMs: 10_000 },
      RangeError,
      /leaseDurationMs \(10000\) must be greater than renewDeadlineMs/,
    ],
    [
      { ...base, retryPeriodMs: 9_000 },
      RangeError,
      /renewDeadlineMs \(10000\) must be greater than retryPeriodMs/,
    ],
    [{ ...base, gracefulShutdownTimeoutMs: -1 }, RangeError, /gracefulShutdownTimeoutMs/],
  ])('refuses %o', (options, type, message) => {
    expect(() => createShardRingOnStore(options, store)).toThrow(type);
    expect(() => createShardRingOnStore(options, store)).toThrow(message);
  });
});
