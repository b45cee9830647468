// The deletion watermark's bookkeeping (deletion-watermark.ts), its annotation (watermark-annotation.ts), and the
// ring carrying it: each write publishes it, and a member that gains a range is told its previous holder's, from
// an acknowledgement and from a takeover (an in-memory Lease store and a FakeClock).
import type { KubeObjectLike } from '@lasso/client';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { type HarnessMember, RingHarness } from './__fixtures__/ring-harness.ts';
import { assignShardRanges } from './assignment.ts';
import { DeletionWatermark } from './deletion-watermark.ts';
import type { ShardRingChange } from './ring-api.ts';
import {
  decodeWatermarks,
  encodeWatermarks,
  shardWatermarksAnnotation,
  watermarkFor,
} from './watermark-annotation.ts';

const cm = (name: string, rv: string, range = 0) => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, labels: { range: String(range) } },
});

describe('DeletionWatermark', () => {
  it('is the last event received while no deletion is unsettled, and stops before the oldest unsettled one', () => {
    const w = new DeletionWatermark();
    expect(w.current()).toBeUndefined();
    w.event('add', 'ns/a', cm('a', '10'));
    w.event('add', 'ns/b', cm('b', '11'));
    expect(w.current()).toBe('11');
    w.event('delete', 'ns/a', cm('a', '12'));
    w.event('update', 'ns/b', cm('b', '13'));
    w.event('delete', 'ns/b', cm('b', '14'));
    // Both deletions unsettled: W is the event before the older one.
    expect([w.current(), w.pending]).toEqual(['11', 2]);
    w.settled('ns/b');
    expect(w.current()).toBe('11');
    w.settled('ns/a');
    expect([w.current(), w.pending]).toEqual(['14', 0]);
  });

  it('keeps the older entry of a key deleted twice, settles a key that exists again, and has none before any event', () => {
    const w = new DeletionWatermark();
    w.event('delete', 'ns/a', cm('a', '5'));
    // Nothing was received before the deletion: nothing safe to name.
    expect(w.current()).toBeUndefined();
    w.event('add', 'ns/a', cm('a', '6'));
    expect(w.current()).toBe('6');
    w.event('delete', 'ns/x', undefined);
    w.event('delete', 'ns/x', cm('x', '8'));
    expect(w.current()).toBe('6');
    w.settled('ns/x');
    expect(w.current()).toBe('8');
  });

  it('holds W while a release is on its way to its acknowledgement, and forgets the released ranges’ deletions after it', () => {
    const w = new DeletionWatermark();
    w.event('add', 'ns/a', cm('a', '1', 7));
    w.event('delete', 'ns/a', cm('a', '2', 7));
    w.event('add', 'ns/b', cm('b', '3', 1));
    w.hold();
    w.event('add', 'ns/c', cm('c', '4', 1));
    expect(w.current()).toBe('1');
    w.hold(); // a second hold keeps the first floor
    const inRange7 = (state: KubeObjectLike): boolean => state.metadata?.labels?.range === '7';
    expect(w.forget(inRange7)).toBe(1);
    expect(w.current()).toBe('1');
    w.release();
    expect([w.current(), w.pending]).toEqual(['4', 0]);
  });
});

describe('DeletionWatermark: an inherited watermark', () => {
  it('is published for the gained ranges until the replay ended and each replayed deletion settled', () => {
    const w = new DeletionWatermark();
    w.event('add', 'ns/a', cm('a', '50'));
    w.inherit([3, 4], '20');
    expect([...w.inherited()]).toEqual([
      [3, '20'],
      [4, '20'],
    ]);
    w.replayed([3, 4], new Set(['ns/x', 'ns/y']));
    w.settled('ns/x');
    expect(w.inherited().size).toBe(2);
    w.settled('ns/y');
    expect(w.inherited().size).toBe(0);
    // A replay that failed (logged) or replayed nothing drops it at once; an ack drops a released range's.
    w.inherit([5], '21');
    w.replayed([5], undefined);
    w.inherit([6, 7], '22');
    w.forget(() => false, [6]);
    expect([...w.inherited()]).toEqual([[7, '22']]);
    expect(w.current()).toBe('50');
    // An earlier replay whose range was released, then gained again, does not drop the newer inheritance.
    w.inherit([8], '23');
    w.replayed([8], new Set(['ns/old']));
    w.forget(() => false, [8]);
    w.inherit([8], '24');
    w.settled('ns/old');
    expect(w.inherited().get(8)).toBe('24');
  });

  it('is the watermark a gainer uses for those ranges, the kind’s for the others', () => {
    const text = encodeWatermarks(
      new Map([
        ['/v1, Kind=ConfigMap', '90'],
        ['/v1, Kind=ConfigMap@3-4,9', '20'],
        ['/v1, Kind=Secret@3', '21'],
      ]),
    );
    const decoded = decodeWatermarks(text) ?? {};
    expect(watermarkFor(decoded, '/v1, Kind=ConfigMap', 4)).toBe('20');
    expect(watermarkFor(decoded, '/v1, Kind=ConfigMap', 9)).toBe('20');
    expect(watermarkFor(decoded, '/v1, Kind=ConfigMap', 5)).toBe('90');
    expect(watermarkFor(decoded, '/v1, Kind=Secret', 3)).toBe('21');
    expect(watermarkFor(decoded, '/v1, Kind=Secret', 4)).toBeUndefined();
  });
});

describe('watermark annotation', () => {
  it('round-trips, sorted, leaving out what exceeds its bounds', () => {
    const text = encodeWatermarks(
      new Map([
        ['/v1, Kind=Secret', '20'],
        ['/v1, Kind=ConfigMap', '10'],
        ['too/long', 'x'.repeat(65)],
        ['empty', ''],
      ]),
    );
    expect(text).toBe('{"/v1, Kind=ConfigMap":"10","/v1, Kind=Secret":"20"}');
    expect(decodeWatermarks(text)).toEqual({
      '/v1, Kind=ConfigMap': '10',
      '/v1, Kind=Secret': '20',
    });
    expect(decodeWatermarks(undefined)).toBeUndefined();
  });

  it('refuses a hostile or garbled annotation with a TypeError naming it', () => {
    for (const text of [
      'not json',
      '[]',
      'null',
      '{"k": 5}',
      '{"k": ""}',
      `{"k": "${'9'.repeat(65)}"}`,
      'x'.repeat(70_000),
      JSON.stringify(Object.fromEntries([...Array(300).keys()].map((i) => [`k${i}`, '1']))),
    ]) {
      expect(() => decodeWatermarks(text), text.slice(0, 20)).toThrow(TypeError);
      expect(() => decodeWatermarks(text)).toThrow(shardWatermarksAnnotation);
    }
    // A key such as __proto__ is data, never a prototype.
    const decoded = decodeWatermarks('{"__proto__": "7"}');
    expect(Object.getPrototypeOf(decoded)).toBeNull();
    expect(Object.entries(decoded ?? {})).toEqual([['__proto__', '7']]);
  });
});

describe('shard ring: the previous holder’s watermarks', () => {
  function watch(member: HarnessMember): ShardRingChange[] {
    const changes: ShardRingChange[] = [];
    member.ring.subscribe((change) => {
      if (change.gained.length > 0) changes.push(change);
    });
    return changes;
  }
  const publish = (member: HarnessMember, version: string): void =>
    (
      member.ring as unknown as {
        setWatermarkSource(source: () => ReadonlyMap<string, string>): void;
      }
    ).setWatermarkSource(() => new Map([['/v1, Kind=ConfigMap', version]]));

  it('each write publishes the member’s watermarks; a gainer is told the acknowledgement’s', async () => {
    const harness = new RingHarness(new FakeClock());
    const a = harness.add('a');
    let version = '10';
    (
      a.ring as unknown as {
        setWatermarkSource(source: () => ReadonlyMap<string, string>): void;
      }
    ).setWatermarkSource(() => new Map([['/v1, Kind=ConfigMap', version]]));
    await a.start();
    await harness.run(2_000);
    expect(
      harness.cluster.lease('widgets-a')?.metadata?.annotations?.[shardWatermarksAnnotation],
    ).toBe('{"/v1, Kind=ConfigMap":"10"}');
    version = '42';
    const b = harness.add('b');
    const gains = watch(b);
    await b.start();
    await harness.run(10_000);
    const moved = assignShardRanges(['a', 'b'], 16)
      .map((owner, range) => (owner === 'b' ? range : -1))
      .filter((range) => range >= 0);
    expect(b.ring.owned).toEqual(moved);
    const told = new Map(gains.flatMap((change) => [...(change.previous ?? [])]));
    expect([...told.keys()].sort((x, y) => x - y)).toEqual(moved);
    expect(new Set(told.values())).toEqual(new Set(['{"/v1, Kind=ConfigMap":"42"}']));
    expect(harness.violations).toEqual([]);
  });

  it('a gainer taking over an expired member is told that member’s last watermarks', async () => {
    const harness = new RingHarness(new FakeClock());
    const [a, c] = ['a', 'c'].map((id) => harness.add(id)) as [HarnessMember, HarnessMember];
    publish(a, '5');
    publish(c, '77');
    await a.start();
    await c.start();
    await harness.run(10_000);
    const cRanges = c.ring.owned;
    expect(cRanges.length).toBeGreaterThan(0);
    const gains = watch(a);
    c.process.kill();
    await harness.run(20_000);
    expect(a.ring.owned).toEqual([...Array(16).keys()]);
    const told = new Map(gains.flatMap((change) => [...(change.previous ?? [])]));
    expect([...told.keys()].sort((x, y) => x - y)).toEqual(cRanges);
    expect(new Set(told.values())).toEqual(new Set(['{"/v1, Kind=ConfigMap":"77"}']));
  });
});
