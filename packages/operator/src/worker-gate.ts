// When the controllers' workers run: always, or only while this replica leads (warm standby: the caches run for
// the whole run). The seam where sharding plugs in later: a gate that runs workers for a subset of keys while
// it holds its ring Leases is one more implementation of WorkerGate; the operator does not change.
import {
  createLeaderElector,
  type LeaderElector,
  type LeadershipLostError,
  type LeaseClient,
} from '@lasso/controller';
import {
  type Clock,
  drainedResult,
  errorMessage,
  type Logger,
  type MetricsProvider,
  type StopResult,
} from '@lasso/core';
import type { SharedCacheFactory } from '@lasso/factory';
import type { LeaderElectionSettings } from './options.ts';

/** @internal What a gate drives. */
export interface GateHooks {
  readonly caches: SharedCacheFactory;
  /** The caches run (or are starting) and the workers do not. */
  onStandby(): void;
  /** Start the workers until `active` aborts; resolves once they run. */
  onActive(active: AbortSignal): Promise<void>;
  /** The workers stopped; the caches keep running. */
  onInactive(): void;
  /** The workers' stop, once the `active` signal aborted (bounded by the factory). */
  workersStopped(): Promise<StopResult>;
}

/** @internal One run of a gate: its start, and the stop results of what it ran. */
export interface GateRun {
  readonly started: Promise<void>;
  readonly stopped: Promise<StopResult[]>;
}

/** @internal Decides when the workers run. */
export interface WorkerGate {
  /** Run until `stop` aborts; a gate may abort `stop` itself (leadership lost). */
  run(stop: AbortController, hooks: GateHooks): GateRun;
  /** The leader last observed, when the gate elects one. */
  leader(): string | undefined;
  /** Why the last run ended by itself, when leadership was lost. */
  lost(): LeadershipLostError | undefined;
  close(): Promise<void>;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** @internal Workers run for the whole run (no election): the factory's start starts the caches too. */
export function alwaysActive(): WorkerGate {
  return {
    run(stop, hooks) {
      const started = hooks.onActive(stop.signal);
      const stopped = (async () => {
        await started.catch(() => undefined);
        await aborted(stop.signal);
        return [await hooks.workersStopped()];
      })();
      return { started, stopped };
    },
    leader: () => undefined,
    lost: () => undefined,
    close: async () => {},
  };
}

/** @internal Options of {@link leaderElected}. */
export interface LeaderElectedOptions {
  readonly client: LeaseClient;
  readonly settings: LeaderElectionSettings;
  readonly identity: string;
  readonly gracefulShutdownTimeoutMs: number | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsProvider;
}

/**
 * @internal Warm standby: the caches run for the whole run, the workers only while leading. Leadership lost
 * ends the run (caches included), as controller-runtime's manager does: the process exits and a fresh one
 * stands again.
 */
export function leaderElected(options: LeaderElectedOptions): WorkerGate {
  const { settings, identity, clock, logger, metrics } = options;
  let elector: LeaderElector | undefined;
  let lost: LeadershipLostError | undefined;
  return {
    run(stop, hooks) {
      lost = undefined;
      let leading: Promise<StopResult> = Promise.resolve(drainedResult);
      const current = createLeaderElector(
        {
          client: options.client,
          namespace: settings.namespace,
          name: settings.name,
          identity,
          // Handed back once the workers stopped: the next leader need not wait out the lease, and never
          // overlaps a reconcile of ours.
          releaseOnCancel: true,
          ...(options.gracefulShutdownTimeoutMs === undefined
            ? {}
            : { gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs }),
          ...(settings.leaseDurationMs === undefined
            ? {}
            : { leaseDurationMs: settings.leaseDurationMs }),
          ...(settings.renewDeadlineMs === undefined
            ? {}
            : { renewDeadlineMs: settings.renewDeadlineMs }),
          ...(settings.retryPeriodMs === undefined
            ? {}
            : { retryPeriodMs: settings.retryPeriodMs }),
          clock,
          logger,
          metrics,
        },
        {
          onStartedLeading: async (active) => {
            active.addEventListener(
              'abort',
              () => {
                // By code, not instanceof: two installed copies of @lasso/controller have two classes.
                const reason: unknown = active.reason;
                if ((reason as { code?: unknown } | undefined)?.code !== 'LASSO_LEADERSHIP_LOST')
                  return;
                lost = reason as LeadershipLostError;
                logger.error('leadership lost, stopping the operator', {
                  identity,
                  error: lost.message,
                });
                stop.abort(lost);
              },
              { once: true },
            );
            logger.info('leading: starting controllers', { identity });
            const result = aborted(active).then(() => hooks.workersStopped());
            leading = result;
            try {
              await hooks.onActive(active);
            } catch (error) {
              if (!active.aborted) {
                logger.error('controllers failed to start while leading', {
                  error: errorMessage(error),
                });
                stop.abort(error);
              }
            }
            await result;
          },
          onStoppedLeading: () => {
            logger.info('stopped leading', { identity });
            hooks.onInactive();
          },
          onNewLeader: (leader) => {
            if (leader !== identity) logger.info('standing by', { leader });
          },
        },
      );
      elector = current;
      hooks.onStandby();
      const started = (async () => {
        await hooks.caches.start(stop.signal);
        await current.start(stop.signal);
      })();
      const stopped = (async () => {
        await started.catch(() => undefined);
        const election = await current.stopped();
        // The campaign ended (aborted, or leadership lost): the whole run is over.
        stop.abort(lost ?? new Error('the leader election ended'));
        const caches = await hooks.caches.stopped();
        await current.close();
        return [election, await leading, caches];
      })();
      return { started, stopped };
    },
    leader: () => elector?.getLeader(),
    lost: () => lost,
    close: async () => {
      await elector?.close();
    },
  };
}
