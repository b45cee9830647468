// Leader election on a coordination.k8s.io/v1 Lease: options, their checks, and the entry points. Not in
// rancher/lasso: ports client-go tools/leaderelection (NewLeaderElector, RunOrDie); the loop is leader-elector.ts.
import {
  type Clock,
  defaultGracefulShutdownTimeoutMs,
  defaultLogger,
  guardLogger,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  systemClock,
} from '@lasso/core';
import { LeaseElector } from './leader-elector.ts';
import {
  type ElectorConfig,
  jitterFactor,
  type LeaderCallbacks,
  type LeaderElector,
} from './leader-elector-api.ts';
import type { LeaseClient } from './lease-lock.ts';

/** Options of {@link createLeaderElector} and {@link runWithLeaderElection}. */
export interface LeaderElectionOptions {
  /** Client of `coordination.k8s.io/v1` leases (a `Client<Lease>`); needs get, create and update. */
  client: LeaseClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease; also the `name` label of the metrics. */
  name: string;
  /** This candidate's identity, unique among the candidates (e.g. the pod name plus a random suffix). */
  identity: string;
  /**
   * How long other candidates wait, after they last saw the Lease change, before taking it over
   * (default 15 000). Written to the Lease in whole seconds, rounded up.
   */
  leaseDurationMs?: number | undefined;
  /** How long the leader keeps leading without a successful renewal (default 10 000). */
  renewDeadlineMs?: number | undefined;
  /** Time between attempts to acquire or renew (default 2 000; acquire attempts are jittered). */
  retryPeriodMs?: number | undefined;
  /**
   * On abort of `signal`, once `onStartedLeading`'s work has settled, hand the lease back so another
   * candidate can take it at once instead of after `leaseDurationMs` (default false).
   */
  releaseOnCancel?: boolean | undefined;
  /**
   * How long, once leading has ended, the elector waits for `onStartedLeading`'s promise before its stop
   * settles with `drained: false` (default 30 000, as controllers). With `releaseOnCancel`, work still running
   * then keeps the lease until it expires. `Infinity` waits without a bound.
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * Ends the election: stops acquiring, or stops leading (see `releaseOnCancel`). Used by `run()`; a campaign
   * begun with `start(signal)` ends when either signal aborts.
   *
   * @deprecated A second signal beside `start(signal)`'s: pass the signal to `start` (the lifecycle shape)
   * instead; this option still works.
   */
  signal?: AbortSignal | undefined;
  /** Time source (default `systemClock`). */
  clock?: Clock | undefined;
  /** Logger for election events (default: `defaultLogger`, warnings and errors to stderr). */
  logger?: Logger | undefined;
  /** Provider of `leader_election_master_status` and `leader_election_slowpath_total` (default: none). */
  metrics?: MetricsProvider | undefined;
  /** Source of randomness in [0, 1) for the acquire jitter (default `Math.random`). */
  random?: (() => number) | undefined;
}

function positiveMs(value: number | undefined, fallback: number, option: string): number {
  const ms = value ?? fallback;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(
      `createLeaderElector: ${option} must be a finite number > 0, got ${String(ms)}`,
    );
  }
  return ms;
}

function nonEmpty(value: unknown, option: string): string {
  if (typeof value !== 'string') {
    throw new TypeError(`createLeaderElector: ${option} must be a string, got ${typeof value}`);
  }
  if (value === '') throw new RangeError(`createLeaderElector: ${option} must not be empty`);
  return value;
}

/** Check options as client-go's NewLeaderElector does, naming the option at fault, and apply defaults. */
function configOf(options: LeaderElectionOptions, callbacks: LeaderCallbacks): ElectorConfig {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createLeaderElector: options must be an object');
  }
  const { client } = options;
  if (
    typeof client !== 'object' ||
    client === null ||
    typeof client.get !== 'function' ||
    typeof client.create !== 'function' ||
    typeof client.update !== 'function'
  ) {
    throw new TypeError('createLeaderElector: client must be a Lease client (get, create, update)');
  }
  const namespace = nonEmpty(options.namespace, 'namespace');
  const name = nonEmpty(options.name, 'name');
  const identity = nonEmpty(options.identity, 'identity');
  const leaseDurationMs = positiveMs(options.leaseDurationMs, 15_000, 'leaseDurationMs');
  const renewDeadlineMs = positiveMs(options.renewDeadlineMs, 10_000, 'renewDeadlineMs');
  const retryPeriodMs = positiveMs(options.retryPeriodMs, 2_000, 'retryPeriodMs');
  // The leader must stop before anyone may take over: its deadline must end before the lease does.
  if (leaseDurationMs <= renewDeadlineMs) {
    throw new RangeError(
      `createLeaderElector: leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs})`,
    );
  }
  if (renewDeadlineMs <= jitterFactor * retryPeriodMs) {
    throw new RangeError(
      `createLeaderElector: renewDeadlineMs (${renewDeadlineMs}) must be greater than retryPeriodMs * ${jitterFactor} (${jitterFactor * retryPeriodMs})`,
    );
  }
  if (options.releaseOnCancel !== undefined && typeof options.releaseOnCancel !== 'boolean') {
    throw new TypeError('createLeaderElector: releaseOnCancel must be a boolean');
  }
  if (
    options.signal !== undefined &&
    (typeof options.signal !== 'object' ||
      options.signal === null ||
      typeof options.signal.addEventListener !== 'function')
  ) {
    throw new TypeError('createLeaderElector: signal must be an AbortSignal');
  }
  const gracefulShutdownTimeoutMs =
    options.gracefulShutdownTimeoutMs ?? defaultGracefulShutdownTimeoutMs;
  if (
    typeof gracefulShutdownTimeoutMs !== 'number' ||
    Number.isNaN(gracefulShutdownTimeoutMs) ||
    gracefulShutdownTimeoutMs < 0
  ) {
    throw new RangeError(
      `createLeaderElector: gracefulShutdownTimeoutMs must be a number >= 0, got ${String(gracefulShutdownTimeoutMs)}`,
    );
  }
  if (options.random !== undefined && typeof options.random !== 'function') {
    throw new TypeError('createLeaderElector: random must be a function');
  }
  if (typeof callbacks !== 'object' || callbacks === null) {
    throw new TypeError('createLeaderElector: callbacks must be an object');
  }
  if (typeof callbacks.onStartedLeading !== 'function') {
    throw new TypeError('createLeaderElector: callbacks.onStartedLeading must be a function');
  }
  if (typeof callbacks.onStoppedLeading !== 'function') {
    throw new TypeError('createLeaderElector: callbacks.onStoppedLeading must be a function');
  }
  if (callbacks.onNewLeader !== undefined && typeof callbacks.onNewLeader !== 'function') {
    throw new TypeError('createLeaderElector: callbacks.onNewLeader must be a function');
  }
  if (options.clock !== undefined && typeof options.clock?.schedule !== 'function') {
    throw new TypeError('createLeaderElector: clock must be a Clock');
  }
  return {
    client,
    namespace,
    name,
    identity,
    callbacks,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    releaseOnCancel: options.releaseOnCancel ?? false,
    gracefulShutdownTimeoutMs,
    signal: options.signal,
    clock: options.clock ?? systemClock,
    logger: guardLogger(options.logger ?? defaultLogger),
    metrics: options.metrics ?? noopMetricsProvider,
    random: options.random ?? Math.random,
  };
}

/**
 * Create a candidate for leadership of one Lease (client-go's `NewLeaderElector`). It has the lasso lifecycle
 * shape: `start(signal)` campaigns, `stopped()` settles with a `StopResult` once the campaign and its work
 * have ended, a later `start` campaigns again, `close()` / `await using` end it; `run()` is one campaign on
 * `options.signal` (client-go's `RunOrDie`). Options are checked as client-go checks them: every duration
 * > 0, `leaseDurationMs > renewDeadlineMs > 1.2 * retryPeriodMs`, a non-empty `identity`; a bad one throws a
 * TypeError or RangeError naming it.
 *
 * - At most one leader at a time, as long as the candidates' clocks run at the same rate: a candidate
 *   takes a lease held by another only once `leaseDurationSeconds` have passed on its own clock since it
 *   last saw the record change (never by comparing `renewTime` with its wall clock), and a leader that
 *   cannot renew within `renewDeadlineMs` aborts the signal it gave `onStartedLeading` before that.
 * - Fencing: leadership loss aborts that signal synchronously, before anything else runs. A leader whose
 *   process was paused past its deadline (blocked event loop, SIGSTOP) aborts it from the first of its
 *   timers that runs on waking, without trying a renewal first; `isLeader()` reads the clock too.
 * - Writes are conditional on the Lease's resourceVersion: of two candidates racing, one gets a 409 and
 *   keeps waiting.
 * - The leader renews every `retryPeriodMs`; a waiting candidate retries every `retryPeriodMs` plus up to
 *   120 % jitter. Each request is bounded by `renewDeadlineMs` (the renewal deadline, for a leader).
 *
 * **Gotchas**: a campaign ends when leadership is lost, like client-go's `RunOrDie`: call `start` again (or
 * exit and let the pod restart) to stand again. Returning from `onStartedLeading` does not give up the lease;
 * abort the signal to step down. `onStoppedLeading` is called only after leading (client-go calls it
 * whenever `Run` returns). The renewal deadline counts from when the last successful renewal was sent, not
 * from the start of a renew round as in client-go, so the guarantee above needs only `renewDeadlineMs <
 * leaseDurationMs`. The Lease stores whole seconds: a `leaseDurationMs` of 1 500 makes others wait 2 s.
 * Fencing cannot recall a request already on the wire, nor stop a callback that runs on waking before the
 * elector's first timer (see the README).
 *
 * @example
 * ```ts
 * import { hostname } from 'node:os';
 * import type { Lease } from 'kubernetes-types/coordination/v1.js';
 * declare const controller: Controller<KubeObject>;
 * const leases = new Client<Lease>({
 *   gvr: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
 *   kind: 'Lease', namespaced: true, rest,
 * });
 * const elector = createLeaderElector(
 *   { client: leases, namespace: 'kube-system', name: 'my-operator', identity: hostname(), releaseOnCancel: true },
 *   {
 *     onStartedLeading: (leading) => controller.start(leading, 2),
 *     onStoppedLeading: () => logger.info('no longer leading'),
 *   },
 * );
 * await elector.start(signal); // campaigns until `signal` aborts or leadership is lost
 * const { drained } = await elector.stopped();
 * ```
 */
export function createLeaderElector(
  options: LeaderElectionOptions,
  callbacks: LeaderCallbacks,
): LeaderElector {
  return new LeaseElector(configOf(options, callbacks));
}

/**
 * Run a leader election until `options.signal` aborts or leadership is lost (client-go's `RunOrDie`):
 * `createLeaderElector(options, callbacks).run()`. Throws synchronously on bad options; the promise never
 * rejects.
 *
 * @deprecated The older dialect of the lifecycle shape: use `createLeaderElector(options, callbacks)`, then
 * `start(signal)` and `stopped()`. It still works.
 *
 * @example
 * ```ts
 * declare const leases: LeaseClient;
 * declare const factory: { start(signal: AbortSignal, workers: number): Promise<void> }; // a SharedControllerFactory
 * await runWithLeaderElection(
 *   { client: leases, namespace: 'kube-system', name: 'my-operator', identity: 'replica-1', signal },
 *   { onStartedLeading: (leading) => factory.start(leading, 2), onStoppedLeading: () => process.exit(1) },
 * );
 * ```
 */
export function runWithLeaderElection(
  options: LeaderElectionOptions,
  callbacks: LeaderCallbacks,
): Promise<void> {
  return createLeaderElector(options, callbacks).run();
}
