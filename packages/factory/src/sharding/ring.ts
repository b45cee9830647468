// One member of a shard ring: its own Lease (joined, renewed, fenced, left), the ring seen through an informer,
// the assignment, and the hand-off of ranges (claim, check, act, release, acknowledge). The protocol and why it
// keeps a range with at most one acting member are in README-protocol.md; the steps are numbered as there.
import { isConflict, isNotFound } from '@lasso/client';
import { RenewDeadline } from '@lasso/controller';
import {
  anySignal,
  type Clock,
  type Counter,
  defaultLogger,
  drainedResult,
  errorMessage,
  type Gauge,
  guardLogger,
  type Histogram,
  type Logger,
  noopMetricsProvider,
  type StopResult,
  systemClock,
  type TimerHandle,
  timeoutSignal,
} from '@lasso/core';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { FactoryClosedError } from '../errors.ts';
import { assignShardRanges } from './assignment.ts';
import { encodeHeldRanges, formatRangeList, shardHeldAnnotation } from './held-ranges.ts';
import { holdsRange, MemberObservations, memberOfLease, shardRingLabel } from './membership.ts';
import {
  type RingConfig,
  ringConfigOf,
  ShardFencedError,
  type ShardHandoff,
  type ShardRing,
  type ShardRingChange,
  type ShardRingOptions,
  type ShardRingStatus,
} from './ring-api.ts';
import { createClientRingStore, type RingLeaseStore } from './ring-store.ts';

const sorted = (ranges: Iterable<number>): number[] => [...ranges].sort((a, b) => a - b);

/** One stretch of time during which this member's Lease is renewed within its deadline. */
interface Incarnation {
  readonly fence: AbortController;
  readonly deadline: RenewDeadline;
}

interface AckWaiter {
  readonly ranges: readonly number[];
  readonly resolve: () => void;
}

/** Build a shard ring member on a Lease client. */
export function createShardRing(options: ShardRingOptions): ShardRing {
  const config = ringConfigOf(options);
  const client = options.client;
  if (typeof client !== 'object' || client === null || typeof client.update !== 'function') {
    throw new TypeError('shard ring: client must be a Lease client (Client<Lease>)');
  }
  const clock = options.clock ?? systemClock;
  const logger = guardLogger(options.logger ?? defaultLogger);
  const metrics = options.metrics ?? noopMetricsProvider;
  const store = createClientRingStore(client, {
    namespace: config.namespace,
    ring: config.ring,
    clock,
    logger,
    metrics,
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
  readonly #observations: MemberObservations;
  readonly #listeners = new Set<(change: ShardRingChange) => void>();
  readonly #membersGauge: Gauge;
  readonly #ownedGauge: Gauge;
  readonly #movesIn: Counter;
  readonly #movesOut: Counter;
  readonly #handoffSeconds: Histogram;

  // Own Lease as last written or read (its resourceVersion guards the next write); undefined: not known.
  #lease: Lease | undefined;
  // Ranges in the own Lease as last written (step 1's held set).
  #written = new Set<number>();
  // Acting on (step 3): desired, written, checked, inside the fence.
  readonly #owned = new Set<number>();
  // Claims written, not yet checked (step 4): never acted on.
  readonly #claiming = new Set<number>();
  // Announced as releasing; waiting for released() (step 5).
  readonly #releasing = new Map<number, number>();
  // Released by the caller; the ack is the next write without them.
  readonly #acked = new Map<number, number>();
  #ackWaiters: AckWaiter[] = [];
  #desired = new Set<number>();
  readonly #desiredSince = new Map<number, number>();
  #members: string[] = [];
  #owners: readonly string[] = [];
  // Leases we deleted as expired (name -> version): ignored until the informer drops them.
  readonly #takenOver = new Map<string, string>();
  #incarnation: Incarnation | undefined;
  #idleFence: AbortController;
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #retryAt = Number.NEGATIVE_INFINITY;
  #stopping = false;
  // True from the start of #runLoop to the end of its cleanup.
  #running = false;
  // Held sets of writes whose answer did not arrive: a Lease read later that holds only these is ours.
  #attempted = new Set<number>();
  readonly #warnedMalformed = new Set<string>();
  #run: { readonly stop: AbortController; readonly done: Promise<StopResult> } | undefined;
  #closed = false;
  #wake: (() => void) | undefined;
  #expiryTimer: TimerHandle | undefined;
  #moves = { in: 0, out: 0 };
  #lastHandoff: ShardHandoff | undefined;

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
    this.#observations = new MemberObservations(this.#clock);
    const metrics = options.metrics ?? noopMetricsProvider;
    const labels = { ring: config.ring };
    this.#membersGauge = metrics.gauge({
      name: 'lasso_shard_members',
      help: 'Live members of the shard ring, as this member sees them.',
      labels,
    });
    this.#ownedGauge = metrics.gauge({
      name: 'lasso_shard_owned_ranges',
      help: 'Ranges of the shard ring this member acts on.',
      labels,
    });
    const moves = {
      name: 'lasso_shard_moves_total',
      help: 'Ranges this member claimed (in) or released (out).',
    };
    this.#movesIn = metrics.counter({ ...moves, labels: { ...labels, direction: 'in' } });
    this.#movesOut = metrics.counter({ ...moves, labels: { ...labels, direction: 'out' } });
    this.#handoffSeconds = metrics.histogram({
      name: 'lasso_shard_handoff_seconds',
      help: 'Time from a range becoming desired for this member to its claim.',
      labels,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60],
    });
    this.#idleFence = this.#abortedFence('not joined');
  }

  get owned(): readonly number[] {
    this.#checkFence();
    return sorted(this.#owned);
  }

  get members(): readonly string[] {
    return this.#members;
  }

  get fence(): AbortSignal {
    this.#checkFence();
    return this.#incarnation?.fence.signal ?? this.#idleFence.signal;
  }

  owns(range: number): boolean {
    this.#checkFence();
    return this.#owned.has(range);
  }

  subscribe(listener: (change: ShardRingChange) => void): () => void {
    if (typeof listener !== 'function')
      throw new TypeError('subscribe: listener must be a function');
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  released(ranges: readonly number[]): Promise<void> {
    if (!Array.isArray(ranges) || !ranges.every((r) => Number.isInteger(r))) {
      throw new TypeError('released: ranges must be an array of range indexes');
    }
    for (const range of ranges) {
      const since = this.#releasing.get(range);
      if (since === undefined) continue;
      this.#releasing.delete(range);
      this.#acked.set(range, since);
    }
    const pending = ranges.filter((range) => this.#written.has(range) && this.#acked.has(range));
    if (pending.length === 0 || !this.#running) return Promise.resolve();
    this.#wake?.();
    return new Promise((resolve) => this.#ackWaiters.push({ ranges: pending, resolve }));
  }

  status(): ShardRingStatus {
    this.#checkFence();
    return {
      ring: this.ring,
      identity: this.identity,
      rangeCount: this.rangeCount,
      joined: this.#incarnation !== undefined,
      members: this.#members,
      desired: sorted(this.#desired),
      owned: sorted(this.#owned),
      releasing: sorted([...this.#releasing.keys(), ...this.#acked.keys()]),
      waiting: sorted([...this.#desired].filter((r) => !this.#owned.has(r))),
      moves: { ...this.#moves },
      lastHandoff: this.#lastHandoff,
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

  // ---- the run ---------------------------------------------------------------------------------------------

  async #runLoop(signal: AbortSignal): Promise<StopResult> {
    this.#stopping = false;
    this.#running = true;
    // The informer and the writes outlive `signal`: a stop keeps renewing until every range was released.
    const life = new AbortController();
    const unsubscribe = this.#store.view.subscribe(() => this.#refresh());
    await this.#store.view.start(life.signal);
    let result: StopResult = drainedResult;
    try {
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
      this.#endIncarnation('the shard ring stopped', false);
      life.abort();
      await this.#store.view.stopped();
      for (const waiter of this.#ackWaiters.splice(0)) waiter.resolve();
      this.#members = [];
      this.#owners = [];
      this.#membersGauge.set(0);
      this.#running = false;
    }
    return result;
  }

  /** Wait one retry period, or less when woken (a change in the ring, an ack to write). */
  #pause(signal: AbortSignal): Promise<void> {
    const jitter = 1 + this.#config.random() * 0.2;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        timer.cancel();
        signal.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = this.#clock.schedule(this.#config.retryPeriodMs * jitter, done, {
        keepAlive: true,
      });
      signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }

  /** Graceful stop: release every range, wait for the acks (bounded), then delete the own Lease. */
  async #leave(signal: AbortSignal): Promise<StopResult> {
    this.#stopping = true;
    this.#refresh();
    const bound = this.#clock.monotonic() + this.#config.gracefulShutdownTimeoutMs;
    while (this.#written.size > 0 || this.#releasing.size > 0) {
      if (this.#clock.monotonic() >= bound) break;
      await this.#step(signal);
      if (this.#written.size === 0 && this.#releasing.size === 0) break;
      const stop = timeoutSignal(this.#clock, Math.max(0, bound - this.#clock.monotonic()));
      await this.#pause(stop.signal);
      stop.clear();
    }
    const pending = sorted(new Set([...this.#releasing.keys(), ...this.#written]));
    if (pending.length > 0) {
      this.#logger.error(
        'shard ranges not released within the graceful shutdown timeout; the Lease is left to expire',
        {
          ranges: formatRangeList(pending),
          timeoutMs: this.#config.gracefulShutdownTimeoutMs,
        },
      );
      return { drained: false, pending: pending.map((r) => `shard range ${r}`) };
    }
    const lease = this.#lease;
    if (lease?.metadata?.resourceVersion !== undefined) {
      const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
      try {
        await this.#store.delete(
          this.#config.leaseName,
          lease.metadata.resourceVersion,
          timeout.signal,
        );
        this.#logger.info('left the shard ring: Lease deleted', { lease: this.#config.leaseName });
      } catch (error) {
        if (!isNotFound(error)) {
          this.#logger.warn('shard ring Lease delete failed; it expires on its own', {
            error: errorMessage(error),
          });
        }
      } finally {
        timeout.clear();
      }
    }
    this.#lease = undefined;
    return drainedResult;
  }

  // ---- membership and assignment (protocol step 2) ---------------------------------------------------------

  /** Read the informer's view, recompute members and the assignment, release what is no longer desired. */
  #refresh(): void {
    this.#checkFence();
    const leases = this.#store.view
      .leases()
      .map((lease) => memberOfLease(lease, this.rangeCount))
      .filter((lease) => this.#takenOver.get(lease.name) !== lease.version);
    for (const name of [...this.#takenOver.keys()]) {
      if (!leases.some((lease) => lease.name === name)) this.#takenOver.delete(name);
    }
    this.#observations.replace(leases);
    const others = this.#observations
      .live()
      .filter((lease) => lease.name !== this.#config.leaseName)
      .map((lease) => lease.identity);
    for (const lease of leases) {
      if (lease.held !== 'all' || this.#warnedMalformed.has(lease.version)) continue;
      this.#warnedMalformed.add(lease.version);
      this.#logger.warn(
        'a shard ring Lease has a held-ranges annotation this member cannot read (another range count?): its holder counts as holding every range',
        {
          lease: lease.name,
        },
      );
    }
    const running = this.#running && !this.#stopping;
    const members = sorted0([...new Set(running ? [...others, this.identity] : others)]);
    if (members.join('\n') !== this.#members.join('\n')) this.#membershipChanged(members);
    this.#scheduleExpiry();
    const desired = new Set<number>();
    if (running) {
      this.#owners.forEach((owner, range) => {
        if (owner === this.identity) desired.add(range);
      });
    }
    this.#setDesired(desired);
  }

  #membershipChanged(members: string[]): void {
    const before = this.#members;
    const owners = members.length > 0 ? assignShardRanges(members, this.rangeCount) : [];
    let moved = 0;
    if (this.#owners.length > 0)
      owners.forEach((owner, range) => {
        if (owner !== this.#owners[range]) moved++;
      });
    const joined = members.filter((member) => !before.includes(member));
    const left = before.filter((member) => !members.includes(member));
    this.#members = members;
    this.#owners = owners;
    this.#membersGauge.set(members.length);
    this.#logger.info('shard ring membership changed', {
      members: members.length,
      joined: joined.join(','),
      left: left.join(','),
      movedRanges: moved,
      desiredRanges: owners.filter((owner) => owner === this.identity).length,
    });
  }

  #setDesired(desired: Set<number>): void {
    const now = this.#clock.monotonic();
    for (const range of desired) if (!this.#desired.has(range)) this.#desiredSince.set(range, now);
    const releasing: number[] = [];
    for (const range of this.#desired) {
      if (desired.has(range)) continue;
      this.#desiredSince.delete(range);
      if (this.#owned.delete(range)) {
        this.#releasing.set(range, now);
        releasing.push(range);
      }
    }
    this.#desired = desired;
    if (releasing.length > 0) {
      this.#announceRelease(releasing, this.#stopping ? 'stopping' : 'assigned to another member');
    }
  }

  #announceRelease(ranges: number[], why: string): void {
    this.#ownedGauge.set(this.#owned.size);
    this.#moves.out += ranges.length;
    this.#movesOut.inc(ranges.length);
    this.#logger.info('releasing shard ranges', { ranges: formatRangeList(ranges), why });
    if (this.#listeners.size === 0) {
      // Nobody acts on the ranges: nothing to wait for.
      void this.released(ranges);
    } else {
      this.#emit({ gained: [], releasing: sorted(ranges) });
    }
    this.#wake?.();
  }

  #scheduleExpiry(): void {
    this.#expiryTimer?.cancel();
    this.#expiryTimer = undefined;
    const at = this.#observations.nextExpiryAt();
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

  // ---- the fence (protocol step 3) -------------------------------------------------------------------------

  #abortedFence(message: string): AbortController {
    const controller = new AbortController();
    controller.abort(new ShardFencedError(this.ring, this.identity, message));
    return controller;
  }

  /** Past the renew deadline (a paused process that just woke): fence now, before anything else runs. */
  #checkFence(): void {
    this.#incarnation?.deadline.check();
  }

  /** A successful write sent at `sentAt`: extend the deadline, or join (a new incarnation, a new fence). */
  #renewed(sentAt: number): void {
    this.#lastSentAt = sentAt;
    const incarnation = this.#incarnation;
    if (incarnation !== undefined) {
      incarnation.deadline.extend(sentAt);
      return;
    }
    const fence = new AbortController();
    const deadline = new RenewDeadline(this.#clock, this.#config.renewDeadlineMs, sentAt, () =>
      this.#endIncarnation(`Lease not renewed within ${this.#config.renewDeadlineMs} ms`, true),
    );
    this.#incarnation = { fence, deadline };
    this.#logger.info('joined the shard ring', { lease: this.#config.leaseName });
    // A deadline already past (the write was answered after a pause) fences at once.
    deadline.check();
  }

  /** Stop acting on everything at once; `loud` for a fence (not a stop). */
  #endIncarnation(message: string, loud: boolean): void {
    const incarnation = this.#incarnation;
    if (incarnation === undefined) return;
    this.#incarnation = undefined;
    incarnation.deadline.cancel();
    const reason = new ShardFencedError(this.ring, this.identity, message);
    this.#idleFence = this.#abortedFence(message);
    if (loud)
      this.#logger.warn('shard ring member fenced: stops acting on every range', {
        reason: message,
      });
    incarnation.fence.abort(reason);
    const ranges = sorted(this.#owned);
    this.#owned.clear();
    const now = this.#clock.monotonic();
    for (const range of ranges) this.#releasing.set(range, now);
    if (ranges.length > 0) this.#announceRelease(ranges, loud ? 'fenced' : 'stopped');
  }

  // ---- one round: join or renew, take over, claim, check, acknowledge (steps 1, 4, 5) -----------------------

  async #step(signal: AbortSignal): Promise<void> {
    this.#checkFence();
    if (signal.aborted) return;
    this.#refresh();
    if (!this.#stopping) await this.#takeOverExpired(signal);
    const claims = this.#stopping ? [] : this.#claimable();
    const keep = [...this.#written].filter(
      (r) =>
        this.#owned.has(r) ||
        this.#releasing.has(r) ||
        (this.#claiming.has(r) && this.#desired.has(r)),
    );
    const target = new Set([...keep, ...claims]);
    const now = this.#clock.monotonic();
    const changed = !sameSet(target, this.#written);
    const due =
      now >= this.#lastSentAt + this.#config.retryPeriodMs || this.#incarnation === undefined;
    if (
      (changed || due) &&
      now >= this.#retryAt &&
      (target.size > 0 || !this.#stopping || this.#lease !== undefined)
    ) {
      const wrote = await this.#write(target, signal);
      if (wrote) {
        for (const range of [...this.#claiming])
          if (!target.has(range)) this.#claiming.delete(range);
        for (const range of claims) this.#claiming.add(range);
        this.#acknowledged();
      }
    }
    if (this.#claiming.size > 0 && this.#incarnation !== undefined) await this.#check(signal);
  }

  /** Desired ranges no Lease in the view holds (step 4, first case). */
  #claimable(): number[] {
    const others = this.#observations
      .all()
      .filter((lease) => lease.name !== this.#config.leaseName);
    return sorted(
      [...this.#desired].filter(
        (range) =>
          !this.#written.has(range) &&
          !this.#releasing.has(range) &&
          !this.#acked.has(range) &&
          !others.some((lease) => holdsRange(lease, range)),
      ),
    );
  }

  /**
   * Step 4, second case: a Lease not renewed for its whole duration on our clock is deleted, on condition that it is
   * still the version we saw (a renewal in flight makes the delete fail, and the delete makes that renewal fail).
   */
  async #takeOverExpired(signal: AbortSignal): Promise<void> {
    for (const lease of this.#observations.all()) {
      if (lease.name === this.#config.leaseName || this.#observations.isLive(lease.name)) continue;
      if (!this.#observations.isExpired(lease.name)) continue;
      const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
      const attempt = anySignal([signal, timeout.signal]);
      try {
        await this.#store.delete(lease.name, lease.version, attempt.signal);
        this.#takenOver.set(lease.name, lease.version);
        this.#logger.info('took over the Lease of an expired shard ring member', {
          lease: lease.name,
          member: lease.identity,
          heldRanges: lease.held === 'all' ? 'all' : formatRangeList(lease.held),
        });
      } catch (error) {
        if (isNotFound(error) || isConflict(error)) {
          this.#logger.debug('expired shard ring Lease changed or went away first', {
            lease: lease.name,
          });
        } else if (!signal.aborted) {
          this.#logger.warn('could not take over an expired shard ring Lease', {
            lease: lease.name,
            error: errorMessage(error),
          });
        }
      } finally {
        attempt.dispose();
        timeout.clear();
      }
    }
    this.#refresh();
  }

  /** Write the own Lease with `held` (a renewal, a join, claims and acks in one). True when it was written. */
  async #write(held: Set<number>, signal: AbortSignal): Promise<boolean> {
    const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
    const attempt = anySignal([signal, timeout.signal]);
    const now = new Date(this.#clock.now()).toISOString().replace(/Z$/, '000Z');
    try {
      const base = this.#lease ?? (await this.#readOwn(attempt.signal));
      if (base === 'wait' || attempt.signal.aborted) return false;
      const lease = this.#leaseWith(base, held, now);
      const sentAt = this.#clock.monotonic();
      // A write may not start once past the deadline (a paused process): the fence check runs first.
      this.#checkFence();
      for (const range of held) this.#attempted.add(range);
      const written =
        base === undefined
          ? await this.#store.create(lease, attempt.signal)
          : await this.#store.update(lease, attempt.signal);
      // An answer that arrives past the deadline (paused with the write in flight) fences before it is used.
      this.#checkFence();
      this.#lease = written;
      this.#written = new Set(held);
      this.#attempted = new Set();
      this.#retryAt = Number.NEGATIVE_INFINITY;
      this.#renewed(sentAt);
      return this.#incarnation !== undefined;
    } catch (error) {
      this.#retryAt =
        this.#clock.monotonic() + this.#config.retryPeriodMs * (1 + this.#config.random() * 0.2);
      if (signal.aborted) return false;
      if (isConflict(error) || isNotFound(error)) {
        // Changed or gone under us: a lost answer to our own write, or the Lease was taken over as expired.
        this.#lease = undefined;
        if (isNotFound(error)) this.#lost('the Lease was deleted');
        this.#logger.warn('shard ring Lease changed under this member; reading it again', {
          error: errorMessage(error),
        });
      } else {
        this.#logger.warn('shard ring Lease write failed', { error: errorMessage(error) });
      }
      return false;
    } finally {
      attempt.dispose();
      timeout.clear();
    }
  }

  /**
   * Read the own Lease before the first write of a run: undefined when there is none (create it), the Lease to
   * update, or 'wait' while a Lease of this identity from an earlier process still holds ranges and has not expired.
   */
  async #readOwn(signal: AbortSignal): Promise<Lease | undefined | 'wait'> {
    let lease: Lease;
    try {
      lease = await this.#store.get(this.#config.leaseName, signal);
    } catch (error) {
      if (isNotFound(error)) {
        this.#written = new Set();
        return undefined;
      }
      throw error;
    }
    const member = memberOfLease(lease, this.rangeCount);
    this.#observations.observe(member);
    const held = member.held;
    if (
      held !== 'all' &&
      (held.size === 0 ||
        (member.identity === this.identity &&
          [...held].every((range) => this.#written.has(range) || this.#attempted.has(range))))
    ) {
      // Empty, or our own earlier write whose answer was lost: keep what it holds until the next write says otherwise.
      this.#written = new Set(held);
      return lease;
    }
    if (!this.#observations.isExpired(member.name)) {
      // Another process with this identity (or this one before a restart) may still act on what it holds.
      this.#logger.warn(
        'a Lease of this identity holds shard ranges; waiting for it to expire before joining',
        {
          lease: member.name,
        },
      );
      return 'wait';
    }
    this.#written = new Set();
    return lease;
  }

  #leaseWith(base: Lease | undefined, held: Set<number>, now: string): Lease {
    const spec = {
      ...(base?.spec ?? {}),
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.#config.leaseDurationMs / 1000),
      renewTime: now,
    };
    if (base === undefined || base.spec?.holderIdentity !== this.identity) spec.acquireTime = now;
    return {
      ...(base ?? {}),
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(base?.metadata ?? {}),
        name: this.#config.leaseName,
        namespace: this.#config.namespace,
        labels: { ...(base?.metadata?.labels ?? {}), [shardRingLabel]: this.ring },
        annotations: {
          ...(base?.metadata?.annotations ?? {}),
          [shardHeldAnnotation]: encodeHeldRanges(held, this.rangeCount),
        },
      },
      spec,
    };
  }

  /** The own Lease is gone: whatever it held may be claimed by others now, so fence at once. */
  #lost(message: string): void {
    this.#written = new Set();
    this.#claiming.clear();
    this.#endIncarnation(message, true);
  }

  /** Acks written: resolve the waiters of ranges no longer in the Lease, and count the hand-off out. */
  #acknowledged(): void {
    const now = this.#clock.monotonic();
    const done: number[] = [];
    let waited = 0;
    for (const [range, since] of [...this.#acked]) {
      if (this.#written.has(range)) continue;
      this.#acked.delete(range);
      done.push(range);
      waited = Math.max(waited, now - since);
    }
    if (done.length > 0) {
      this.#lastHandoff = this.#handoff('out', done, waited);
      this.#logger.info('shard ranges released', {
        ranges: formatRangeList(done),
        waitedMs: waited,
      });
    }
    const waiters = this.#ackWaiters;
    this.#ackWaiters = [];
    for (const waiter of waiters) {
      if (waiter.ranges.some((range) => this.#written.has(range))) this.#ackWaiters.push(waiter);
      else waiter.resolve();
    }
  }

  /**
   * Check the claims against a fresh list (step 4): a claim is ours only when, read after our write, no other Lease
   * holds it. Two members that claimed the same range at once cannot both pass: whichever wrote later reads the
   * other's claim. A claim that fails is withdrawn by the next write, never acted on.
   */
  async #check(signal: AbortSignal): Promise<void> {
    const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
    const attempt = anySignal([signal, timeout.signal]);
    let leases: readonly Lease[];
    try {
      leases = await this.#store.list(attempt.signal);
    } catch (error) {
      if (!signal.aborted)
        this.#logger.warn('shard ring Lease list failed', { error: errorMessage(error) });
      return;
    } finally {
      attempt.dispose();
      timeout.clear();
    }
    this.#checkFence();
    if (this.#incarnation === undefined || signal.aborted) return;
    const members = leases.map((lease) => memberOfLease(lease, this.rangeCount));
    const own = members.find((lease) => lease.name === this.#config.leaseName);
    const others = members.filter((lease) => lease.name !== this.#config.leaseName);
    const gained: number[] = [];
    const withdrawn: number[] = [];
    for (const range of [...this.#claiming]) {
      if (!this.#written.has(range)) {
        this.#claiming.delete(range);
        continue;
      }
      if (
        own === undefined ||
        !holdsRange(own, range) ||
        others.some((lease) => holdsRange(lease, range))
      ) {
        this.#claiming.delete(range);
        withdrawn.push(range);
      } else if (this.#desired.has(range)) {
        this.#claiming.delete(range);
        gained.push(range);
      }
    }
    if (withdrawn.length > 0) {
      this.#logger.info('shard range claims withdrawn: another member holds them', {
        ranges: formatRangeList(withdrawn),
      });
      this.#wake?.();
    }
    if (gained.length === 0) return;
    const now = this.#clock.monotonic();
    let waited = 0;
    for (const range of gained) {
      this.#owned.add(range);
      const since = this.#desiredSince.get(range) ?? now;
      waited = Math.max(waited, now - since);
      this.#handoffSeconds.observe((now - since) / 1000);
    }
    this.#ownedGauge.set(this.#owned.size);
    this.#moves.in += gained.length;
    this.#movesIn.inc(gained.length);
    this.#lastHandoff = this.#handoff('in', gained, waited);
    this.#logger.info('shard ranges claimed', {
      ranges: formatRangeList(gained),
      waitedMs: waited,
    });
    this.#emit({ gained, releasing: [] });
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

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}

function sorted0(values: string[]): string[] {
  return values.sort();
}
