// Who is in a shard ring, as one member sees it: the ring's Leases read into member records, and each Lease's
// expiry counted from when THIS observer first saw its current version (client-go's leader elector rule), never
// from the renewTime written in it, so the clocks of the members need not agree, only run at the same rate.
import type { BuiltinKinds } from '@lasso/client';
import type { Clock } from '@lasso/core';
import { decodeHeldRanges, shardHeldAnnotation } from './held-ranges.ts';
import { shardWatermarksAnnotation } from './watermark-annotation.ts';

/** A `coordination.k8s.io/v1` Lease (kubernetes-types' interface, through @lasso/client). */
export type Lease = BuiltinKinds['coordination.k8s.io/v1']['Lease'];

/** The label every Lease of a ring carries, valued with the ring's name. */
export const shardRingLabel = 'lasso.cattle.io/shard-ring';

/** The Lease of `identity` in `ring`: `<ring>-<identity>`. */
export function memberLeaseName(ring: string, identity: string): string {
  return `${ring}-${identity}`;
}

/** One member's Lease as the ring reads it. */
export interface MemberLease {
  readonly name: string;
  /** `spec.holderIdentity`; `''` when the Lease was emptied (not a member). */
  readonly identity: string;
  /** The Lease's resourceVersion: a new one is a change, so the observer's expiry clock restarts. */
  readonly version: string;
  /** `spec.leaseDurationSeconds` in ms. */
  readonly durationMs: number;
  /** Ranges the member holds; `'all'` when its annotation could not be read for this ring's range count. */
  readonly held: ReadonlySet<number> | 'all';
  /** Its deletion watermarks annotation as written (decoded, and checked, only by a member that gains a range). */
  readonly watermarks?: string | undefined;
}

/** Read a Lease of the ring; `rangeCount` is this member's, for the held-ranges annotation. */
export function memberOfLease(lease: Lease, rangeCount: number): MemberLease {
  const spec = lease.spec ?? {};
  return {
    name: lease.metadata?.name ?? '',
    identity: spec.holderIdentity ?? '',
    version: lease.metadata?.resourceVersion ?? JSON.stringify([spec, lease.metadata?.annotations]),
    durationMs: (spec.leaseDurationSeconds ?? 0) * 1000,
    held: decodeHeldRanges(lease.metadata?.annotations?.[shardHeldAnnotation], rangeCount),
    watermarks: lease.metadata?.annotations?.[shardWatermarksAnnotation],
  };
}

/** True when `lease` holds `range`. */
export function holdsRange(lease: MemberLease, range: number): boolean {
  return lease.held === 'all' || lease.held.has(range);
}

interface Observed {
  readonly lease: MemberLease;
  /** Our monotonic time when this version was first seen. */
  readonly seenAt: number;
}

/**
 * The ring's Leases as one observer saw them, with when it first saw each version. A Lease is live while its
 * holder is set and `durationMs` has not passed since then on the observer's clock.
 */
export class MemberObservations {
  readonly #clock: Clock;
  readonly #leases = new Map<string, Observed>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Replace the whole view (an informer's store after a change); Leases no longer there are forgotten. */
  replace(leases: readonly MemberLease[]): void {
    const names = new Set<string>();
    for (const lease of leases) {
      names.add(lease.name);
      this.observe(lease);
    }
    for (const name of [...this.#leases.keys()]) if (!names.has(name)) this.#leases.delete(name);
  }

  /** Record `lease`; a version already seen keeps the time it was first seen. */
  observe(lease: MemberLease): void {
    const known = this.#leases.get(lease.name);
    if (known !== undefined && known.lease.version === lease.version) return;
    this.#leases.set(lease.name, { lease, seenAt: this.#clock.monotonic() });
  }

  get(name: string): MemberLease | undefined {
    return this.#leases.get(name)?.lease;
  }

  /** Every Lease seen, live or not. */
  all(): MemberLease[] {
    return [...this.#leases.values()].map((observed) => observed.lease);
  }

  /** True when `name`'s Lease has a holder and its current version was first seen less than its duration ago. */
  isLive(name: string): boolean {
    const observed = this.#leases.get(name);
    if (observed === undefined || observed.lease.identity === '') return false;
    return this.#clock.monotonic() < observed.seenAt + observed.lease.durationMs;
  }

  /** True when `name`'s current version was first seen at least its duration ago (whatever its holder). */
  isExpired(name: string): boolean {
    const observed = this.#leases.get(name);
    if (observed === undefined) return false;
    return this.#clock.monotonic() >= observed.seenAt + observed.lease.durationMs;
  }

  /** The live Leases. */
  live(): MemberLease[] {
    return this.all().filter((lease) => this.isLive(lease.name));
  }

  /** Monotonic time at which the next live Lease expires unless it changes first; undefined when none is live. */
  nextExpiryAt(): number | undefined {
    let next: number | undefined;
    for (const { lease, seenAt } of this.#leases.values()) {
      if (!this.isLive(lease.name)) continue;
      const at = seenAt + lease.durationMs;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }
}
