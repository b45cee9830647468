// The columns kube-apiserver's built-in printers (pkg/printers/internalversion) give each kind in a
// meta.k8s.io Table, and how each row's cells are computed. The server prints wide: every column,
// priority 1 included; kubectl hides priority-1 columns unless asked for `-o wide`.
// One printer per kind lives in printers/; this file maps group/resource to them.
import {
  defaultPrinter,
  humanDuration,
  labelSelectorText,
  nameColumnDefinition,
  since,
  type TablePrinter,
} from './cells.ts';
import {
  bindingPrinter,
  ingressPrinter,
  leasePrinter,
  podDisruptionBudgetPrinter,
  priorityClassPrinter,
  rolePrinter,
} from './cluster.ts';
import {
  configMapPrinter,
  eventPrinter,
  namespacePrinter,
  resourceQuotaPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from './core.ts';
import { podPrinter } from './pods.ts';
import {
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  jobPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from './workloads.ts';

export { defaultPrinter, humanDuration, labelSelectorText, nameColumnDefinition, since };

const printers = new Map<string, TablePrinter>([
  ['/pods', podPrinter],
  ['/configmaps', configMapPrinter],
  ['/secrets', secretPrinter],
  ['/serviceaccounts', serviceAccountPrinter],
  ['/namespaces', namespacePrinter],
  ['/services', servicePrinter],
  ['/events', eventPrinter(false)],
  ['/resourcequotas', resourceQuotaPrinter],
  ['events.k8s.io/events', eventPrinter(true)],
  ['apps/deployments', deploymentPrinter],
  ['apps/replicasets', replicaSetPrinter],
  ['apps/statefulsets', statefulSetPrinter],
  ['apps/daemonsets', daemonSetPrinter],
  ['batch/jobs', jobPrinter],
  ['batch/cronjobs', cronJobPrinter],
  ['coordination.k8s.io/leases', leasePrinter],
  ['rbac.authorization.k8s.io/roles', rolePrinter],
  ['rbac.authorization.k8s.io/clusterroles', rolePrinter],
  ['rbac.authorization.k8s.io/rolebindings', bindingPrinter()],
  ['rbac.authorization.k8s.io/clusterrolebindings', bindingPrinter()],
  ['networking.k8s.io/ingresses', ingressPrinter],
  ['policy/poddisruptionbudgets', podDisruptionBudgetPrinter],
  ['scheduling.k8s.io/priorityclasses', priorityClassPrinter],
]);

/** The printer kube-apiserver has for a built-in `group`/`resource`, or undefined (default columns). */
export function builtinPrinter(group: string, resource: string): TablePrinter | undefined {
  return printers.get(`${group}/${resource}`);
}
