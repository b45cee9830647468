// Built-in type definitions of rbac.authorization.k8s.io/v1 (k8s.io/api): roles and their bindings.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The rbac-v1 types, top-level kinds first. */
export const rbacV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.rbac.v1.ClusterRole',
    description: 'A cluster-wide set of permissions, possibly aggregated from other ClusterRoles.',
    gvk: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'rules',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.PolicyRule' },
        description: 'The permissions the role grants.',
        repeated: true,
        keepZero: true,
      },
      {
        json: 'aggregationRule',
        number: 3,
        type: { message: 'io.k8s.api.rbac.v1.AggregationRule' },
        description: 'Selects ClusterRoles whose rules are aggregated into this one.',
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    description: 'Grants a ClusterRole to subjects across the cluster.',
    gvk: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'subjects',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.Subject' },
        description: 'Who is granted the role.',
        repeated: true,
      },
      {
        json: 'roleRef',
        number: 3,
        type: { message: 'io.k8s.api.rbac.v1.RoleRef' },
        description: 'The role granted; cannot change.',
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.Role',
    description: 'A namespaced set of permissions.',
    gvk: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'rules',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.PolicyRule' },
        description: 'The permissions the role grants.',
        repeated: true,
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.RoleBinding',
    description: 'Grants a Role or ClusterRole to subjects within a namespace.',
    gvk: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'subjects',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.Subject' },
        description: 'Who is granted the role.',
        repeated: true,
      },
      {
        json: 'roleRef',
        number: 3,
        type: { message: 'io.k8s.api.rbac.v1.RoleRef' },
        description: 'The role granted; cannot change.',
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.AggregationRule',
    fields: [
      {
        json: 'clusterRoleSelectors',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.PolicyRule',
    fields: [
      {
        json: 'verbs',
        number: 1,
        type: 'string',
        description: 'Allowed verbs; * for all.',
        repeated: true,
        keepZero: true,
        required: true,
      },
      {
        json: 'apiGroups',
        number: 2,
        type: 'string',
        description: 'API groups of the resources; empty string for the core group.',
        repeated: true,
      },
      {
        json: 'resources',
        number: 3,
        type: 'string',
        description: 'Resources (and resource/subresource) the rule covers.',
        repeated: true,
      },
      {
        json: 'resourceNames',
        number: 4,
        type: 'string',
        description: 'Object names the rule is limited to.',
        repeated: true,
      },
      {
        json: 'nonResourceURLs',
        number: 5,
        type: 'string',
        description: 'Non-resource paths the rule covers (cluster roles only).',
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.RoleRef',
    fields: [
      {
        json: 'apiGroup',
        number: 1,
        type: 'string',
        description: 'rbac.authorization.k8s.io.',
        keepZero: true,
        required: true,
      },
      {
        json: 'kind',
        number: 2,
        type: 'string',
        description: 'Role or ClusterRole.',
        keepZero: true,
        required: true,
      },
      {
        json: 'name',
        number: 3,
        type: 'string',
        description: 'Name of the role.',
        keepZero: true,
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.Subject',
    fields: [
      {
        json: 'kind',
        number: 1,
        type: 'string',
        description: 'User, Group or ServiceAccount.',
        keepZero: true,
        required: true,
      },
      {
        json: 'apiGroup',
        number: 2,
        type: 'string',
        description:
          'API group of the subject kind: rbac.authorization.k8s.io for users and groups.',
      },
      {
        json: 'name',
        number: 3,
        type: 'string',
        description: 'Name of the subject.',
        keepZero: true,
        required: true,
      },
      {
        json: 'namespace',
        number: 4,
        type: 'string',
        description: 'Namespace of a ServiceAccount subject.',
      },
    ],
  },
];
