// Sharded controller factories (issue 32) against an API server: three replicas of one factory in this process
// on one ring split the ConfigMaps of a namespace so that every change is reconciled by exactly one replica, a
// replica that stops hands its keys over, and no handler ever sees a deletion because an object moved. Run on
// the built-in server with the server-side filter (KEP-5866) and without it (client-side filter), and on a real
// kube-apiserver (KUBEBUILDER_ASSETS: 1.20.2 ignores shardSelector, so the client-side filter runs).
import { Client, loadKubeConfig } from '@lasso/client';
import { enqueueOwnerHandler } from '@lasso/controller';
import type { Logger } from '@lasso/core';
import { fnv1a64Hex } from '@lasso/core/sharding';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { SharedControllerFactory } from '../../src/controller-factory-api.ts';
import { kindFor } from '../../src/kind.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import { Waiter } from './helpers.ts';

/**
 * A logger that wakes the waiter after each entry: the ring and the coordinator log every membership change, claim,
 * release and gain at info once their state changed, so ownership is re-checked on each change without polling.
 */
function ringLogger(waiter: Waiter): Logger {
  const wake = (): void => queueMicrotask(() => waiter.notify());
  const logger: Logger = {
    debug: wake,
    info: wake,
    warn: wake,
    error: wake,
    child: () => logger,
  };
  return logger;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Reconcile {
  readonly replica: string;
  readonly key: string;
  readonly version: string | undefined;
  readonly deleted: boolean;
}

/** The range (of 256) an object's uid hashes to. */
function rangeOf(uid: string): number {
  return Math.floor(Number.parseInt(fnv1a64Hex(uid).slice(0, 8), 16) / 2 ** 24);
}

/**
 * A replica `identity` of a sharded factory on `ring`, its Leases and cache in the environment's namespace, and
 * the switch that stops it; closed after the test. Its log wakes `waiter`.
 */
async function shardedReplica(
  env: Environment,
  ring: string,
  identity: string,
  waiter: Waiter,
): Promise<{ factory: SharedControllerFactory; stop: AbortController }> {
  const { namespace } = env;
  const rest = await loadKubeConfig({ path: env.kubeconfigPath });
  const factory = createSharedControllerFactoryFromConfig(rest, {
    sharding: {
      ring,
      leaseNamespace: namespace,
      identity,
      // Generous against a loaded machine (a replica past its renew deadline is fenced); a graceful hand-off
      // does not wait for either.
      leaseDurationMs: 6_000,
      renewDeadlineMs: 4_000,
      retryPeriodMs: 400,
    },
    cache: { defaultNamespace: namespace },
    gracefulShutdownTimeoutMs: 5_000,
    logger: ringLogger(waiter),
  });
  const stop = new AbortController();
  cleanups.push(async () => {
    stop.abort();
    await factory.close();
  });
  return { factory, stop };
}

const objects = 24;

async function runScenario(options: { shardedListAndWatch?: boolean }): Promise<void> {
  const env = await startEnvironment({
    namespace: true,
    ...(options.shardedListAndWatch === undefined
      ? {}
      : { shardedListAndWatch: options.shardedListAndWatch }),
  });
  cleanups.push(() => env.stop());
  const namespace = env.namespace;
  const admin = await loadKubeConfig({ path: env.kubeconfigPath });
  const configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest: admin,
  });
  const uids = new Map<string, string>();
  for (let index = 0; index < objects; index++) {
    const created = await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${index}`, namespace },
      data: { v: '1' },
    });
    uids.set(`${namespace}/cm-${index}`, created.metadata?.uid as string);
  }

  const waiter = new Waiter();
  const reconciles: Reconcile[] = [];
  const active = new Map<string, string>();
  const overlaps: string[] = [];
  const ring = `ring${process.pid % 10_000}x${Math.floor(Math.random() * 1e6)}`;
  const replicas = new Map<string, { factory: SharedControllerFactory; stop: AbortController }>();
  for (const name of ['r1', 'r2', 'r3']) {
    const { factory, stop } = await shardedReplica(env, ring, name, waiter);
    const controller = await factory.forKind(kindFor('v1', 'ConfigMap'));
    controller.registerHandler(stop.signal, 'record', async (key, configMap) => {
      const other = active.get(key);
      if (other !== undefined) overlaps.push(`${key}: ${name} while ${other}`);
      active.set(key, name);
      // A few turns of the event loop: room for another replica to start on the same key, were it allowed to.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      active.delete(key);
      reconciles.push({
        replica: name,
        key,
        version: configMap?.data?.v,
        deleted: configMap === undefined,
      });
      waiter.notify();
      return configMap;
    });
    replicas.set(name, { factory, stop });
  }
  await Promise.all([...replicas.values()].map(({ factory, stop }) => factory.start(stop.signal)));

  const owners = (): Map<number, string[]> => {
    const byRange = new Map<number, string[]>();
    for (const [name, { factory }] of replicas) {
      for (const range of factory.shardStatus()?.owned ?? []) {
        byRange.set(range, [...(byRange.get(range) ?? []), name]);
      }
    }
    return byRange;
  };
  const settled = (members: number): boolean => {
    const byRange = owners();
    return (
      byRange.size === 256 &&
      [...byRange.values()].every((names) => names.length === 1) &&
      [...replicas.values()].every(
        ({ factory, stop }) =>
          stop.signal.aborted || factory.shardStatus()?.members.length === members,
      )
    );
  };
  await waiter.until(() => settled(3), 'three replicas owning every range once', 30_000);

  /** Update every object to `version` and wait until each was reconciled at it; the replicas that did. */
  const roundOf = async (version: string): Promise<Map<string, Set<string>>> => {
    const from = reconciles.length;
    for (let index = 0; index < objects; index++) {
      const current = await configMaps.get(namespace, `cm-${index}`);
      await configMaps.update(namespace, { ...current, data: { v: version } });
    }
    const byKey = new Map<string, Set<string>>();
    await waiter.until(
      () => {
        byKey.clear();
        for (const reconcile of reconciles.slice(from)) {
          if (reconcile.version !== version) continue;
          byKey.set(reconcile.key, (byKey.get(reconcile.key) ?? new Set()).add(reconcile.replica));
        }
        return byKey.size === objects;
      },
      `every object reconciled at v=${version}`,
      30_000,
    );
    return byKey;
  };

  const checkRound = (byKey: Map<string, Set<string>>, live: readonly string[]): void => {
    const byRange = owners();
    for (const [key, names] of byKey) {
      expect([...names], key).toHaveLength(1);
      const [replica] = [...names];
      expect(live).toContain(replica);
      expect(byRange.get(rangeOf(uids.get(key) as string))).toEqual([replica]);
    }
  };

  const second = await roundOf('2');
  checkRound(second, ['r1', 'r2', 'r3']);
  // The keys r1 reconciled: after its stop, r2 and r3 must take each of them over.
  const r1Keys = [...second].filter(([, names]) => names.has('r1')).map(([key]) => key);

  // r1 stops: it releases its ranges, the others take them over and reconcile its keys once each.
  const r1 = replicas.get('r1');
  r1?.stop.abort();
  await r1?.factory.stopped();
  await waiter.until(() => settled(2), 'two replicas owning every range once', 30_000);
  checkRound(await roundOf('3'), ['r2', 'r3']);

  const kindStatus = replicas
    .get('r2')
    ?.factory.status()
    .find((kind) => kind.key === '/v1, Kind=ConfigMap');
  expect(kindStatus?.shard).toMatchObject({ ring, members: ['r2', 'r3'], rangeCount: 256 });
  expect(kindStatus?.shard?.moves.in).toBeGreaterThan(0);
  expect(r1Keys.length).toBeGreaterThan(0);
  const third = reconciles.filter((reconcile) => reconcile.version === '3');
  for (const key of r1Keys) {
    expect(third.filter((reconcile) => reconcile.key === key).map((r) => r.replica)).toHaveLength(
      1,
    );
  }
  expect(overlaps).toEqual([]);
  expect(reconciles.filter((reconcile) => reconcile.deleted)).toEqual([]);
}

describe('sharded controller factories', () => {
  it('split the objects among replicas, each change reconciled by exactly one, hand over on stop', async () => {
    await runScenario({});
  }, 120_000);

  it('do the same with the client-side filter (a server without shardSelector)', async () => {
    if (process.env.KUBEBUILDER_ASSETS !== undefined || process.env.LASSO_TEST_KUBECONFIG) return;
    await runScenario({ shardedListAndWatch: false });
  }, 120_000);
});

describe('sharded controller factories with an owned kind', () => {
  it('put the objects a controller owns on its owner’s replica (hashed by owner, filtered client-side)', async () => {
    const env = await startEnvironment({ namespace: true });
    cleanups.push(() => env.stop());
    const namespace = env.namespace;
    const admin = await loadKubeConfig({ path: env.kubeconfigPath });
    const configMaps = new Client<ConfigMap>({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest: admin,
    });
    const secrets = new Client<Secret>({
      gvr: { group: '', version: 'v1', resource: 'secrets' },
      kind: 'Secret',
      namespaced: true,
      rest: admin,
    });
    const waiter = new Waiter();
    // Owner key -> children its replica's Secret cache held at its last reconcile.
    const childrenSeen = new Map<string, number>();
    const ring = `owned${process.pid % 10_000}x${Math.floor(Math.random() * 1e6)}`;
    const factories = new Map<string, SharedControllerFactory>();
    for (const name of ['r1', 'r2']) {
      const { factory, stop } = await shardedReplica(env, ring, name, waiter);
      const owners = await factory.forKind(kindFor('v1', 'ConfigMap'));
      const children = await factory.forKind(kindFor('v1', 'Secret'));
      children.registerHandler(
        stop.signal,
        'owner',
        enqueueOwnerHandler(owners, { group: '', kind: 'ConfigMap' }),
      );
      owners.registerHandler(stop.signal, 'count-children', (key, owner) => {
        if (owner === undefined) return;
        const uid = owner.metadata?.uid;
        const mine = children
          .list(namespace)
          .filter((secret) => secret.metadata?.ownerReferences?.some((ref) => ref.uid === uid));
        childrenSeen.set(key, mine.length);
        waiter.notify();
      });
      factories.set(name, factory);
      await factory.start(stop.signal);
    }
    const owned = (): number[] =>
      [...factories.values()].flatMap((factory) => factory.shardStatus()?.owned ?? []);
    await waiter.until(
      () => owned().length === 256 && new Set(owned()).size === 256,
      'two replicas owning every range once',
      30_000,
    );
    const ownerCount = 8;
    for (let index = 0; index < ownerCount; index++) {
      const owner = await configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `owner-${index}`, namespace },
      });
      for (const child of ['a', 'b']) {
        await secrets.create(namespace, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: `owner-${index}-${child}`,
            namespace,
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                name: `owner-${index}`,
                uid: owner.metadata?.uid as string,
                controller: true,
              },
            ],
          },
        });
      }
    }
    await waiter.until(
      () =>
        childrenSeen.size === ownerCount &&
        [...childrenSeen.values()].every((count) => count === 2),
      'every owner reconciled with both its children in its replica’s cache',
      30_000,
    );
    // Each Secret is held by exactly one replica: its owner's (the owned kind is hashed by owner).
    for (const factory of factories.values()) {
      const kinds = factory.shardStatus()?.kinds ?? [];
      expect(kinds.find((kind) => kind.kind === '/v1, Kind=Secret')?.byOwner).toBe(true);
      expect(kinds.find((kind) => kind.kind === '/v1, Kind=ConfigMap')?.byOwner).toBe(false);
    }
    const held = [...factories.values()].map(
      (factory) =>
        factory.shardStatus()?.kinds.find((kind) => kind.kind === '/v1, Kind=Secret')
          ?.objectsOwned ?? 0,
    );
    expect(held.reduce((sum, count) => sum + count, 0)).toBe(ownerCount * 2);
  }, 120_000);
});
