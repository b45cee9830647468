// The state machine of one leader election candidate: acquire, renew, release, and the observed-time expiry
// of a rival's lease. Ports the behaviour of client-go tools/leaderelection/leaderelection.go (not in lasso).
import { isNotFound } from '@lasso/client';
import {
  anySignal,
  type Clock,
  type Counter,
  drainedResult,
  drainWithin,
  errorMessage,
  type Gauge,
  LassoError,
  type Logger,
  type StopResult,
  sleep,
  timeoutSignal,
} from '@lasso/core';
import {
  type ElectorConfig,
  jitterFactor,
  type LeaderCallbacks,
  type LeaderElector,
  LeadershipLostError,
} from './leader-elector-api.ts';
import { RenewDeadline, renewTick } from './leader-elector-fence.ts';
import { type LeaderElectionRecord, LeaseLock, microTime, recordKey } from './lease-lock.ts';

interface Observation {
  readonly record: LeaderElectionRecord;
  readonly key: string;
  /** Our monotonic time when this record was first seen: expiry counts from here, never from renewTime. */
  readonly atMs: number;
}

/** One campaign: from `start` (or `run`) until leadership was lost or its signal aborted. */
interface Campaign {
  /** Aborted by `close()`. */
  readonly stop: AbortController;
  readonly done: Promise<StopResult>;
}

/** A {@link LeaderElector} on a Lease; built by `createLeaderElector` from checked options. */
export class LeaseElector implements LeaderElector {
  readonly #identity: string;
  readonly #lock: LeaseLock;
  readonly #callbacks: LeaderCallbacks;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #releaseOnCancel: boolean;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #masterStatus: Gauge;
  readonly #slowPath: Counter;

  #observed: Observation | undefined;
  // Last holder passed to onNewLeader; '' before any (client-go's reportedLeader).
  #reported = '';
  // Set only while leading: aborted (and cleared) the moment leadership ends, before anything else runs.
  #leading: AbortController | undefined;
  // While leading: aborts leadership when the renew deadline has passed on the clock; true when it did.
  #fence: (() => boolean) | undefined;
  #campaign: Campaign | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(config: ElectorConfig) {
    this.#identity = config.identity;
    this.#lock = new LeaseLock(config.client, config.namespace, config.name);
    this.#callbacks = config.callbacks;
    this.#leaseDurationMs = config.leaseDurationMs;
    this.#renewDeadlineMs = config.renewDeadlineMs;
    this.#retryPeriodMs = config.retryPeriodMs;
    this.#releaseOnCancel = config.releaseOnCancel;
    this.#gracefulShutdownTimeoutMs = config.gracefulShutdownTimeoutMs;
    this.#signal = config.signal;
    this.#clock = config.clock;
    this.#random = config.random;
    this.#logger = config.logger.child({
      namespace: config.namespace,
      name: config.name,
      identity: config.identity,
    });
    this.#masterStatus = config.metrics.gauge({
      name: 'leader_election_master_status',
      help: 'Whether this candidate leads the lease (1) or stands by (0).',
      labels: { name: config.name },
    });
    this.#slowPath = config.metrics.counter({
      name: 'leader_election_slowpath_total',
      help: 'Renewals of a leader lease that had to read the lease again first.',
      labels: { name: config.name },
    });
  }

  async start(signal: AbortSignal): Promise<void> {
    if (
      typeof signal !== 'object' ||
      signal === null ||
      typeof signal.addEventListener !== 'function'
    ) {
      throw new TypeError('LeaderElector.start: signal must be an AbortSignal');
    }
    if (this.#closed) {
      throw new LassoError('LASSO_CONTROLLER_FAILED', 'the leader elector is closed');
    }
    this.#begin(signal);
  }

  stopped(): Promise<StopResult> {
    return this.#campaign?.done ?? Promise.resolve(drainedResult);
  }

  isRunning(): boolean {
    return this.#campaign !== undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#campaign?.stop.abort(new LassoError('LASSO_ABORTED', 'the leader elector was closed'));
    await this.stopped();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  run(): Promise<void> {
    if (this.#running === undefined) {
      const campaign = this.#closed ? undefined : (this.#campaign ?? this.#begin(undefined));
      this.#running = campaign === undefined ? Promise.resolve() : campaign.done.then(() => {});
    }
    return this.#running;
  }

  isLeader(): boolean {
    this.#fence?.();
    return this.#leading !== undefined;
  }

  getLeader(): string | undefined {
    const holder = this.#observed?.record.holderIdentity;
    return holder === '' ? undefined : holder;
  }

  /** Start a campaign on `signal` and the `signal` option, unless one runs. */
  #begin(signal: AbortSignal | undefined): Campaign {
    if (this.#campaign !== undefined) return this.#campaign;
    const stop = new AbortController();
    const ends = anySignal([stop.signal, this.#signal, signal]);
    const done = this.#run(ends.signal).then(
      (result) => result,
      (error: unknown) => {
        // #run never throws by design; this keeps stopped() from rejecting if it ever did.
        this.#logger.error('leader election failed', { error: errorMessage(error) });
        return drainedResult;
      },
    );
    const campaign: Campaign = { stop, done };
    this.#campaign = campaign;
    void done.then(() => {
      ends.dispose();
      if (this.#campaign === campaign) this.#campaign = undefined;
    });
    return campaign;
  }

  async #run(signal: AbortSignal): Promise<StopResult> {
    this.#masterStatus.set(0);
    if (signal.aborted) return drainedResult;
    this.#logger.info('attempting to acquire leader lease');
    const writtenAt = await this.#acquire(signal);
    if (writtenAt === undefined) return drainedResult;
    if (signal.aborted) {
      // Won just as the election was cancelled: never lead, but do not sit on the lease either.
      if (this.#releaseOnCancel) await this.#release();
      return drainedResult;
    }
    return this.#lead(writtenAt, signal);
  }

  /** Try until the lease is ours (resolves the time our winning write was sent) or the signal aborts. */
  async #acquire(signal: AbortSignal): Promise<number | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      // A hung request must not stall the loop: each attempt gets as long as a renewal would.
      const timeout = timeoutSignal(this.#clock, this.#renewDeadlineMs);
      const attempt = anySignal([signal, timeout.signal]);
      let writtenAt: number | undefined;
      try {
        writtenAt = await this.#tryAcquireOrRenew(attempt.signal);
      } finally {
        attempt.dispose();
        timeout.clear();
      }
      this.#reportTransition();
      if (writtenAt !== undefined) {
        this.#logger.info('leader lease acquired');
        return writtenAt;
      }
      const delayMs = this.#retryPeriodMs * (1 + this.#random() * jitterFactor);
      try {
        await sleep(this.#clock, delayMs, { signal });
      } catch {
        return undefined;
      }
    }
  }

  async #lead(acquiredAt: number, signal: AbortSignal): Promise<StopResult> {
    const leading = new AbortController();
    this.#leading = leading;
    let lost = false;
    const stop = (reason: unknown): void => {
      if (leading.signal.aborted) return;
      this.#leading = undefined;
      this.#fence = undefined;
      leading.abort(reason);
    };
    const lose = (message: string): void => {
      if (leading.signal.aborted) return;
      lost = true;
      this.#logger.warn(message);
      stop(new LeadershipLostError(this.#identity, message));
    };
    // The deadline runs from the moment our last successful write was SENT (see RenewDeadline); its check is
    // the fence that isLeader() and every step of the loop run first.
    const deadline = new RenewDeadline(this.#clock, this.#renewDeadlineMs, acquiredAt, () =>
      lose(`leader lease not renewed within ${this.#renewDeadlineMs} ms`),
    );
    const fence = (): boolean => deadline.check();
    this.#fence = fence;
    const onAbort = (): void => stop(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.#masterStatus.set(1);

    const work = this.#startWork(leading.signal);
    try {
      while (!leading.signal.aborted) {
        if (!(await renewTick(this.#clock, this.#retryPeriodMs, leading.signal, fence))) break;
        const writtenAt = await this.#tryAcquireOrRenew(leading.signal);
        this.#reportTransition();
        // An answer that arrives past the deadline (paused while the renewal was in flight) is not trusted.
        if (leading.signal.aborted || fence()) break;
        if (writtenAt !== undefined) {
          deadline.extend(writtenAt);
          continue;
        }
        const holder = this.#observed?.record.holderIdentity ?? '';
        if (holder !== this.#identity && holder !== '') {
          lose(`leader lease taken by ${holder}`);
        }
      }
    } finally {
      deadline.cancel();
      signal.removeEventListener('abort', onAbort);
      // The loop ends only after leading aborted; this covers an unexpected throw out of it.
      stop(signal.reason);
    }
    this.#masterStatus.set(0);
    const drain = (): Promise<StopResult> =>
      drainWithin(this.#clock, work, this.#gracefulShutdownTimeoutMs, () => ['onStartedLeading']);
    let result: StopResult | undefined;
    if (!lost && this.#releaseOnCancel) {
      // Handing the lease over while guarded work still runs would let a rival start beside it: work that
      // outlives the drain bound keeps the lease until it expires.
      result = await drain();
      if (result.drained) await this.#release();
    }
    this.#logger.info('stopped leading');
    try {
      this.#callbacks.onStoppedLeading();
    } catch (error) {
      this.#logger.error('onStoppedLeading failed', { error: errorMessage(error) });
    }
    result ??= await drain();
    if (!result.drained) {
      this.#logger.error(
        'onStartedLeading work still running after the graceful shutdown timeout',
        {
          timeoutMs: this.#gracefulShutdownTimeoutMs,
        },
      );
    }
    return result;
  }

  /** Call onStartedLeading; the promise settles with its work and never rejects. */
  #startWork(signal: AbortSignal): Promise<void> {
    const failed = (error: unknown): void => {
      this.#logger.error('onStartedLeading failed', { error: errorMessage(error) });
    };
    try {
      return Promise.resolve(this.#callbacks.onStartedLeading(signal)).then(() => {}, failed);
    } catch (error) {
      failed(error);
      return Promise.resolve();
    }
  }

  /**
   * One attempt to acquire or renew (client-go's tryAcquireOrRenew). Resolves the monotonic time at which
   * the successful write was sent, or undefined when the lease is held by another or a call failed.
   * Never rejects.
   */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<number | undefined> {
    const now = microTime(this.#clock.now());
    const ours: LeaderElectionRecord = {
      holderIdentity: this.#identity,
      leaseDurationSeconds: Math.ceil(this.#leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    const observed = this.#observed;
    // Fast path: a leader whose record is current renews on the version it wrote last, without a read.
    if (
      observed !== undefined &&
      this.#holds(observed) &&
      this.#valid(observed) &&
      this.#lock.known
    ) {
      const sentAt = this.#clock.monotonic();
      try {
        const record = {
          ...ours,
          acquireTime: observed.record.acquireTime,
          leaseTransitions: observed.record.leaseTransitions,
        };
        this.#observe(await this.#lock.update(record, signal));
        return sentAt;
      } catch (error) {
        if (signal.aborted) return undefined;
        this.#logger.debug('leader lease renewal failed, reading it again', {
          error: errorMessage(error),
        });
      }
    }

    let current: LeaderElectionRecord;
    try {
      current = await this.#lock.get(signal);
    } catch (error) {
      if (!isNotFound(error)) {
        this.#logger.warn('leader lease read failed', { error: errorMessage(error) });
        return undefined;
      }
      const sentAt = this.#clock.monotonic();
      try {
        this.#observe(await this.#lock.create(ours, signal));
        return sentAt;
      } catch (createError) {
        this.#logger.warn('leader lease create failed', { error: errorMessage(createError) });
        return undefined;
      }
    }

    const seen = this.#observeIfChanged(current);
    if (current.holderIdentity !== '' && !this.#holds(seen) && this.#valid(seen)) {
      this.#logger.debug('leader lease held by another candidate', {
        holder: current.holderIdentity,
      });
      return undefined;
    }
    let record: LeaderElectionRecord;
    if (this.#holds(seen)) {
      record = {
        ...ours,
        acquireTime: current.acquireTime,
        leaseTransitions: current.leaseTransitions,
      };
      this.#slowPath.inc();
    } else {
      record = { ...ours, leaseTransitions: current.leaseTransitions + 1 };
    }
    const sentAt = this.#clock.monotonic();
    try {
      this.#observe(await this.#lock.update(record, signal));
      return sentAt;
    } catch (error) {
      // A 409 here is a lost race: another candidate wrote since our read.
      this.#logger.warn('leader lease update failed', { error: errorMessage(error) });
      return undefined;
    }
  }

  /** Hand the lease back (holder '', duration 1 s) if it is still ours. Never rejects. */
  async #release(): Promise<void> {
    const timeout = timeoutSignal(this.#clock, this.#renewDeadlineMs);
    try {
      const current = await this.#lock.get(timeout.signal);
      this.#observeIfChanged(current);
      if (current.holderIdentity !== this.#identity) return;
      const now = microTime(this.#clock.now());
      const released: LeaderElectionRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: current.leaseTransitions,
      };
      this.#observe(await this.#lock.update(released, timeout.signal));
      this.#logger.info('leader lease released');
    } catch (error) {
      this.#logger.warn('leader lease release failed', { error: errorMessage(error) });
    } finally {
      timeout.clear();
    }
  }

  #holds(observation: Observation): boolean {
    return observation.record.holderIdentity === this.#identity;
  }

  #valid(observation: Observation): boolean {
    const durationMs = observation.record.leaseDurationSeconds * 1000;
    return this.#clock.monotonic() < observation.atMs + durationMs;
  }

  #observe(record: LeaderElectionRecord): Observation {
    const observation = { record, key: recordKey(record), atMs: this.#clock.monotonic() };
    this.#observed = observation;
    return observation;
  }

  #observeIfChanged(record: LeaderElectionRecord): Observation {
    const key = recordKey(record);
    const observed = this.#observed;
    if (observed !== undefined && observed.key === key) return observed;
    return this.#observe(record);
  }

  #reportTransition(): void {
    const holder = this.#observed?.record.holderIdentity ?? '';
    if (holder === this.#reported) return;
    this.#reported = holder;
    if (holder === '' || this.#callbacks.onNewLeader === undefined) return;
    this.#logger.info('new leader observed', { holder });
    try {
      this.#callbacks.onNewLeader(holder);
    } catch (error) {
      this.#logger.error('onNewLeader failed', { error: errorMessage(error) });
    }
  }
}
