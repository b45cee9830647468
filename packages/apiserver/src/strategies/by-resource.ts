// The strategy of each served resource, by group/resource, as kube-apiserver wires one REST storage
// (with its strategy) per resource. Kinds without an entry use the built-in default; every custom
// resource uses the custom resource strategy.

import type { Strategy, StrategyKey } from '../registry/strategy.ts';
import { builtinStrategy } from './builtin-strategy.ts';
import { configMapStrategy } from './configmaps.ts';
import { crdStrategy } from './crds.ts';
import { customResourceStrategy } from './custom-resources.ts';
import { coreEventStrategy, eventsV1Strategy } from './events.ts';
import { leaseStrategy } from './leases.ts';
import { namespaceStrategy } from './namespaces.ts';
import { podStrategy } from './pods.ts';
import { rbacStrategies } from './rbac.ts';
import { secretStrategy } from './secrets.ts';
import { serviceAccountStrategy } from './service-accounts.ts';
import { serviceStrategy } from './services.ts';
import { simpleKindStrategies } from './simple-kinds.ts';
import { webhookConfigurationStrategies } from './webhook-configurations.ts';
import { workloadStrategies } from './workloads.ts';

const table = new Map<string, Strategy>([
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
  ...Object.entries(webhookConfigurationStrategies),
]);

/**
 * The strategy of `info`'s kind. Only the server's composition root (endpoints/dispatcher.ts) imports this table and
 * hands it to everything else as `ServerContext.strategyFor`: strategies use the generic registry, and
 * the registry must not import them back.
 */
export function strategyFor(info: StrategyKey): Strategy {
  if (!info.builtin) return customResourceStrategy;
  return table.get(`${info.group}/${info.resource}`) ?? builtinStrategy;
}
