// The `sharding` option of createSharedControllerFactory: its shape, its checks (errors name the option) and the
// ring and coordinator it builds over the factory's own Lease client and cache factory.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock, Logger, MetricsProvider } from '@lasso/core';
import type { ShardKey } from '@lasso/core/sharding';
import { type KindRef, resolveKindRef } from '../kind.ts';
import { gvkKey } from '../names.ts';
import type { SharedCacheFactory } from '../shared-cache-factory-api.ts';
import type { SharedClientFactory } from '../shared-client-factory.ts';
import { isShardableCacheFactory, setShardFilters } from './cache-hook.ts';
import { createShardRing } from './ring.ts';
import type { ShardRing, ShardRingStatus } from './ring-api.ts';
import type { ShardLeaseClient } from './ring-store.ts';
import { ShardCoordinator } from './shard-coordinator.ts';

/**
 * The `sharding` option of {@link createSharedControllerFactory}: every controller of the factory acts only on
 * the objects whose shard range this replica owns in the ring named `ring` (see the package README, "Sharding").
 *
 * @example
 * ```ts
 * const factory = createSharedControllerFactoryFromConfig(await loadDefaultConfig(), {
 *   sharding: { ring: 'icecream', leaseNamespace: 'operators' }, // identity: host name + random suffix
 * });
 * ```
 */
export interface ShardingOptions {
  /** The ring's name, a DNS-1123 label, the same on every replica; its Leases carry `lasso.cattle.io/shard-ring=<ring>`. */
  ring: string;
  /** Namespace of the ring's Leases (one per replica, `<ring>-<identity>`). */
  leaseNamespace: string;
  /** This replica's name in the ring, unique. Default: the host name and 8 random hex digits. */
  identity?: string | undefined;
  /** Ranges the hash space is cut into, a power of two, the same on every replica. Default 256. */
  rangeCount?: number | undefined;
  /**
   * What places an object in a range: `'uid'` (default, `metadata.uid`) or `'namespace'` (`metadata.namespace`,
   * a whole namespace per replica).
   */
  key?: 'uid' | 'namespace' | undefined;
  /**
   * Kinds hashed by their controller owner's uid (client-side filter), besides those a controller of this factory
   * watches as owned kinds (an `enqueueOwnerHandler` registered on them), which are hashed so by themselves.
   */
  ownerHashedKinds?: Iterable<KindRef> | undefined;
  /**
   * Kinds every replica holds whole and handles in full, unsharded: kinds the reconcilers of other kinds read
   * through their caches (an index of Pods by label, say) while their own handlers only enqueue other kinds'
   * keys. Their handlers run on every replica, so they must not write.
   */
  unshardedKinds?: Iterable<KindRef> | undefined;
  /** How long others wait after they last saw this replica's Lease renewed before it counts as gone. Default 15 000. */
  leaseDurationMs?: number | undefined;
  /** How long this replica acts without a successful renewal (the fence), < leaseDurationMs. Default 10 000. */
  renewDeadlineMs?: number | undefined;
  /** Time between renewals. Default 2 000. */
  retryPeriodMs?: number | undefined;
}

/**
 * {@link SharedControllerFactory.shardStatus}: the ring as this replica sees it, and its objects per kind.
 *
 * @example
 * ```ts
 * declare const factory: SharedControllerFactory;
 * const status = factory.shardStatus();
 * for (const { kind, objectsOwned } of status?.kinds ?? []) console.log(kind, objectsOwned);
 * ```
 */
export interface ShardingStatus extends ShardRingStatus {
  /** Per kind ({@link gvkString}): objects held in owned ranges, and whether it is hashed by controller owner. */
  readonly kinds: ReadonlyArray<{
    readonly kind: string;
    readonly objectsOwned: number;
    readonly byOwner: boolean;
  }>;
}

/** @internal The sharding of one controller factory. */
export interface FactorySharding {
  readonly coordinator: ShardCoordinator;
  /** Kinds ({@link gvkKey}) left unsharded. */
  readonly unsharded: ReadonlySet<string>;
  readonly ring: ShardRing;
  status(): ShardingStatus;
}

const where = 'createSharedControllerFactory: sharding';

/** A DNS-1123 subdomain piece from the host name, with 8 random hex digits so two processes never collide. */
export function defaultShardIdentity(host: string = hostname()): string {
  const cleaned = host
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 180);
  const suffix = randomBytes(4).toString('hex');
  return cleaned === '' ? suffix : `${cleaned}-${suffix}`;
}

/** @internal Check the `sharding` option and build its ring and coordinator on the factory's clients and caches. */
export function createFactorySharding(
  options: ShardingOptions,
  caches: SharedCacheFactory,
  clients: SharedClientFactory,
  services: {
    clock: Clock;
    logger: Logger;
    metrics: MetricsProvider | undefined;
    gracefulShutdownTimeoutMs: number;
  },
): FactorySharding {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${where} must be an object`);
  }
  const key: ShardKey =
    options.key === undefined || options.key === 'uid'
      ? 'object.metadata.uid'
      : options.key === 'namespace'
        ? 'object.metadata.namespace'
        : badKey(options.key);
  if (options.identity !== undefined && typeof options.identity !== 'string') {
    throw new TypeError(`${where}.identity must be a string, got ${typeof options.identity}`);
  }
  const ownerHashed = kindSet(options.ownerHashedKinds, 'ownerHashedKinds');
  if (ownerHashed.size > 0 && key !== 'object.metadata.uid') {
    throw new RangeError(`${where}.ownerHashedKinds needs key 'uid' (an owner is found by uid)`);
  }
  const unsharded = kindSet(options.unshardedKinds, 'unshardedKinds');
  if (!isShardableCacheFactory(caches)) {
    throw new TypeError(
      `${where} needs a cache factory made by createSharedCacheFactory (it sets each informer's shard filter)`,
    );
  }
  const lease = clients.forResourceKind(
    { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
    'Lease',
    true,
  ) as unknown as ShardLeaseClient;
  let ring: ShardRing;
  try {
    ring = createShardRing({
      client: lease,
      ring: options.ring,
      leaseNamespace: options.leaseNamespace,
      identity: options.identity ?? defaultShardIdentity(),
      rangeCount: options.rangeCount,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      gracefulShutdownTimeoutMs: services.gracefulShutdownTimeoutMs,
      clock: services.clock,
      logger: services.logger,
      metrics: services.metrics,
    });
  } catch (error) {
    // The ring names the option; here it is the factory's `sharding.<option>`.
    if (error instanceof RangeError || error instanceof TypeError) {
      const message = error.message.replace(/^shard ring: /, `${where}.`);
      throw error instanceof RangeError ? new RangeError(message) : new TypeError(message);
    }
    throw error;
  }
  const coordinator = new ShardCoordinator(ring, {
    key,
    ownerHashedKinds: ownerHashed,
    clock: services.clock,
    logger: services.logger,
    metrics: services.metrics,
  });
  // Only the kinds of this factory's controllers are filtered: a kind read through the cache factory alone is whole.
  caches[setShardFilters]((kind) => coordinator.existingSource(kind));
  return {
    coordinator,
    unsharded,
    ring,
    status(): ShardingStatus {
      const owned = coordinator.objectsOwned();
      return {
        ...ring.status(),
        kinds: [...coordinator.kinds()].map(([kind, { byOwner }]) => ({
          kind,
          objectsOwned: owned.get(kind) ?? 0,
          byOwner,
        })),
      };
    },
  };
}

function kindSet(kinds: Iterable<KindRef> | undefined, option: string): Set<string> {
  const set = new Set<string>();
  if (kinds === undefined) return set;
  if (typeof (kinds as Partial<Iterable<unknown>>)?.[Symbol.iterator] !== 'function') {
    throw new TypeError(`${where}.${option} must be an iterable of kinds`);
  }
  for (const kind of kinds) set.add(gvkKey(resolveKindRef(kind, `${where}.${option}`).gvk));
  return set;
}

function badKey(value: unknown): never {
  throw new RangeError(`${where}.key must be 'uid' or 'namespace', got ${JSON.stringify(value)}`);
}
