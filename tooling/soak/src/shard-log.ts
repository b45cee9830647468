// The sharded soak's shared log and its checker. Every replica appends one JSON line per handler start, handler
// end and change of its owned ranges to a file of its own (`ShardLogWriter`), stamped with a monotonic wall
// clock (`wallNow`: performance.timeOrigin + performance.now(), comparable across the processes of a machine).
// The soak tails the files while it runs and feeds the lines, with the signals it sent (kill, stop, cont) and
// the exits it saw, to `ShardLogChecker`, which finds reconciles of one key by two replicas at once as they
// close, and at the end checks each key's last reconcile against the server's final state and measures how long
// each range went without an owner.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** Wall-clock ms that never goes backwards within a process (and agrees across the processes of a machine). */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** A handler call began: `k` is `<Kind>:<namespace>/<name>`, `src` the hashed uid (owner's for children). */
export interface ShardStartRecord {
  e: 'start';
  /** The replica. */
  r: string;
  /** Per-replica sequence number, repeated by the matching end. */
  n: number;
  k: string;
  /** The uid the key hashes by (its controller owner's for an owned kind); null when the object is gone. */
  src: string | null;
  /** The resourceVersion the handler saw; null for a deletion. */
  rv: string | null;
  at: number;
}

/** A handler call ended; `aborted` when its signal had aborted by then (its work was cancelled). */
export interface ShardEndRecord {
  e: 'end';
  r: string;
  n: number;
  at: number;
  aborted: boolean;
}

/** The replica's owned ranges changed (the full set after the change). */
export interface ShardOwnRecord {
  e: 'own';
  r: string;
  at: number;
  ranges: number[];
}

export type ShardLogRecord = ShardStartRecord | ShardEndRecord | ShardOwnRecord;

/**
 * What the soak did to a replica process, when: `kill` (SIGKILL), `stop` (SIGSTOP), `cont` (SIGCONT), `exit` (the
 * process was seen gone, whatever the cause). Recorded by the soak before it sends the signal.
 */
export interface ShardChaosEvent {
  r: string;
  kind: 'kill' | 'stop' | 'cont' | 'exit';
  at: number;
}

/** Appends records to one replica's file, synchronously (a SIGKILL loses at most the line being written). */
export class ShardLogWriter {
  readonly #fd: number;
  readonly #replica: string;
  #serial = 0;

  constructor(path: string, replica: string) {
    this.#fd = openSync(path, 'a');
    this.#replica = replica;
  }

  /** Record a handler start; returns the sequence number to pass to {@link end}. */
  start(key: string, src: string | null, rv: string | null): number {
    const n = this.#serial++;
    this.#write({ e: 'start', r: this.#replica, n, k: key, src, rv, at: wallNow() });
    return n;
  }

  end(n: number, aborted: boolean): void {
    this.#write({ e: 'end', r: this.#replica, n, at: wallNow(), aborted });
  }

  owned(ranges: readonly number[]): void {
    this.#write({
      e: 'own',
      r: this.#replica,
      at: wallNow(),
      ranges: [...ranges].sort((a, b) => a - b),
    });
  }

  close(): void {
    closeSync(this.#fd);
  }

  #write(record: ShardLogRecord): void {
    writeSync(this.#fd, `${JSON.stringify(record)}\n`);
  }
}

/** Reads the lines appended to a file since the last call (a partial last line waits for its end). */
export class ShardLogTail {
  readonly #path: string;
  #offset = 0;
  #partial = '';

  constructor(path: string) {
    this.#path = path;
  }

  /** The complete records appended since the last call; lines that do not parse are skipped and counted. */
  read(): { records: ShardLogRecord[]; bad: number } {
    let fd: number;
    try {
      fd = openSync(this.#path, 'r');
    } catch {
      return { records: [], bad: 0 };
    }
    const chunks: string[] = [];
    try {
      const buffer = Buffer.alloc(1 << 16);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, this.#offset);
        if (read === 0) break;
        this.#offset += read;
        chunks.push(buffer.toString('utf8', 0, read));
      }
    } finally {
      closeSync(fd);
    }
    const text = this.#partial + chunks.join('');
    const lines = text.split('\n');
    this.#partial = lines.pop() ?? '';
    return parseShardLog(lines);
  }
}

/** Parse log lines; a line cut by a SIGKILL (or otherwise unreadable) is counted in `bad`, not thrown. */
export function parseShardLog(lines: readonly string[]): {
  records: ShardLogRecord[];
  bad: number;
} {
  const records: ShardLogRecord[] = [];
  let bad = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      const record = JSON.parse(line) as ShardLogRecord;
      if (record.e === 'start' || record.e === 'end' || record.e === 'own') records.push(record);
      else bad++;
    } catch {
      bad++;
    }
  }
  return { records, bad };
}

/** One handler call, as far as the checker knows it. */
export interface ShardReconcile {
  r: string;
  n: number;
  k: string;
  rv: string | null;
  start: number;
  /** Undefined while it runs (or when its process died mid-call). */
  end: number | undefined;
  aborted: boolean;
}

/** The part of a reconcile during which its replica could act, after the rules of {@link ShardLogChecker}. */
export interface ActingSpan {
  start: number;
  end: number;
  /** Why it was cut: `frozen` (in flight across a pause, ended within the grace after waking), `wake` (started
   *  after waking, ended within the grace: it never acted), `died` (no end: its process was killed or exited). */
  cut?: 'frozen' | 'wake' | 'died';
}

/** Two replicas acting on one key at once. */
export interface ShardOverlap {
  key: string;
  a: ShardReconcile;
  b: ShardReconcile;
  /** How long both acted, ms. */
  ms: number;
}

/** The checker's settings. */
export interface ShardCheckerOptions {
  /** Ranges of the ring (a power of two; 256 by default). */
  rangeCount: number;
  /** The range a hash source (uid) falls in. */
  rangeOf(src: string): number;
  /**
   * After a paused replica's SIGCONT, its calls must have ended within this (ms): a frozen process cannot act,
   * and once it runs again its fence must end what was in flight. Calls that do are counted up to the SIGSTOP.
   */
  wakeGraceMs: number;
  /** How late a replica may log a range it gained (its poll interval and some), ms. Default 100. */
  ownSlackMs?: number;
}

/** The end-of-run answers. */
export interface ShardFinalResult {
  /** Keys that exist at the end whose last reconcile did not see their final resourceVersion (or none ran). */
  lost: Array<{ key: string; final: string; last: string | null | undefined }>;
  /**
   * Keys deleted by the end whose last reconcile saw an object, not the deletion: lost deletions (a failure). A key
   * no replica ever reconciled (created and deleted while no replica acted on its range) is not among them: no
   * handler saw it exist, so none owed it a cleanup, as for a controller started after the deletion.
   */
  lostDeletions: Array<{ key: string; last: string }>;
  /** How many keys {@link lostDeletions} has. */
  deletionsUnseen: number;
  /** Keys deleted by the end whose last reconcile saw the deletion. */
  deletionsSeen: number;
  /** Ranges not owned by exactly one live replica at the end, with their owners. */
  rangesBadAtEnd: Array<{ range: number; owners: string[] }>;
  /** Longest time a range (holding at least one key) was owned by no live replica, after the ring first
   *  covered every range; with the range and when. */
  longestUnowned: { ms: number; range: number; from: number };
  /** Unowned gaps over every range, ms (for percentiles). */
  unownedGaps: number[];
  /** The gaps after a release its owner logged (an acknowledged hand-off), ms. */
  handoffGaps: number[];
  /** The gaps after an owner was killed or paused (a takeover once its Lease expired), ms. */
  takeoverGaps: number[];
  /** Per kill or stop: the latest time until one of the replica's ranges was owned again by a live replica. */
  regained: Array<{ r: string; kind: 'kill' | 'stop'; at: number; ms: number; ranges: number }>;
  /** Longest time two live replicas both claimed a range (their own logs; ms), and how often it happened. */
  doubleOwned: { count: number; maxMs: number };
  /** Calls cut by the rules (counted, not failed). */
  cut: { frozen: number; wake: number; died: number };
  /**
   * Calls started by a replica whose own log did not show the key's range owned at the start (nor within
   * `ownSlackMs` after it: the log polls the ring, so a gain is logged a little late).
   */
  outsideOwnership: Array<{ call: ShardReconcile; range: number }>;
}

/**
 * Checks the merged logs of a sharded soak.
 *
 * Overlaps: two calls of different replicas on one key whose acting spans intersect. A call's acting span is its
 * [start, end], except: a call without an end (its process was SIGKILLed or exited) ends at the kill (or the
 * exit); a call of a replica that was SIGSTOPped while it ran and that ended within `wakeGraceMs` of the SIGCONT
 * acts only until the SIGSTOP (a frozen process does nothing, and once it woke the call ended at once); a call
 * started after the SIGCONT that its signal aborted within the grace never acted (the fence cancelled it). A call
 * that goes on past the grace, or started after waking and completed, counts whole.
 */
export class ShardLogChecker {
  readonly #options: ShardCheckerOptions;
  readonly #open = new Map<string, ShardReconcile>();
  readonly #byKey = new Map<string, ShardReconcile[]>();
  readonly #srcOf = new Map<string, string>();
  readonly #own = new Map<string, ShardOwnRecord[]>();
  readonly #chaos: ShardChaosEvent[] = [];
  /** Keys with calls closed since the last {@link check}. */
  readonly #dirty = new Set<string>();
  readonly #reported = new Set<string>();
  readonly #overlaps: ShardOverlap[] = [];
  readonly #replicas = new Set<string>();

  constructor(options: ShardCheckerOptions) {
    this.#options = options;
  }

  /** Feed records (any order across replicas, in order within one). */
  add(records: Iterable<ShardLogRecord>): void {
    for (const record of records) {
      this.#replicas.add(record.r);
      if (record.e === 'start') {
        const call: ShardReconcile = {
          r: record.r,
          n: record.n,
          k: record.k,
          rv: record.rv,
          start: record.at,
          end: undefined,
          aborted: false,
        };
        this.#open.set(`${record.r}#${record.n}`, call);
        const calls = this.#byKey.get(record.k) ?? [];
        calls.push(call);
        this.#byKey.set(record.k, calls);
        if (record.src !== null) this.#srcOf.set(record.k, record.src);
      } else if (record.e === 'end') {
        const call = this.#open.get(`${record.r}#${record.n}`);
        if (call === undefined) continue;
        this.#open.delete(`${record.r}#${record.n}`);
        call.end = record.at;
        call.aborted = record.aborted;
        this.#dirty.add(call.k);
      } else {
        const owns = this.#own.get(record.r) ?? [];
        owns.push(record);
        this.#own.set(record.r, owns);
      }
    }
  }

  /** Record what the soak did to a replica (before doing it). */
  chaos(event: ShardChaosEvent): void {
    this.#replicas.add(event.r);
    this.#chaos.push(event);
    if (event.kind === 'kill' || event.kind === 'exit') {
      for (const call of this.#open.values()) if (call.r === event.r) this.#dirty.add(call.k);
    }
  }

  /** Every handler call seen so far. */
  get calls(): number {
    let count = 0;
    for (const calls of this.#byKey.values()) count += calls.length;
    return count;
  }

  /** Keys seen so far. */
  get keys(): number {
    return this.#byKey.size;
  }

  /**
   * Check the keys whose calls ended (or whose replica died) since the last call; returns the overlaps found now
   * (each pair once over the run). Open calls of live replicas wait until they end.
   */
  check(): ShardOverlap[] {
    const found: ShardOverlap[] = [];
    for (const key of this.#dirty) found.push(...this.#checkKey(key, false));
    this.#dirty.clear();
    return found;
  }

  /** Every overlap found so far. */
  get overlaps(): readonly ShardOverlap[] {
    return this.#overlaps;
  }

  /** The acting span of `call` (undefined: it never acted, or it still runs in a live replica). */
  actingSpan(call: ShardReconcile, now = Number.POSITIVE_INFINITY): ActingSpan | undefined {
    const events = this.#chaos.filter((event) => event.r === call.r);
    const gone = events.find(
      (event) => (event.kind === 'kill' || event.kind === 'exit') && event.at >= call.start,
    );
    let end = call.end;
    let cut: ActingSpan['cut'];
    if (end === undefined) {
      if (gone === undefined) {
        if (!Number.isFinite(now)) return undefined;
        end = now;
      } else {
        end = gone.at;
        cut = 'died';
      }
    }
    // Pauses of this replica: each SIGSTOP with its SIGCONT (none when it died frozen).
    for (let index = 0; index < events.length; index++) {
      const stop = events[index] as ShardChaosEvent;
      if (stop.kind !== 'stop') continue;
      const after = events.slice(index + 1).find((event) => event.kind !== 'stop');
      const contAt = after?.kind === 'cont' ? after.at : undefined;
      const wakeLimit =
        contAt === undefined ? Number.POSITIVE_INFINITY : contAt + this.#options.wakeGraceMs;
      if (call.start >= wakeLimit || end <= stop.at) continue;
      if (contAt === undefined) {
        // Killed (or gone) while frozen: it did nothing after the SIGSTOP.
        if (call.start >= stop.at) return undefined;
        return { start: call.start, end: stop.at, cut: 'frozen' };
      }
      if (end <= wakeLimit) {
        // Started after waking: it never acted only if its fence cancelled it; one that completed acted.
        if (call.start >= stop.at) {
          if (call.aborted) return { start: call.start, end: call.start, cut: 'wake' };
          continue;
        }
        return { start: call.start, end: Math.min(end, stop.at), cut: 'frozen' };
      }
    }
    return cut === undefined ? { start: call.start, end } : { start: call.start, end, cut };
  }

  #checkKey(key: string, atEnd: boolean, now = Number.POSITIVE_INFINITY): ShardOverlap[] {
    const calls = this.#byKey.get(key) ?? [];
    const spans: Array<{ call: ShardReconcile; span: ActingSpan }> = [];
    for (const call of calls) {
      const span = this.actingSpan(call, atEnd ? now : Number.POSITIVE_INFINITY);
      if (span !== undefined && span.end > span.start) spans.push({ call, span });
    }
    spans.sort((x, y) => x.span.start - y.span.start);
    const found: ShardOverlap[] = [];
    for (let i = 0; i < spans.length; i++) {
      const a = spans[i] as (typeof spans)[number];
      for (let j = i + 1; j < spans.length; j++) {
        const b = spans[j] as (typeof spans)[number];
        if (b.span.start >= a.span.end) break;
        if (a.call.r === b.call.r) continue;
        const id = `${a.call.r}#${a.call.n}|${b.call.r}#${b.call.n}`;
        if (this.#reported.has(id)) continue;
        this.#reported.add(id);
        const overlap = {
          key,
          a: a.call,
          b: b.call,
          ms: Math.min(a.span.end, b.span.end) - b.span.start,
        };
        found.push(overlap);
        this.#overlaps.push(overlap);
      }
    }
    return found;
  }

  /**
   * The end of the run at `now`: checks every key once more (open calls counted up to `now`), then compares
   * each key's last completed, unaborted call with `finalState` (key -> resourceVersion of every object that
   * exists at the end), and measures the ring's ownership from the `own` records.
   */
  finish(
    now: number,
    finalState: ReadonlyMap<string, string>,
  ): ShardFinalResult & { overlaps: ShardOverlap[] } {
    for (const key of this.#byKey.keys()) this.#checkKey(key, true, now);
    this.#dirty.clear();
    const cut = { frozen: 0, wake: 0, died: 0 };
    for (const calls of this.#byKey.values()) {
      for (const call of calls) {
        const span = this.actingSpan(call, now);
        if (span?.cut !== undefined) cut[span.cut]++;
      }
    }
    const lastSeen = this.#lastSeen(now);
    const lost = this.mismatches(finalState, now);
    let deletionsSeen = 0;
    for (const [key, last] of lastSeen) if (!finalState.has(key) && last === null) deletionsSeen++;
    const lostDeletions = this.lostDeletions(finalState, now);
    return {
      outsideOwnership: this.#outsideOwnership(now),
      overlaps: [...this.#overlaps],
      lost,
      deletionsSeen,
      deletionsUnseen: lostDeletions.length,
      lostDeletions,
      cut,
      ...this.#ownership(now),
    };
  }

  /**
   * Keys of `finalState` (key -> resourceVersion of every object that exists) whose last completed, unaborted
   * call (counted whole) did not see that resourceVersion, or that no call handled.
   */
  mismatches(
    finalState: ReadonlyMap<string, string>,
    now = Number.POSITIVE_INFINITY,
  ): ShardFinalResult['lost'] {
    const lastSeen = this.#lastSeen(now);
    const lost: ShardFinalResult['lost'] = [];
    for (const [key, final] of finalState) {
      const last = lastSeen.get(key);
      if (last !== final) lost.push({ key, final, last });
    }
    return lost;
  }

  /**
   * Keys absent from `finalState` whose last completed, unaborted call (counted whole) saw an object: deletions no
   * handler saw yet. A key no call handled is not among them (see {@link ShardFinalResult.lostDeletions}).
   */
  lostDeletions(
    finalState: ReadonlyMap<string, string>,
    now = Number.POSITIVE_INFINITY,
  ): ShardFinalResult['lostDeletions'] {
    const lost: ShardFinalResult['lostDeletions'] = [];
    for (const [key, last] of this.#lastSeen(now)) {
      if (!finalState.has(key) && last !== null) lost.push({ key, last });
    }
    return lost;
  }

  #lastSeen(now: number): Map<string, string | null> {
    const lastSeen = new Map<string, string | null>();
    for (const [key, calls] of this.#byKey) {
      let last: ShardReconcile | undefined;
      for (const call of calls) {
        if (call.end === undefined || call.aborted) continue;
        const span = this.actingSpan(call, now);
        if (span === undefined || span.cut !== undefined) continue;
        if (last === undefined || call.start > last.start) last = call;
      }
      if (last !== undefined) lastSeen.set(key, last.rv);
    }
    return lastSeen;
  }

  /** The ranges `replica` logged last (none once it was killed, paused or gone after that record). */
  ownedNow(replica: string): readonly number[] {
    const last = this.#own.get(replica)?.at(-1);
    if (last === undefined) return [];
    const voided = this.#chaos.some(
      (event) => event.r === replica && event.kind !== 'cont' && event.at >= last.at,
    );
    return voided ? [] : last.ranges;
  }

  #outsideOwnership(now: number): ShardFinalResult['outsideOwnership'] {
    const slack = this.#options.ownSlackMs ?? 100;
    const found: ShardFinalResult['outsideOwnership'] = [];
    const sorted = new Map<string, ShardOwnRecord[]>();
    for (const [replica, owns] of this.#own)
      sorted.set(
        replica,
        [...owns].sort((a, b) => a.at - b.at),
      );
    for (const [key, calls] of this.#byKey) {
      const src = this.#srcOf.get(key);
      if (src === undefined) continue;
      const range = this.#options.rangeOf(src);
      for (const call of calls) {
        const span = this.actingSpan(call, now);
        if (span === undefined || span.end <= span.start) continue;
        const owns = sorted.get(call.r) ?? [];
        let index = -1;
        for (let i = 0; i < owns.length && (owns[i] as ShardOwnRecord).at <= call.start; i++)
          index = i;
        const atStart = owns[index]?.ranges.includes(range) === true;
        const soonAfter = owns
          .slice(index + 1)
          .some((own) => own.at <= call.start + slack && own.ranges.includes(range));
        if (!atStart && !soonAfter) found.push({ call, range });
      }
    }
    return found;
  }

  /** Ranges not owned by exactly one live replica at `now`, by the logs so far. */
  rangesWithoutOneOwner(now: number): ShardFinalResult['rangesBadAtEnd'] {
    return this.#ownership(now).rangesBadAtEnd;
  }

  /** Per replica, the spans during which its own log's owned set held (ended by a kill, stop or exit). */
  #ownedSpans(): Map<string, Array<{ start: number; end: number; ranges: number[] }>> {
    const result = new Map<string, Array<{ start: number; end: number; ranges: number[] }>>();
    for (const replica of this.#replicas) {
      const owns = [...(this.#own.get(replica) ?? [])].sort((a, b) => a.at - b.at);
      const events = this.#chaos.filter((event) => event.r === replica).sort((a, b) => a.at - b.at);
      // Times at which the replica stops counting as an owner until its next own record (a stop), or for good.
      const spans: Array<{ start: number; end: number; ranges: number[] }> = [];
      for (let index = 0; index < owns.length; index++) {
        const own = owns[index] as ShardOwnRecord;
        // Open (Infinity) while no later record or event ends it: `now - epsilon` is `now` at epoch-ms scale.
        let end = owns[index + 1]?.at ?? Number.POSITIVE_INFINITY;
        for (const event of events) {
          if (event.at >= own.at && event.at < end && event.kind !== 'cont') end = event.at;
        }
        if (end > own.at && own.ranges.length > 0)
          spans.push({ start: own.at, end, ranges: own.ranges });
      }
      result.set(replica, spans);
    }
    return result;
  }

  #ownership(
    now: number,
  ): Omit<
    ShardFinalResult,
    'lost' | 'deletionsSeen' | 'deletionsUnseen' | 'lostDeletions' | 'cut' | 'outsideOwnership'
  > {
    const count = this.#options.rangeCount;
    const spans = this.#ownedSpans();
    // Per range: the owned intervals of every replica.
    const perRange: Array<Array<{ r: string; start: number; end: number }>> = Array.from(
      { length: count },
      () => [],
    );
    for (const [replica, list] of spans) {
      for (const span of list) {
        for (const range of span.ranges) {
          if (range >= 0 && range < count)
            perRange[range]?.push({ r: replica, start: span.start, end: span.end });
        }
      }
    }
    // The ring first covered every range at the latest of each range's first owned moment.
    let covered = Number.NEGATIVE_INFINITY;
    for (const list of perRange) {
      const first = Math.min(...list.map((interval) => interval.start));
      covered = Math.max(covered, first);
    }
    const keyed = new Set<number>();
    for (const src of this.#srcOf.values()) keyed.add(this.#options.rangeOf(src));
    const unownedGaps: number[] = [];
    const handoffGaps: number[] = [];
    const takeoverGaps: number[] = [];
    const cutByChaos = (replica: string | undefined, at: number): boolean =>
      this.#chaos.some((event) => event.r === replica && event.kind !== 'cont' && event.at === at);
    let longestUnowned = { ms: 0, range: -1, from: 0 };
    let doubleCount = 0;
    let doubleMax = 0;
    const ownersAt = (range: number, time: number): string[] =>
      (perRange[range] ?? [])
        .filter((interval) => interval.start <= time && interval.end > time)
        .map((interval) => interval.r);
    for (let range = 0; range < count; range++) {
      const list = [...(perRange[range] ?? [])].sort((a, b) => a.start - b.start);
      if (!Number.isFinite(covered)) break;
      // Gaps in the union after `covered`.
      let reach = covered;
      let reachBy: string | undefined;
      for (const interval of list) {
        if (interval.end <= reach) continue;
        if (interval.start > reach) {
          const gap = interval.start - reach;
          unownedGaps.push(gap);
          (cutByChaos(reachBy, reach) ? takeoverGaps : handoffGaps).push(gap);
          if (keyed.has(range) && gap > longestUnowned.ms)
            longestUnowned = { ms: gap, range, from: reach };
        }
        reach = interval.end;
        reachBy = interval.r;
      }
      if (reach < now) {
        const gap = now - reach;
        unownedGaps.push(gap);
        if (keyed.has(range) && gap > longestUnowned.ms)
          longestUnowned = { ms: gap, range, from: reach };
      }
      // Two replicas at once (sorted by start, so each later interval is checked against the earlier ones).
      for (let i = 0; i < list.length; i++) {
        const a = list[i] as (typeof list)[number];
        for (let j = i + 1; j < list.length; j++) {
          const b = list[j] as (typeof list)[number];
          if (b.start >= a.end) break;
          if (a.r === b.r) continue;
          doubleCount++;
          doubleMax = Math.max(doubleMax, Math.min(a.end, b.end, now) - b.start);
        }
      }
    }
    const rangesBadAtEnd: ShardFinalResult['rangesBadAtEnd'] = [];
    for (let range = 0; range < count; range++) {
      const owners = ownersAt(range, now);
      if (owners.length !== 1) rangesBadAtEnd.push({ range, owners });
    }
    const regained: ShardFinalResult['regained'] = [];
    for (const event of this.#chaos) {
      if (event.kind !== 'kill' && event.kind !== 'stop') continue;
      const held = (spans.get(event.r) ?? []).find(
        (span) => span.start <= event.at && span.end >= event.at,
      );
      if (held === undefined) continue;
      let worst = 0;
      for (const range of held.ranges) {
        const next = (perRange[range] ?? [])
          .filter((interval) => interval.r !== event.r || interval.start > event.at)
          .filter((interval) => interval.end > event.at)
          .map((interval) => Math.max(interval.start, event.at))
          .sort((a, b) => a - b)[0];
        worst = Math.max(worst, (next ?? now) - event.at);
      }
      regained.push({
        r: event.r,
        kind: event.kind,
        at: event.at,
        ms: worst,
        ranges: held.ranges.length,
      });
    }
    return {
      rangesBadAtEnd,
      longestUnowned,
      unownedGaps,
      handoffGaps,
      takeoverGaps,
      regained,
      doubleOwned: { count: doubleCount, maxMs: doubleMax },
    };
  }
}
