// Several shard ring members on one FakeClock and one in-memory Lease store, each in its own fake process, with
// an observer of the one invariant that matters: at no moment do two members act on the same range.
import { createTestLogger, createTestMetricsProvider, type FakeClock, type TestLogger, type TestMetricsProvider } from '@lasso/core/testing';
import { createShardRingOnStore } from '../ring.ts';
import type { ShardRing, ShardRingOptions } from '../ring-api.ts';
import { FakeLeaseCluster, FakeProcess, type FakeRingStore, ProcessClock } from './fake-ring-store.ts';

export interface HarnessMember {
  readonly identity: string;
  readonly ring: ShardRing;
  readonly process: FakeProcess;
  readonly store: FakeRingStore;
  readonly logger: TestLogger;
  readonly metrics: TestMetricsProvider;
  /** Ranges its (simulated) controllers act on: added on `gained`, removed on `releasing`. */
  readonly acting: Set<number>;
  /** Monotonic times of its fence aborts. */
  readonly fencedAt: number[];
  /** Monotonic time each range was last gained. */
  readonly gainedAt: Map<number, number>;
  /** How long its controllers take to stop after `releasing` (ms, on the clock). */
  drainMs: number;
  stop: AbortController;
  start(): Promise<void>;
}

export interface HarnessOptions {
  readonly rangeCount?: number;
  readonly latencyMs?: () => number;
}

/** The harness: members, the shared store, and the invariant's violations. */
export class RingHarness {
  readonly clock: FakeClock;
  readonly cluster: FakeLeaseCluster;
  readonly members = new Map<string, HarnessMember>();
  /** Every moment two members acted on one range: `range r: a and b @ms`. */
  readonly violations: string[] = [];
  readonly #options: HarnessOptions;

  constructor(clock: FakeClock, options: HarnessOptions = {}) {
    this.clock = clock;
    this.cluster = new FakeLeaseCluster(clock);
    this.#options = options;
  }

  add(identity: string, options: Partial<Omit<ShardRingOptions, 'client'>> = {}): HarnessMember {
    const process = new FakeProcess();
    const store = this.cluster.store(
      process,
      this.#options.latencyMs === undefined ? {} : { latencyMs: this.#options.latencyMs },
    );
    const logger = createTestLogger();
    const metrics = createTestMetricsProvider();
    const ring = createShardRingOnStore(
      {
        ring: 'widgets',
        leaseNamespace: 'lasso-system',
        identity,
        rangeCount: this.#options.rangeCount ?? 16,
        clock: new ProcessClock(this.clock, process),
        logger,
        metrics,
        random: () => 0.5,
        ...options,
      },
      store,
    );
    const member: HarnessMember = {
      identity,
      ring,
      process,
      store,
      logger,
      metrics,
      acting: new Set(),
      fencedAt: [],
      gainedAt: new Map(),
      drainMs: 0,
      stop: new AbortController(),
      start: async () => {
        member.stop = new AbortController();
        await ring.start(member.stop.signal);
      },
    };
    ring.subscribe(({ gained, releasing }) => {
      for (const range of gained) {
        this.#checkAlone(member, range);
        member.acting.add(range);
        member.gainedAt.set(range, this.clock.monotonic());
      }
      if (releasing.length === 0) return;
      // Fenced: every handler's signal aborted, nothing more is written. Otherwise in-flight work drains first.
      const fenced = ring.fence.aborted;
      if (fenced) {
        member.fencedAt.push(this.clock.monotonic());
        for (const range of releasing) member.acting.delete(range);
      }
      {
        const acknowledge = (): void => {
          for (const range of releasing) member.acting.delete(range);
          void ring.released(releasing);
        };
        if (member.drainMs <= 0) acknowledge();
        else new ProcessClock(this.clock, process).schedule(member.drainMs, acknowledge);
      }
    });
    this.members.set(identity, member);
    return member;
  }

  get(identity: string): HarnessMember {
    const member = this.members.get(identity);
    if (member === undefined) throw new Error(`no member ${identity}`);
    return member;
  }

  /** Check now: every range owned (fence read) by at most one member. */
  check(): void {
    const owners = new Map<number, string>();
    for (const member of this.members.values()) {
      if (member.process.paused) continue;
      for (const range of member.ring.owned) {
        const other = owners.get(range);
        if (other !== undefined) {
          this.violations.push(`range ${range}: ${other} and ${member.identity} @${this.clock.monotonic()}`);
        }
        owners.set(range, member.identity);
      }
    }
  }

  /** Who owns each range now (non-paused members), `undefined` where nobody does. */
  owners(): Array<string | undefined> {
    const rangeCount = this.#options.rangeCount ?? 16;
    const owners: Array<string | undefined> = new Array(rangeCount).fill(undefined);
    for (const member of this.members.values()) {
      if (member.process.paused) continue;
      for (const range of member.ring.owned) owners[range] = member.identity;
    }
    return owners;
  }

  /** Advance `ms` in steps of `stepMs`, checking the invariant after each. */
  async run(ms: number, stepMs = 250): Promise<void> {
    for (let elapsed = 0; elapsed < ms; elapsed += stepMs) {
      await this.clock.advance(Math.min(stepMs, ms - elapsed));
      this.check();
    }
  }

  /**
   * When `member` gains `range`, no other member may still own it. Asking a paused member reads its clock as the
   * first code it runs on waking would: past its deadline it fences.
   */
  #checkAlone(member: HarnessMember, range: number): void {
    for (const other of this.members.values()) {
      if (other === member) continue;
      if (other.ring.owns(range) || (!other.process.paused && other.acting.has(range))) {
        this.violations.push(
          `range ${range}: gained by ${member.identity} while ${other.identity} owns it @${this.clock.monotonic()}`,
        );
      }
    }
  }
}
