// RBAC at server start: the bootstrap ClusterRoles and ClusterRoleBindings written through the API as
// kube-apiserver's `rbac/bootstrap-roles` hook does, then the aggregation controller kept running.
import type { KubeObject, Store } from '../storage/store.ts';
import { ClusterRoleAggregator } from './aggregation.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.ts';

const clusterRolesPath = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const clusterRoleBindingsPath = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';

/** Writes one object through the API handler as a privileged internal user (throws its StatusError). */
export type InternalWrite = (method: 'POST' | 'PUT', path: string, object: KubeObject) => void;

/**
 * Create the bootstrap policy with `write` and start the ClusterRole aggregation controller, which
 * rewrites aggregated roles with `write` as `clusterrole-aggregation-controller`. Returns the controller
 * (stop it with the server).
 */
export function bootstrapRbac(options: {
  store: Store;
  write: InternalWrite;
  onError: (error: unknown) => void;
}): ClusterRoleAggregator {
  const { write } = options;
  for (const role of bootstrapClusterRoles()) write('POST', clusterRolesPath, role);
  for (const binding of bootstrapClusterRoleBindings()) {
    write('POST', clusterRoleBindingsPath, binding);
  }
  const aggregator = new ClusterRoleAggregator({
    store: options.store,
    update: (role) =>
      write(
        'PUT',
        `${clusterRolesPath}/${encodeURIComponent(String(role.metadata?.name))}?fieldManager=clusterrole-aggregation-controller`,
        role,
      ),
    onError: options.onError,
  });
  aggregator.start();
  return aggregator;
}
