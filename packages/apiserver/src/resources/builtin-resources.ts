// The built-in resource table of the local API server (what kube-apiserver's discovery reports for them).

/** One served resource at one group/version. */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural name as in the URL. */
  resource: string;
  kind: string;
  listKind: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Served subresources, e.g. `status`, `scale`. */
  subresources: string[];
  /** Field selector labels beyond metadata.name / metadata.namespace. */
  fieldSelectors: string[];
  nameRule: 'subdomain' | 'label' | 'path-segment';
  /** True when create sets metadata.generation and spec changes bump it. */
  generation: boolean;
  /** True for built-in types (strategic merge patch accepted). */
  builtin: boolean;
  /** The storage version of a CRD's resource (objects are converted by rewriting apiVersion). */
  storageVersion?: string;
  /** CRD scale subresource paths. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

const crudVerbs = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

function builtin(
  partial: Partial<ResourceInfo> &
    Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>,
): ResourceInfo {
  return {
    listKind: `${partial.kind}List`,
    singularName: partial.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: crudVerbs,
    subresources: [],
    fieldSelectors: [],
    nameRule: 'subdomain',
    generation: false,
    builtin: true,
    ...partial,
  };
}

/** Resources the built-in server serves before any CRD exists. */
export function builtinResources(): ResourceInfo[] {
  return [
    builtin({
      group: '',
      version: 'v1',
      resource: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: ['status', 'finalize'],
      fieldSelectors: ['status.phase'],
      nameRule: 'label',
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      shortNames: ['cm'],
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'secrets',
      kind: 'Secret',
      namespaced: true,
      fieldSelectors: ['type'],
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'services',
      kind: 'Service',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      subresources: ['status', 'proxy'],
      fieldSelectors: ['spec.clusterIP', 'spec.type'],
      nameRule: 'label',
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'serviceaccounts',
      kind: 'ServiceAccount',
      namespaced: true,
      shortNames: ['sa'],
      subresources: ['token'],
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      subresources: ['status', 'log', 'binding', 'eviction', 'ephemeralcontainers'],
      fieldSelectors: [
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'spec.hostNetwork',
        'status.phase',
        'status.podIP',
        'status.nominatedNodeName',
      ],
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      fieldSelectors: [
        'involvedObject.kind',
        'involvedObject.namespace',
        'involvedObject.name',
        'involvedObject.uid',
        'involvedObject.apiVersion',
        'involvedObject.resourceVersion',
        'involvedObject.fieldPath',
        'reason',
        'reportingComponent',
        'source',
        'type',
      ],
      nameRule: 'path-segment',
    }),
    // Listed but never watched (kube-apiserver answers a watch with 405): the one built-in resource that lists
    // without `watch` in discovery. Read-only, as there; the built-in server has no components to probe, so
    // the list is empty.
    builtin({
      group: '',
      version: 'v1',
      resource: 'componentstatuses',
      kind: 'ComponentStatus',
      namespaced: false,
      shortNames: ['cs'],
      verbs: ['get', 'list'],
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      subresources: ['status', 'scale'],
      generation: true,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'replicasets',
      kind: 'ReplicaSet',
      namespaced: true,
      shortNames: ['rs'],
      categories: ['all'],
      subresources: ['status', 'scale'],
      generation: true,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'statefulsets',
      kind: 'StatefulSet',
      namespaced: true,
      shortNames: ['sts'],
      categories: ['all'],
      subresources: ['status', 'scale'],
      generation: true,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'daemonsets',
      kind: 'DaemonSet',
      namespaced: true,
      shortNames: ['ds'],
      categories: ['all'],
      subresources: ['status'],
      generation: true,
    }),
    builtin({
      group: 'batch',
      version: 'v1',
      resource: 'jobs',
      kind: 'Job',
      namespaced: true,
      categories: ['all'],
      subresources: ['status'],
      generation: true,
    }),
    // Kinds kubectl create generates (CronJob is batch/v1 from 1.21, PodDisruptionBudget policy/v1 from 1.21).
    builtin({
      group: 'batch',
      version: 'v1',
      resource: 'cronjobs',
      kind: 'CronJob',
      namespaced: true,
      shortNames: ['cj'],
      categories: ['all'],
      subresources: ['status'],
      generation: true,
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'resourcequotas',
      kind: 'ResourceQuota',
      namespaced: true,
      shortNames: ['quota'],
      subresources: ['status'],
    }),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'mutatingwebhookconfigurations',
      kind: 'MutatingWebhookConfiguration',
      namespaced: false,
      generation: true,
    }),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'validatingwebhookconfigurations',
      kind: 'ValidatingWebhookConfiguration',
      namespaced: false,
      generation: true,
    }),
    builtin({
      group: 'scheduling.k8s.io',
      version: 'v1',
      resource: 'priorityclasses',
      kind: 'PriorityClass',
      namespaced: false,
      shortNames: ['pc'],
    }),
    builtin({
      group: 'policy',
      version: 'v1',
      resource: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      namespaced: true,
      shortNames: ['pdb'],
      subresources: ['status'],
      generation: true,
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      resource: 'ingresses',
      kind: 'Ingress',
      namespaced: true,
      shortNames: ['ing'],
      subresources: ['status'],
      generation: true,
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      resource: 'ingressclasses',
      kind: 'IngressClass',
      namespaced: false,
      generation: true,
    }),
    builtin({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      // AddFieldLabelConversionsForEvent of events.k8s.io/v1.
      fieldSelectors: [
        'reason',
        'regarding.kind',
        'regarding.namespace',
        'regarding.name',
        'regarding.uid',
        'regarding.apiVersion',
        'regarding.resourceVersion',
        'regarding.fieldPath',
        'reportingController',
        'type',
      ],
      nameRule: 'path-segment',
    }),
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      kind: 'Lease',
      namespaced: true,
    }),
    // RBAC objects: names are path segments (ValidateRBACName); no short names in kube's discovery.
    ...(['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'] as const).map((resource) =>
      builtin({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        resource,
        kind: {
          roles: 'Role',
          rolebindings: 'RoleBinding',
          clusterroles: 'ClusterRole',
          clusterrolebindings: 'ClusterRoleBinding',
        }[resource],
        namespaced: !resource.startsWith('cluster'),
        nameRule: 'path-segment',
      }),
    ),
    // Access reviews: create-only, never stored (rbac/review-resources.ts answers them).
    ...(
      [
        ['selfsubjectaccessreviews', 'SelfSubjectAccessReview', false],
        ['selfsubjectrulesreviews', 'SelfSubjectRulesReview', false],
        ['subjectaccessreviews', 'SubjectAccessReview', false],
        ['localsubjectaccessreviews', 'LocalSubjectAccessReview', true],
      ] as const
    ).map(([resource, kind, namespaced]) =>
      builtin({
        group: 'authorization.k8s.io',
        version: 'v1',
        resource,
        kind,
        namespaced,
        verbs: ['create'],
      }),
    ),
    builtin({
      group: 'authentication.k8s.io',
      version: 'v1',
      resource: 'selfsubjectreviews',
      kind: 'SelfSubjectReview',
      namespaced: false,
      verbs: ['create'],
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      subresources: ['status'],
      generation: true,
    }),
  ];
}

/** The key objects of a resource are stored under, shared by all its versions. */
export function storageKey(info: Pick<ResourceInfo, 'group' | 'resource'>): string {
  // events.k8s.io/v1 Events are the v1 Events, seen through another API group.
  if (info.group === 'events.k8s.io' && info.resource === 'events') return '/events';
  return `${info.group}/${info.resource}`;
}

/** apiVersion string of a group/version. */
export function apiVersionOf(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}
