// SIMULATED kube-controller-manager + kubelet, for the built-in API server only (it runs no controllers and no
// nodes): for each Deployment it creates the Pods, binds them to one simulated node name, marks them Running and
// Ready a moment later, and reports the Deployment's replicas as available. Written with @lasso/factory itself,
// like KWOK. main.ts never starts it against a real cluster.
import type { RestConfig } from '@lasso/client';
import { isAlreadyExists, isNotFound } from '@lasso/client';
import { retryAfter } from '@lasso/controller';
import type { Logger, StopResult } from '@lasso/core';
import { createSharedControllerFactoryFromConfig, kindFor } from '@lasso/factory';
import type { DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** The Node every simulated Pod is bound to. */
export const simulatedNodeName = 'lasso-simulated-node';
/** Annotation of a simulated Pod. Its Deployment is its controller owner reference (a name may exceed a label). */
export const simulatedAnnotation = 'simulated.lasso.dev/simulated';
/** How long a simulated Pod stays Pending before it is Running and Ready. */
export const simulatedStartupMs = 800;

/** Options of {@link startSimulatedWorkload}. */
export interface SimulatedWorkloadOptions {
  rest: RestConfig;
  signal: AbortSignal;
  logger: Logger;
  /** Time a Pod stays Pending (default {@link simulatedStartupMs}). */
  startupMs?: number;
}

function podName(deployment: string, index: number): string {
  return `${deployment}-sim-${index}`;
}

function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The running simulation: stops when the signal aborts; `close()` releases its factory. */
export interface SimulatedWorkload {
  stopped(): Promise<StopResult>;
  close(): Promise<void>;
}

/** The `namespace/name` of the Deployment that controls a simulated Pod. */
function deploymentKeyOf(pod: Pod): string | undefined {
  if (pod.metadata?.annotations?.[simulatedAnnotation] !== 'true') return undefined;
  const owner = pod.metadata.ownerReferences?.find(
    (reference) => reference.controller === true && reference.kind === 'Deployment',
  );
  return owner === undefined ? undefined : `${pod.metadata.namespace}/${owner.name}`;
}

/** Start the simulated workload controllers; resolves once they run, they stop when `signal` aborts. */
export async function startSimulatedWorkload(
  options: SimulatedWorkloadOptions,
): Promise<SimulatedWorkload> {
  const { rest, signal } = options;
  const logger = options.logger.child({ component: 'simulated-kube-controller-manager' });
  const startupMs = options.startupMs ?? simulatedStartupMs;
  const factory = createSharedControllerFactoryFromConfig(rest, { logger });
  const deployments = await factory.forKind(kindFor('apps/v1', 'Deployment'));
  const pods = await factory.forKind(kindFor('v1', 'Pod'));
  const podClient = pods.client();
  pods.informer().addIndexers({
    byDeployment: (pod) => {
      const key = deploymentKeyOf(pod);
      return key === undefined ? [] : [key];
    },
  });

  deployments.registerHandler(signal, 'simulated-replicas', async (key, deployment, context) => {
    const { signal: reconcile } = context;
    const owned = pods.byIndex('byDeployment', key);
    if (deployment === undefined) {
      // The garbage collector may be off: the Pods of a deleted Deployment go here.
      for (const pod of owned) await deleteQuietly(pod, reconcile);
      return;
    }
    const namespace = deployment.metadata?.namespace ?? '';
    const name = deployment.metadata?.name ?? '';
    const wanted = deployment.spec?.replicas ?? 1;
    const byName = new Map(owned.map((pod) => [pod.metadata?.name ?? '', pod]));
    if (owned.length < wanted) await ensureDefaultServiceAccount(namespace, reconcile);
    for (let index = 0; index < wanted; index++) {
      if (byName.has(podName(name, index))) continue;
      const template = deployment.spec?.template;
      try {
        await podClient.create(
          namespace,
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              name: podName(name, index),
              namespace,
              labels: { ...template?.metadata?.labels },
              annotations: { [simulatedAnnotation]: 'true' },
              ownerReferences: [
                {
                  apiVersion: 'apps/v1',
                  kind: 'Deployment',
                  name,
                  uid: deployment.metadata?.uid ?? '',
                  controller: true,
                },
              ],
            },
            spec: {
              ...template?.spec,
              containers: template?.spec?.containers ?? [],
              nodeName: simulatedNodeName,
              // No token to mount: no tokens controller runs, and kube-apiserver before 1.21 refuses a Pod whose
              // ServiceAccount has no token Secret ("No API token found for service account").
              automountServiceAccountToken: false,
            },
          },
          { signal: reconcile },
        );
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    for (const pod of owned) {
      const index = Number(pod.metadata?.name?.slice(`${name}-sim-`.length));
      if (!(index < wanted)) await deleteQuietly(pod, reconcile);
    }
    const live = owned.filter((pod) => {
      const index = Number(pod.metadata?.name?.slice(`${name}-sim-`.length));
      return index < wanted && pod.metadata?.deletionTimestamp === undefined;
    });
    const ready = live.filter(isReady).length;
    const status: DeploymentStatus = {
      replicas: live.length,
      updatedReplicas: live.length,
      readyReplicas: ready,
      availableReplicas: ready,
      ...(deployment.metadata?.generation === undefined
        ? {}
        : { observedGeneration: deployment.metadata.generation }),
    };
    if (JSON.stringify(deployment.status ?? {}) === JSON.stringify(status)) return;
    return deployments
      .client()
      .updateStatus(namespace, { ...deployment, status }, { signal: reconcile });
  });

  pods.registerHandler(signal, 'simulated-kubelet', async (key, pod, { signal: reconcile }) => {
    const deploymentKey = pod === undefined ? undefined : deploymentKeyOf(pod);
    if (pod === undefined || deploymentKey === undefined) return;
    deployments.enqueueKey(deploymentKey);
    if (pod.metadata?.deletionTimestamp !== undefined) return deleteQuietly(pod, reconcile);
    if (isReady(pod)) return;
    const created = Date.parse(pod.metadata?.creationTimestamp ?? '') || Date.now();
    const waitMs = created + startupMs - Date.now();
    // "Starting the container": the key comes back once the startup time has passed.
    if (waitMs > 0) throw retryAfter(waitMs, `${key} starting`);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return podClient.updateStatus(
      pod.metadata?.namespace,
      {
        ...pod,
        status: {
          phase: 'Running',
          hostIP: '10.0.0.1',
          podIP: '10.0.0.2',
          startTime: now,
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'True', lastTransitionTime: now },
          ],
        },
      },
      { signal: reconcile },
    );
  });

  // kube-controller-manager's serviceaccount controller gives every namespace a `default` ServiceAccount, which
  // Pod admission requires; the built-in server has no such controller.
  const accounts = (await factory.forKind(kindFor('v1', 'ServiceAccount'))).client();
  const namespacesWithAccount = new Set<string>();
  async function ensureDefaultServiceAccount(
    namespace: string,
    requestSignal: AbortSignal,
  ): Promise<void> {
    if (namespacesWithAccount.has(namespace)) return;
    try {
      await accounts.create(
        namespace,
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } },
        { signal: requestSignal },
      );
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    namespacesWithAccount.add(namespace);
  }

  async function deleteQuietly(pod: Pod, requestSignal: AbortSignal): Promise<void> {
    try {
      // A bound Pod is deleted gracefully: the kubelet confirms with a zero grace period once its
      // containers stopped, which for a simulated Pod is at once.
      await podClient.delete(pod.metadata?.namespace, pod.metadata?.name ?? '', {
        gracePeriodSeconds: 0,
        signal: requestSignal,
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  await factory.start(signal, 2);
  logger.info('simulated workload controllers running', { node: simulatedNodeName });
  // close() also closes the transport the factory made for itself (it was given a logger the config lacks).
  return { stopped: () => factory.stopped(), close: () => factory.close() };
}
