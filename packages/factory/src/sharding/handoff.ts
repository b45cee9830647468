// The hand-off decisions of a shard ring member (protocol steps 4 and 5), apart from the I/O: what to claim, what to
// keep in the own Lease, whether a written claim survived the check, and taking over an expired member's Lease.
import { isConflict, isNotFound } from '@lasso/client';
import { anySignal, type Clock, errorMessage, type Logger, timeoutSignal } from '@lasso/core';
import { formatRangeList } from './held-ranges.ts';
import { holdsRange, type MemberLease, type MemberObservations } from './membership.ts';
import type { RingLeaseStore } from './ring-store.ts';

const sorted = (ranges: Iterable<number>): number[] => [...ranges].sort((a, b) => a - b);

/** What this member tracks about its ranges. */
export interface RangeState {
  /** In the own Lease as last written. */
  readonly written: ReadonlySet<number>;
  /** Assigned to this member by the current view. */
  readonly desired: ReadonlySet<number>;
  /** Acted on. */
  readonly owned: ReadonlySet<number>;
  /** Written as claims, not yet checked (never acted on). */
  readonly claiming: ReadonlySet<number>;
  /** Announced as releasing, not yet released by the caller. */
  readonly releasing: ReadonlySet<number>;
  /** Released by the caller, the ack not yet written. */
  readonly acked: ReadonlySet<number>;
}

/**
 * Step 4, first case: desired ranges that no other Lease in the view holds (their previous holder acknowledged, or
 * never had them). Ranges still on their way out of this member wait for their own ack first.
 */
export function claimableRanges(state: RangeState, others: readonly MemberLease[]): number[] {
  return sorted(
    [...state.desired].filter(
      (range) =>
        !state.written.has(range) &&
        !state.releasing.has(range) &&
        !state.acked.has(range) &&
        !others.some((lease) => holdsRange(lease, range)),
    ),
  );
}

/**
 * The held set of the next write, before new claims: what is acted on, what is releasing (until acknowledged) and
 * claims still desired. An acknowledged range, a withdrawn claim or one no longer desired drops out.
 */
export function keptRanges(state: RangeState): Set<number> {
  return new Set(
    [...state.written].filter(
      (range) =>
        state.owned.has(range) ||
        state.releasing.has(range) ||
        (state.claiming.has(range) && state.desired.has(range)),
    ),
  );
}

/** The outcome of checking written claims against a fresh list. */
export interface ClaimCheck {
  /** Ours: act on them. */
  readonly gained: number[];
  /** Another Lease holds them (or ours does not): withdraw, never act. */
  readonly withdrawn: number[];
  /** No longer relevant (dropped from the Lease, or no longer desired): forget the claim. */
  readonly dropped: number[];
}

/**
 * Step 4's check: a claim written before `leases` was read is ours only when our Lease in that list holds it and no
 * other does. Of two members claiming one range at once, whichever wrote later reads the other's claim and withdraws.
 */
export function checkClaims(
  state: RangeState,
  leases: readonly MemberLease[],
  ownName: string,
): ClaimCheck {
  const own = leases.find((lease) => lease.name === ownName);
  const others = leases.filter((lease) => lease.name !== ownName);
  const check: ClaimCheck = { gained: [], withdrawn: [], dropped: [] };
  for (const range of sorted(state.claiming)) {
    if (!state.written.has(range)) check.dropped.push(range);
    else if (
      own === undefined ||
      !holdsRange(own, range) ||
      others.some((lease) => holdsRange(lease, range))
    ) {
      check.withdrawn.push(range);
    } else if (state.desired.has(range)) check.gained.push(range);
    else check.dropped.push(range);
  }
  return check;
}

/** What {@link takeOverExpired} needs. */
export interface TakeOverContext {
  readonly store: RingLeaseStore;
  readonly observations: MemberObservations;
  readonly ownName: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timeoutMs: number;
}

/**
 * Step 4, second case: delete every other Lease not changed for its whole duration on our clock, on condition that it
 * is still the version we saw: a renewal in flight then makes the delete fail, or the delete makes the renewal fail
 * (404), so a holder cannot renew past a takeover. Resolves the Leases deleted (name and version). Never rejects.
 */
export async function takeOverExpired(
  context: TakeOverContext,
  signal: AbortSignal,
): Promise<Array<{ readonly name: string; readonly version: string }>> {
  const { observations, logger } = context;
  const taken: Array<{ name: string; version: string }> = [];
  for (const lease of observations.all()) {
    if (lease.name === context.ownName || observations.isLive(lease.name)) continue;
    if (!observations.isExpired(lease.name) || signal.aborted) continue;
    const timeout = timeoutSignal(context.clock, context.timeoutMs);
    const attempt = anySignal([signal, timeout.signal]);
    try {
      await context.store.delete(lease.name, lease.version, attempt.signal);
      taken.push({ name: lease.name, version: lease.version });
      logger.info('took over the Lease of an expired shard ring member', {
        lease: lease.name,
        member: lease.identity,
        heldRanges: lease.held === 'all' ? 'all' : formatRangeList(lease.held),
      });
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) {
        logger.debug('expired shard ring Lease changed or went away first', { lease: lease.name });
      } else if (!signal.aborted) {
        logger.warn('could not take over an expired shard ring Lease', {
          lease: lease.name,
          error: errorMessage(error),
        });
      }
    } finally {
      attempt.dispose();
      timeout.clear();
    }
  }
  return taken;
}
