// coordination.k8s.io Leases: a spec and no status.
import { builtinStrategy, type Strategy } from './strategy.ts';

/** Lease strategy: only the fields the type has. */
export const leaseStrategy: Strategy = { ...builtinStrategy, topLevelFields: ['spec'] };
