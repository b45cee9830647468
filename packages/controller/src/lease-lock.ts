// The leader election record kept in a coordination.k8s.io/v1 Lease, read and written with optimistic
// concurrency. Ports the behaviour of client-go tools/leaderelection/resourcelock/leaselock.go (internal).
import type { Client } from '@lasso/client';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

/**
 * The calls leader election makes on a Lease client: a `Client<Lease>` from `@lasso/client` fits, and so
 * does any object with these three methods (a test fake, a client wrapped to inject faults).
 */
export type LeaseClient = Pick<Client<Lease>, 'get' | 'create' | 'update'>;

/** What an election keeps in a Lease's spec (client-go's `LeaderElectionRecord`). */
export interface LeaderElectionRecord {
  /** `''` when nobody holds the lease (never created, or released). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** MicroTime string as the server stores it, or undefined when absent. */
  readonly acquireTime: string | undefined;
  readonly renewTime: string | undefined;
  readonly leaseTransitions: number;
}

/** Kubernetes `MicroTime` wire form: RFC 3339 with exactly six fractional digits, in UTC. */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/Z$/, '000Z');
}

/** The record a Lease carries; missing fields read as client-go reads them (empty, zero). */
export function recordOfLease(lease: Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime,
    renewTime: spec.renewTime,
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

/**
 * A comparable form of a record. Two reads that give the same key saw no change, so an observer keeps the
 * time it first saw the record (the takeover clock does not restart).
 */
export function recordKey(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime ?? null,
    record.renewTime ?? null,
    record.leaseTransitions,
  ]);
}

function specOf(record: LeaderElectionRecord): NonNullable<Lease['spec']> {
  const spec: NonNullable<Lease['spec']> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaseTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = record.acquireTime;
  if (record.renewTime !== undefined) spec.renewTime = record.renewTime;
  return spec;
}

/** One Lease, read and written through a {@link LeaseClient}. */
export class LeaseLock {
  readonly namespace: string;
  readonly name: string;
  readonly #client: LeaseClient;
  // The Lease as last read or written: its resourceVersion guards the next update, so an update made
  // from a stale read fails with 409 instead of overwriting a record we have not seen.
  #lease: Lease | undefined;

  constructor(client: LeaseClient, namespace: string, name: string) {
    this.#client = client;
    this.namespace = namespace;
    this.name = name;
  }

  /** Read the record; rejects with the client's error (404 NotFound when the Lease does not exist). */
  async get(signal: AbortSignal): Promise<LeaderElectionRecord> {
    const lease = await this.#client.get(this.namespace, this.name, { signal });
    this.#lease = lease;
    return recordOfLease(lease);
  }

  /** Create the Lease with `record`; rejects with 409 AlreadyExists when another candidate was first. */
  async create(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord> {
    const lease = await this.#client.create(
      this.namespace,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { namespace: this.namespace, name: this.name },
        spec: specOf(record),
      },
      { signal },
    );
    this.#lease = lease;
    return recordOfLease(lease);
  }

  /** True once the Lease was read or created, so {@link LeaseLock.update} has a version to guard on. */
  get known(): boolean {
    return this.#lease !== undefined;
  }

  /**
   * Replace the record, conditional on the Lease being unchanged since it was last read or written here
   * (409 Conflict otherwise).
   */
  async update(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord> {
    const base = this.#lease;
    if (base === undefined) {
      throw new TypeError('LeaseLock.update: the lease must be read or created first');
    }
    const lease = await this.#client.update(
      this.namespace,
      { ...base, spec: specOf(record) },
      { signal },
    );
    this.#lease = lease;
    return recordOfLease(lease);
  }
}
