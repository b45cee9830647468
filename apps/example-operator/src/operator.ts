// The operator's wiring: one SharedControllerFactory, the Icecream, Deployment and Pod controllers and their
// handlers, the event recorder, and leader election around the start of the controllers.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RestConfig } from '@lasso/client';
import {
  createEventRecorder,
  enqueueOwnerHandler,
  finalizerHandler,
  runWithLeaderElection,
} from '@lasso/controller';
import {
  type Clock,
  errorMessage,
  type Logger,
  type MetricsProvider,
  systemClock,
} from '@lasso/core';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OperatorFlags } from './flags.ts';
import { type Icecream, icecreamFinalizer, icecreamKind, icecreamLabel } from './icecream.ts';
import { createIcecreamReconciler, podIcecreamKeys, podsByIcecreamIndex } from './reconciler.ts';

/** Leader election settings; timings default to client-go's 15 s / 10 s / 2 s. */
export interface LeaderElectionSettings {
  namespace: string;
  name: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Options of {@link startOperator}. */
export interface OperatorOptions {
  rest: RestConfig;
  /** The one namespace to watch; '' = all. */
  namespace: string;
  /** Workers per controller. */
  workers: number;
  /** Reconcile only while holding this Lease; undefined = always. */
  leaderElection?: LeaderElectionSettings | undefined;
  /** Stops the operator: intake stops, in-flight reconciles finish, the Lease is released. */
  signal: AbortSignal;
  logger: Logger;
  metrics: MetricsProvider;
  clock?: Clock;
}

/** The options of {@link startOperator} that the command-line flags decide, plus what the caller made. */
export function operatorOptionsFrom(
  flags: OperatorFlags,
  made: Pick<OperatorOptions, 'rest' | 'signal' | 'logger' | 'metrics'>,
): OperatorOptions {
  return {
    ...made,
    namespace: flags.namespace,
    workers: flags.workers,
    leaderElection: flags.leaderElect
      ? { namespace: flags.leaderElectionNamespace, name: flags.leaderElectionId }
      : undefined,
  };
}

/** What the operator is doing, for /readyz and the demo. */
export type OperatorPhase = 'starting' | 'standingBy' | 'leading' | 'stopping' | 'stopped';

/** A running operator. */
export interface Operator {
  phase(): OperatorPhase;
  /** Ready: leading with synced caches, or standing by for the Lease. */
  ready(): boolean;
  /** This candidate's identity in leader election. */
  readonly identity: string;
  /** Settles once the operator stopped: after the signal aborted, or when it lost the Lease (rejects then). */
  readonly done: Promise<void>;
}

/** Thrown by {@link Operator.done} when leadership was lost without a shutdown being asked for. */
export class LeadershipLostError extends Error {
  override name = 'LeadershipLostError';
}

/** Wire and start the operator; resolves once its handlers are registered (reconciling starts when leading). */
export async function startOperator(options: OperatorOptions): Promise<Operator> {
  const { rest, namespace, workers, signal, logger, metrics } = options;
  const clock = options.clock ?? systemClock;
  const identity = options.leaderElection?.identity ?? `${hostname()}-${randomUUID().slice(0, 8)}`;
  const podKind = { group: '', version: 'v1', kind: 'Pod' } as const;
  const factory = createSharedControllerFactoryFromConfig(rest, {
    logger,
    metrics,
    clock,
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
  const icecreams = await factory.forKind<Icecream>(icecreamKind);
  const deployments = await factory.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
  const pods = await factory.forKind(podKind);
  const eventClient = (
    await factory.forKind({ group: 'events.k8s.io', version: 'v1', kind: 'Event' })
  ).client();
  const leaseClient = (
    await factory.forKind({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' })
  ).client();

  pods.informer().addIndexers({ [podsByIcecreamIndex]: podIcecreamKeys });
  const events = createEventRecorder({
    client: eventClient,
    reportingController: 'example.lasso.dev/icecream-operator',
    reportingInstance: identity.slice(0, 128),
    logger,
    clock,
  });
  const reconciler = createIcecreamReconciler({
    clients: { deployments: deployments.client(), icecreams: icecreams.client() },
    caches: {
      deployments: deployments.informer().getIndexer(),
      pods: pods.informer().getIndexer(),
    },
    events,
  });

  // Registrations live until shutdown; the controllers start only while leading.
  icecreams.registerHandler(
    signal,
    'icecream',
    finalizerHandler(icecreams.client(), icecreamFinalizer, {
      onChange: reconciler.reconcile,
      onRemove: reconciler.cleanup,
    }),
  );
  deployments.registerHandler(
    signal,
    'icecream-owner',
    enqueueOwnerHandler(icecreams, { group: icecreamKind.group, kind: icecreamKind.kind }),
  );
  const lastIcecreamOfPod = new Map<string, string>();
  pods.registerHandler(signal, 'icecream-nodes', (key, pod: Pod | undefined) => {
    // A deleted Pod comes as undefined: its Icecream is remembered from when the Pod was last seen.
    const icecreamKey = pod === undefined ? lastIcecreamOfPod.get(key) : podIcecreamKeys(pod)[0];
    if (pod === undefined) lastIcecreamOfPod.delete(key);
    else if (icecreamKey !== undefined) lastIcecreamOfPod.set(key, icecreamKey);
    if (icecreamKey !== undefined) icecreams.enqueueKey(icecreamKey);
  });

  let phase: OperatorPhase = 'starting';
  let synced = false;
  const lead = async (leadSignal: AbortSignal): Promise<void> => {
    phase = 'leading';
    logger.info('leading: starting controllers', { identity });
    await factory.start(leadSignal, workers);
    synced = true;
    logger.info('caches synced, reconciling', { workers });
    if (!leadSignal.aborted) {
      await new Promise<void>((resolve) =>
        leadSignal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    phase = 'stopping';
    // Drain: every controller finishes the keys it holds before leadership (or the process) ends.
    await Promise.all([icecreams.stopped(), deployments.stopped(), pods.stopped()]);
    logger.info('controllers stopped');
  };

  const run = async (): Promise<void> => {
    try {
      if (options.leaderElection === undefined) {
        await lead(signal);
        return;
      }
      const election = options.leaderElection;
      phase = 'standingBy';
      let lost = false;
      await runWithLeaderElection(
        {
          client: leaseClient,
          namespace: election.namespace,
          name: election.name,
          identity,
          releaseOnCancel: true,
          signal,
          clock,
          logger,
          metrics,
          ...(election.leaseDurationMs === undefined
            ? {}
            : { leaseDurationMs: election.leaseDurationMs }),
          ...(election.renewDeadlineMs === undefined
            ? {}
            : { renewDeadlineMs: election.renewDeadlineMs }),
          ...(election.retryPeriodMs === undefined
            ? {}
            : { retryPeriodMs: election.retryPeriodMs }),
        },
        {
          onStartedLeading: lead,
          onStoppedLeading: () => {
            lost = !signal.aborted;
            logger.info('stopped leading', { identity });
          },
          onNewLeader: (leader: string) => {
            if (leader !== identity) logger.info('standing by', { leader });
          },
        },
      );
      if (lost)
        throw new LeadershipLostError(
          `${identity} lost the Lease ${election.namespace}/${election.name}`,
        );
    } finally {
      phase = 'stopping';
      await events
        .stop()
        .catch((error: unknown) =>
          logger.warn('event recorder stop failed', { error: errorMessage(error) }),
        );
      // Given a logger, metrics and clock the config lacks, the factory made a transport of its own, which
      // nobody else closes (its connections would otherwise linger until the keep-alive timeout).
      await factory.sharedCacheFactory().sharedClientFactory().close();
      phase = 'stopped';
    }
  };
  const done = run();
  return {
    identity,
    phase: () => phase,
    ready: () => (phase === 'leading' && synced) || phase === 'standingBy',
    done,
  };
}
