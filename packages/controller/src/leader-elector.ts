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
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  type StopResult,
  sleep,
  timeoutSignal,
} from '@lasso/core';
import {
  type LeaderElectionRecord,
  type LeaseClient,
  LeaseLock,
  microTime,
  recordKey,
} from './lease-lock.ts';

/** client-go's `JitterFactor`: a failed acquire waits `retryPeriodMs * (1 + random() * 1.2)`. */
export const jitterFactor = 1.2;

/** What a {@link LeaderElector} calls as leadership comes and goes (client-go's `LeaderCallbacks`). */
export interface LeaderCallbacks {
  /**
   * Called once leadership is acquired. `signal` aborts when leadership ends: with a
   * {@link LeadershipLostError} when renewal failed or another candidate took the lease, with the
   * reason of `options.signal` when it aborted. Stop all work guarded by the lease when it aborts. A
   * throw or rejection is logged; it does not end leadership.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once after leading ends (not when the election ends without ever leading). */
  onStoppedLeading(): void;
  /** Called when the observed holder changes to another non-empty identity, this candidate's included. */
  onNewLeader?(identity: string): void;
}

/**
 * A candidate in a leader election; see {@link createLeaderElector}. It has the lifecycle shape of every
 * long-lived lasso object ({@link Lifecycle}): `start(signal)` campaigns until `signal` aborts or leadership
 * is lost, `stopped()` settles once that campaign and the work `onStartedLeading` started have ended, and a
 * later `start` campaigns again on the same object.
 */
export interface LeaderElector extends Lifecycle {
  /**
   * Campaign: acquire the lease, lead while renewing it, stop when `signal` (or the `signal` option) aborts or
   * leadership is lost. Resolves once the campaign has begun (not when leading); a no-op while a campaign
   * runs. Rejects when the elector was closed.
   */
  start(signal: AbortSignal): Promise<void>;
  /**
   * Settles once the current campaign has ended: leadership lost or its signal aborted, `onStoppedLeading`
   * returned, and `onStartedLeading`'s promise settled, or `gracefulShutdownTimeoutMs` passed since leading
   * ended (then `drained: false`, `pending: ['onStartedLeading']`). At once when not campaigning. Never rejects.
   */
  stopped(): Promise<StopResult>;
  /** True from `start` (or `run`) until the campaign has ended. */
  isRunning(): boolean;
  /** End the campaign (as an abort of its signal), wait for {@link LeaderElector.stopped}; no `start` after. */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * Run one campaign on the `signal` option, as client-go's `RunOrDie`: resolves once leadership was lost or
   * the signal aborted, after `onStoppedLeading` returned and `onStartedLeading`'s promise settled (or the
   * drain bound passed); never rejects. Calling it again returns the same promise.
   */
  run(): Promise<void>;
  /**
   * True while leading: from `onStartedLeading` until the signal it was given aborts. It reads the clock:
   * past the renew deadline (the process was paused, its timers have not run yet) it aborts that signal at
   * once and returns false, so a check right before a write is a fence.
   */
  isLeader(): boolean;
  /** Identity of the last observed holder of the lease; undefined when none was observed or it was released. */
  getLeader(): string | undefined;
}

/**
 * The abort reason of the signal given to `onStartedLeading` when leadership is lost: the lease could not
 * be renewed within `renewDeadlineMs`, or another candidate holds it.
 */
export class LeadershipLostError extends LassoError {
  /** Identity of the candidate that lost leadership. */
  readonly identity: string;

  constructor(identity: string, message: string) {
    super('LASSO_LEADERSHIP_LOST', message);
    this.identity = identity;
  }
}

/** Checked options with defaults applied (see `LeaderElectionOptions`). */
export interface ElectorConfig {
  readonly client: LeaseClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly callbacks: LeaderCallbacks;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly releaseOnCancel: boolean;
  readonly gracefulShutdownTimeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsProvider;
  readonly random: () => number;
}

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
    // The deadline runs from the moment our last successful write was SENT: a rival counts its wait from
    // when it saw that write, which is later, so with renewDeadlineMs < leaseDurationMs we always stop
    // first. (client-go counts from the start of each renew round, up to retryPeriod later.)
    let deadlineAt = acquiredAt + this.#renewDeadlineMs;
    const expire = (): void => lose(`leader lease not renewed within ${this.#renewDeadlineMs} ms`);
    // Fencing: a timer only fires once the process runs again. A process paused past its deadline (event
    // loop blocked, SIGSTOP, a VM frozen) wakes with every timer overdue; whichever elector code runs first
    // compares the deadline with the clock and aborts leadership synchronously, before any renewal or await.
    const pastDeadline = (): boolean => this.#clock.monotonic() >= deadlineAt;
    const fence = (): boolean => {
      if (!pastDeadline()) return false;
      expire();
      return true;
    };
    this.#fence = fence;
    const armDeadline = () => this.#clock.schedule(deadlineAt - this.#clock.monotonic(), expire);
    let deadline = armDeadline();
    const onAbort = (): void => stop(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.#masterStatus.set(1);

    const work = this.#startWork(leading.signal);
    try {
      while (!leading.signal.aborted) {
        if (!(await this.#renewTick(leading.signal, fence))) break;
        const writtenAt = await this.#tryAcquireOrRenew(leading.signal);
        this.#reportTransition();
        // An answer that arrives past the deadline (paused while the renewal was in flight) is not trusted.
        if (leading.signal.aborted || fence()) break;
        if (writtenAt !== undefined) {
          deadline.cancel();
          deadlineAt = writtenAt + this.#renewDeadlineMs;
          deadline = armDeadline();
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

  /**
   * Wait `retryPeriodMs` for the next renewal; false when leadership ended meanwhile. The timer's callback
   * checks the deadline synchronously: a timer that fires late after a pause must not start a renewal.
   */
  #renewTick(leading: AbortSignal, fence: () => boolean): Promise<boolean> {
    if (leading.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => {
        timer.cancel();
        resolve(false);
      };
      const timer = this.#clock.schedule(
        this.#retryPeriodMs,
        () => {
          leading.removeEventListener('abort', onAbort);
          resolve(!fence() && !leading.aborted);
        },
        { keepAlive: true },
      );
      leading.addEventListener('abort', onAbort, { once: true });
    });
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
