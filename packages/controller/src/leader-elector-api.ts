// The public shapes of leader election: the callbacks, the elector's interface, the error that ends leadership,
// and the checked configuration an elector is built from.
import type { Clock, Lifecycle, Logger, MetricsProvider, StopResult } from '@lasso/core';
import { LassoError } from '@lasso/core';
import type { LeaseClient } from './lease-lock.ts';

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
   *
   * @deprecated The older dialect, on the `signal` option: use `start(signal)` then `stopped()` (the lifecycle
   * shape). It still works.
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
