// Two operator instances on one shard ring (--shard-ring): both work, every Icecream is reconciled by exactly one
// of them (the Events it records name one reporter), and when one stops the other takes its Icecreams over.

import { kindFor } from '@lasso/factory';
import type { Event } from 'kubernetes-types/events/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  icecream,
  isReadyAt,
  observe,
  type RunningOperator,
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

/** The identities that reported Events about the Icecream `name`. */
function reporters(events: Event[], name: string): Set<string> {
  return new Set(
    events
      .filter((event) => event.regarding?.name === name)
      .map((event) => event.reportingInstance ?? ''),
  );
}

const flavours = ['vanilla', 'chocolate', 'mint', 'lemon', 'pistachio', 'mango'];

describe('createOperator with sharding', () => {
  it('splits the Icecreams between two replicas, each reconciled by one, and hands over on stop', async () => {
    const namespace = await cluster.namespace('shard');
    const sharding = (identity: string) => ({
      ring: 'icecream',
      leaseNamespace: namespace,
      identity,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 300,
      // As operatorOptionsFrom: the Pods are read whole by every replica's reconciler.
      unshardedKinds: [kindFor('v1', 'Pod')],
    });
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const icecreams = await observe(cluster.icecreams, namespace);
    const events = await observe(cluster.events, namespace);
    const started: RunningOperator[] = [];
    try {
      const first = await runOperator({
        rest: cluster.rest,
        namespace,
        sharding: sharding('first'),
      });
      started.push(first);
      const second = await runOperator({
        rest: cluster.rest,
        namespace,
        sharding: sharding('second'),
      });
      started.push(second);
      for (const name of flavours) {
        await cluster.icecreams.create(namespace, icecream(namespace, name, { replicas: 1 }));
      }
      for (const name of flavours) {
        await icecreams.untilObject(name, (o) => isReadyAt(o, 1), `${name} Ready`);
      }
      await events.until(
        () => flavours.every((name) => reporters(events.list(), name).size > 0),
        'an Event about every Icecream',
      );
      for (const name of flavours) expect(reporters(events.list(), name).size, name).toBe(1);

      // The first stops: it releases its ranges; the second reconciles every Icecream from then on.
      await first.stop();
      for (const name of flavours) {
        await cluster.icecreams.patch(namespace, name, 'merge', { spec: { replicas: 2 } });
      }
      for (const name of flavours) {
        await icecreams.untilObject(name, (o) => isReadyAt(o, 2), `${name} Ready with 2`);
      }
      expect(second.operator.factory.shardStatus()?.members).toEqual(['second']);
    } finally {
      await Promise.all([icecreams.stop(), events.stop()]);
      await Promise.all(started.map((running) => running.stop()));
      await simulated.stop();
    }
  }, 90_000);
});
