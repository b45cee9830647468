// The Kubernetes calls of a shard ring, behind a narrow interface: the member's own Lease written with
// optimistic concurrency, a fresh (quorum) list of the ring's Leases to check a claim, a conditional delete to take
// over an expired member, and an informer that tells every member about every change. The ring's protocol is
// tested against a small in-memory store of the same shape; the real one is Client<Lease> plus @lasso/cache.
import { type CacheClient, createCache, type SharedIndexInformer } from '@lasso/cache';
import type { Client } from '@lasso/client';
import type { Clock, Logger, MetricsProvider, StopResult } from '@lasso/core';
import { type Lease, shardRingLabel } from './membership.ts';

/** What the ring needs of a Lease client: a `Client<Lease>` from `@lasso/client` fits. */
export type ShardLeaseClient = Pick<
  Client<Lease>,
  'get' | 'create' | 'update' | 'delete' | 'list' | 'watch' | 'gvr' | 'kind' | 'namespaced'
> &
  Partial<Pick<Client<Lease>, 'watchBatches'>>;

/** The ring's Leases as an informer holds them, with a notification on every change. */
export interface RingLeaseView {
  start(signal: AbortSignal): Promise<void>;
  stopped(): Promise<StopResult>;
  /** Resolves once the first list is in; rejects when `signal` aborts first. */
  whenSynced(signal: AbortSignal): Promise<void>;
  /** The Leases held now. */
  leases(): readonly Lease[];
  /** `listener` runs after every change of {@link leases}; returns an unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** The calls of a shard ring on the Leases of one ring in one namespace. Rejects with the client's `ApiError`s. */
export interface RingLeaseStore {
  get(name: string, signal: AbortSignal): Promise<Lease>;
  create(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /** Conditional on `lease.metadata.resourceVersion` (409 Conflict when it changed). */
  update(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /** Delete `name` if its resourceVersion is still `resourceVersion` (409 otherwise, 404 when gone). */
  delete(name: string, resourceVersion: string, signal: AbortSignal): Promise<void>;
  /** A fresh read of every Lease of the ring (a quorum list, never from a cache). */
  list(signal: AbortSignal): Promise<readonly Lease[]>;
  readonly view: RingLeaseView;
}

/** Options of {@link createClientRingStore}. */
export interface ClientRingStoreOptions {
  readonly namespace: string;
  readonly ring: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsProvider;
}

/** A {@link RingLeaseStore} on a Lease client: the informer lists and watches the ring's label only. */
export function createClientRingStore(
  client: ShardLeaseClient,
  options: ClientRingStoreOptions,
): RingLeaseStore {
  const { namespace, ring } = options;
  const labelSelector = `${shardRingLabel}=${ring}`;
  const informer: SharedIndexInformer<Lease> = createCache(client as CacheClient<Lease>, {
    namespace,
    resyncMs: 0,
    tweakList: (listOptions) => {
      listOptions.labelSelector = labelSelector;
    },
    name: `shard ring ${ring} leases`,
    clock: options.clock,
    logger: options.logger,
    metrics: options.metrics,
  });
  const listeners = new Set<() => void>();
  const notify = (): void => {
    for (const listener of [...listeners]) listener();
  };
  informer.addEventHandler(
    { onAdd: notify, onUpdate: notify, onDelete: notify },
    { name: `shard-ring-${ring}` },
  );
  return {
    get: (name, signal) => client.get(namespace, name, { signal }),
    create: (lease, signal) => client.create(namespace, lease, { signal }),
    update: (lease, signal) => client.update(namespace, lease, { signal }),
    delete: (name, resourceVersion, signal) =>
      client.delete(namespace, name, { signal, preconditions: { resourceVersion } }),
    // resourceVersion unset: read from etcd (a quorum read), never from the watch cache at "0".
    list: async (signal) => (await client.list(namespace, { labelSelector, signal })).items,
    view: {
      start: (signal) => informer.start(signal),
      stopped: () => informer.stopped(),
      whenSynced: (signal) => informer.whenSynced({ signal }),
      leases: () => informer.getStore().list(),
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}
