// Sharded informers against an API server (issue 32, data path): the same suite on the built-in server with
// KEP-5866 served (server-side filter) and turned off (client-side filter, as any server before 1.36); a real
// kube-apiserver (KUBEBUILDER_ASSETS, 1.20.2) ignores shardSelector, so there the client-side path runs.
import { Client, type KubeObject, loadKubeConfig } from '@lasso/client';
import { fnv1a64, type ShardRange, shardHashSource } from '@lasso/core/sharding';
import { createTestMetricsProvider } from '@lasso/core/testing';
import { startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCache } from '../../src/cache.ts';
import { isDeletedFinalStateUnknown } from '../../src/delta-fifo.ts';
import { createShardFilterSource } from '../../src/shard-filter.ts';
import type { SharedIndexInformer } from '../../src/shared-informer.ts';
import { metaNamespaceKeyFunc } from '../../src/store.ts';
import { configMapClient, StateRecorder } from './helpers.ts';

const top = 1n << 64n;
const quarter = 1n << 62n;
const half = 1n << 63n;

function inRanges(object: KubeObject, ranges: readonly ShardRange[], byOwner = false): boolean {
  const hash = fnv1a64(shardHashSource(object, 'object.metadata.uid', { byOwner }));
  return ranges.some((range) => range.start <= hash && hash < range.end);
}

describe.each([
  { name: 'shardSelector served', sharded: true },
  { name: 'shardSelector ignored', sharded: false },
])('sharded informers against the API server ($name)', ({ sharded }) => {
  let env: Awaited<ReturnType<typeof startEnvironment>>;
  let cluster: { configMaps: Client; stop(): Promise<void> };
  let namespaceOf: (prefix: string) => Promise<string>;

  beforeAll(async () => {
    env = await startEnvironment({ shardedListAndWatch: sharded });
    const rest = await loadKubeConfig({ path: env.kubeconfigPath });
    const configMaps = configMapClient(rest);
    const namespaces = new Client({
      gvr: { group: '', version: 'v1', resource: 'namespaces' },
      kind: 'Namespace',
      namespaced: false,
      rest,
    });
    let counter = 0;
    namespaceOf = async (prefix) => {
      const name = `${prefix}-${process.pid}-${++counter}`;
      await namespaces.create(undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      return name;
    };
    cluster = {
      configMaps,
      async stop() {
        await env.stop();
      },
    };
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  /** Whether the server filters: only the built-in one with the option on (1.20.2 ignores the parameter). */
  const serverFilters = (): boolean => env.mode === 'builtin' && sharded;

  async function createConfigMaps(
    namespace: string,
    count: number,
    from = 0,
  ): Promise<KubeObject[]> {
    const created: KubeObject[] = [];
    for (let index = from; index < from + count; index++) {
      created.push(
        await cluster.configMaps.create(namespace, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${index}` },
          data: { index: String(index) },
        }),
      );
    }
    return created;
  }

  /** An informer of `namespace` owning `ranges`, with a recorder of every callback. */
  function replica(namespace: string, ranges: readonly ShardRange[], byOwner = false) {
    const shard = createShardFilterSource({ ranges, byOwner });
    const metrics = createTestMetricsProvider();
    const informer: SharedIndexInformer<KubeObject> = createCache(cluster.configMaps, {
      namespace,
      shard,
      metrics,
      resyncMs: 0,
    });
    const recorder = new StateRecorder();
    const log: string[] = [];
    const deleted: unknown[] = [];
    // One handler, so the log is complete whenever the recorder's `until` rechecks.
    const recording = recorder.handler();
    informer.addEventHandler({
      onAdd: (object, initial) => {
        log.push(`add:${metaNamespaceKeyFunc(object)}`);
        return recording.onAdd?.(object, initial);
      },
      onUpdate: (old, object) => {
        log.push(`update:${metaNamespaceKeyFunc(object)}`);
        return recording.onUpdate?.(old, object);
      },
      onDelete: (object) => {
        deleted.push(object);
        log.push(
          `delete:${isDeletedFinalStateUnknown(object) ? object.key : metaNamespaceKeyFunc(object)}`,
        );
        return recording.onDelete?.(object);
      },
    });
    const evicted: string[] = [];
    informer.onShardEvicted?.((keys) => void evicted.push(...keys));
    const controller = new AbortController();
    void informer.start(controller.signal);
    return {
      shard,
      informer,
      recorder,
      log,
      deleted,
      evicted,
      filtered: () => metrics.value('lasso_shard_objects_filtered_total', { kind: 'ConfigMap' }),
      keys: () => informer.getStore().listKeys().sort(),
      stop: async () => {
        controller.abort();
        await informer.stopped();
      },
    };
  }

  it('two replicas split the objects with no overlap and no gap, filtered where the server says', async () => {
    const namespace = await namespaceOf('shard-split');
    const objects = await createConfigMaps(namespace, 16);
    const lower = [{ start: 0n, end: half }];
    const upper = [{ start: half, end: top }];
    const a = replica(namespace, lower);
    const b = replica(namespace, upper);
    try {
      await Promise.all([a.informer.whenSynced(), b.informer.whenSynced()]);
      const expectA = objects.filter((object) => inRanges(object, lower)).map(metaNamespaceKeyFunc);
      const expectB = objects.filter((object) => inRanges(object, upper)).map(metaNamespaceKeyFunc);
      expect(a.keys()).toEqual(expectA.sort());
      expect(b.keys()).toEqual(expectB.sort());
      expect(expectA.length + expectB.length).toBe(16);
      // Served: nothing reaches the client to drop; ignored: each replica drops the other's share.
      expect(a.filtered() + b.filtered()).toBe(serverFilters() ? 0 : 16);
      // Writes after the sync land in exactly one replica.
      const [added] = await createConfigMaps(namespace, 1, 100);
      const key = metaNamespaceKeyFunc(added as KubeObject);
      const owner = inRanges(added as KubeObject, lower) ? a : b;
      const other = owner === a ? b : a;
      await owner.recorder.until(() => owner.recorder.state.has(key), `${key} in its owner`);
      expect(other.recorder.state.has(key)).toBe(false);
      expect(a.recorder.violations).toEqual([]);
      expect(b.recorder.violations).toEqual([]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('moves a range: the loser sees no deletion, the gainer gets each object once as an add', {
    timeout: 30_000,
  }, async () => {
    const namespace = await namespaceOf('shard-move');
    const objects = await createConfigMaps(namespace, 24);
    const a = replica(namespace, [{ start: 0n, end: half }]);
    const b = replica(namespace, [{ start: half, end: top }]);
    try {
      await Promise.all([a.informer.whenSynced(), b.informer.whenSynced()]);
      await a.recorder.until(() => a.recorder.state.size === a.keys().length, 'a delivered');
      await b.recorder.until(() => b.recorder.state.size === b.keys().length, 'b delivered');
      a.log.length = 0;
      b.log.length = 0;
      // [quarter, half) moves from a to b, as a ring hands a range over: a releases, then b gains.
      const moved = objects
        .filter((object) => inRanges(object, [{ start: quarter, end: half }]))
        .map(metaNamespaceKeyFunc)
        .sort();
      a.shard.set([{ start: 0n, end: quarter }]);
      expect(a.evicted.sort()).toEqual(moved);
      b.shard.set([{ start: quarter, end: top }]);
      const gained = (): string[] =>
        b.log
          .filter((entry) => entry.startsWith('add:'))
          .map((entry) => entry.slice(4))
          .sort();
      await b.recorder.until(() => gained().length >= moved.length, 'the moved objects in b');
      expect(gained()).toEqual(moved);
      // Once each, and nothing for the objects b already held or a kept.
      expect(b.log.filter((entry) => !entry.startsWith('add:'))).toEqual([]);
      expect(a.log).toEqual([]);
      expect(a.informer.hasSynced()).toBe(true);
      expect(b.informer.hasSynced()).toBe(true);
      // a keeps watching what it kept, and hears nothing of what it lost.
      const keptByA = objects.find((object) => inRanges(object, [{ start: 0n, end: quarter }]));
      const lost = objects.find((object) => inRanges(object, [{ start: quarter, end: half }]));
      if (lost !== undefined) {
        await cluster.configMaps.delete(namespace, lost.metadata?.name as string);
        const lostKey = metaNamespaceKeyFunc(lost);
        await b.recorder.until(() => !b.recorder.state.has(lostKey), `${lostKey} deleted in b`);
      }
      if (keptByA !== undefined) {
        const updated = await cluster.configMaps.update(namespace, {
          ...keptByA,
          data: { changed: 'yes' },
        });
        const key = metaNamespaceKeyFunc(keptByA);
        await a.recorder.until(
          () => a.recorder.state.get(key) === updated.metadata?.resourceVersion,
          `${key} updated in a`,
        );
      }
      expect(a.log.filter((entry) => entry.startsWith('delete:'))).toEqual([]);
      expect(a.keys()).toEqual(
        objects
          .filter((object) => inRanges(object, [{ start: 0n, end: quarter }]))
          .map(metaNamespaceKeyFunc)
          .sort(),
      );
      expect(a.recorder.violations).toEqual([]);
      expect(b.recorder.violations).toEqual([]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a replica with no range makes no request and is synced; its first range arrives as adds', async () => {
    const namespace = await namespaceOf('shard-empty');
    const objects = await createConfigMaps(namespace, 6);
    const r = replica(namespace, []);
    try {
      await r.informer.whenSynced();
      expect(r.keys()).toEqual([]);
      r.shard.set([{ start: 0n, end: top }]);
      await r.recorder.until(() => r.recorder.state.size === 6, 'all six added');
      expect(r.log.sort()).toEqual(
        objects.map((object) => `add:${metaNamespaceKeyFunc(object)}`).sort(),
      );
    } finally {
      await r.stop();
    }
  });

  it('byOwner: children follow their controller owner, and move with it when the owner changes', async () => {
    const namespace = await namespaceOf('shard-owner');
    const lower = [{ start: 0n, end: half }];
    const upper = [{ start: half, end: top }];
    // One owner on each side of 2^63 (uids are the server's: create until both sides have one).
    const owners: KubeObject[] = [];
    let ownerLower: KubeObject | undefined;
    let ownerUpper: KubeObject | undefined;
    while (ownerLower === undefined || ownerUpper === undefined) {
      const [owner] = await createConfigMaps(namespace, 1, 200 + owners.length);
      owners.push(owner as KubeObject);
      if (inRanges(owner as KubeObject, lower)) ownerLower ??= owner;
      else ownerUpper ??= owner;
    }
    const ownedBy = (owner: KubeObject) => ({
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: owner.metadata?.name as string,
          uid: owner.metadata?.uid as string,
          controller: true,
        },
      ],
    });
    const children: KubeObject[] = [];
    for (let index = 0; index < 6; index++) {
      children.push(
        await cluster.configMaps.create(namespace, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `child-${index}`, ...ownedBy(ownerLower) },
        }),
      );
    }
    const a = replica(namespace, lower, true);
    const b = replica(namespace, upper, true);
    try {
      await Promise.all([a.informer.whenSynced(), b.informer.whenSynced()]);
      const childKeys = children.map(metaNamespaceKeyFunc).sort();
      // Every child is with its owner's replica, whatever its own uid hashes to.
      expect(a.keys().filter((key) => key.includes('/child-'))).toEqual(childKeys);
      expect(b.keys().filter((key) => key.includes('/child-'))).toEqual([]);
      await a.recorder.until(
        () => childKeys.every((key) => a.recorder.state.has(key)),
        'children in a',
      );
      a.log.length = 0;
      b.log.length = 0;
      // child-0 gets the other owner: it leaves a as a deletion and arrives in b as an add.
      const moved = children[0] as KubeObject;
      await cluster.configMaps.update(namespace, {
        ...moved,
        metadata: { ...moved.metadata, ...ownedBy(ownerUpper) },
      });
      const key = metaNamespaceKeyFunc(moved);
      await b.recorder.until(() => b.recorder.state.has(key), `${key} in b`);
      await a.recorder.until(() => !a.recorder.state.has(key), `${key} gone from a`);
      expect(a.log).toEqual([`delete:${key}`]);
      // Delivered with the state a held: naming the owner a's handlers know.
      expect((a.deleted[0] as KubeObject).metadata?.ownerReferences?.[0]?.uid).toBe(
        ownerLower.metadata?.uid,
      );
      expect(b.log).toEqual([`add:${key}`]);
      expect(a.recorder.violations).toEqual([]);
      expect(b.recorder.violations).toEqual([]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
