// The strategy of each served resource, by group/resource, as kube-apiserver wires one REST storage
// (with its strategy) per resource. Kinds without an entry use the built-in default; every custom
// resource uses the custom resource strategy.

import { rbacStrategies } from '../rbac/strategies.ts';
import type { ResourceInfo } from '../resources.ts';
import { configMapStrategy } from './configmaps.ts';
import { crdStrategy } from './crds.ts';
import { customResourceStrategy } from './custom-resources.ts';
import { coreEventStrategy, eventsV1Strategy } from './events.ts';
import { leaseStrategy } from './leases.ts';
import { namespaceStrategy } from './namespaces.ts';
import { podStrategy } from './pods.ts';
import { secretStrategy } from './secrets.ts';
import { serviceAccountStrategy } from './service-accounts.ts';
import { serviceStrategy } from './services.ts';
import { simpleKindStrategies } from './simple-kinds.ts';
import { builtinStrategy, type Strategy } from './strategy.ts';
import { workloadStrategies } from './workloads.ts';

let table: Map<string, Strategy> | undefined;

/**
 * Built at first use rather than at import: strategies import the generic registry, which imports
 * this table, and a module cycle must not read a strategy before its module has run.
 */
function strategies(): Map<string, Strategy> {
  table ??= new Map<string, Strategy>([
    ['/namespaces', namespaceStrategy],
    ['/configmaps', configMapStrategy],
    ['/secrets', secretStrategy],
    ['/services', serviceStrategy],
    ['/serviceaccounts', serviceAccountStrategy],
    ['/pods', podStrategy],
    ['/events', coreEventStrategy],
    ['events.k8s.io/events', eventsV1Strategy],
    ['coordination.k8s.io/leases', leaseStrategy],
    ['apiextensions.k8s.io/customresourcedefinitions', crdStrategy],
    ...Object.entries(workloadStrategies),
    ...Object.entries(rbacStrategies),
    ...Object.entries(simpleKindStrategies),
  ]);
  return table;
}

/** The strategy of `info`'s kind. */
export function strategyFor(info: Pick<ResourceInfo, 'group' | 'resource' | 'builtin'>): Strategy {
  if (!info.builtin) return customResourceStrategy;
  return strategies().get(`${info.group}/${info.resource}`) ?? builtinStrategy;
}
