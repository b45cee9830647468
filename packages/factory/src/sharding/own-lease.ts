// A shard ring member's own Lease (protocol step 1): created on join, renewed with the held ranges in one conditional
// write, read again when an answer was lost, deleted on a graceful leave. Only this member writes it, except a member
// that deletes it as expired (a takeover), which the next write notices as 404.
import { isConflict, isNotFound } from '@lasso/client';
import { anySignal, type Clock, errorMessage, type Logger, timeoutSignal } from '@lasso/core';
import { encodeHeldRanges, shardHeldAnnotation } from './held-ranges.ts';
import {
  type Lease,
  type MemberObservations,
  memberOfLease,
  shardRingLabel,
} from './membership.ts';
import type { RingConfig } from './ring-api.ts';
import type { RingLeaseStore } from './ring-store.ts';
import { encodeWatermarks, shardWatermarksAnnotation } from './watermark-annotation.ts';

/** How a write ended: written (sent at `sentAt`), or not, and then whether the Lease was found gone. */
export type WriteOutcome =
  | { readonly written: true; readonly sentAt: number }
  | { readonly written: false; readonly lost: boolean };

/** Kubernetes `MicroTime`: RFC 3339 with six fractional digits. */
function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/Z$/, '000Z');
}

export class OwnLease {
  readonly #config: RingConfig;
  readonly #store: RingLeaseStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #observations: MemberObservations;
  // As last written or read: its resourceVersion guards the next write. Undefined: read it first.
  #lease: Lease | undefined;
  // Ranges in the Lease as last written.
  #written = new Set<number>();
  // renewTime of the writes sent since the last answered one (and of that one): a Lease read back with one of these
  // was written by this process, whose answer was lost.
  #sent = new Set<string>();
  #waiting = false;
  /** The deletion watermarks each write publishes (none: the annotation is left as it was). */
  watermarks: (() => ReadonlyMap<string, string>) | undefined;

  constructor(
    config: RingConfig,
    store: RingLeaseStore,
    clock: Clock,
    logger: Logger,
    observations: MemberObservations,
  ) {
    this.#config = config;
    this.#store = store;
    this.#clock = clock;
    this.#logger = logger;
    this.#observations = observations;
  }

  /** Ranges in the Lease as last written. */
  get written(): ReadonlySet<number> {
    return this.#written;
  }

  /** True once the Lease was written or read in this run. */
  get known(): boolean {
    return this.#lease !== undefined;
  }

  /** The Lease is gone (taken over): nothing is held any more. */
  forget(): void {
    this.#lease = undefined;
    this.#written = new Set();
  }

  /**
   * Write the Lease holding `held` (a join, a renewal, claims and acks in one conditional write). `fence` runs right
   * before the request is sent and right after the answer arrives, so a process that was paused meanwhile fences
   * before it uses the answer. Never rejects.
   */
  async write(
    held: ReadonlySet<number>,
    signal: AbortSignal,
    fence: () => void,
  ): Promise<WriteOutcome> {
    const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
    const attempt = anySignal([signal, timeout.signal]);
    try {
      const base = this.#lease ?? (await this.#read(attempt.signal));
      if (base === 'wait' || attempt.signal.aborted) return { written: false, lost: false };
      const lease = this.#leaseWith(base, held);
      fence();
      const sentAt = this.#clock.monotonic();
      this.#sent.add(lease.spec?.renewTime ?? '');
      const written =
        base === undefined
          ? await this.#store.create(lease, attempt.signal)
          : await this.#store.update(lease, attempt.signal);
      fence();
      this.#lease = written;
      this.#written = new Set(held);
      this.#sent = new Set([written.spec?.renewTime ?? '']);
      return { written: true, sentAt };
    } catch (error) {
      if (signal.aborted) return { written: false, lost: false };
      if (isConflict(error) || isNotFound(error)) {
        // Changed or gone under us: a lost answer to our own write, or the Lease was taken over as expired.
        this.#lease = undefined;
        this.#logger.warn('shard ring Lease changed under this member; reading it again', {
          error: errorMessage(error),
        });
        if (isNotFound(error)) this.#written = new Set();
        return { written: false, lost: isNotFound(error) };
      }
      this.#logger.warn('shard ring Lease write failed', { error: errorMessage(error) });
      return { written: false, lost: false };
    } finally {
      attempt.dispose();
      timeout.clear();
    }
  }

  /** Leave: delete the Lease if it is still the version written last. Never rejects. */
  async delete(): Promise<void> {
    const version = this.#lease?.metadata?.resourceVersion;
    this.#lease = undefined;
    if (version === undefined) return;
    const timeout = timeoutSignal(this.#clock, this.#config.renewDeadlineMs);
    try {
      await this.#store.delete(this.#config.leaseName, version, timeout.signal);
      this.#written = new Set();
      this.#logger.info('left the shard ring: Lease deleted', { lease: this.#config.leaseName });
    } catch (error) {
      if (!isNotFound(error)) {
        this.#logger.warn('shard ring Lease delete failed; it expires on its own', {
          error: errorMessage(error),
        });
      }
    } finally {
      timeout.clear();
    }
  }

  /**
   * Read the Lease before a write when its version is unknown: undefined when there is none (create it), the Lease
   * to update, or 'wait' while a Lease of this identity from elsewhere still holds ranges and has not expired.
   */
  async #read(signal: AbortSignal): Promise<Lease | undefined | 'wait'> {
    let lease: Lease;
    try {
      lease = await this.#store.get(this.#config.leaseName, signal);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.#written = new Set();
      return undefined;
    }
    const member = memberOfLease(lease, this.#config.rangeCount);
    this.#observations.observe(member);
    const held = member.held;
    const ours =
      held !== 'all' &&
      (held.size === 0 ||
        (member.identity === this.#config.identity && this.#sent.has(lease.spec?.renewTime ?? '')));
    if (ours) {
      // Empty, or our own write whose answer was lost: it holds what it says until the next write.
      this.#written = new Set(held);
      this.#waiting = false;
      return lease;
    }
    if (!this.#observations.isExpired(member.name)) {
      // Another process with this identity (or this one before a restart) may still act on what it holds.
      if (!this.#waiting) {
        this.#logger.warn(
          'a Lease of this identity holds shard ranges; waiting for it to expire before joining',
          { lease: member.name },
        );
      }
      this.#waiting = true;
      return 'wait';
    }
    this.#waiting = false;
    this.#written = new Set();
    return lease;
  }

  #leaseWith(base: Lease | undefined, held: ReadonlySet<number>): Lease {
    const now = microTime(this.#clock.now());
    const watermarks = this.watermarks?.();
    const spec: NonNullable<Lease['spec']> = {
      ...(base?.spec ?? {}),
      holderIdentity: this.#config.identity,
      leaseDurationSeconds: Math.ceil(this.#config.leaseDurationMs / 1000),
      renewTime: now,
    };
    if (base === undefined || base.spec?.holderIdentity !== this.#config.identity) {
      spec.acquireTime = now;
    }
    return {
      ...(base ?? {}),
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(base?.metadata ?? {}),
        name: this.#config.leaseName,
        namespace: this.#config.namespace,
        labels: { ...(base?.metadata?.labels ?? {}), [shardRingLabel]: this.#config.ring },
        annotations: {
          ...(base?.metadata?.annotations ?? {}),
          [shardHeldAnnotation]: encodeHeldRanges(held, this.#config.rangeCount),
          ...(watermarks === undefined
            ? {}
            : { [shardWatermarksAnnotation]: encodeWatermarks(watermarks) }),
        },
      },
      spec,
    };
  }
}
