// Graceful shutdown: the operator is stopped at the exact moment one of its reconciles has a write in flight
// (a Deployment create, then a Deployment delete). The reconciles' signals abort at once, so a reconcile stops
// between two writes; afterwards every Icecream and its Deployment are still consistent (owned, guarded by the
// finalizer), every key taken was handed back, intake stopped, the stop drained, and a new operator finishes.
import type { MetricLabels, MetricsProvider, StopResult } from '@lasso/core';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Icecream } from '../src/generated/index.ts';
import { icecreamFinalizer } from '../src/icecream.ts';
import {
  icecream,
  isReadyAt,
  observe,
  runOperator,
  runSimulatedWorkload,
  startCluster,
  type TestCluster,
} from './helpers.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const names = ['a', 'b', 'c', 'd', 'e', 'f'];
const workers = 2;

/**
 * Metrics that call `onResponse` when the operator's transport gets the headers of a response to `method`
 * (`rest_client_requests_total`, counted before the caller sees the response), and count the keys each queue
 * handed to a worker (`workqueue_queue_duration_seconds`) and got back as done (`workqueue_work_duration_seconds`).
 */
function probe(method: string, onResponse: () => void) {
  const taken = new Map<string, number>();
  const done = new Map<string, number>();
  const bump = (counts: Map<string, number>, labels: MetricLabels | undefined) => {
    const queue = labels?.name ?? '';
    counts.set(queue, (counts.get(queue) ?? 0) + 1);
  };
  const noop = { inc: () => {}, dec: () => {}, set: () => {}, observe: () => {} };
  const metrics: MetricsProvider = {
    counter: ({ name, labels }) =>
      name === 'rest_client_requests_total' &&
      labels?.method === method &&
      /^2\d\d$/.test(labels.code ?? '')
        ? { inc: onResponse }
        : noop,
    gauge: () => noop,
    histogram: ({ name, labels }) => {
      if (name === 'workqueue_queue_duration_seconds')
        return { observe: () => bump(taken, labels) };
      if (name === 'workqueue_work_duration_seconds') return { observe: () => bump(done, labels) };
      return noop;
    },
  };
  /** Keys of the Icecream queue taken by a worker and not yet done. */
  const icecreamsInFlight = (): number => {
    let inFlight = 0;
    for (const [queue, count] of taken) {
      if (queue.includes('Icecream')) inFlight += count - (done.get(queue) ?? 0);
    }
    return inFlight;
  };
  return { metrics, taken, done, icecreamsInFlight };
}

function deploymentOf(deployments: Deployment[], name: string): Deployment | undefined {
  return deployments.find((deployment) => deployment.metadata?.name === `${name}-scoops`);
}

describe('createOperator shutdown', () => {
  it('finishes the reconciles in flight and takes no new ones when its signal aborts', async () => {
    const namespace = await cluster.namespace('shutdown');
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const icecreams = await observe(cluster.icecreams, namespace);
    const deploymentsSeen = await observe(cluster.deployments, namespace);
    try {
      for (const name of names) {
        await cluster.icecreams.create(namespace, icecream(namespace, name, { replicas: 1 }));
      }

      // 1. Stopped while a Deployment create is in flight (its response arrived, the reconcile has not seen it).
      let stopCreating = (): void => {};
      let inFlightAtStop = -1;
      const creating = probe('POST', () => {
        if (inFlightAtStop !== -1) return;
        inFlightAtStop = creating.icecreamsInFlight();
        stopCreating();
      });
      const first = await runOperator({
        rest: cluster.rest,
        namespace,
        workers,
        metrics: creating.metrics,
      });
      const stopped = new Promise<StopResult>((resolve) => {
        stopCreating = () => resolve(first.stop());
      });
      expect(await stopped).toEqual({ drained: true, pending: [] });
      expect(first.operator.status().phase).toBe('closed');
      expect(first.logger.find('operator stopped')).toHaveLength(1);
      expect(inFlightAtStop).toBeGreaterThanOrEqual(1);
      // The reconciles the stop cut short are said at info, not as errors with a stack.
      expect(first.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
      // Every key a worker took was finished (Done), none dropped mid-way.
      expect(creating.done).toEqual(creating.taken);

      const afterCreate = (await cluster.icecreams.list(namespace)).items;
      const deployments = (await cluster.deployments.list(namespace)).items;
      expect(deployments.length).toBeGreaterThanOrEqual(1);
      expect(deployments.length).toBeLessThanOrEqual(workers);
      for (const object of afterCreate) {
        const name = object.metadata?.name ?? '';
        const deployment = deploymentOf(deployments, name);
        if (deployment === undefined) {
          // Never reconciled, or only its finalizer added: nothing half done either way.
          expect(object.status, name).toBeUndefined();
          continue;
        }
        // Owned and guarded; its status is written when the stop came after the create's reconcile got that far,
        // else by the next operator (the stop aborted the reconcile's signal, so no write follows it).
        expect(object.metadata?.finalizers, name).toContain(icecreamFinalizer);
        expect(deployment.metadata?.ownerReferences?.[0]?.uid, name).toBe(object.metadata?.uid);
        if (object.status !== undefined) {
          expect(object.status.observedGeneration, name).toBe(object.metadata?.generation);
        }
      }

      // A new operator picks up everything the first one did not get to.
      const second = await runOperator({ rest: cluster.rest, namespace, workers });
      try {
        await icecreams.until(
          () => names.every((name) => isReadyAt(icecreams.get(name) ?? ({} as Icecream), 1)),
          'every Icecream Ready',
          30_000,
        );
      } finally {
        await second.stop();
      }

      // 2. Stopped while a cleanup's Deployment delete is in flight.
      let stopDeleting = (): void => {};
      let stoppedOnce = false;
      const deleting = probe('DELETE', () => {
        if (stoppedOnce) return;
        stoppedOnce = true;
        stopDeleting();
      });
      const third = await runOperator({
        rest: cluster.rest,
        namespace,
        workers,
        metrics: deleting.metrics,
      });
      const thirdStopped = new Promise<StopResult>((resolve) => {
        stopDeleting = () => resolve(third.stop());
      });
      await third.logger.untilLogged('controller factory started');
      for (const name of names) await cluster.icecreams.delete(namespace, name);
      expect(await thirdStopped).toEqual({ drained: true, pending: [] });
      expect(deleting.done).toEqual(deleting.taken);
      expect(third.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);

      const remaining = (await cluster.icecreams.list(namespace)).items;
      const remainingDeployments = (await cluster.deployments.list(namespace)).items;
      // At least one cleanup deleted its Deployment; no more than the workers were cut mid-way.
      expect(remainingDeployments.length).toBeLessThan(names.length);
      for (const name of names) {
        const object: Icecream | undefined = remaining.find((o) => o.metadata?.name === name);
        const deployment = deploymentOf(remainingDeployments, name);
        if (object === undefined) {
          expect(deployment, `Deployment of deleted ${name}`).toBeUndefined();
        } else {
          // Not finished yet: still guarded by its finalizer (its Deployment deleted or not), so the next
          // operator's cleanup runs.
          expect(object.metadata?.deletionTimestamp, name).toBeDefined();
          expect(object.metadata?.finalizers, name).toContain(icecreamFinalizer);
        }
      }

      // And a new operator finishes the cleanups.
      const fourth = await runOperator({ rest: cluster.rest, namespace, workers });
      try {
        await icecreams.until(() => icecreams.list().length === 0, 'every Icecream gone', 30_000);
        await deploymentsSeen.until(
          () => deploymentsSeen.list().length === 0,
          'every Deployment gone',
          30_000,
        );
      } finally {
        await fourth.stop();
      }
    } finally {
      await Promise.all([icecreams.stop(), deploymentsSeen.stop()]);
      await simulated.stop();
    }
  }, 120_000);
});
