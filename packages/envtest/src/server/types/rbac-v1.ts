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
      },
      {
        json: 'rules',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.PolicyRule' },
        repeated: true,
        keepZero: true,
      },
      {
        json: 'aggregationRule',
        number: 3,
        type: { message: 'io.k8s.api.rbac.v1.AggregationRule' },
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
      },
      {
        json: 'subjects',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.Subject' },
        repeated: true,
      },
      {
        json: 'roleRef',
        number: 3,
        type: { message: 'io.k8s.api.rbac.v1.RoleRef' },
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
      },
      {
        json: 'rules',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.PolicyRule' },
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
      },
      {
        json: 'subjects',
        number: 2,
        type: { message: 'io.k8s.api.rbac.v1.Subject' },
        repeated: true,
      },
      {
        json: 'roleRef',
        number: 3,
        type: { message: 'io.k8s.api.rbac.v1.RoleRef' },
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
      { json: 'verbs', number: 1, type: 'string', repeated: true, keepZero: true, required: true },
      { json: 'apiGroups', number: 2, type: 'string', repeated: true },
      { json: 'resources', number: 3, type: 'string', repeated: true },
      { json: 'resourceNames', number: 4, type: 'string', repeated: true },
      { json: 'nonResourceURLs', number: 5, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.RoleRef',
    fields: [
      { json: 'apiGroup', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'kind', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'name', number: 3, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.rbac.v1.Subject',
    fields: [
      { json: 'kind', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'apiGroup', number: 2, type: 'string' },
      { json: 'name', number: 3, type: 'string', keepZero: true, required: true },
      { json: 'namespace', number: 4, type: 'string' },
    ],
  },
];
