// A shard ring member's view of the ring (protocol step 2): the informer's Leases read into member records with
// observer-based expiry, the live members, and the assignment of the ranges among them, logged on every change.
import type { Clock, Gauge, Logger } from '@lasso/core';
import { assignShardRanges } from './assignment.ts';
import { holdsRange, type MemberLease, MemberObservations, memberOfLease } from './membership.ts';
import type { RingConfig } from './ring-api.ts';
import type { RingLeaseView } from './ring-store.ts';

export class RingView {
  readonly observations: MemberObservations;
  readonly #config: RingConfig;
  readonly #leases: RingLeaseView;
  readonly #logger: Logger;
  readonly #membersGauge: Gauge;
  // Leases deleted as expired (name -> version): ignored until the informer drops them.
  readonly #takenOver = new Map<string, string>();
  readonly #warned = new Set<string>();
  // By range: the deletion watermarks of the member that held it last, from its Lease as first seen without the
  // range (its acknowledgement) or as last seen before it went (left, or taken over as expired).
  readonly #previous = new Map<number, string | undefined>();
  #members: string[] = [];
  #owners: readonly string[] = [];

  constructor(
    config: RingConfig,
    leases: RingLeaseView,
    clock: Clock,
    logger: Logger,
    membersGauge: Gauge,
  ) {
    this.#config = config;
    this.#leases = leases;
    this.#logger = logger;
    this.#membersGauge = membersGauge;
    this.observations = new MemberObservations(clock);
  }

  /** Live members, sorted (this one included while it is a member). */
  get members(): string[] {
    return this.#members;
  }

  /** The other Leases of the ring, as seen. */
  others(): MemberLease[] {
    return this.observations.all().filter((lease) => lease.name !== this.#config.leaseName);
  }

  /** A Lease this member deleted as expired: ignore that version until the informer drops it. */
  takenOver(name: string, version: string): void {
    this.#takenOver.set(name, version);
  }

  /**
   * Read the informer's Leases again and recompute the members (this one among them when `member`); resolves the
   * ranges the assignment gives this member.
   */
  refresh(member: boolean): Set<number> {
    const leases = this.#leases
      .leases()
      .map((lease) => memberOfLease(lease, this.#config.rangeCount))
      .filter((lease) => this.#takenOver.get(lease.name) !== lease.version);
    for (const name of [...this.#takenOver.keys()]) {
      if (!leases.some((lease) => lease.name === name)) this.#takenOver.delete(name);
    }
    for (const lease of leases) {
      if (lease.held !== 'all' || this.#warned.has(lease.version)) continue;
      this.#warned.add(lease.version);
      this.#logger.warn(
        'a shard ring Lease has a held-ranges annotation this member cannot read (another rangeCount?): it counts as holding every range',
        { lease: lease.name },
      );
    }
    this.#notePrevious(leases);
    this.observations.replace(leases);
    const others = this.observations
      .live()
      .filter((lease) => lease.name !== this.#config.leaseName)
      .map((lease) => lease.identity);
    const identity = this.#config.identity;
    const members = [...new Set(member ? [...others, identity] : others)].sort();
    if (members.join('\n') !== this.#members.join('\n')) this.#changed(members);
    const desired = new Set<number>();
    if (member) {
      this.#owners.forEach((owner, range) => {
        if (owner === identity) desired.add(range);
      });
    }
    return desired;
  }

  /**
   * The watermarks annotation of `range`'s previous holder, forgotten as it is read (a gain); `null` when no
   * other member was seen giving it up.
   */
  /** The watermarks annotation of `range`'s previous holder, kept (see {@link takePrevious}). */
  peekPrevious(range: number): string | undefined {
    return this.#previous.get(range);
  }

  takePrevious(range: number): string | undefined | null {
    if (!this.#previous.has(range)) return null;
    const watermarks = this.#previous.get(range);
    this.#previous.delete(range);
    return watermarks;
  }

  #notePrevious(leases: readonly MemberLease[]): void {
    const own = this.#config.leaseName;
    const names = new Set<string>();
    for (const lease of leases) {
      names.add(lease.name);
      const before = this.observations.get(lease.name);
      if (lease.name === own || before === undefined || before.held === 'all') continue;
      for (const range of before.held) {
        if (!holdsRange(lease, range)) this.#previous.set(range, lease.watermarks);
      }
    }
    for (const gone of this.observations.all()) {
      if (gone.name === own || names.has(gone.name) || gone.held === 'all') continue;
      for (const range of gone.held) this.#previous.set(range, gone.watermarks);
    }
  }

  /** Forget the members (the run ended). */
  reset(): void {
    this.#members = [];
    this.#owners = [];
    this.#previous.clear();
    this.#membersGauge.set(0);
  }

  #changed(members: string[]): void {
    const before = this.#members;
    const owners = members.length > 0 ? assignShardRanges(members, this.#config.rangeCount) : [];
    let moved = 0;
    if (this.#owners.length > 0) {
      owners.forEach((owner, range) => {
        if (owner !== this.#owners[range]) moved++;
      });
    }
    this.#members = members;
    this.#owners = owners;
    this.#membersGauge.set(members.length);
    this.#logger.info('shard ring membership changed', {
      members: members.length,
      joined: members.filter((member) => !before.includes(member)).join(','),
      left: before.filter((member) => !members.includes(member)).join(','),
      movedRanges: moved,
      desiredRanges: owners.filter((owner) => owner === this.#config.identity).length,
    });
  }
}
