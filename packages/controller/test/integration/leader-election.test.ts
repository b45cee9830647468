// Two leader electors on one real Lease: at most one leads at any instant, and when the leader's renewals hang
// (a client-side partition, so the test runs the same on kube-apiserver) the other takes over within bounds.
import { Client, loadKubeConfig, type RestConfig } from '@lasso/client';
import { Waiter } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderElector, type LeaderElectionOptions } from '../../src/leader-election.ts';
import { LeadershipLostError } from '../../src/leader-elector-api.ts';
import type { LeaseClient } from '../../src/lease-lock.ts';

// Short, whole-second lease so that leaseDurationSeconds on the wire equals leaseDurationMs. The renew deadline
// leaves 3 s for a renewal: a stall of the test process under load must not cost the leader its lease before the
// test partitions it.
const timing = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 200 };

/** Records election events from every candidate and lets a test await one, with a real-time deadline. */
class Timeline {
  readonly events: Array<{ at: number; what: string }> = [];
  /** Candidates leading now: their onStartedLeading ran and its signal has not aborted. */
  readonly leading = new Set<string>();
  readonly violations: string[] = [];
  readonly #waiter = new Waiter();

  push(what: string): void {
    this.events.push({ at: performance.now(), what });
    this.#waiter.notify();
  }

  at(what: string): number | undefined {
    return this.events.find((event) => event.what === what)?.at;
  }

  until(what: string, timeoutMs: number): Promise<number> {
    return this.#waiter.value(() => this.at(what), what, timeoutMs);
  }
}

/**
 * A Lease client whose calls can be made to hang until their signal aborts (as over a dead connection), and
 * which reports each successful renewal.
 */
function partitionable(client: LeaseClient, onUpdated: () => void) {
  let partitioned = false;
  const hang = <T>(signal: AbortSignal | undefined): Promise<T> =>
    new Promise<T>((_, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  const wrapped: LeaseClient = {
    get: (namespace, name, options = {}) =>
      partitioned ? hang(options.signal) : client.get(namespace, name, options),
    create: (namespace, object, options = {}) =>
      partitioned ? hang(options.signal) : client.create(namespace, object, options),
    update: async (namespace, object, options = {}) => {
      if (partitioned) return hang(options.signal);
      const updated = await client.update(namespace, object, options);
      onUpdated();
      return updated;
    },
  };
  return {
    client: wrapped,
    partition: () => {
      partitioned = true;
    },
  };
}

describe('leader election against an API server', () => {
  let env: Environment;
  let rest: RestConfig;
  let leases: Client<Lease>;
  let counter = 0;

  beforeAll(async () => {
    env = await startEnvironment({ namespace: true });
    rest = await loadKubeConfig({ path: env.kubeconfigPath });
    leases = new Client<Lease>({
      gvr: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
      kind: 'Lease',
      namespaced: true,
      rest,
    });
  });

  afterAll(async () => {
    await env?.stop();
  });

  function candidate(
    timeline: Timeline,
    identity: string,
    client: LeaseClient,
    name: string,
    options: Partial<LeaderElectionOptions> = {},
  ) {
    const controller = new AbortController();
    const elector = createLeaderElector(
      {
        client,
        namespace: env.namespace,
        name,
        identity,
        signal: controller.signal,
        ...timing,
        ...options,
      },
      {
        onStartedLeading: (signal) => {
          for (const other of timeline.leading) {
            timeline.violations.push(`${identity} started leading while ${other} leads`);
          }
          timeline.leading.add(identity);
          timeline.push(`${identity} started`);
          return new Promise<void>((resolve) => {
            signal.addEventListener(
              'abort',
              () => {
                timeline.leading.delete(identity);
                timeline.push(
                  `${identity} ${signal.reason instanceof LeadershipLostError ? 'lost' : 'aborted'}`,
                );
                resolve();
              },
              { once: true },
            );
          });
        },
        onStoppedLeading: () => timeline.push(`${identity} stopped`),
        onNewLeader: (leader) => timeline.push(`${identity} sees ${leader}`),
      },
    );
    return { elector, controller, done: elector.run() };
  }

  it('hands over to the other candidate when the leader cannot renew, never with two leaders', async () => {
    const name = `election-${process.pid}-${++counter}`;
    const timeline = new Timeline();
    let renewals = 0;
    const link = partitionable(leases, () => {
      renewals++;
      timeline.push(`a renewal ${renewals}`);
    });
    const a = candidate(timeline, 'a', link.client, name);
    await timeline.until('a started', 10_000);
    const b = candidate(timeline, 'b', leases, name);
    try {
      await timeline.until('b sees a', 10_000);
      // While a renews, b keeps waiting, across several renewals and lease durations.
      await timeline.until(`a renewal ${renewals + 12}`, 10_000);
      expect(timeline.leading).toEqual(new Set(['a']));
      expect(b.elector.isLeader()).toBe(false);

      link.partition();
      const lastRenewalAt = timeline.at(`a renewal ${renewals}`) ?? Number.NaN;
      const lostAt = await timeline.until('a lost', 10_000);
      await timeline.until('a stopped', 10_000);
      const startedAt = await timeline.until('b started', 10_000);
      // a stopped leading before b started.
      expect(startedAt).toBeGreaterThan(lostAt);
      // b waited out the lease from a's last renewal (less the latency of that renewal's answer), and took
      // over within the lease duration plus its own polling: up to two jittered waits of 2.2 retry periods
      // (one to see the last renewal, one to find it expired), plus generous slack for request latency on a
      // loaded machine: the lower bound is the safety property, this upper one only catches b polling far too
      // slowly.
      const handoverMs = startedAt - lastRenewalAt;
      expect(handoverMs).toBeGreaterThanOrEqual(timing.leaseDurationMs - 250);
      expect(handoverMs).toBeLessThan(
        timing.leaseDurationMs + 2 * 2.2 * timing.retryPeriodMs + 5_000,
      );
      await a.done;
      expect(a.elector.isLeader()).toBe(false);
      expect(b.elector.isLeader()).toBe(true);
      const lease = await leases.get(env.namespace, name);
      expect(lease.spec?.holderIdentity).toBe('b');
      expect(lease.spec?.leaseTransitions).toBe(1);
      expect(lease.spec?.leaseDurationSeconds).toBe(timing.leaseDurationMs / 1_000);
    } finally {
      a.controller.abort();
      b.controller.abort();
      await Promise.all([a.done, b.done]);
    }
    expect(timeline.violations).toEqual([]);
  }, 60_000); // real time: a few lease durations, slower on a loaded machine; above the sum of the awaited bounds

  it('releases the lease on cancel so the other candidate takes it without waiting it out', async () => {
    const name = `election-${process.pid}-${++counter}`;
    const timeline = new Timeline();
    // A long lease: only a release lets b in within the test's deadlines. A roomy renew deadline: a lost lease
    // (not the abort) would end a's leading under load.
    const long = { leaseDurationMs: 60_000, renewDeadlineMs: 3_000, retryPeriodMs: 200 };
    const a = candidate(timeline, 'a', leases, name, { ...long, releaseOnCancel: true });
    await timeline.until('a started', 10_000);
    const b = candidate(timeline, 'b', leases, name, long);
    try {
      await timeline.until('b sees a', 10_000);
      a.controller.abort();
      await a.done;
      expect(timeline.at('a aborted')).toBeDefined();
      const startedAt = await timeline.until('b started', 10_000);
      expect(startedAt).toBeGreaterThan(timeline.at('a aborted') ?? Number.POSITIVE_INFINITY);
      const lease = await leases.get(env.namespace, name);
      expect(lease.spec?.holderIdentity).toBe('b');
    } finally {
      a.controller.abort();
      b.controller.abort();
      await Promise.all([a.done, b.done]);
    }
    expect(timeline.violations).toEqual([]);
  }, 40_000); // real time: above the sum of the awaited bounds
});
