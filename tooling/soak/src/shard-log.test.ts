import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parseShardLog,
  type ShardChaosEvent,
  ShardLogChecker,
  type ShardLogRecord,
  ShardLogTail,
  ShardLogWriter,
} from './shard-log.ts';

// Four ranges; a uid names its range: 'u0' is in range 0, 'u3' in range 3.
const rangeCount = 4;
const checker = (): ShardLogChecker =>
  new ShardLogChecker({ rangeCount, rangeOf: (src) => Number(src.slice(1)), wakeGraceMs: 1_000 });

let serial = 0;
/** A call of `r` on `k` from `start` to `end` (no end record when `end` is undefined). */
function call(
  r: string,
  k: string,
  rv: string | null,
  start: number,
  end: number | undefined,
  aborted = false,
): ShardLogRecord[] {
  const n = serial++;
  const src = `u${k.length % rangeCount}`;
  const records: ShardLogRecord[] = [{ e: 'start', r, n, k, src, rv, at: start }];
  if (end !== undefined) records.push({ e: 'end', r, n, at: end, aborted });
  return records;
}
const own = (r: string, at: number, ranges: number[]): ShardLogRecord => ({
  e: 'own',
  r,
  at,
  ranges,
});
const chaos = (r: string, kind: ShardChaosEvent['kind'], at: number): ShardChaosEvent => ({
  r,
  kind,
  at,
});

describe('ShardLogChecker overlaps', () => {
  it('finds a key reconciled by two replicas at once, once, when the second call ends', () => {
    const check = checker();
    check.add([...call('a', 'W:ns/x', '1', 100, 200), ...call('b', 'W:ns/y', '1', 150, 250)]);
    expect(check.check()).toEqual([]);
    const records = call('b', 'W:ns/x', '2', 180, undefined);
    check.add(records.slice(0, 1));
    // Open in a live replica: not judged yet.
    expect(check.check()).toEqual([]);
    check.add([{ e: 'end', r: 'b', n: (records[0] as { n: number }).n, at: 260, aborted: false }]);
    const found = check.check();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ key: 'W:ns/x', ms: 20 });
    expect(found[0]?.a.r).toBe('a');
    expect(found[0]?.b.r).toBe('b');
    expect(check.check()).toEqual([]);
    expect(check.finish(1_000, new Map()).overlaps).toHaveLength(1);
  });

  it('does not count touching calls, calls of one replica, or calls on different keys', () => {
    const check = checker();
    check.add([
      ...call('a', 'W:ns/x', '1', 100, 200),
      ...call('b', 'W:ns/x', '2', 200, 300),
      ...call('b', 'W:ns/x', '3', 250, 320),
      ...call('a', 'W:ns/y', '1', 250, 320),
    ]);
    expect(check.check()).toEqual([]);
  });

  it('ends a call of a SIGKILLed replica at the kill: a later call elsewhere is no overlap', () => {
    const check = checker();
    check.add(call('a', 'W:ns/x', '1', 100, undefined));
    check.chaos(chaos('a', 'kill', 150));
    check.add(call('b', 'W:ns/x', '1', 5_000, 5_050));
    expect(check.check()).toEqual([]);
    const result = check.finish(6_000, new Map([['W:ns/x', '1']]));
    expect(result.overlaps).toEqual([]);
    expect(result.cut.died).toBe(1);
    expect(result.lost).toEqual([]);
  });

  it('counts a call in flight across a pause only until the SIGSTOP when it ends within the grace', () => {
    const check = checker();
    check.add(call('a', 'W:ns/x', '1', 100, undefined));
    check.chaos(chaos('a', 'stop', 150));
    check.add(call('b', 'W:ns/x', '1', 5_000, 5_050));
    check.chaos(chaos('a', 'cont', 6_000));
    // Its fence aborted it 30 ms after waking; one more call started on waking and ended aborted at once.
    check.add([{ e: 'end', r: 'a', n: serial - 2, at: 6_030, aborted: true }]);
    check.add(call('a', 'W:ns/x', '1', 6_010, 6_020, true));
    expect(check.check()).toEqual([]);
    const result = check.finish(7_000, new Map());
    expect(result.overlaps).toEqual([]);
    expect(result.cut).toMatchObject({ frozen: 1, wake: 1 });
  });

  it('counts a call started after waking that completed (not cancelled by its fence) whole', () => {
    const check = checker();
    check.add(call('b', 'W:ns/x', '1', 6_000, 6_100));
    check.chaos(chaos('a', 'stop', 150));
    check.chaos(chaos('a', 'cont', 6_000));
    check.add(call('a', 'W:ns/x', '1', 6_010, 6_040));
    expect(check.check()).toHaveLength(1);
  });

  it('counts a paused call whole when it runs on past the grace after waking (the fence failed)', () => {
    const check = checker();
    check.add(call('a', 'W:ns/x', '1', 100, undefined));
    check.chaos(chaos('a', 'stop', 150));
    check.add(call('b', 'W:ns/x', '1', 5_000, 5_050));
    check.chaos(chaos('a', 'cont', 6_000));
    check.add([{ e: 'end', r: 'a', n: serial - 2, at: 7_500, aborted: false }]);
    const found = check.check();
    expect(found).toHaveLength(1);
    expect(found[0]?.ms).toBe(50);
  });

  it('judges open calls of live replicas at the end, up to the end', () => {
    const check = checker();
    check.add([...call('a', 'W:ns/x', '1', 100, undefined), ...call('b', 'W:ns/x', '1', 500, 600)]);
    expect(check.check()).toHaveLength(0);
    expect(check.finish(1_000, new Map()).overlaps).toHaveLength(1);
  });
});

describe('ShardLogChecker final state', () => {
  it('reports a key whose last reconcile saw an older resourceVersion, and one never reconciled', () => {
    const check = checker();
    check.add([
      ...call('a', 'W:ns/x', '1', 100, 200),
      ...call('a', 'W:ns/x', '3', 300, 400),
      ...call('b', 'W:ns/y', '5', 300, 400),
      // The last call was aborted (a hand-off): it does not count as having seen 6.
      ...call('b', 'W:ns/y', '6', 500, 520, true),
    ]);
    const result = check.finish(
      1_000,
      new Map([
        ['W:ns/x', '3'],
        ['W:ns/y', '6'],
        ['W:ns/z', '9'],
      ]),
    );
    expect(result.lost).toEqual([
      { key: 'W:ns/y', final: '6', last: '5' },
      { key: 'W:ns/z', final: '9', last: undefined },
    ]);
  });

  it('counts deleted keys whose last reconcile saw the deletion, and those whose did not as lost; never-reconciled keys are neither', () => {
    const check = checker();
    check.add([
      ...call('a', 'W:ns/x', '1', 100, 200),
      ...call('a', 'W:ns/x', null, 300, 400),
      ...call('a', 'W:ns/yy', '1', 100, 200),
    ]);
    const result = check.finish(1_000, new Map());
    expect(result).toMatchObject({
      deletionsSeen: 1,
      deletionsUnseen: 1,
      lostDeletions: [{ key: 'W:ns/yy', last: '1' }],
      lost: [],
    });
  });
});

describe('ShardLogChecker ownership', () => {
  it("measures the longest unowned gap of a range holding a key, and each killed replica's regain time", () => {
    const check = checker();
    // The key 'W:ns/x' (length 6) hashes to range 2.
    check.add(call('a', 'W:ns/x', '1', 50, 60));
    check.add([own('a', 0, [0, 1]), own('b', 10, [2, 3])]);
    check.chaos(chaos('b', 'kill', 1_000));
    check.chaos(chaos('b', 'exit', 1_010));
    check.add([own('a', 5_200, [0, 1, 2]), own('a', 5_900, [0, 1, 2, 3])]);
    const result = check.finish(10_000, new Map());
    expect(result.longestUnowned).toEqual({ ms: 4_200, range: 2, from: 1_000 });
    expect([...result.unownedGaps].sort((x, y) => x - y)).toEqual([4_200, 4_900]);
    expect(result.takeoverGaps.length).toBe(2);
    expect(result.handoffGaps).toEqual([]);
    expect(result.regained).toEqual([{ r: 'b', kind: 'kill', at: 1_000, ms: 4_900, ranges: 2 }]);
    expect(result.rangesBadAtEnd).toEqual([]);
    expect(result.doubleOwned).toEqual({ count: 0, maxMs: 0 });
  });

  it('reports ranges without exactly one owner at the end and ranges claimed by two at once', () => {
    const check = checker();
    check.add([own('a', 0, [0, 1, 2]), own('b', 0, [3]), own('b', 500, [2, 3])]);
    const result = check.finish(1_000, new Map());
    expect(result.rangesBadAtEnd).toEqual([{ range: 2, owners: ['a', 'b'] }]);
    expect(result.doubleOwned).toEqual({ count: 1, maxMs: 500 });
  });

  it('counts the latest ownership up to now at epoch-millisecond scale (no epsilon lost to rounding)', () => {
    const check = checker();
    const t = 1_795_930_052_965.0864;
    check.add([own('a', t, [0, 1, 2, 3])]);
    expect(check.rangesWithoutOneOwner(t)).toEqual([]);
    expect(check.rangesWithoutOneOwner(t + 0.0001)).toEqual([]);
    expect(check.finish(t + 1_000, new Map()).rangesBadAtEnd).toEqual([]);
  });

  it('stops counting a paused replica as an owner until it logs its ranges again', () => {
    const check = checker();
    check.add([own('a', 0, [0, 1]), own('b', 0, [2, 3])]);
    check.chaos(chaos('b', 'stop', 1_000));
    check.add([own('a', 6_000, [0, 1, 2, 3])]);
    check.chaos(chaos('b', 'cont', 7_000));
    check.add([own('b', 7_100, []), own('a', 8_000, [0, 1]), own('b', 8_100, [2, 3])]);
    const result = check.finish(9_000, new Map());
    expect(result.regained).toEqual([{ r: 'b', kind: 'stop', at: 1_000, ms: 5_000, ranges: 2 }]);
    expect(check.ownedNow('b')).toEqual([2, 3]);
    check.chaos(chaos('b', 'kill', 8_500));
    expect(check.ownedNow('b')).toEqual([]);
    // a's release of 2 and 3 at 8_000, b's claim at 8_100: an acknowledged hand-off of 100 ms each.
    expect(result.handoffGaps).toEqual([100, 100]);
    expect(result.takeoverGaps).toEqual([5_000, 5_000]);
    expect(result.doubleOwned.count).toBe(0);
    expect(result.rangesBadAtEnd).toEqual([]);
  });
});

describe('ShardLogChecker calls outside ownership', () => {
  it('finds a call started by a replica that did not own the key range, with slack for a late log', () => {
    const check = checker();
    // 'W:ns/x' hashes to range 2 (call() takes src from the key length).
    check.add([own('a', 0, [0, 1]), own('b', 0, [2, 3])]);
    check.add(call('a', 'W:ns/x', '1', 100, 150));
    check.add(call('b', 'W:ns/x', '2', 200, 250));
    // a gains range 2 at 1_000 but logs it 50 ms late: a call at 960 is within the slack.
    check.add([own('b', 900, [3]), own('a', 1_010, [0, 1, 2])]);
    check.add(call('a', 'W:ns/x', '3', 960, 990));
    const result = check.finish(2_000, new Map([['W:ns/x', '3']]));
    expect(
      result.outsideOwnership.map((found) => [found.call.r, found.call.start, found.range]),
    ).toEqual([['a', 100, 2]]);
  });
});

describe('shard log files', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('writes records a tail reads back, a partial last line only once it is complete', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shard-log-'));
    dirs.push(dir);
    const path = join(dir, 'a.jsonl');
    const tail = new ShardLogTail(path);
    expect(tail.read()).toEqual({ records: [], bad: 0 });
    const writer = new ShardLogWriter(path, 'a');
    const n = writer.start('W:ns/x', 'u1', '7');
    writer.owned([3, 1]);
    expect(tail.read().records.map((record) => record.e)).toEqual(['start', 'own']);
    writer.end(n, true);
    appendFileSync(path, '{"e":"own","r":"a"');
    const next = tail.read();
    expect(next.records).toMatchObject([{ e: 'end', r: 'a', n, aborted: true }]);
    appendFileSync(path, ',"at":5,"ranges":[]}\n');
    expect(tail.read().records).toMatchObject([{ e: 'own', at: 5, ranges: [] }]);
    writer.close();
    expect(readFileSync(path, 'utf8')).toContain('"ranges":[1,3]');
  });

  it('skips a line cut by a kill and lines of no known record', () => {
    expect(
      parseShardLog([
        '{"e":"start","r":"a"',
        '{"e":"x"}',
        '',
        '{"e":"own","r":"a","at":1,"ranges":[]}',
      ]),
    ).toEqual({
      records: [{ e: 'own', r: 'a', at: 1, ranges: [] }],
      bad: 2,
    });
  });
});
