// The operator end to end on one API server (built-in, or kube-apiserver with KUBEBUILDER_ASSETS): an Icecream
// becomes an owned Deployment and a Ready status, follows a scale, is cleaned up by its finalizer, and leaves
// Events; a Deployment another owner controls is refused and left untouched.
import { clientFor, isNotFound } from '@lasso/client';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Event } from 'kubernetes-types/events/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { icecreamFinalizer, icecreamLabel, icecreamLabelValue } from '../src/icecream.ts';
import { simulatedNodeName } from '../src/simulated-workload.ts';
import {
  icecream,
  isReadyAt,
  observe,
  readyCondition,
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

/** Events about the Icecream `name`, as `reason` list (oldest first by creation). */
function reasonsAbout(events: Event[], name: string): string[] {
  return events
    .filter((event) => event.regarding?.kind === 'Icecream' && event.regarding.name === name)
    .map((event) => event.reason ?? '');
}

describe('createOperator', () => {
  it('creates, scales and deletes the Deployment of an Icecream, with status and Events', async () => {
    const namespace = await cluster.namespace('e2e');
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const running = await runOperator({ rest: cluster.rest, namespace });
    const icecreams = await observe(cluster.icecreams, namespace);
    const deployments = await observe(cluster.deployments, namespace);
    const events = await observe(cluster.events, namespace);
    try {
      const created = await cluster.icecreams.create(namespace, icecream(namespace, 'vanilla'));
      const uid = created.metadata?.uid;

      const deployment = await deployments.untilObject(
        'vanilla-scoops',
        () => true,
        'created by the operator',
      );
      expect(deployment.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'example.lasso.dev/v1',
          kind: 'Icecream',
          name: 'vanilla',
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(deployment.metadata?.labels?.[icecreamLabel]).toBe('vanilla');
      expect(deployment.spec?.replicas).toBe(2);
      expect(deployment.spec?.template?.spec?.containers?.[0]?.env).toEqual([
        { name: 'FLAVOR', value: 'vanilla' },
      ]);

      const ready = await icecreams.untilObject(
        'vanilla',
        (object) => isReadyAt(object, 2),
        'Ready with 2 replicas',
      );
      expect(ready.metadata?.finalizers).toContain(icecreamFinalizer);
      if (cluster.env.mode !== 'existing') expect(ready.status?.nodes).toEqual([simulatedNodeName]);
      expect(readyCondition(ready)).toMatchObject({
        status: 'True',
        reason: 'ScoopsAvailable',
        observedGeneration: ready.metadata?.generation,
      });

      await cluster.icecreams.patch(namespace, 'vanilla', 'merge', { spec: { replicas: 3 } });
      await deployments.untilObject(
        'vanilla-scoops',
        (object) => object.spec?.replicas === 3,
        'scaled to 3',
      );
      const scaled = await icecreams.untilObject(
        'vanilla',
        (object) => isReadyAt(object, 3),
        'Ready with 3 replicas',
      );
      expect(scaled.metadata?.generation).toBeGreaterThan(ready.metadata?.generation ?? 0);

      await cluster.icecreams.delete(namespace, 'vanilla');
      await deployments.untilGone('vanilla-scoops');
      await icecreams.untilGone('vanilla');
      await expect(cluster.deployments.get(namespace, 'vanilla-scoops')).rejects.toSatisfy(
        isNotFound,
      );

      // The recorder writes in the background: the Deleted event may come after the Icecream is gone.
      await events.until(
        () =>
          ['Created', 'Updated', 'Deleted'].every((reason) =>
            reasonsAbout(events.list(), 'vanilla').includes(reason),
          ),
        'Created, Updated and Deleted events about vanilla',
      );
      const about = events
        .list()
        .filter((event) => event.regarding?.name === 'vanilla' && event.reason !== undefined);
      for (const event of about) {
        expect(event).toMatchObject({
          type: 'Normal',
          regarding: { kind: 'Icecream', name: 'vanilla', namespace, uid },
          related: { kind: 'Deployment', name: 'vanilla-scoops', namespace },
          reportingController: 'example.lasso.dev/icecream-operator',
          reportingInstance: running.operator.identity,
        });
      }
      expect(about.find((event) => event.reason === 'Updated')?.note).toBe(
        'Updated Deployment vanilla-scoops to 3 replicas',
      );
    } finally {
      await Promise.all([icecreams.stop(), deployments.stop(), events.stop()]);
      await running.stop();
      await simulated.stop();
    }
    expect(running.operator.status().phase).toBe('closed');
  }, 60_000);

  it('serves an Icecream whose name is longer than 63 characters (a label value is not)', async () => {
    const namespace = await cluster.namespace('long');
    // 100 characters with a dot, a valid DNS subdomain name; its Deployment's name is longer still.
    const name = `${'long-name-'.repeat(6)}with.a-dot-${'x'.repeat(29)}`;
    expect(name).toHaveLength(100);
    const deploymentName = `${name}-scoops`;
    const label = icecreamLabelValue(name);
    expect(label.length).toBeLessThanOrEqual(63);
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const running = await runOperator({ rest: cluster.rest, namespace });
    const icecreams = await observe(cluster.icecreams, namespace);
    const deployments = await observe(cluster.deployments, namespace);
    try {
      await cluster.icecreams.create(
        namespace,
        icecream(namespace, name, { deploymentName, flavor: 'vanilla' }),
      );
      const deployment = await deployments.untilObject(deploymentName, () => true, 'created');
      expect(deployment.metadata?.labels?.[icecreamLabel]).toBe(label);
      expect(deployment.spec?.selector?.matchLabels).toEqual({ [icecreamLabel]: label });
      const ready = await icecreams.untilObject(
        name,
        (object) => isReadyAt(object, 2),
        'Ready with 2 replicas',
      );
      // The Pods were found through the label value: their node is reported.
      if (cluster.env.mode !== 'existing') expect(ready.status?.nodes).toEqual([simulatedNodeName]);
      await cluster.icecreams.delete(namespace, name);
      await deployments.untilGone(deploymentName);
      await icecreams.untilGone(name);
    } finally {
      await Promise.all([icecreams.stop(), deployments.stop()]);
      expect(await running.stop()).toEqual({ drained: true, pending: [] });
      await simulated.stop();
    }
  }, 60_000);

  it('refuses a Deployment another owner controls and leaves it untouched', async () => {
    const namespace = await cluster.namespace('not-owned');
    const configMaps = clientFor(cluster.rest, { apiVersion: 'v1', kind: 'ConfigMap' });
    const owner = await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner', namespace },
    });
    const foreign: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'taken-scoops',
        namespace,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: owner.metadata?.uid ?? '',
            controller: true,
          },
        ],
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'taken' } },
        template: {
          metadata: { labels: { app: 'taken' } },
          spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    };
    const before = await cluster.deployments.create(namespace, foreign);
    const running = await runOperator({ rest: cluster.rest, namespace });
    const icecreams = await observe(cluster.icecreams, namespace);
    const events = await observe(cluster.events, namespace);
    try {
      await cluster.icecreams.create(
        namespace,
        icecream(namespace, 'mint', { deploymentName: 'taken-scoops' }),
      );
      const refused = await icecreams.untilObject(
        'mint',
        (object) => readyCondition(object)?.reason === 'DeploymentNotOwned',
        'Ready=False with reason DeploymentNotOwned',
      );
      expect(refused.metadata?.finalizers).toContain(icecreamFinalizer);
      expect(readyCondition(refused)).toMatchObject({
        status: 'False',
        message: 'Deployment taken-scoops is controlled by ConfigMap owner',
        observedGeneration: refused.metadata?.generation,
      });
      await events.until(
        () => reasonsAbout(events.list(), 'mint').includes('NotOwned'),
        'a NotOwned event about mint',
      );
      expect(events.list().find((event) => event.reason === 'NotOwned')).toMatchObject({
        type: 'Warning',
        note: 'Deployment taken-scoops is controlled by ConfigMap owner',
      });

      // Deleting the Icecream runs its cleanup, which must not delete what it does not control.
      await cluster.icecreams.delete(namespace, 'mint');
      await icecreams.untilGone('mint');
      const after = await cluster.deployments.get(namespace, 'taken-scoops');
      expect(after.metadata?.generation).toBe(before.metadata?.generation);
      expect(after.metadata?.ownerReferences).toEqual(before.metadata?.ownerReferences);
      expect(after.metadata?.labels).toEqual(before.metadata?.labels);
      expect(after.spec).toEqual(before.spec);
      expect(reasonsAbout(events.list(), 'mint')).not.toContain('Deleted');
    } finally {
      await Promise.all([icecreams.stop(), events.stop()]);
      await running.stop();
    }
  }, 60_000);
});
