// The shard ring's interface (issue 32): what the sharded controller factory sees of membership, assignment and
// hand-off, its options and their checks. Internal to @lasso/factory: the factory's `sharding` option builds it.
import {
  type Clock,
  LassoError,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
} from '@lasso/core';
import { defaultShardRangeCount } from './assignment.ts';
import type { RingLeaseStore, ShardLeaseClient } from './ring-store.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /**
     * A shard ring member could not renew its Lease within its renew deadline (or found it taken over): it must stop
     * acting on every range at once. The abort reason of the ring's `fence` signal: a {@link ShardFencedError}.
     */
    LASSO_SHARD_FENCED: ShardFencedError;
  }
}

/** The reason `fence` aborted: this member may no longer act on any range (code `LASSO_SHARD_FENCED`). */
export class ShardFencedError extends LassoError {
  readonly ring: string;
  readonly identity: string;

  constructor(ring: string, identity: string, message: string) {
    super('LASSO_SHARD_FENCED', `shard ring ${ring}, member ${identity}: ${message}`);
    this.ring = ring;
    this.identity = identity;
  }
}

/** Options of a shard ring. */
export interface ShardRingOptions {
  /** Lease client (`Client<Lease>`): get, create, update, delete, list and watch in `leaseNamespace`. */
  client: ShardLeaseClient;
  /** Name of the ring: a DNS-1123 label; the value of the `lasso.cattle.io/shard-ring` label of its Leases. */
  ring: string;
  /** Namespace of the ring's Leases. */
  leaseNamespace: string;
  /** This member's identity, unique in the ring; its Lease is `<ring>-<identity>` (a DNS-1123 subdomain). */
  identity: string;
  /** Ranges the hash space is cut into, a power of two (default 256, {@link defaultShardRangeCount}). Same on every member. */
  rangeCount?: number | undefined;
  /** How long others wait, after they last saw this member's Lease change, before it counts as gone (default 15 000). */
  leaseDurationMs?: number | undefined;
  /** How long this member acts without a successful renewal: the fence (default 10 000, < leaseDurationMs). */
  renewDeadlineMs?: number | undefined;
  /** Time between renewals (default 2 000). */
  retryPeriodMs?: number | undefined;
  /** How long a stop waits for `released()` of every range before leaving its Lease to expire (default 30 000). */
  gracefulShutdownTimeoutMs?: number | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /** Provider of `lasso_shard_members`, `lasso_shard_owned_ranges`, `lasso_shard_moves_total`, `lasso_shard_handoff_seconds`. */
  metrics?: MetricsProvider | undefined;
  /** Randomness in [0, 1) for the jitter of retries (default `Math.random`). */
  random?: (() => number) | undefined;
}

/** What changed in the ranges this member acts on. */
export interface ShardRingChange {
  /** Ranges it may act on from now (claimed in its Lease, checked, inside the fence). */
  readonly gained: readonly number[];
  /** Ranges it must stop acting on now; call {@link ShardRing.released} once every reconcile of them ended. */
  readonly releasing: readonly number[];
  /**
   * By gained range: the deletion watermarks annotation of the member that held it before (its acknowledgement,
   * or its last Lease before a takeover), `undefined` when that Lease had none. A range absent: no previous
   * holder was seen.
   */
  readonly previous?: ReadonlyMap<number, string | undefined> | undefined;
}

/** The last hand-off this member took part in. */
export interface ShardHandoff {
  /** `in`: ranges claimed; `out`: ranges released (acknowledged). */
  readonly direction: 'in' | 'out';
  readonly ranges: readonly number[];
  /** Wall-clock time (ISO 8601). */
  readonly at: string;
  /** `in`: longest wait from a range becoming desired to its claim; `out`: from `releasing` to the written ack. */
  readonly waitedMs: number;
}

/** A snapshot of a shard ring member. */
export interface ShardRingStatus {
  readonly ring: string;
  readonly identity: string;
  readonly rangeCount: number;
  /** True while this member holds a Lease renewed within its renew deadline. */
  readonly joined: boolean;
  /** Live members (sorted), this one included while it runs. */
  readonly members: readonly string[];
  /** Ranges the assignment gives this member. */
  readonly desired: readonly number[];
  /** Ranges it acts on. */
  readonly owned: readonly number[];
  /** Ranges announced as releasing and not yet acknowledged. */
  readonly releasing: readonly number[];
  /** Desired ranges not owned yet (another member still holds them, or the claim is being checked). */
  readonly waiting: readonly number[];
  /** Ranges moved in (claimed) and out (released) since creation. */
  readonly moves: { readonly in: number; readonly out: number };
  readonly lastHandoff: ShardHandoff | undefined;
}

/**
 * One member of a shard ring (see README-protocol.md): holds its own Lease, sees the others through an informer,
 * computes the same range assignment as every member, and claims and releases ranges so that a range is acted on
 * by at most one member at any time.
 */
export interface ShardRing extends Lifecycle {
  readonly ring: string;
  readonly identity: string;
  readonly rangeCount: number;
  /** Ranges this member may act on now (reads the clock: empty once past the renew deadline). Sorted. */
  readonly owned: readonly number[];
  /** Live members, sorted. */
  readonly members: readonly string[];
  /** True when this member may act on `range` now (reads the clock, as {@link owned}). */
  owns(range: number): boolean;
  /** `listener` runs on every change of the owned ranges; returns an unsubscribe. */
  subscribe(listener: (change: ShardRingChange) => void): () => void;
  /**
   * Acknowledge that nothing acts on `ranges` any more (every reconcile of them ended, their objects evicted): the
   * ring removes them from its Lease so their new owner may start. Resolves once that was written (or the ring
   * stopped). Ranges not releasing are ignored.
   */
  released(ranges: readonly number[]): Promise<void>;
  /**
   * Aborts (reason {@link ShardFencedError}) when this member's Lease is past its renew deadline or lost, and when the
   * ring stops. A new signal once it joins again: read it when a reconcile starts, never keep an old one.
   */
  readonly fence: AbortSignal;
  status(): ShardRingStatus;
}

/** Checked options with defaults; `store` replaces the client (tests). */
export interface RingConfig {
  readonly ring: string;
  readonly namespace: string;
  readonly identity: string;
  readonly leaseName: string;
  readonly rangeCount: number;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly gracefulShutdownTimeoutMs: number;
  readonly random: () => number;
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function positiveMs(value: number | undefined, fallback: number, option: string): number {
  const ms = value ?? fallback;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(`shard ring: ${option} must be a finite number > 0, got ${String(ms)}`);
  }
  return ms;
}

function text(value: unknown, option: string): string {
  if (typeof value !== 'string') {
    throw new TypeError(`shard ring: ${option} must be a string, got ${typeof value}`);
  }
  return value;
}

/** Check `options` (TypeError / RangeError naming the option) and apply the defaults. */
export function ringConfigOf(options: Omit<ShardRingOptions, 'client'>): RingConfig {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('shard ring: options must be an object');
  }
  const ring = text(options.ring, 'ring');
  if (ring.length > 63 || !dns1123Label.test(ring)) {
    throw new RangeError(
      `shard ring: ring must be a DNS-1123 label (a label value), got ${JSON.stringify(ring)}`,
    );
  }
  const namespace = text(options.leaseNamespace, 'leaseNamespace');
  if (namespace.length > 63 || !dns1123Label.test(namespace)) {
    throw new RangeError(
      `shard ring: leaseNamespace must be a namespace name, got ${JSON.stringify(namespace)}`,
    );
  }
  const identity = text(options.identity, 'identity');
  const leaseName = `${ring}-${identity}`;
  if (identity === '' || leaseName.length > 253 || !dns1123Subdomain.test(leaseName)) {
    throw new RangeError(
      `shard ring: identity must make <ring>-<identity> a DNS-1123 subdomain (lowercase letters, digits, '-', '.'), got ${JSON.stringify(identity)}`,
    );
  }
  const rangeCount = options.rangeCount ?? defaultShardRangeCount;
  if (
    !Number.isInteger(rangeCount) ||
    rangeCount < 1 ||
    rangeCount > 65_536 ||
    (rangeCount & (rangeCount - 1)) !== 0
  ) {
    throw new RangeError(
      `shard ring: rangeCount must be a power of two in [1, 65536], got ${String(rangeCount)}`,
    );
  }
  const leaseDurationMs = positiveMs(options.leaseDurationMs, 15_000, 'leaseDurationMs');
  const renewDeadlineMs = positiveMs(options.renewDeadlineMs, 10_000, 'renewDeadlineMs');
  const retryPeriodMs = positiveMs(options.retryPeriodMs, 2_000, 'retryPeriodMs');
  if (leaseDurationMs <= renewDeadlineMs) {
    throw new RangeError(
      `shard ring: leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs})`,
    );
  }
  if (renewDeadlineMs <= retryPeriodMs * 1.2) {
    throw new RangeError(
      `shard ring: renewDeadlineMs (${renewDeadlineMs}) must be greater than retryPeriodMs * 1.2 (${retryPeriodMs * 1.2})`,
    );
  }
  const gracefulShutdownTimeoutMs = options.gracefulShutdownTimeoutMs ?? 30_000;
  if (
    typeof gracefulShutdownTimeoutMs !== 'number' ||
    Number.isNaN(gracefulShutdownTimeoutMs) ||
    gracefulShutdownTimeoutMs < 0
  ) {
    throw new RangeError(
      `shard ring: gracefulShutdownTimeoutMs must be a number >= 0, got ${String(gracefulShutdownTimeoutMs)}`,
    );
  }
  const random = options.random ?? Math.random;
  if (typeof random !== 'function') throw new TypeError('shard ring: random must be a function');
  return {
    ring,
    namespace,
    identity,
    leaseName,
    rangeCount,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    gracefulShutdownTimeoutMs,
    random,
  };
}

/** A store for the ring: the options' client, or an injected one (tests). */
export type RingStoreSource = { client: ShardLeaseClient } | { store: RingLeaseStore };
