// Two operator instances on one Lease: exactly one reconciles; when it stops (releasing the Lease) the other
// takes over and reconciles what changed meanwhile.
import { clientFor, isConflict } from '@lasso/client';
import { LeadershipLostError } from '@lasso/controller';
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

// Whole seconds, so that leaseDurationSeconds on the wire equals leaseDurationMs. No step waits for a lease to
// expire (the leader releases it, or the test hands it to another holder), so the lease is long: a leader
// whose event loop or API server stalls under CI load for more than the renew deadline would lose the Lease
// and fail the test. The retry period stays short so that a handover takes a fraction of a second.
const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 200 };

/** The identities that reported Events about the Icecream `name`. */
function reporters(events: Event[], name: string): Set<string> {
  return new Set(
    events
      .filter((event) => event.regarding?.name === name)
      .map((event) => event.reportingInstance ?? ''),
  );
}

/**
 * Now as a `metav1.MicroTime` (six fractional digits): kube-apiserver 1.20.2 refuses a Lease whose renewTime has
 * the three of `toISOString()` ("cannot be handled as a Lease ... parsing time").
 */
function microTimeNow(): string {
  return new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

describe('createOperator with leaderElection', () => {
  it('reconciles in one instance only and hands over when the leader stops', async () => {
    const namespace = await cluster.namespace('leader');
    const leases = clientFor(cluster.rest, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
    const election = (identity: string) => ({
      namespace,
      name: 'icecream-operator',
      identity,
      ...timing,
    });
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const icecreams = await observe(cluster.icecreams, namespace);
    const events = await observe(cluster.events, namespace);
    const started: RunningOperator[] = [];
    try {
      const first = await runOperator({
        rest: cluster.rest,
        namespace,
        leaderElection: election('first'),
      });
      started.push(first);
      await first.logger.untilLogged('controller factory started');
      const second = await runOperator({
        rest: cluster.rest,
        namespace,
        leaderElection: election('second'),
      });
      started.push(second);
      // The second candidate saw the Lease held by the first.
      await second.logger.untilLogged('standing by');
      expect(second.operator.status().phase).toBe('standingBy');
      // Ready once its caches synced: a warm standby can take over without a LIST.
      await second.operator.factory
        .sharedCacheFactory()
        .whenSynced({ signal: AbortSignal.timeout(20_000) });
      expect(second.operator.status().ready).toBe(true);
      expect(first.operator.status().phase).toBe('running');

      await cluster.icecreams.create(namespace, icecream(namespace, 'vanilla'));
      await icecreams.untilObject('vanilla', (o) => isReadyAt(o, 2), 'Ready with 2 replicas');
      await events.until(
        () => reporters(events.list(), 'vanilla').size > 0,
        'an Event about vanilla',
      );
      expect(reporters(events.list(), 'vanilla')).toEqual(new Set(['first']));
      expect(second.logger.find('leading: starting controllers')).toEqual([]);
      expect((await leases.get(namespace, 'icecream-operator')).spec?.holderIdentity).toBe('first');

      // Stop the leader: it drains and releases the Lease (releaseOnCancel).
      await first.stop();
      expect(first.operator.status().phase).toBe('closed');
      // Created after the leader stopped: whoever reconciles it now can only be the second instance.
      await cluster.icecreams.create(namespace, icecream(namespace, 'chocolate', { replicas: 1 }));
      await second.logger.untilLogged('controller factory started');
      expect(second.operator.status().phase).toBe('running');
      await icecreams.untilObject('chocolate', (o) => isReadyAt(o, 1), 'Ready with 1 replica');
      await events.until(
        () => reporters(events.list(), 'chocolate').size > 0,
        'an Event about chocolate',
      );
      expect(reporters(events.list(), 'chocolate')).toEqual(new Set(['second']));
      expect((await leases.get(namespace, 'icecream-operator')).spec?.holderIdentity).toBe(
        'second',
      );
      // The new leader also keeps what the old one built: a scale made now is reconciled by it.
      await cluster.icecreams.patch(namespace, 'vanilla', 'merge', { spec: { replicas: 3 } });
      await icecreams.untilObject('vanilla', (o) => isReadyAt(o, 3), 'Ready with 3 replicas');

      await second.stop();
      // Released on the way out: the next candidate need not wait out the lease duration.
      const released = await leases.get(namespace, 'icecream-operator');
      expect(released.spec?.holderIdentity ?? '').toBe('');
      expect(first.logger.find('leadership lost')).toEqual([]);
    } finally {
      await Promise.all([icecreams.stop(), events.stop()]);
      await Promise.all(started.map((running) => running.stop()));
      await simulated.stop();
    }
  }, 60_000);

  it('stops by itself with the library LeadershipLostError when another holder takes the Lease', async () => {
    const namespace = await cluster.namespace('lost');
    const leases = clientFor(cluster.rest, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
    const running = await runOperator({
      rest: cluster.rest,
      namespace,
      leaderElection: { namespace, name: 'icecream-operator', identity: 'deposed', ...timing },
    });
    try {
      await running.logger.untilLogged('controller factory started');
      expect(running.operator.leadershipLost()).toBeUndefined();
      // Another candidate holds the Lease now (as after this one was paused past its lease): renewals fail.
      // The leader renews every retry period: a renewal between the read and the write makes it a 409, read again.
      for (;;) {
        const lease = await leases.get(namespace, 'icecream-operator');
        const taken = await leases
          .update(namespace, {
            ...lease,
            spec: { ...lease.spec, holderIdentity: 'intruder', renewTime: microTimeNow() },
          })
          .then(
            () => true,
            (error: unknown) => {
              if (isConflict(error)) return false;
              throw error;
            },
          );
        if (taken) break;
      }
      // Nobody aborts its signal: the run ends on the loss, workers and caches stopped.
      const result = await running.operator.stopped();
      expect(result.drained).toBe(true);
      expect(running.operator.isRunning()).toBe(false);
      expect(running.operator.leadershipLost()).toBeInstanceOf(LeadershipLostError);
      expect(running.operator.leadershipLost()?.identity).toBe('deposed');
      expect(running.logger.find('leadership lost')).toHaveLength(1);
      expect(running.operator.status().phase).toBe('failed');
    } finally {
      await running.stop();
    }
  }, 60_000);
});
