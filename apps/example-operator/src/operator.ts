// The Icecream controller on the operator runtime of @lasso/operator: the Icecream, Deployment and Pod
// controllers and their handlers, the event recorder, and the options the runtime needs for them (the Pod
// cache's label selector). The runtime owns the rest: clients, caches, transport, leader election, endpoints.
import { enqueueOwnerHandler, finalizerHandler } from '@lasso/controller';
import type { Clock, Logger } from '@lasso/core';
import { kindFor } from '@lasso/factory';
import type { EndpointAddress, Operator, OperatorOptions } from '@lasso/operator';
import type { OperatorFlags } from './flags.ts';
import { icecreamKind } from './generated/index.ts';
import { icecreamFinalizer, icecreamLabel } from './icecream.ts';
import {
  createIcecreamReconciler,
  icecreamLabelKeys,
  podIcecreamKeys,
  podsByIcecreamIndex,
} from './reconciler.ts';

/** The Events' `reportingController`, and the name of the operator's recorder. */
export const icecreamController = 'example.lasso.dev/icecream-operator';

const podKind = kindFor('v1', 'Pod');

/** The cache options the Icecream controller needs: only the Pods of Icecreams reach this process. */
export const icecreamCacheOptions: NonNullable<OperatorOptions['cache']> = {
  kindTweakList: [
    [
      podKind,
      (list) => {
        list.labelSelector = icecreamLabel;
      },
    ],
  ],
};

/**
 * How long closing may take after the drain (the runtime's `closeTimeoutMs`): the operator's factories and
 * transport in a cluster; in the demo also the API server, which a real kube-apiserver (KUBEBUILDER_ASSETS)
 * takes seconds to stop. With the default --shutdown-timeout of 20 s the process ends within 25 s of SIGTERM,
 * inside a Pod's default terminationGracePeriodSeconds of 30.
 */
const closeTimeoutMs = { cluster: 5_000, demo: 10_000 } as const;

/** An operator ready to run, with what the process serves beside it. */
export interface Prepared {
  readonly operator: Operator;
  /** After the operator closed: stop and release what was started beside it. */
  cleanup(): Promise<void>;
}

/** `host:port` (`:port`, `[::1]:port`) of a flag as the runtime's address; undefined when off (''). */
export function endpointAddress(address: string): EndpointAddress | undefined {
  if (address === '') return undefined;
  const index = address.lastIndexOf(':');
  const host = address.slice(0, index).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(index + 1));
  return host === '' ? { port } : { port, host };
}

/**
 * The options of `createOperator` for the flags (the cluster aside): the Icecream controller's cache options,
 * workers, leader election, the endpoints, the bounds and the logger.
 */
export function operatorOptionsFrom(
  flags: OperatorFlags,
  logger: Logger,
  mode: 'cluster' | 'demo',
): OperatorOptions {
  const health = endpointAddress(flags.healthAddr);
  const metrics = endpointAddress(flags.metricsAddr);
  return {
    namespace: flags.namespace,
    workers: flags.workers,
    gracefulShutdownTimeoutMs: flags.shutdownTimeoutSeconds * 1000,
    leaderElection: flags.leaderElect
      ? { namespace: flags.leaderElectionNamespace, name: flags.leaderElectionId }
      : undefined,
    // Icecreams split by uid, their Deployments with them (an owner handler hashes them by owner); Pods are read
    // whole by every replica's reconciler (an index by label), and their handler only enqueues Icecreams.
    ...(flags.shardRing === undefined
      ? {}
      : {
          sharding: {
            ring: flags.shardRing,
            leaseNamespace: flags.shardNamespace,
            ...(flags.shardIdentity === undefined ? {} : { identity: flags.shardIdentity }),
            unshardedKinds: [podKind],
          },
        }),
    cache: icecreamCacheOptions,
    ...(health === undefined ? {} : { health }),
    ...(metrics === undefined ? {} : { metrics }),
    closeTimeoutMs: closeTimeoutMs[mode],
    logger,
  };
}

/**
 * Register the Icecream controller on `operator` (built with {@link icecreamCacheOptions}): indexers, the
 * reconciler behind its finalizer, the Deployments and Pods that enqueue their Icecream. The handlers live until
 * the operator closes; they reconcile while it runs (and leads).
 */
export async function registerIcecreamController(
  operator: Operator,
  options: { clock?: Clock | undefined } = {},
): Promise<void> {
  const icecreams = await operator.forKind(icecreamKind);
  const deployments = await operator.forKind(kindFor('apps/v1', 'Deployment'));
  const pods = await operator.forKind(podKind);
  pods.informer().addIndexers({ [podsByIcecreamIndex]: podIcecreamKeys });
  icecreams.informer().addIndexers({ [podsByIcecreamIndex]: icecreamLabelKeys });
  // The shared controllers are the listers: typed reads of their caches.
  const reconciler = createIcecreamReconciler({
    clients: { deployments: deployments.client(), icecreams: icecreams.client() },
    caches: { deployments, pods },
    events: operator.recorder(icecreamController),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const { signal } = operator;
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
  const lastIcecreamsOfPod = new Map<string, string[]>();
  pods.registerHandler(signal, 'icecream-nodes', (key, pod) => {
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
}
