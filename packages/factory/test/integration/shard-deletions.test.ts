// Deletions between owners (issue 32, "0 lost final states"): an object deleted while its shard range moves from
// one replica to another, or while its replica is dead, is reconciled as a deletion by the new owner, which lists
// the range at the previous holder's deletion watermark and replays what is gone since. Two replicas of one factory
// in this process; on the built-in server (server-side filter) and on kube-apiserver 1.20.2 (KUBEBUILDER_ASSETS:
// the replay's list is filtered client-side).
import { Client, loadKubeConfig } from '@lasso/client';
import type { Logger } from '@lasso/core';
import { fnv1a64Hex } from '@lasso/core/sharding';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { SharedControllerFactory } from '../../src/controller-factory-api.ts';
import { kindFor } from '../../src/kind.ts';
import { assignShardRanges } from '../../src/sharding/assignment.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import { Waiter } from './helpers.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Wakes the waiter on every log entry (the ring logs each claim, release and gain), keeping warnings. */
function ringLogger(waiter: Waiter, warnings: string[]): Logger {
  const wake = (): void => queueMicrotask(() => waiter.notify());
  const logger: Logger = {
    debug: wake,
    info: wake,
    warn: (message) => {
      warnings.push(message);
      wake();
    },
    error: wake,
    child: () => logger,
  };
  return logger;
}

function rangeOf(uid: string): number {
  return Math.floor(Number.parseInt(fnv1a64Hex(uid).slice(0, 8), 16) / 2 ** 24);
}

interface Seen {
  readonly replica: string;
  readonly key: string;
  readonly deleted: boolean;
}

interface Replica {
  readonly name: string;
  readonly factory: SharedControllerFactory;
  readonly stop: AbortController;
  /** While true every request of this replica fails before it is sent (a dead or partitioned process). */
  dead: boolean;
}

async function setup(shardedListAndWatch?: boolean) {
  const env: Environment = await startEnvironment({
    namespace: true,
    ...(shardedListAndWatch === undefined ? {} : { shardedListAndWatch }),
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
  const waiter = new Waiter();
  // The watermarks annotation of each member Lease as last written, followed by a watch.
  const published = new Map<string, string | undefined>();
  const leases = new Client<Lease>({
    gvr: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
    kind: 'Lease',
    namespaced: true,
    rest: admin,
  });
  const watching = new AbortController();
  cleanups.push(async () => watching.abort());
  void (async () => {
    try {
      for await (const event of leases.watch(namespace, { signal: watching.signal })) {
        const name = event.object.metadata?.name ?? '';
        published.set(
          name,
          event.object.metadata?.annotations?.['lasso.cattle.io/shard-watermarks'],
        );
        waiter.notify();
      }
    } catch {
      // Ends with the test.
    }
  })();
  const warnings: string[] = [];
  const seen: Seen[] = [];
  const ring = `del${process.pid % 10_000}x${Math.floor(Math.random() * 1e6)}`;
  // A reconcile of this key parks (ignoring its signal) until the gate opens: it holds its replica's release.
  const blocking = { key: '', open: (): void => {}, parked: false };
  cleanups.push(async () => blocking.open());

  const replica = async (name: string): Promise<Replica> => {
    const rest = await loadKubeConfig({ path: env.kubeconfigPath });
    const factory = createSharedControllerFactoryFromConfig(rest, {
      sharding: {
        ring,
        leaseNamespace: namespace,
        identity: name,
        leaseDurationMs: 6_000,
        renewDeadlineMs: 4_000,
        retryPeriodMs: 400,
      },
      cache: { defaultNamespace: namespace },
      gracefulShutdownTimeoutMs: 3_000,
      logger: ringLogger(waiter, warnings),
    });
    const stop = new AbortController();
    const self: Replica = { name, factory, stop, dead: false };
    factory.sharedClientFactory().transport.addRequestGuard(() => {
      if (self.dead) throw new Error(`replica ${name} is dead`);
    });
    cleanups.push(async () => {
      self.dead = false;
      stop.abort();
      await factory.close();
    });
    const controller = await factory.forKind(kindFor('v1', 'ConfigMap'));
    controller.registerHandler(stop.signal, 'record', async (key, configMap) => {
      if (key === blocking.key && configMap?.data?.v === 'block' && !blocking.parked) {
        blocking.parked = true;
        waiter.notify();
        await new Promise<void>((resolve) => {
          blocking.open = resolve;
        });
      }
      seen.push({ replica: name, key, deleted: configMap === undefined });
      waiter.notify();
      return configMap;
    });
    await factory.start(stop.signal);
    return self;
  };

  const create = async (count: number): Promise<Map<string, number>> => {
    const ranges = new Map<string, number>();
    for (let index = 0; index < count; index++) {
      const created = await configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${index}`, namespace },
        data: { v: '1' },
      });
      ranges.set(`${namespace}/cm-${index}`, rangeOf(created.metadata?.uid as string));
    }
    return ranges;
  };
  const remove = async (key: string): Promise<void> => {
    await configMaps.delete(namespace, key.split('/')[1] as string);
  };
  const owned = (r: Replica): number => r.factory.shardStatus()?.owned.length ?? 0;
  const deletionsSeenBy = (name: string): Set<string> =>
    new Set(seen.filter((s) => s.replica === name && s.deleted).map((s) => s.key));
  /** Whether `name`'s Lease published a watermark for ConfigMaps. */
  const publishedBy = (name: string): boolean =>
    [...published].some(
      ([lease, text]) => lease.endsWith(`-${name}`) && text?.includes('ConfigMap') === true,
    );
  return {
    publishedBy,
    namespace,
    configMaps,
    waiter,
    warnings,
    seen,
    blocking,
    replica,
    create,
    remove,
    owned,
    deletionsSeenBy,
  };
}

const objects = 24;

async function ackHandOff(shardedListAndWatch?: boolean): Promise<void> {
  const t = await setup(shardedListAndWatch);
  const r1 = await t.replica('r1');
  await t.waiter.until(() => t.owned(r1) === 256, 'r1 owning every range', 30_000);
  const ranges = await t.create(objects);
  await t.waiter.until(
    () => new Set(t.seen.map((s) => s.key)).size === objects,
    'r1 reconciled every object',
    30_000,
  );
  // The keys whose range moves to r2 once it joins; one parks r1's release, the others are deleted meanwhile.
  const owners = assignShardRanges(['r1', 'r2'], 256);
  const moving = [...ranges].filter(([, range]) => owners[range] === 'r2').map(([key]) => key);
  expect(moving.length).toBeGreaterThan(3);
  const [blocker, ...victims] = moving;
  t.blocking.key = blocker as string;
  const current = await t.configMaps.get(t.namespace, (blocker as string).split('/')[1] as string);
  await t.configMaps.update(t.namespace, { ...current, data: { v: 'block' } });
  await t.waiter.until(() => t.blocking.parked, 'r1 parked on the blocker', 30_000);

  const r2 = await t.replica('r2');
  await t.waiter.until(
    () => (r1.factory.shardStatus()?.releasing.length ?? 0) > 0,
    'r1 releasing ranges to r2 (held by the parked reconcile)',
    30_000,
  );
  // Deleted while r1 no longer acts on their range and r2 does not hold it yet: r1's informer sees the deletions
  // but may not reconcile them; r2 never held the objects.
  for (const key of victims) await t.remove(key);
  const r1Controller = await r1.factory.forKind(kindFor('v1', 'ConfigMap'));
  await t.waiter.until(
    () => {
      const names = new Set(
        r1Controller.list(t.namespace).map((cm) => `${t.namespace}/${cm.metadata?.name}`),
      );
      return victims.every((key) => !names.has(key));
    },
    'r1’s cache saw the deletions',
    30_000,
  );
  t.blocking.open();
  await t.waiter.until(
    () => t.owned(r1) + t.owned(r2) === 256 && t.owned(r2) > 0,
    'r2 owning the ranges r1 released',
    30_000,
  );
  await t.waiter.until(
    () => victims.every((key) => t.deletionsSeenBy('r2').has(key)),
    'r2 reconciled each deletion of the moved ranges',
    30_000,
  );
  expect(t.deletionsSeenBy('r1')).toEqual(new Set());
}

async function takeover(shardedListAndWatch?: boolean): Promise<void> {
  const t = await setup(shardedListAndWatch);
  const r1 = await t.replica('r1');
  const r2 = await t.replica('r2');
  await t.waiter.until(
    () => t.owned(r1) + t.owned(r2) === 256 && t.owned(r1) > 0 && t.owned(r2) > 0,
    'two replicas owning every range',
    30_000,
  );
  const ranges = await t.create(objects);
  await t.waiter.until(
    () => new Set(t.seen.map((s) => s.key)).size === objects,
    'every object reconciled',
    30_000,
  );
  const r2Ranges = new Set(r2.factory.shardStatus()?.owned ?? []);
  const victims = [...ranges].filter(([, range]) => r2Ranges.has(range)).map(([key]) => key);
  expect(victims.length).toBeGreaterThan(0);
  // Its Lease names a watermark once it received an event (W: the resourceVersion of its last event before its
  // oldest unsettled deletion); a member that dies before its first watermark is replayed from nothing.
  await t.waiter.until(() => t.publishedBy('r2'), 'r2 publishing a watermark', 30_000);
  // r2 dies: none of its requests reach the server from now on; it fences at its renew deadline.
  r2.dead = true;
  await t.waiter.until(() => t.owned(r2) === 0, 'r2 fenced', 30_000);
  for (const key of victims) await t.remove(key);
  // r1 takes r2's Lease over once it expired, claims its ranges and replays their deletions since its watermark.
  await t.waiter.until(() => t.owned(r1) === 256, 'r1 owning every range', 30_000);
  await t.waiter.until(
    () => victims.every((key) => t.deletionsSeenBy('r1').has(key)),
    'r1 reconciled each deletion of the taken-over ranges',
    30_000,
  );
  expect(t.warnings.filter((message) => message.includes('not replayed'))).toEqual([]);
}

describe('sharded factories replay deletions between owners', () => {
  it('a range moving by acknowledgement: deletions its old owner did not reconcile reach the new owner', async () => {
    await ackHandOff();
  }, 120_000);

  it('a dead replica taken over: deletions while it was dead reach the new owner', async () => {
    await takeover();
  }, 120_000);

  it('the same with the client-side filter (a server without shardSelector)', async () => {
    if (process.env.KUBEBUILDER_ASSETS !== undefined || process.env.LASSO_TEST_KUBECONFIG) return;
    await ackHandOff(false);
    await takeover(false);
  }, 240_000);
});
