// What one member of a shard ring knows about each range, apart from any I/O: desired (and since when), claimed and
// not yet checked, owned (acted on), on its way out (releasing, then released and waiting for the ack), and the
// counts and last hand-off its status and metrics show. The ring (ring.ts) moves ranges between these states as its
// rounds write the Lease and list the ring; the protocol steps are numbered as in README-protocol.md.
import type { Clock } from '@lasso/core';
import type { ClaimCheck, RangeState } from './handoff.ts';
import { Releases } from './releases.ts';
import type { ShardHandoff, ShardRingStatus } from './ring-api.ts';
import type { RingMetrics } from './ring-metrics.ts';

const sorted = (ranges: Iterable<number>): number[] => [...ranges].sort((a, b) => a - b);

/** The range states of one member (see the top of this file). */
export class MemberRanges {
  /** Acting on (step 3): desired, written, checked, inside the fence. */
  readonly owned = new Set<number>();
  /** Claims written, not yet checked (step 4): never acted on. */
  readonly claiming = new Set<number>();
  /** Announced as releasing, then released by the caller, until the ack is written (step 5). */
  readonly releases = new Releases();
  readonly #clock: Clock;
  readonly #metrics: RingMetrics;
  #desired = new Set<number>();
  readonly #desiredSince = new Map<number, number>();
  readonly #moves = { in: 0, out: 0 };
  #lastHandoff: ShardHandoff | undefined;

  constructor(clock: Clock, metrics: RingMetrics) {
    this.#clock = clock;
    this.#metrics = metrics;
  }

  get desired(): ReadonlySet<number> {
    return this.#desired;
  }

  /**
   * The assignment changed (step 2): a range newly desired starts its hand-off clock; an owned range no longer
   * desired stops being owned and is announced releasing. Returns the ranges announced.
   */
  setDesired(desired: Set<number>): number[] {
    const now = this.#clock.monotonic();
    for (const range of desired) if (!this.#desired.has(range)) this.#desiredSince.set(range, now);
    const releasing: number[] = [];
    for (const range of this.#desired) {
      if (desired.has(range)) continue;
      this.#desiredSince.delete(range);
      if (this.owned.delete(range)) {
        this.releases.announce([range], now);
        releasing.push(range);
      }
    }
    this.#desired = desired;
    return releasing;
  }

  /** The fence ended an incarnation: nothing is owned any more; every owned range is announced releasing. */
  fenceAll(): number[] {
    const ranges = sorted(this.owned);
    this.owned.clear();
    this.releases.announce(ranges, this.#clock.monotonic());
    return ranges;
  }

  /** Count `ranges` announced releasing as moves out. */
  movedOut(ranges: readonly number[]): void {
    this.#metrics.owned.set(this.owned.size);
    this.#moves.out += ranges.length;
    this.#metrics.movesOut.inc(ranges.length);
  }

  /** The states the hand-off decisions read, with `written` the own Lease's held set as last written. */
  state(written: ReadonlySet<number>): RangeState {
    return {
      written,
      desired: this.#desired,
      owned: this.owned,
      claiming: this.claiming,
      releasing: new Set(this.releases.releasing.keys()),
      acked: new Set(this.releases.acked.keys()),
    };
  }

  /** A write of `target` succeeded: its new `claims` wait for the check; claims it no longer holds are forgotten. */
  claimsWritten(target: ReadonlySet<number>, claims: readonly number[]): void {
    for (const range of [...this.claiming]) {
      if (!target.has(range)) this.claiming.delete(range);
    }
    for (const range of claims) this.claiming.add(range);
  }

  /** A write left `written` in the Lease: the acks of the other released ranges are done (step 5). */
  acknowledged(written: ReadonlySet<number>): { done: number[]; waitedMs: number } | undefined {
    const { done, waitedMs } = this.releases.written(written, this.#clock.monotonic());
    if (done.length === 0) return undefined;
    this.#lastHandoff = this.#handoff('out', done, waitedMs);
    return { done, waitedMs };
  }

  /**
   * The check of step 4 decided: withdrawn and dropped claims are forgotten, gained ones owned (counted, with the
   * time since each became desired). Returns the withdrawn and the gained ranges, and the longest wait.
   */
  checked(check: ClaimCheck): { withdrawn: number[]; gained: number[]; waitedMs: number } {
    for (const range of [...check.dropped, ...check.withdrawn, ...check.gained]) {
      this.claiming.delete(range);
    }
    if (check.gained.length === 0) return { withdrawn: check.withdrawn, gained: [], waitedMs: 0 };
    const now = this.#clock.monotonic();
    let waited = 0;
    for (const range of check.gained) {
      this.owned.add(range);
      const since = this.#desiredSince.get(range) ?? now;
      waited = Math.max(waited, now - since);
      this.#metrics.handoffSeconds.observe((now - since) / 1000);
    }
    this.#metrics.owned.set(this.owned.size);
    this.#moves.in += check.gained.length;
    this.#metrics.movesIn.inc(check.gained.length);
    this.#lastHandoff = this.#handoff('in', check.gained, waited);
    return { withdrawn: check.withdrawn, gained: check.gained, waitedMs: waited };
  }

  /** The range part of the ring's status. */
  status(): Pick<
    ShardRingStatus,
    'desired' | 'owned' | 'releasing' | 'waiting' | 'moves' | 'lastHandoff'
  > {
    return {
      desired: sorted(this.#desired),
      owned: sorted(this.owned),
      releasing: sorted([...this.releases.releasing.keys(), ...this.releases.acked.keys()]),
      waiting: sorted([...this.#desired].filter((r) => !this.owned.has(r))),
      moves: { ...this.#moves },
      lastHandoff: this.#lastHandoff,
    };
  }

  /** The run ended: nothing is pending, claimed or desired any more (owned was emptied by the fence). */
  reset(): void {
    this.releases.clear();
    this.claiming.clear();
    this.#desired = new Set();
    this.#desiredSince.clear();
  }

  #handoff(direction: 'in' | 'out', ranges: number[], waitedMs: number): ShardHandoff {
    return {
      direction,
      ranges: sorted(ranges),
      at: new Date(this.#clock.now()).toISOString(),
      waitedMs,
    };
  }
}
