// coordination.k8s.io Leases: a spec and no status.

import type { Strategy } from '../registry/strategy.ts';
import { builtinStrategy } from './builtin-strategy.ts';

/** Lease strategy: only the fields the type has. */
export const leaseStrategy: Strategy = { ...builtinStrategy, topLevelFields: ['spec'] };
