// One member of a shard ring: its own Lease (joined, renewed, fenced, left), the ring seen through an informer,
// the assignment, and the rounds that hand ranges over (claim, check, act, release, acknowledge); the state of each
// range is kept in member-ranges.ts. The protocol and why it keeps a range with at most one acting member are in
// README-protocol.md; the steps are numbered as there.
import {
  anySignal,
  type Clock,
  defaultLogger,
  drainedResult,
  errorMessage,
  guardLogger,
  type Logger,
  noopMetricsProvider,
  type StopResult,
  systemClock,
  type TimerHandle,
  timeoutSignal,
} from '@lasso/core';
import { FactoryClosedError } from '../errors.ts';
import { checkClaims, claimableRanges, keptRanges, takeOverExpired } from './handoff.ts';
import { formatRangeList } from './held-ranges.ts';
import { MemberRanges } from './member-ranges.ts';
import { type Lease, memberOfLease } from './membership.ts';
import { OwnLease } from './own-lease.ts';
import {
  type RingConfig,
  ringConfigOf,
  ShardFencedError,
  type ShardRing,
  type ShardRingChange,
  type ShardRingOptions,
  type ShardRingStatus,
} from './ring-api.ts';
import { RingFence } from './ring-fence.ts';
import { createRingMetrics, type RingMetrics } from './ring-metrics.ts';
import { createClientRingStore, type RingLeaseStore } from './ring-store.ts';
import { RingView } from './ring-view.ts';
import { decodeWatermarks, type Watermarks, watermarkFor } from './watermark-annotation.ts';

const sorted = (ranges: Iterable<number>): number[] => [...ranges].sort((a, b) => a - b);

/** Build a shard ring member on a Lease client. */
export function createShardRing(options: ShardRingOptions): ShardRing {
  const config = ringConfigOf(options);
  const client = options.client;
  if (typeof client !== 'object' || client === null || typeof client.update !== 'function') {
    throw new TypeError('shard ring: client must be a Lease client (Client<Lease>)');
  }
  const clock = options.clock ?? systemClock;
  const logger = guardLogger(options.logger ?? defaultLogger);
  const store = createClientRingStore(client, {
    namespace: config.namespace,
    ring: config.ring,
    clock,
    logger,
    metrics: options.metrics ?? noopMetricsProvider,
  });
  return new Ring(config, store, { clock, logger, metrics: options.metrics });
}

/** Build a shard ring member on any {@link RingLeaseStore} (unit tests use an in-memory one). */
export function createShardRingOnStore(
  options: Omit<ShardRingOptions, 'client'>,
  store: RingLeaseStore,
): ShardRing {
  return new Ring(ringConfigOf(options), store, options);
}

class Ring implements ShardRing {
  readonly ring: string;
  readonly identity: string;
  readonly rangeCount: number;
  readonly #config: RingConfig;
  readonly #store: RingLeaseStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: RingMetrics;
  readonly #view: RingView;
  readonly #fence: RingFence;
  readonly #own: OwnLease;
  readonly #listeners = new Set<(change: ShardRingChange) => void>();
  readonly #ranges: MemberRanges;
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #retryAt = Number.NEGATIVE_INFINITY;
  #stopping = false;
  // True from the start of #runLoop to the end of its cleanup.
  #running = false;
  #run: { readonly stop: AbortController; readonly done: Promise<StopResult> } | undefined;
  #closed = false;
  #wake: (() => void) | undefined;
  #expiryTimer: TimerHandle | undefined;
  #claimWatermarks: ReadonlyMap<string, string> = new Map();

  constructor(
    config: RingConfig,
    store: RingLeaseStore,
    options: Pick<ShardRingOptions, 'clock' | 'logger' | 'metrics'>,
  ) {
    this.#config = config;
    this.ring = config.ring;
    this.identity = config.identity;
    this.rangeCount = config.rangeCount;
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({
      ring: config.ring,
      identity: config.identity,
    });
    this.#metrics = createRingMetrics(options.metrics ?? noopMetricsProvider, config.ring);
    this.#ranges = new MemberRanges(this.#clock, this.#metrics);
    this.#view = new RingView(config, store.view, this.#clock, this.#logger, this.#metrics.members);
    this.#own = new OwnLease(config, store, this.#clock, this.#logger, this.#view.observations);
    this.#fence = new RingFence(
      config.ring,
      config.identity,
      this.#clock,
      config.renewDeadlineMs,
      (message, loud) => this.#fenced(message, loud),
    );
  }

  get owned(): readonly number[] {
    this.#fence.check();
    return sorted(this.#ranges.owned);
  }

  get members(): readonly string[] {
    return this.#view.members;
  }

  get fence(): AbortSignal {
    return this.#fence.signal;
  }

  owns(range: number): boolean {
    this.#fence.check();
    return this.#ranges.owned.has(range);
  }

  /**
   * @internal Where each write of the own Lease reads the deletion watermarks it publishes (the coordinator's);
   * sampled as the write is built.
   */
  setWatermarkSource(source: () => ReadonlyMap<string, string>): void {
    this.#own.watermarks = () => {
      const out = new Map(this.#claimWatermarks);
      for (const [key, version] of source()) out.set(key, version);
      return out;
    };
  }

  /**
   * The previous holders' watermarks of the ranges `claims` (claimed in this write, or claimed and not checked
   * yet), as `<kind>@<ranges>` entries: published from the claim on, so a member that dies between its gain and its
   * next write still names, for those ranges, a watermark from before anything it reconciled there (once gained,
   * the coordinator publishes them itself until its replay settled).
   */
  #inheritAtClaim(claims: readonly number[]): void {
    const byKey = new Map<string, { version: string; ranges: number[] }>();
    for (const range of new Set([...claims, ...this.#ranges.claiming])) {
      const text = this.#view.peekPrevious(range);
      if (text === undefined) continue;
      let watermarks: Watermarks | undefined;
      try {
        watermarks = decodeWatermarks(text);
      } catch {
        continue; // logged by the coordinator when the range is gained
      }
      if (watermarks === undefined) continue;
      for (const key of Object.keys(watermarks)) {
        const kind = key.includes('@') ? key.slice(0, key.lastIndexOf('@')) : key;
        const version = watermarkFor(watermarks, kind, range);
        if (version === undefined) continue;
        const entry = byKey.get(`${kind}\n${version}`) ?? { version, ranges: [] };
        if (!entry.ranges.includes(range)) entry.ranges.push(range);
        byKey.set(`${kind}\n${version}`, entry);
      }
    }
    this.#claimWatermarks = new Map(
      [...byKey].map(([key, { version, ranges }]) => [
        `${key.slice(0, key.indexOf('\n'))}@${formatRangeList(ranges)}`,
        version,
      ]),
    );
  }

  subscribe(listener: (change: ShardRingChange) => void): () => void {
    if (typeof listener !== 'function') {
      throw new TypeError('subscribe: listener must be a function');
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  released(ranges: readonly number[]): Promise<void> {
    if (!Array.isArray(ranges) || !ranges.every((r) => Number.isInteger(r))) {
      throw new TypeError('released: ranges must be an array of range indexes');
    }
    const releases = this.#ranges.releases;
    const pending = releases.release(ranges, this.#own.written);
    if (pending.length === 0 || !this.#running) return Promise.resolve();
    this.#wake?.();
    return releases.wait(pending);
  }

  status(): ShardRingStatus {
    this.#fence.check();
    return {
      ring: this.ring,
      identity: this.identity,
      rangeCount: this.rangeCount,
      joined: this.#fence.joined,
      members: this.#view.members,
      ...this.#ranges.status(),
    };
  }

  async start(signal: AbortSignal): Promise<void> {
    if (
      typeof signal !== 'object' ||
      signal === null ||
      typeof signal.addEventListener !== 'function'
    ) {
      throw new TypeError('ShardRing.start: signal must be an AbortSignal');
    }
    if (this.#closed) throw new FactoryClosedError(`shard ring ${this.ring}`);
    if (this.#run !== undefined) return;
    const stop = new AbortController();
    const ends = anySignal([stop.signal, signal]);
    const done = this.#runLoop(ends.signal).then(
      (result) => result,
      (error: unknown) => {
        this.#logger.error('shard ring failed', { error: errorMessage(error) });
        return drainedResult;
      },
    );
    const run = { stop, done };
    this.#run = run;
    void done.then(() => {
      ends.dispose();
      if (this.#run === run) this.#run = undefined;
    });
  }

  stopped(): Promise<StopResult> {
    return this.#run?.done ?? Promise.resolve(drainedResult);
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#run?.stop.abort(
      new ShardFencedError(this.ring, this.identity, 'the shard ring was closed'),
    );
    await this.stopped();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- the run ----------------------------------------------------------------------------------------------

  async #runLoop(signal: AbortSignal): Promise<StopResult> {
    this.#stopping = false;
    this.#running = true;
    this.#lastSentAt = Number.NEGATIVE_INFINITY;
    this.#retryAt = Number.NEGATIVE_INFINITY;
    // The informer and the writes outlive `signal`: a stop keeps renewing until every range was released.
    const life = new AbortController();
    // A change in the ring (an ack, a member joining or leaving) starts a round at once.
    const unsubscribe = this.#store.view.subscribe(() => {
      this.#refresh();
      this.#wake?.();
    });
    let result: StopResult = drainedResult;
    try {
      await this.#store.view.start(life.signal);
      try {
        await this.#store.view.whenSynced(signal);
      } catch {
        return drainedResult;
      }
      this.#refresh();
      while (!signal.aborted) {
        await this.#step(life.signal);
        await this.#pause(signal);
      }
      result = await this.#leave(life.signal);
    } finally {
      unsubscribe();
      this.#expiryTimer?.cancel();
      this.#expiryTimer = undefined;
      this.#fence.end('the shard ring stopped', false);
      life.abort();
      await this.#store.view.stopped();
      this.#ranges.reset();
      this.#view.reset();
      this.#running = false;
    }
    return result;
  }

  /** Wait one retry period (jittered), or less when woken (a change in the ring, an ack to write). */
  #pause(signal: AbortSignal): Promise<void> {
    const delayMs = this.#config.retryPeriodMs * (1 + this.#config.random() * 0.2);
    return new Promise<void>((resolve) => {
      const done = (): void => {
        timer.cancel();
        signal.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = this.#clock.schedule(delayMs, done, { keepAlive: true });
      signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }

  /** Graceful stop: release every range, wait for the acks (bounded), then delete the own Lease. */
  async #leave(signal: AbortSignal): Promise<StopResult> {
    this.#stopping = true;
    this.#refresh();
    const bound = this.#clock.monotonic() + this.#config.gracefulShutdownTimeoutMs;
    const releasing = this.#ranges.releases.releasing;
    const busy = (): boolean => this.#own.written.size > 0 || releasing.size > 0;
    while (busy() && this.#clock.monotonic() < bound) {
      await this.#step(signal);
      if (!busy()) break;
      const stop = timeoutSignal(this.#clock, Math.max(0, bound - this.#clock.monotonic()));
      await this.#pause(stop.signal);
      stop.clear();
    }
    const pending = sorted(new Set([...releasing.keys(), ...this.#own.written]));
    if (pending.length > 0) {
      this.#logger.error(
        'shard ranges not released within the graceful shutdown timeout; the Lease is left to expire',
        { ranges: formatRangeList(pending), timeoutMs: this.#config.gracefulShutdownTimeoutMs },
      );
      return { drained: false, pending: pending.map((r) => `shard range ${r}`) };
    }
    await this.#own.delete();
    return drainedResult;
  }

  // ---- membership and assignment (protocol step 2) -----------------------------------------------------------

  /** Read the informer's view, recompute members and the assignment, release what is no longer desired. */
  #refresh(): void {
    this.#fence.check();
    const desired = this.#view.refresh(this.#running && !this.#stopping);
    this.#scheduleExpiry();
    const releasing = this.#ranges.setDesired(desired);
    if (releasing.length > 0) {
      this.#announceRelease(releasing, this.#stopping ? 'stopping' : 'assigned to another member');
    }
  }

  #announceRelease(ranges: number[], why: string): void {
    this.#ranges.movedOut(ranges);
    this.#logger.info('releasing shard ranges', { ranges: formatRangeList(ranges), why });
    // Nobody acts on the ranges when nobody listens: nothing to wait for.
    if (this.#listeners.size === 0) void this.released(ranges);
    else this.#emit({ gained: [], releasing: sorted(ranges) });
    this.#wake?.();
  }

  #scheduleExpiry(): void {
    this.#expiryTimer?.cancel();
    this.#expiryTimer = undefined;
    const at = this.#view.observations.nextExpiryAt();
    if (at === undefined || !this.#running) return;
    this.#expiryTimer = this.#clock.schedule(Math.max(0, at - this.#clock.monotonic()), () => {
      this.#expiryTimer = undefined;
      this.#refresh();
      this.#wake?.();
    });
  }

  #emit(change: ShardRingChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#logger.error('shard ring listener failed', { error: errorMessage(error) });
      }
    }
  }

  // ---- the fence (protocol step 3) ---------------------------------------------------------------------------

  /** The fence ended an incarnation: stop acting on everything at once. `loud` for a fence, not a stop. */
  #fenced(message: string, loud: boolean): void {
    if (loud) {
      this.#logger.warn('shard ring member fenced: it stops acting on every range', {
        reason: message,
      });
    }
    const ranges = this.#ranges.fenceAll();
    if (ranges.length > 0) this.#announceRelease(ranges, loud ? 'fenced' : 'stopped');
  }

  // ---- one round: join or renew, take over, claim, check, acknowledge (steps 1, 4, 5) ------------------------

  async #step(signal: AbortSignal): Promise<void> {
    this.#fence.check();
    if (signal.aborted) return;
    this.#refresh();
    if (!this.#stopping) {
      const taken = await takeOverExpired(
        {
          store: this.#store,
          observations: this.#view.observations,
          ownName: this.#config.leaseName,
          clock: this.#clock,
          logger: this.#logger,
          timeoutMs: this.#config.renewDeadlineMs,
        },
        signal,
      );
      for (const { name, version } of taken) this.#view.takenOver(name, version);
      if (taken.length > 0) this.#refresh();
    }
    const claims = this.#stopping
      ? []
      : claimableRanges(this.#ranges.state(this.#own.written), this.#view.others());
    const target = keptRanges(this.#ranges.state(this.#own.written));
    for (const range of claims) target.add(range);
    this.#inheritAtClaim(claims);
    const now = this.#clock.monotonic();
    const changed = !sameSet(target, this.#own.written);
    const due = now >= this.#lastSentAt + this.#config.retryPeriodMs || !this.#fence.joined;
    const needed = target.size > 0 || !this.#stopping || this.#own.known;
    if ((changed || due) && needed && now >= this.#retryAt) {
      const outcome = await this.#own.write(target, signal, () => this.#fence.check());
      if (outcome.written) {
        this.#retryAt = Number.NEGATIVE_INFINITY;
        this.#lastSentAt = outcome.sentAt;
        if (this.#fence.renewed(outcome.sentAt)) {
          this.#logger.info('joined the shard ring', { lease: this.#config.leaseName });
        }
        if (this.#fence.joined) this.#ranges.claimsWritten(target, claims);
        this.#acknowledged();
      } else {
        const jitter = 1 + this.#config.random() * 0.2;
        this.#retryAt = this.#clock.monotonic() + this.#config.retryPeriodMs * jitter;
        // Gone: whatever the Lease held may be claimed by others now, so fence at once.
        if (outcome.lost) {
          this.#ranges.claiming.clear();
          this.#fence.end('the Lease was deleted', true);
          this.#acknowledged();
        }
      }
    }
    if (this.#ranges.claiming.size > 0 && this.#fence.joined) await this.#check(signal);
  }

  /** Acks written: resolve the waiters of ranges no longer in the Lease, and count the hand-off out. */
  #acknowledged(): void {
    const acked = this.#ranges.acknowledged(this.#own.written);
    if (acked === undefined) return;
    const { done, waitedMs } = acked;
    this.#logger.info('shard ranges released', { ranges: formatRangeList(done), waitedMs });
  }

  /** Step 4's check of the written claims against a fresh list; see {@link checkClaims}. */
  async #check(signal: AbortSignal): Promise<void> {
    const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
    const attempt = anySignal([signal, timeout.signal]);
    let leases: readonly Lease[];
    try {
      leases = await this.#store.list(attempt.signal);
    } catch (error) {
      if (!signal.aborted) {
        this.#logger.warn('shard ring Lease list failed', { error: errorMessage(error) });
      }
      return;
    } finally {
      attempt.dispose();
      timeout.clear();
    }
    this.#fence.check();
    if (!this.#fence.joined || signal.aborted) return;
    const { withdrawn, gained, waitedMs } = this.#ranges.checked(
      checkClaims(
        this.#ranges.state(this.#own.written),
        leases.map((lease) => memberOfLease(lease, this.rangeCount)),
        this.#config.leaseName,
      ),
    );
    if (withdrawn.length > 0) {
      this.#logger.info('shard range claims withdrawn: another member holds them', {
        ranges: formatRangeList(withdrawn),
      });
      this.#wake?.();
    }
    if (gained.length === 0) return;
    this.#logger.info('shard ranges claimed', { ranges: formatRangeList(gained), waitedMs });
    const previous = new Map<number, string | undefined>();
    for (const range of gained) {
      const watermarks = this.#view.takePrevious(range);
      if (watermarks !== null) previous.set(range, watermarks);
    }
    this.#emit({ gained, releasing: [], previous });
  }
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}
