// Three shard ring members in one process against an API server (the built-in one, or a real kube-apiserver with
// KUBEBUILDER_ASSETS): they join and split the ranges as the assignment says, one leaves and only its ranges move,
// one is killed (its Lease no longer renewed, nothing released) and the others take its ranges once it expired. At
// every claim, no other member owns the range. Short Lease timings (3 s / 2 s / 0.5 s) keep it quick.
import { type Client, clientFor } from '@lasso/client';
import { createTestLogger, type TestLogger } from '@lasso/core/testing';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assignShardRanges } from '../../src/sharding/assignment.ts';
import { shardRingLabel } from '../../src/sharding/membership.ts';
import { createShardRing } from '../../src/sharding/ring.ts';
import type { ShardRing } from '../../src/sharding/ring-api.ts';
import type { ShardLeaseClient } from '../../src/sharding/ring-store.ts';
import { startCluster, type TestCluster, Waiter } from './helpers.ts';

const rangeCount = 64;
const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

let cluster: TestCluster;
let leases: Client<Lease>;
const cleanups: Array<() => Promise<void>> = [];
let counter = 0;

beforeAll(async () => {
  cluster = await startCluster();
  leases = clientFor(cluster.admin, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await cluster?.stop();
});

interface Member {
  readonly identity: string;
  readonly ring: ShardRing;
  readonly logger: TestLogger;
  readonly stop: AbortController;
  /** After this, every call of the member fails: its Lease is no longer renewed and nothing is released. */
  kill(): void;
}

/** A Lease client whose calls all fail once killed, as a process that died would make none. */
function killable(client: Client<Lease>): { client: ShardLeaseClient; kill(): void } {
  let killed = false;
  const dead = (): Error => new Error('killed');
  const wrap =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      killed ? Promise.reject(dead()) : call(...args);
  return {
    kill: () => {
      killed = true;
    },
    client: {
      gvr: client.gvr,
      kind: client.kind,
      namespaced: client.namespaced,
      get: wrap(client.get.bind(client)),
      create: wrap(client.create.bind(client)),
      update: wrap(client.update.bind(client)),
      delete: wrap(client.delete.bind(client)),
      list: wrap(client.list.bind(client)),
      watch: (namespace, options) => {
        if (killed) throw dead();
        const inner = client.watch(namespace, options);
        return {
          async *[Symbol.asyncIterator]() {
            for await (const event of inner) {
              if (killed) throw dead();
              yield event;
            }
          },
        };
      },
    },
  };
}

async function ringOf(namespace: string, ring: string, identities: string[]) {
  const waiter = new Waiter();
  const violations: string[] = [];
  const members = new Map<string, Member>();
  for (const identity of identities) {
    const logger = createTestLogger();
    const { client, kill } = killable(leases);
    const member: Member = {
      identity,
      logger,
      stop: new AbortController(),
      kill,
      ring: createShardRing({
        client,
        ring,
        leaseNamespace: namespace,
        identity,
        rangeCount,
        ...timings,
        gracefulShutdownTimeoutMs: 2_000,
        logger,
      }),
    };
    member.ring.subscribe(({ gained, releasing }) => {
      for (const range of gained) {
        for (const other of members.values()) {
          if (other !== member && other.ring.owns(range)) {
            violations.push(`range ${range} gained by ${identity} while ${other.identity} owns it`);
          }
        }
      }
      if (releasing.length > 0) void member.ring.released(releasing);
      waiter.notify();
    });
    members.set(identity, member);
    cleanups.push(async () => {
      member.stop.abort();
      await member.ring.close();
    });
  }
  for (const member of members.values()) await member.ring.start(member.stop.signal);
  const owners = (): Array<string | undefined> => {
    const result: Array<string | undefined> = new Array(rangeCount).fill(undefined);
    for (const member of members.values()) {
      for (const range of member.ring.owned) result[range] = member.identity;
    }
    return result;
  };
  const converged = (live: string[]): boolean =>
    JSON.stringify(owners()) === JSON.stringify(assignShardRanges(live, rangeCount));
  return { members, waiter, violations, owners, converged };
}

describe('shard ring against an API server', () => {
  it('three members join, split the ranges as the assignment says, and one leaves, handing its ranges over', async () => {
    const namespace = await cluster.namespace('ring');
    const ring = `join${++counter}`;
    const { members, waiter, violations, owners, converged } = await ringOf(namespace, ring, [
      'a',
      'b',
      'c',
    ]);
    await waiter.until(() => converged(['a', 'b', 'c']), 'three members converged');
    const written = (await leases.list(namespace, { labelSelector: `${shardRingLabel}=${ring}` }))
      .items;
    expect(written.map((lease) => lease.metadata?.name).sort()).toEqual([
      `${ring}-a`,
      `${ring}-b`,
      `${ring}-c`,
    ]);
    for (const member of members.values()) {
      expect(member.ring.status()).toMatchObject({ joined: true, members: ['a', 'b', 'c'] });
    }

    const before = owners();
    const c = members.get('c')!;
    c.stop.abort();
    await waiter.until(() => converged(['a', 'b']), 'two members converged after c left');
    expect(await c.ring.stopped()).toEqual({ drained: true, pending: [] });
    const after = owners();
    // c's ranges moved; the load bound may also move a few between a and b (with these names, 1 of 64): each
    // through the acknowledged hand-off (`violations` records a gain while another member owns the range).
    const between = after.filter(
      (owner, range) => before[range] !== 'c' && owner !== before[range],
    ).length;
    expect(after.every((owner) => owner !== 'c')).toBe(true);
    expect(between).toBe(1);
    await expect(leases.get(namespace, `${ring}-c`)).rejects.toMatchObject({ status: 404 });
    expect(violations).toEqual([]);
  });

  it('a killed member’s ranges are taken by the others once its Lease expired', async () => {
    const namespace = await cluster.namespace('ring');
    const ring = `kill${++counter}`;
    const { members, waiter, violations, converged } = await ringOf(namespace, ring, [
      'a',
      'b',
      'c',
    ]);
    await waiter.until(() => converged(['a', 'b', 'c']), 'three members converged');
    const c = members.get('c')!;
    const cRanges = c.ring.owned;
    const killedAt = performance.now();
    c.kill();
    const others = [members.get('a')!, members.get('b')!];
    const retaken = (): boolean =>
      cRanges.every((range) => others.some((member) => member.ring.owns(range)));
    await waiter.until(retaken, 'c’s ranges owned again', 20_000);
    const gapMs = performance.now() - killedAt;
    // Never before c's Lease could have expired on the observers' clocks (its last renewal came before the kill).
    expect(gapMs).toBeGreaterThanOrEqual(timings.leaseDurationMs - timings.retryPeriodMs * 1.2);
    // Within its lease duration plus a round or two (the goal: lease duration + 2 s).
    expect(gapMs).toBeLessThan(timings.leaseDurationMs + 2_000);
    // c fenced itself at its renew deadline: it owns nothing.
    expect(c.ring.owned).toEqual([]);
    expect(c.ring.fence.aborted).toBe(true);
    // A range the load bound moves between a and b may still be handing off when c's are owned again.
    await waiter.until(() => converged(['a', 'b']), 'two members converged after c was killed');
    expect(
      others.flatMap((member) =>
        member.logger.find('took over the Lease of an expired shard ring member'),
      ),
    ).toHaveLength(1);
    expect(violations).toEqual([]);
  });
});
