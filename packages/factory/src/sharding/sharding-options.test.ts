// The `sharding` option's checks: every bad value throws a TypeError or RangeError naming the option.
import { describe, expect, it } from 'vitest';
import { FakeCluster } from '../__fixtures__/fake-cluster.ts';
import type { SharedControllerFactoryOptions } from '../controller-factory-api.ts';
import { kindFor } from '../kind.ts';
import { createSharedCacheFactory } from '../shared-cache-factory.ts';
import type { SharedCacheFactory } from '../shared-cache-factory-api.ts';
import { createSharedControllerFactory } from '../shared-controller-factory.ts';
import { defaultShardIdentity, type ShardingOptions } from './sharding-options.ts';

/** The fake cluster's clients, with the Lease verbs the ring checks for (never called: nothing starts). */
function clients(cluster = new FakeCluster()) {
  cluster.serve({ group: '', version: 'v1', kind: 'ConfigMap' }, 'configmaps', true, []);
  cluster.serve({ group: '', version: 'v1', kind: 'Secret' }, 'secrets', true, []);
  const base = cluster.clientFactory();
  const unused = async (): Promise<never> => {
    throw new Error('not called');
  };
  return Object.assign(Object.create(base) as typeof base, {
    forResourceKind: (...args: Parameters<typeof base.forResourceKind>) =>
      Object.assign(Object.create(base.forResourceKind(...args)), {
        update: unused,
        create: unused,
        delete: unused,
      }),
  });
}

function create(sharding: unknown, caches?: SharedCacheFactory) {
  return createSharedControllerFactory(caches ?? createSharedCacheFactory(clients()), {
    sharding: sharding as ShardingOptions,
  } satisfies SharedControllerFactoryOptions);
}

const valid = { ring: 'widgets', leaseNamespace: 'operators', identity: 'replica-a' };

describe('sharding option', () => {
  it('builds a factory whose shardStatus shows the ring, and none without the option', async () => {
    const factory = create(valid);
    expect(factory.shardStatus()).toMatchObject({
      ring: 'widgets',
      identity: 'replica-a',
      rangeCount: 256,
      owned: [],
      kinds: [],
    });
    await factory.close();
    const plain = createSharedControllerFactory(createSharedCacheFactory(clients()));
    expect(plain.shardStatus()).toBeUndefined();
    await plain.close();
  });

  it.each([
    ['not an object', 'x', TypeError, /sharding must be an object/],
    ['a bad ring', { ...valid, ring: 'Not_A_Label' }, RangeError, /sharding\.ring/],
    [
      'a bad namespace',
      { ...valid, leaseNamespace: 'A B' },
      RangeError,
      /sharding\.leaseNamespace/,
    ],
    ['a bad identity', { ...valid, identity: 'UPPER' }, RangeError, /sharding\.identity/],
    ['an identity not a string', { ...valid, identity: 7 }, TypeError, /sharding\.identity/],
    [
      'a bad key',
      { ...valid, key: 'name' },
      RangeError,
      /sharding\.key must be 'uid' or 'namespace'/,
    ],
    ['a bad rangeCount', { ...valid, rangeCount: 100 }, RangeError, /sharding\.rangeCount/],
    [
      'a lease duration under the renew deadline',
      { ...valid, leaseDurationMs: 1_000 },
      RangeError,
      /sharding\.leaseDurationMs/,
    ],
    [
      'ownerHashedKinds not iterable',
      { ...valid, ownerHashedKinds: 3 },
      TypeError,
      /ownerHashedKinds/,
    ],
    [
      'ownerHashedKinds with the namespace key',
      { ...valid, key: 'namespace', ownerHashedKinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
      RangeError,
      /ownerHashedKinds needs key 'uid'/,
    ],
  ])('throws for %s', (_what, sharding, type, message) => {
    expect(() => create(sharding)).toThrow(type);
    expect(() => create(sharding)).toThrow(message);
  });

  it('checks the fence before each request of its clients (a guard on their transport), removed on close', async () => {
    const cluster = new FakeCluster();
    const factory = createSharedControllerFactory(createSharedCacheFactory(clients(cluster)), {
      sharding: valid,
    });
    expect(cluster.requestGuards.size).toBe(1);
    for (const guard of cluster.requestGuards) expect(() => guard()).not.toThrow();
    await factory.close();
    expect(cluster.requestGuards.size).toBe(0);
    const plain = createSharedControllerFactory(createSharedCacheFactory(clients(cluster)));
    expect(cluster.requestGuards.size).toBe(0);
    await plain.close();
  });

  it('refuses a cache factory that cannot take shard filters, and one already sharded', () => {
    const foreign = { sharedClientFactory: () => new FakeCluster().clientFactory() } as never;
    expect(() => create(valid, foreign)).toThrow(/createSharedCacheFactory/);
    const caches = createSharedCacheFactory(clients());
    create(valid, caches);
    expect(() => create({ ...valid, identity: 'replica-b' }, caches)).toThrow(
      /already serves a sharded controller factory/,
    );
  });

  it('leaves the unshardedKinds whole: no filter, no admit', async () => {
    const factory = create({ ...valid, unshardedKinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }] });
    (await factory.forKind(kindFor('v1', 'ConfigMap'))).informer();
    (await factory.forKind(kindFor('v1', 'Secret'))).informer();
    expect(factory.shardStatus()?.kinds).toEqual([
      { kind: '/v1, Kind=Secret', objectsOwned: 0, byOwner: false },
    ]);
    const status = new Map(factory.status().map((kind) => [kind.key, kind.shard]));
    expect(status.get('/v1, Kind=ConfigMap')).toBeUndefined();
    expect(status.get('/v1, Kind=Secret')).toEqual({
      ring: 'widgets',
      members: [],
      ownedRanges: 0,
      rangeCount: 256,
      moves: { in: 0, out: 0 },
      objectsOwned: 0,
      byOwner: false,
    });
    await factory.close();
  });

  it('makes a default identity from the host name that the ring accepts', () => {
    expect(defaultShardIdentity('Build_Host.Example.COM')).toMatch(
      /^build-host\.example\.com-[0-9a-f]{8}$/,
    );
    expect(defaultShardIdentity('---')).toMatch(/^[0-9a-f]{8}$/);
    expect(defaultShardIdentity('h')).not.toBe(defaultShardIdentity('h'));
    const factory = create({ ring: 'widgets', leaseNamespace: 'operators' });
    expect(factory.shardStatus()?.identity).toMatch(/-[0-9a-f]{8}$|^[0-9a-f]{8}$/);
  });
});
