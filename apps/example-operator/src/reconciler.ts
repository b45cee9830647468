// The Icecream reconciler: one Deployment per Icecream, owned by it, kept at the spec; status copied back from
// the Deployment and its Pods. Pure logic over injected clients and caches, so tests can drive it directly.
import type { IndexerReader } from '@lasso/cache';
import { isAlreadyExists, isNotFound } from '@lasso/client';
import {
  AlreadyOwnedError,
  type EventRecorder,
  getControllerOf,
  isControlledBy,
  type SharedHandlerResult,
  setControllerReference,
} from '@lasso/controller';
import { errorMessage } from '@lasso/core';
import type { Deployment, DeploymentSpec } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { type Condition, type Icecream, type IcecreamStatus, icecreamLabel } from './icecream.ts';

/** The writes the reconciler makes: `Client<Deployment>` and `Client<Icecream>` fit. */
export interface ReconcilerClients {
  deployments: {
    get(namespace: string | undefined, name: string): Promise<Deployment>;
    create(namespace: string | undefined, object: Deployment): Promise<Deployment>;
    update(namespace: string | undefined, object: Deployment): Promise<Deployment>;
    delete(namespace: string | undefined, name: string): Promise<unknown>;
  };
  icecreams: {
    updateStatus(namespace: string | undefined, object: Icecream): Promise<Icecream>;
  };
}

/** What the reconciler reads: the informers' stores (never the API). */
export interface ReconcilerCaches {
  deployments: IndexerReader<Deployment>;
  /** Pods indexed by {@link podsByIcecreamIndex}. */
  pods: IndexerReader<Pod>;
}

/** Index of Pods by the `namespace/name` of the Icecream whose Deployment runs them. */
export const podsByIcecreamIndex = 'byIcecream';

/** Index function of {@link podsByIcecreamIndex}: the Pod's Icecream label. */
export function podIcecreamKeys(pod: Pod): string[] {
  const icecream = pod.metadata?.labels?.[icecreamLabel];
  return icecream ? [`${pod.metadata?.namespace ?? ''}/${icecream}`] : [];
}

/** The image every scoop runs; the flavour goes in as an environment variable. */
export const scoopImage = 'registry.k8s.io/pause:3.10';

/** The Deployment spec an Icecream wants. */
export function desiredDeploymentSpec(icecream: Icecream): DeploymentSpec {
  const name = icecream.metadata?.name ?? '';
  return {
    replicas: icecream.spec?.replicas ?? 0,
    selector: { matchLabels: { [icecreamLabel]: name } },
    template: {
      metadata: {
        labels: { [icecreamLabel]: name, 'app.kubernetes.io/managed-by': 'icecream-operator' },
      },
      spec: {
        containers: [
          {
            name: 'scoop',
            image: scoopImage,
            env: [{ name: 'FLAVOR', value: icecream.spec?.flavor ?? '' }],
          },
        ],
      },
    },
  };
}

/** The Deployment an Icecream wants, with its controller reference. */
export function desiredDeployment(icecream: Icecream): Deployment {
  const name = icecream.metadata?.name ?? '';
  return setControllerReference(icecream, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: icecream.spec?.deploymentName ?? '',
      namespace: icecream.metadata?.namespace ?? '',
      labels: { [icecreamLabel]: name, 'app.kubernetes.io/managed-by': 'icecream-operator' },
    },
    spec: desiredDeploymentSpec(icecream),
  });
}

// The fields the operator owns; anything else on the Deployment (defaults, other controllers' annotations) is
// left alone, so an update happens only when the spec really drifted.
function drifted(current: Deployment, desired: Deployment): boolean {
  const flavor = (deployment: Deployment) =>
    deployment.spec?.template?.spec?.containers?.[0]?.env?.find((env) => env.name === 'FLAVOR')
      ?.value;
  return (
    current.spec?.replicas !== desired.spec?.replicas ||
    flavor(current) !== flavor(desired) ||
    current.spec?.template?.metadata?.labels?.[icecreamLabel] !==
      desired.spec?.template?.metadata?.labels?.[icecreamLabel]
  );
}

function condition(
  previous: Condition | undefined,
  status: Condition['status'],
  reason: string,
  message: string,
  generation: number | undefined,
  now: string,
): Condition {
  // lastTransitionTime moves only when the status changes, as metav1.Condition requires.
  const lastTransitionTime =
    previous !== undefined && previous.status === status ? previous.lastTransitionTime : now;
  return {
    type: 'Ready',
    status,
    reason,
    message,
    lastTransitionTime,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

// Key order does not count: kube-apiserver returns a custom resource's keys sorted, not in the order written.
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    typeof field === 'object' && field !== null && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field,
  );
}

function sameStatus(a: IcecreamStatus | undefined, b: IcecreamStatus): boolean {
  return canonical(a ?? {}) === canonical(b);
}

/** Options of {@link createIcecreamReconciler}. */
export interface IcecreamReconcilerOptions {
  clients: ReconcilerClients;
  caches: ReconcilerCaches;
  events: EventRecorder;
  /** Wall-clock time for condition timestamps (RFC 3339, whole seconds). */
  now?: () => Date;
}

/** The reconcile and cleanup handlers of the Icecream controller. */
export interface IcecreamReconciler {
  /** Brings the Deployment to the spec and the status to the Deployment; returns the Icecream it wrote. */
  reconcile(key: string, icecream: Icecream): Promise<SharedHandlerResult<Icecream>>;
  /** Finalizer cleanup: deletes the Deployment this Icecream controls (idempotent). */
  cleanup(key: string, icecream: Icecream): Promise<void>;
}

/** Create the reconciler (register `reconcile` behind `finalizerHandler`'s `onChange`, `cleanup` as `onRemove`). */
export function createIcecreamReconciler(options: IcecreamReconcilerOptions): IcecreamReconciler {
  const { clients, caches, events } = options;
  const now = options.now ?? (() => new Date());
  const timestamp = (): string => `${now().toISOString().slice(0, 19)}Z`;

  async function writeStatus(
    icecream: Icecream,
    status: IcecreamStatus,
  ): Promise<Icecream | undefined> {
    if (sameStatus(icecream.status, status)) return undefined;
    return clients.icecreams.updateStatus(icecream.metadata?.namespace, { ...icecream, status });
  }

  return {
    async reconcile(_key, icecream) {
      const namespace = icecream.metadata?.namespace ?? '';
      const generation = icecream.metadata?.generation;
      const previous = icecream.status?.conditions?.find((c) => c.type === 'Ready');
      const desired = desiredDeployment(icecream);
      const spec = desiredDeploymentSpec(icecream);
      const deploymentName = desired.metadata?.name ?? '';
      let deployment = caches.deployments.getByKey(`${namespace}/${deploymentName}`);
      try {
        if (deployment === undefined) {
          try {
            deployment = await clients.deployments.create(namespace, desired);
            events.event(
              icecream,
              deployment,
              'Normal',
              'Created',
              'CreateDeployment',
              `Created Deployment ${deploymentName}`,
            );
          } catch (error) {
            // The cache lags behind the server: the next event of that Deployment brings this key back.
            if (!isAlreadyExists(error)) throw error;
            return undefined;
          }
        } else if (!isControlledBy(deployment, icecream)) {
          // Refuse to take over a Deployment another owner controls; an unowned one is adopted.
          const adopted = setControllerReference(icecream, deployment);
          deployment = await clients.deployments.update(namespace, {
            ...adopted,
            spec: { ...adopted.spec, ...spec },
          });
          events.event(
            icecream,
            deployment,
            'Normal',
            'Adopted',
            'AdoptDeployment',
            `Adopted Deployment ${deploymentName}`,
          );
        } else if (drifted(deployment, desired)) {
          deployment = await clients.deployments.update(namespace, {
            ...deployment,
            spec: { ...deployment.spec, ...spec },
          });
          events.event(
            icecream,
            deployment,
            'Normal',
            'Updated',
            'UpdateDeployment',
            `Updated Deployment ${deploymentName} to ${icecream.spec?.replicas} replicas`,
          );
        }
      } catch (error) {
        if (error instanceof AlreadyOwnedError) {
          const owner = getControllerOf(deployment ?? {});
          const message =
            `Deployment ${deploymentName} is controlled by ${owner?.kind ?? 'another owner'} ${owner?.name ?? ''}`.trim();
          events.event(icecream, deployment, 'Warning', 'NotOwned', 'AdoptDeployment', message);
          return writeStatus(icecream, {
            ...icecream.status,
            ...(generation === undefined ? {} : { observedGeneration: generation }),
            conditions: [
              condition(previous, 'False', 'DeploymentNotOwned', message, generation, timestamp()),
            ],
          });
        }
        events.event(
          icecream,
          deployment,
          'Warning',
          'ReconcileFailed',
          'ReconcileDeployment',
          errorMessage(error),
        );
        throw error;
      }
      const wanted = icecream.spec?.replicas ?? 0;
      const available = deployment.status?.availableReplicas ?? 0;
      const nodes = [
        ...new Set(
          caches.pods
            .byIndex(podsByIcecreamIndex, `${namespace}/${icecream.metadata?.name}`)
            .map((pod) => pod.spec?.nodeName)
            .filter((node): node is string => typeof node === 'string' && node !== ''),
        ),
      ].sort();
      const ready = available >= wanted;
      const status: IcecreamStatus = {
        availableReplicas: available,
        nodes,
        ...(generation === undefined ? {} : { observedGeneration: generation }),
        conditions: [
          condition(
            previous,
            ready ? 'True' : 'False',
            ready ? 'ScoopsAvailable' : 'ScoopsProgressing',
            `${available}/${wanted} replicas of Deployment ${deploymentName} available`,
            generation,
            timestamp(),
          ),
        ],
      };
      return writeStatus(icecream, status);
    },

    async cleanup(_key, icecream) {
      const namespace = icecream.metadata?.namespace ?? '';
      const name = icecream.spec?.deploymentName ?? '';
      let deployment = caches.deployments.getByKey(`${namespace}/${name}`);
      try {
        // The cache may not have seen a Deployment created moments ago: ask the server before giving up.
        deployment ??= await clients.deployments.get(namespace, name);
        if (!isControlledBy(deployment, icecream)) return;
        await clients.deployments.delete(namespace, name);
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      events.event(
        icecream,
        deployment,
        'Normal',
        'Deleted',
        'DeleteDeployment',
        `Deleted Deployment ${name}`,
      );
    },
  };
}
