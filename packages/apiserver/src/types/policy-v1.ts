// Built-in type definitions of policy/v1 (k8s.io/api): PodDisruptionBudget and Eviction.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The policy-v1 types, top-level kinds first. */
export const policyV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.policy.v1.Eviction',
    description: 'A request to evict a pod, subject to its disruption budgets.',
    gvk: { group: 'policy', version: 'v1', kind: 'Eviction' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'deleteOptions',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' },
      },
    ],
  },
  {
    name: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    description: 'Bounds how many pods of a set voluntary disruptions may take down at once.',
    gvk: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.policy.v1.PodDisruptionBudgetSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.policy.v1.PodDisruptionBudgetStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.policy.v1.PodDisruptionBudgetSpec',
    fields: [
      {
        json: 'minAvailable',
        number: 1,
        type: 'intOrString',
        description: 'Pods (number or percentage) that must stay available.',
        keepZero: true,
      },
      {
        json: 'selector',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        description: 'The pods the budget covers.',
      },
      {
        json: 'maxUnavailable',
        number: 3,
        type: 'intOrString',
        description: 'Pods (number or percentage) that may be unavailable.',
        keepZero: true,
      },
      {
        json: 'unhealthyPodEvictionPolicy',
        number: 4,
        type: 'string',
        keepZero: true,
        enum: ['AlwaysAllow', 'IfHealthyBudget'],
      },
    ],
  },
  {
    name: 'io.k8s.api.policy.v1.PodDisruptionBudgetStatus',
    fields: [
      {
        json: 'observedGeneration',
        number: 1,
        type: 'int64',
        description: 'The metadata.generation this status was computed for.',
      },
      { json: 'disruptedPods', number: 2, type: { map: 'time' } },
      { json: 'disruptionsAllowed', number: 3, type: 'int32', keepZero: true, required: true },
      { json: 'currentHealthy', number: 4, type: 'int32', keepZero: true, required: true },
      { json: 'desiredHealthy', number: 5, type: 'int32', keepZero: true, required: true },
      { json: 'expectedPods', number: 6, type: 'int32', keepZero: true, required: true },
      {
        json: 'conditions',
        number: 7,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.Condition' },
        description: 'The latest observations of the state, one entry per condition type.',
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
        listType: 'map',
        listMapKeys: ['type'],
      },
    ],
  },
];
