// The one place `pnpm bench:sharding` touches the `sharding` option of @lasso/factory (issue 32): the options a
// replica's factory gets, and how the replica reads the ranges it owns now (the soak has the same adapter).
import type { ShardingOptions, SharedControllerFactory } from '@lasso/factory';

/** What the replica knows of its ring (sharding-replica.ts ShardBenchReplicaSettings). */
export interface ShardWiringSettings {
  identity: string;
  ring: string;
  leaseNamespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The factory options that put it on the ring. */
export function shardingOptions(settings: ShardWiringSettings): { sharding: ShardingOptions } {
  return {
    sharding: {
      ring: settings.ring,
      leaseNamespace: settings.leaseNamespace,
      identity: settings.identity,
      leaseDurationMs: settings.leaseDurationMs,
      renewDeadlineMs: settings.renewDeadlineMs,
      retryPeriodMs: settings.retryPeriodMs,
    },
  };
}

/** The range indexes the factory's ring owns now (acts on), ascending. */
export function ringOwnedRanges(factory: SharedControllerFactory): number[] {
  return [...(factory.shardStatus()?.owned ?? [])].sort((a, b) => a - b);
}
