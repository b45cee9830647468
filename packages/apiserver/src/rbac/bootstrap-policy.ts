// The part of kube-apiserver's bootstrap RBAC policy (the `rbac/bootstrap-roles` post-start hook,
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy) that users and operators meet: the superuser role, the
// user-facing admin/edit/view roles (aggregated from the system:aggregate-to-* roles), and what every
// authenticated or anonymous caller may do (discovery, access reviews, health and version).
import type { KubeObject } from '../storage/store.ts';
import type { PolicyRule } from './policy-rule.ts';

const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const readWrite = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const aggregateLabel = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;

function rule(apiGroups: string[], resources: string[], verbs: string[]): PolicyRule {
  return { apiGroups, resources, verbs };
}

interface ClusterRoleSpec {
  name: string;
  rules?: PolicyRule[];
  /** The role gets the rules of the ClusterRoles carrying this aggregation label. */
  aggregates?: string;
  /** Aggregation labels this role carries. */
  aggregatesTo?: string[];
}

const clusterRoles: ClusterRoleSpec[] = [
  {
    name: 'cluster-admin',
    rules: [rule(['*'], ['*'], ['*']), { nonResourceURLs: ['*'], verbs: ['*'] }],
  },
  { name: 'admin', aggregates: 'admin' },
  { name: 'edit', aggregates: 'edit', aggregatesTo: ['admin'] },
  { name: 'view', aggregates: 'view', aggregatesTo: ['edit'] },
  {
    name: 'system:aggregate-to-admin',
    aggregatesTo: ['admin'],
    rules: [
      rule(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']),
      rule(['rbac.authorization.k8s.io'], ['rolebindings', 'roles'], readWrite),
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    aggregatesTo: ['edit'],
    rules: [
      rule(
        [''],
        ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'],
        read,
      ),
      rule([''], ['serviceaccounts'], ['impersonate']),
      rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], write),
      rule([''], ['pods/eviction'], ['create']),
      rule(
        [''],
        [
          'configmaps',
          'events',
          'persistentvolumeclaims',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'secrets',
          'serviceaccounts',
          'services',
          'services/proxy',
        ],
        write,
      ),
      rule([''], ['serviceaccounts/token'], ['create']),
      rule(
        ['apps'],
        [
          'daemonsets',
          'deployments',
          'deployments/rollback',
          'deployments/scale',
          'replicasets',
          'replicasets/scale',
          'statefulsets',
          'statefulsets/scale',
        ],
        write,
      ),
      rule(['autoscaling'], ['horizontalpodautoscalers'], write),
      rule(['batch'], ['cronjobs', 'jobs'], write),
      rule(
        ['extensions'],
        [
          'daemonsets',
          'deployments',
          'deployments/rollback',
          'deployments/scale',
          'ingresses',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
        ],
        write,
      ),
      rule(['policy'], ['poddisruptionbudgets'], write),
      rule(['networking.k8s.io'], ['ingresses', 'networkpolicies'], write),
      rule(['coordination.k8s.io'], ['leases'], readWrite),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    aggregatesTo: ['view'],
    rules: [
      rule(
        [''],
        [
          'configmaps',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
        ],
        read,
      ),
      rule(
        [''],
        [
          'bindings',
          'events',
          'limitranges',
          'namespaces/status',
          'pods/log',
          'pods/status',
          'replicationcontrollers/status',
          'resourcequotas',
          'resourcequotas/status',
        ],
        read,
      ),
      rule([''], ['namespaces'], read),
      rule(['discovery.k8s.io'], ['endpointslices'], read),
      rule(
        ['apps'],
        [
          'controllerrevisions',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'statefulsets',
          'statefulsets/scale',
          'statefulsets/status',
        ],
        read,
      ),
      rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], read),
      rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], read),
      rule(
        ['extensions'],
        [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
        ],
        read,
      ),
      rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], read),
      rule(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], read),
    ],
  },
  {
    name: 'system:basic-user',
    rules: [
      rule(
        ['authorization.k8s.io'],
        ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        ['create'],
      ),
      rule(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
    ],
  },
  {
    name: 'system:discovery',
    rules: [
      {
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
        verbs: ['get'],
      },
    ],
  },
  {
    name: 'system:public-info-viewer',
    rules: [
      {
        nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'],
        verbs: ['get'],
      },
    ],
  },
];

/** Each bootstrap ClusterRoleBinding is named after its ClusterRole and binds it to groups. */
const clusterRoleBindings: Array<{ role: string; groups: string[] }> = [
  { role: 'cluster-admin', groups: ['system:masters'] },
  { role: 'system:basic-user', groups: ['system:authenticated'] },
  { role: 'system:discovery', groups: ['system:authenticated'] },
  {
    role: 'system:public-info-viewer',
    groups: ['system:authenticated', 'system:unauthenticated'],
  },
];

const bootstrapMetadata = (name: string, labels: Record<string, string> = {}) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

/** The bootstrap ClusterRoles, as kube-apiserver creates them (aggregated roles start without rules). */
export function bootstrapClusterRoles(): KubeObject[] {
  return clusterRoles.map((spec) => {
    const labels = Object.fromEntries(
      (spec.aggregatesTo ?? []).map((role) => [aggregateLabel(role), 'true']),
    );
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: bootstrapMetadata(spec.name, labels),
    };
    if (spec.aggregates !== undefined) {
      role.aggregationRule = {
        clusterRoleSelectors: [{ matchLabels: { [aggregateLabel(spec.aggregates)]: 'true' } }],
      };
      role.rules = [];
    } else {
      role.rules = structuredClone(spec.rules ?? []);
    }
    return role;
  });
}

/** The bootstrap ClusterRoleBindings. */
export function bootstrapClusterRoleBindings(): KubeObject[] {
  return clusterRoleBindings.map(({ role, groups }) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMetadata(role),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((name) => ({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Group',
      name,
    })),
  }));
}
