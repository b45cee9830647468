// The operator's wiring: one SharedControllerFactory, the Icecream, Deployment and Pod controllers and their
// handlers, the event recorder, and leader election around the controllers' workers. It has the lifecycle shape
// of every long-lived lasso object: start(signal), stopped() with a StopResult, close() / await using.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RestConfig } from '@lasso/client';
import {
  createEventRecorder,
  createLeaderElector,
  enqueueOwnerHandler,
  finalizerHandler,
  type LeaderElector,
  type LeadershipLostError,
} from '@lasso/controller';
import {
  type Clock,
  drainedResult,
  errorMessage,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  type StopResult,
  systemClock,
} from '@lasso/core';
import { createSharedControllerFactoryFromConfig, kindFor } from '@lasso/factory';
import type { OperatorFlags } from './flags.ts';
import { icecreamKind } from './generated/index.ts';
import { icecreamFinalizer, icecreamLabel } from './icecream.ts';
import {
  createIcecreamReconciler,
  icecreamLabelKeys,
  podIcecreamKeys,
  podsByIcecreamIndex,
} from './reconciler.ts';

/** Leader election settings; timings default to client-go's 15 s / 10 s / 2 s. */
export interface LeaderElectionSettings {
  namespace: string;
  name: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Options of {@link createOperator}. */
export interface OperatorOptions {
  rest: RestConfig;
  /** The one namespace to watch; '' = all. */
  namespace: string;
  /** Workers per controller. */
  workers: number;
  /** Reconcile only while holding this Lease (caches stay warm meanwhile); undefined = always. */
  leaderElection?: LeaderElectionSettings | undefined;
  /**
   * How long a stop waits for the reconciles in flight (whose signals abort at once) before `stopped()` settles
   * with `drained: false` naming them. Default 30 000.
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /** Abort each reconcile's signal after this long (none by default). */
  reconcileTimeoutMs?: number | undefined;
  logger: Logger;
  metrics: MetricsProvider;
  clock?: Clock | undefined;
}

/** The options of {@link createOperator} that the command-line flags decide, plus what the caller made. */
export function operatorOptionsFrom(
  flags: OperatorFlags,
  made: Pick<OperatorOptions, 'rest' | 'logger' | 'metrics'>,
): OperatorOptions {
  return {
    ...made,
    namespace: flags.namespace,
    workers: flags.workers,
    gracefulShutdownTimeoutMs: flags.shutdownTimeoutSeconds * 1000,
    leaderElection: flags.leaderElect
      ? { namespace: flags.leaderElectionNamespace, name: flags.leaderElectionId }
      : undefined,
  };
}

/** What the operator is doing, for /readyz and the demo. */
export type OperatorPhase = 'starting' | 'standingBy' | 'leading' | 'stopping' | 'stopped';

/**
 * The operator: `start(signal)` runs it until `signal` aborts (or, with leader election, until leadership is
 * lost), `stopped()` settles once its reconciles and caches have stopped (bounded by
 * `gracefulShutdownTimeoutMs`), `start` again runs it again, `close()` releases the factory, its transport and
 * the event recorder.
 */
export interface Operator extends Lifecycle {
  phase(): OperatorPhase;
  /** Ready: leading with synced caches, or standing by for the Lease. */
  ready(): boolean;
  /** This candidate's identity in leader election. */
  readonly identity: string;
  /**
   * Why the last run ended when nobody asked it to: leadership was lost (the run then stops by itself, and a
   * process exits as controller-runtime's manager does, so that a fresh one stands again). Undefined otherwise.
   */
  leadershipLost(): LeadershipLostError | undefined;
}

function combine(results: readonly StopResult[]): StopResult {
  return {
    drained: results.every((result) => result.drained),
    pending: results.flatMap((result) => result.pending),
  };
}

/** Wire the operator: clients, caches, handlers (no API traffic until `start`). */
export async function createOperator(options: OperatorOptions): Promise<Operator> {
  const { rest, namespace, workers, logger, metrics } = options;
  const clock = options.clock ?? systemClock;
  const identity = options.leaderElection?.identity ?? `${hostname()}-${randomUUID().slice(0, 8)}`;
  const podKind = kindFor('v1', 'Pod');
  const factory = createSharedControllerFactoryFromConfig(rest, {
    logger,
    metrics,
    clock,
    ...(options.gracefulShutdownTimeoutMs === undefined
      ? {}
      : { gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs }),
    ...(options.reconcileTimeoutMs === undefined
      ? {}
      : { reconcileTimeoutMs: options.reconcileTimeoutMs }),
    cache: {
      defaultNamespace: namespace,
      // Only the Pods of Icecreams: a cluster's other Pods never reach this process.
      kindTweakList: [
        [
          podKind,
          (list) => {
            list.labelSelector = icecreamLabel;
          },
        ],
      ],
    },
  });
  const icecreams = await factory.forKind(icecreamKind);
  const deployments = await factory.forKind(kindFor('apps/v1', 'Deployment'));
  const pods = await factory.forKind(podKind);
  const eventClient = (await factory.forKind(kindFor('events.k8s.io/v1', 'Event'))).client();
  const leaseClient = (await factory.forKind(kindFor('coordination.k8s.io/v1', 'Lease'))).client();

  pods.informer().addIndexers({ [podsByIcecreamIndex]: podIcecreamKeys });
  icecreams.informer().addIndexers({ [podsByIcecreamIndex]: icecreamLabelKeys });
  const events = createEventRecorder({
    client: eventClient,
    reportingController: 'example.lasso.dev/icecream-operator',
    reportingInstance: identity.slice(0, 128),
    logger,
    clock,
  });
  // The shared controllers are the listers: typed reads of their caches.
  const reconciler = createIcecreamReconciler({
    clients: { deployments: deployments.client(), icecreams: icecreams.client() },
    caches: { deployments, pods },
    events,
    clock,
  });

  // Registrations live as long as the operator (until close); workers run only while started (and leading).
  const registrations = new AbortController();
  icecreams.registerHandler(
    registrations.signal,
    'icecream',
    finalizerHandler(icecreams.client(), icecreamFinalizer, {
      onChange: reconciler.reconcile,
      onRemove: reconciler.cleanup,
    }),
  );
  deployments.registerHandler(
    registrations.signal,
    'icecream-owner',
    enqueueOwnerHandler(icecreams, { group: icecreamKind.group, kind: icecreamKind.kind }),
  );
  const lastIcecreamsOfPod = new Map<string, string[]>();
  pods.registerHandler(registrations.signal, 'icecream-nodes', (key, pod) => {
    // A deleted Pod comes as undefined: its Icecream is remembered from when the Pod was last seen.
    const icecreamKeys =
      pod === undefined
        ? (lastIcecreamsOfPod.get(key) ?? [])
        : podIcecreamKeys(pod)
            .flatMap((labelKey) => icecreams.byIndex(podsByIcecreamIndex, labelKey))
            .map((icecream) => `${icecream.metadata?.namespace}/${icecream.metadata?.name}`);
    if (pod === undefined) lastIcecreamsOfPod.delete(key);
    else if (icecreamKeys.length > 0) lastIcecreamsOfPod.set(key, icecreamKeys);
    for (const icecreamKey of icecreamKeys) icecreams.enqueueKey(icecreamKey);
  });

  let phase: OperatorPhase = 'starting';
  let synced = false;
  let lost: LeadershipLostError | undefined;
  let run: { readonly stop: AbortController; readonly stopped: Promise<StopResult> } | undefined;
  let closing: Promise<void> | undefined;

  /** Start the controllers' workers until `leading` aborts; resolves once they run. */
  async function startWorkers(leading: AbortSignal): Promise<void> {
    phase = 'leading';
    logger.info('leading: starting controllers', { identity });
    try {
      await factory.start(leading, workers);
      synced = true;
      logger.info('caches synced, reconciling', { workers });
    } catch (error) {
      if (!leading.aborted) throw error;
    }
  }

  /** Once `leading` aborted: the controllers' stop (bounded by gracefulShutdownTimeoutMs). */
  async function workersStopped(leading: AbortSignal): Promise<StopResult> {
    if (!leading.aborted) {
      await new Promise<void>((resolve) =>
        leading.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    phase = 'stopping';
    synced = false;
    const result = await factory.stopped();
    logger.info('controllers stopped', { ...result });
    return result;
  }

  function electorFor(
    stop: AbortController,
    settings: LeaderElectionSettings,
    onLeading: (result: Promise<StopResult>) => void,
  ): LeaderElector {
    return createLeaderElector(
      {
        client: leaseClient,
        namespace: settings.namespace,
        name: settings.name,
        identity,
        // Handed back once the workers stopped (onStartedLeading's promise): the next leader need not wait out
        // the lease, and never overlaps a reconcile of ours.
        releaseOnCancel: true,
        ...(options.gracefulShutdownTimeoutMs === undefined
          ? {}
          : { gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs }),
        clock,
        logger,
        metrics,
        ...(settings.leaseDurationMs === undefined
          ? {}
          : { leaseDurationMs: settings.leaseDurationMs }),
        ...(settings.renewDeadlineMs === undefined
          ? {}
          : { renewDeadlineMs: settings.renewDeadlineMs }),
        ...(settings.retryPeriodMs === undefined ? {} : { retryPeriodMs: settings.retryPeriodMs }),
      },
      {
        onStartedLeading: async (leading) => {
          leading.addEventListener(
            'abort',
            () => {
              // By code, not instanceof: two installed copies of @lasso/controller have two classes.
              const reason: unknown = leading.reason;
              if ((reason as { code?: unknown } | undefined)?.code !== 'LASSO_LEADERSHIP_LOST')
                return;
              // Lost, not asked for: the run stops (caches included), as controller-runtime's manager does.
              lost = reason as LeadershipLostError;
              logger.error('leadership lost', { identity, error: lost.message });
              stop.abort(lost);
            },
            { once: true },
          );
          const result = workersStopped(leading);
          onLeading(result);
          await startWorkers(leading);
          await result;
        },
        onStoppedLeading: () => logger.info('stopped leading', { identity }),
        onNewLeader: (leader) => {
          if (leader !== identity) logger.info('standing by', { leader });
        },
      },
    );
  }

  async function start(signal: AbortSignal): Promise<void> {
    if (closing !== undefined) throw new Error('the operator was closed');
    if (run !== undefined) return;
    // The run stops when the caller's signal aborts, or when leadership is lost.
    const stop = new AbortController();
    const follow = (): void => stop.abort(signal.reason);
    if (signal.aborted) follow();
    else signal.addEventListener('abort', follow, { once: true });
    lost = undefined;
    const settings = options.leaderElection;
    let results: Promise<StopResult[]>;
    if (settings === undefined) {
      results = workersStopped(stop.signal).then((result) => [result]);
      run = { stop, stopped: finish(results, signal, follow) };
      await startOrUndo(run, () => startWorkers(stop.signal));
      return;
    }
    // Warm standby: the caches run for the whole run (synced, queues filled), the workers only while leading.
    let leading: Promise<StopResult> = Promise.resolve(drainedResult);
    const elector = electorFor(stop, settings, (result) => {
      leading = result;
    });
    phase = 'standingBy';
    const campaign = (async () => {
      await factory.sharedCacheFactory().start(stop.signal);
      await elector.start(stop.signal);
    })();
    results = (async () => {
      await campaign.catch(() => undefined);
      const election = await elector.stopped();
      // The campaign ended (aborted, or leadership lost): the whole run is over.
      stop.abort(lost ?? signal.reason);
      const caches = await factory.sharedCacheFactory().stopped();
      await elector.close();
      return [election, await leading, caches];
    })();
    run = { stop, stopped: finish(results, signal, follow) };
    await startOrUndo(run, () => campaign);
  }

  /** Run `starting`; when it fails, stop what it started and reject with its error. */
  async function startOrUndo(
    current: NonNullable<typeof run>,
    starting: () => Promise<void>,
  ): Promise<void> {
    try {
      await starting();
    } catch (error) {
      current.stop.abort(error);
      await current.stopped;
      throw error;
    }
  }

  async function finish(
    results: Promise<StopResult[]>,
    signal: AbortSignal,
    follow: () => void,
  ): Promise<StopResult> {
    const result = combine(await results);
    signal.removeEventListener('abort', follow);
    phase = 'stopped';
    run = undefined;
    return result;
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      const current = run;
      current?.stop.abort(new Error('the operator was closed'));
      await current?.stopped;
      registrations.abort();
      await events
        .stop()
        .catch((error: unknown) =>
          logger.warn('event recorder stop failed', { error: errorMessage(error) }),
        );
      // Controllers, informers, and the transport the factory made for itself (it was given a logger, metrics
      // and clock the config lacks), whose connections would otherwise linger until their keep-alive timeout.
      await factory.close();
      phase = 'stopped';
    })();
    return closing;
  }

  return {
    identity,
    phase: () => phase,
    ready: () => (phase === 'leading' && synced) || phase === 'standingBy',
    leadershipLost: () => lost,
    start,
    stopped: async () => (run === undefined ? drainedResult : run.stopped),
    isRunning: () => run !== undefined,
    close,
    [Symbol.asyncDispose]: close,
  };
}
