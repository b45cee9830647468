// Built-in type definitions of apps/v1 (k8s.io/api): Deployment, ReplicaSet, StatefulSet and DaemonSet.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
// size: a table of the apps/v1 kinds' fields, data transcribed from the API, not logic.
import type { TypeDefinition } from './type-definition.ts';

/** The apps-v1 types, top-level kinds first. */
export const appsV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.apps.v1.DaemonSet',
    description: 'One pod per eligible node.',
    gvk: { group: 'apps', version: 'v1', kind: 'DaemonSet' },
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
        type: { message: 'io.k8s.api.apps.v1.DaemonSetSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.apps.v1.DaemonSetStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.Deployment',
    description: 'Declarative rollouts of a pod template through ReplicaSets.',
    gvk: { group: 'apps', version: 'v1', kind: 'Deployment' },
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
        type: { message: 'io.k8s.api.apps.v1.DeploymentSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.apps.v1.DeploymentStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.ReplicaSet',
    description: 'Keeps a number of identical pods running.',
    gvk: { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
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
        type: { message: 'io.k8s.api.apps.v1.ReplicaSetSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.apps.v1.ReplicaSetStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSet',
    description: 'Pods with stable identities and per-pod persistent volumes.',
    gvk: { group: 'apps', version: 'v1', kind: 'StatefulSet' },
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
        type: { message: 'io.k8s.api.apps.v1.StatefulSetSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.apps.v1.StatefulSetStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DaemonSetCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      {
        json: 'lastTransitionTime',
        number: 3,
        type: 'time',
        description: 'When the condition last changed status.',
      },
      {
        json: 'reason',
        number: 4,
        type: 'string',
        description: 'A CamelCase word saying why the condition holds.',
      },
      { json: 'message', number: 5, type: 'string', description: 'A human-readable explanation.' },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DaemonSetSpec',
    fields: [
      {
        json: 'selector',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        description: 'Label query selecting the objects this one manages or targets.',
        required: true,
      },
      {
        json: 'template',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.PodTemplateSpec' },
        description: 'The pod template new pods are created from.',
        required: true,
      },
      {
        json: 'updateStrategy',
        number: 3,
        type: { message: 'io.k8s.api.apps.v1.DaemonSetUpdateStrategy' },
      },
      {
        json: 'minReadySeconds',
        number: 4,
        type: 'int32',
        description: 'Seconds a new pod must be ready, without crashing, to count as available.',
      },
      {
        json: 'revisionHistoryLimit',
        number: 6,
        type: 'int32',
        description: 'Old revisions kept for rollback.',
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DaemonSetStatus',
    fields: [
      { json: 'currentNumberScheduled', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'numberMisscheduled', number: 2, type: 'int32', keepZero: true, required: true },
      { json: 'desiredNumberScheduled', number: 3, type: 'int32', keepZero: true, required: true },
      { json: 'numberReady', number: 4, type: 'int32', keepZero: true, required: true },
      {
        json: 'observedGeneration',
        number: 5,
        type: 'int64',
        description: 'The metadata.generation this status was computed for.',
      },
      { json: 'updatedNumberScheduled', number: 6, type: 'int32' },
      { json: 'numberAvailable', number: 7, type: 'int32' },
      { json: 'numberUnavailable', number: 8, type: 'int32' },
      { json: 'collisionCount', number: 9, type: 'int32', keepZero: true },
      {
        json: 'conditions',
        number: 10,
        type: { message: 'io.k8s.api.apps.v1.DaemonSetCondition' },
        description: 'The latest observations of the state, one entry per condition type.',
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DaemonSetUpdateStrategy',
    fields: [
      { json: 'type', number: 1, type: 'string', enum: ['OnDelete', 'RollingUpdate'] },
      {
        json: 'rollingUpdate',
        number: 2,
        type: { message: 'io.k8s.api.apps.v1.RollingUpdateDaemonSet' },
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DeploymentCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      {
        json: 'reason',
        number: 4,
        type: 'string',
        description: 'A CamelCase word saying why the condition holds.',
      },
      { json: 'message', number: 5, type: 'string', description: 'A human-readable explanation.' },
      { json: 'lastUpdateTime', number: 6, type: 'time' },
      {
        json: 'lastTransitionTime',
        number: 7,
        type: 'time',
        description: 'When the condition last changed status.',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DeploymentSpec',
    fields: [
      {
        json: 'replicas',
        number: 1,
        type: 'int32',
        description: 'Desired number of pods.',
        keepZero: true,
      },
      {
        json: 'selector',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        description: 'Label query selecting the objects this one manages or targets.',
        required: true,
      },
      {
        json: 'template',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.PodTemplateSpec' },
        description: 'The pod template new pods are created from.',
        required: true,
      },
      {
        json: 'strategy',
        number: 4,
        type: { message: 'io.k8s.api.apps.v1.DeploymentStrategy' },
        description: 'How old pods are replaced by new ones.',
        patchStrategy: 'retainKeys',
      },
      {
        json: 'minReadySeconds',
        number: 5,
        type: 'int32',
        description: 'Seconds a new pod must be ready, without crashing, to count as available.',
      },
      {
        json: 'revisionHistoryLimit',
        number: 6,
        type: 'int32',
        description: 'Old revisions kept for rollback.',
        keepZero: true,
      },
      {
        json: 'paused',
        number: 7,
        type: 'bool',
        description: 'Stop rolling out template changes.',
      },
      {
        json: 'progressDeadlineSeconds',
        number: 9,
        type: 'int32',
        description: 'Seconds without progress before the rollout is reported stalled.',
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DeploymentStatus',
    fields: [
      {
        json: 'observedGeneration',
        number: 1,
        type: 'int64',
        description: 'The metadata.generation this status was computed for.',
      },
      { json: 'replicas', number: 2, type: 'int32' },
      { json: 'updatedReplicas', number: 3, type: 'int32' },
      { json: 'availableReplicas', number: 4, type: 'int32' },
      { json: 'unavailableReplicas', number: 5, type: 'int32' },
      {
        json: 'conditions',
        number: 6,
        type: { message: 'io.k8s.api.apps.v1.DeploymentCondition' },
        description: 'The latest observations of the state, one entry per condition type.',
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      { json: 'readyReplicas', number: 7, type: 'int32' },
      { json: 'collisionCount', number: 8, type: 'int32', keepZero: true },
      { json: 'terminatingReplicas', number: 9, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.DeploymentStrategy',
    fields: [
      { json: 'type', number: 1, type: 'string', enum: ['Recreate', 'RollingUpdate'] },
      {
        json: 'rollingUpdate',
        number: 2,
        type: { message: 'io.k8s.api.apps.v1.RollingUpdateDeployment' },
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.ReplicaSetCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      {
        json: 'lastTransitionTime',
        number: 3,
        type: 'time',
        description: 'When the condition last changed status.',
      },
      {
        json: 'reason',
        number: 4,
        type: 'string',
        description: 'A CamelCase word saying why the condition holds.',
      },
      { json: 'message', number: 5, type: 'string', description: 'A human-readable explanation.' },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.ReplicaSetSpec',
    fields: [
      {
        json: 'replicas',
        number: 1,
        type: 'int32',
        description: 'Desired number of pods.',
        keepZero: true,
      },
      {
        json: 'selector',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        description: 'Label query selecting the objects this one manages or targets.',
        required: true,
      },
      {
        json: 'template',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.PodTemplateSpec' },
        description: 'The pod template new pods are created from.',
      },
      {
        json: 'minReadySeconds',
        number: 4,
        type: 'int32',
        description: 'Seconds a new pod must be ready, without crashing, to count as available.',
      },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.ReplicaSetStatus',
    fields: [
      { json: 'replicas', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'fullyLabeledReplicas', number: 2, type: 'int32' },
      {
        json: 'observedGeneration',
        number: 3,
        type: 'int64',
        description: 'The metadata.generation this status was computed for.',
      },
      { json: 'readyReplicas', number: 4, type: 'int32' },
      { json: 'availableReplicas', number: 5, type: 'int32' },
      {
        json: 'conditions',
        number: 6,
        type: { message: 'io.k8s.api.apps.v1.ReplicaSetCondition' },
        description: 'The latest observations of the state, one entry per condition type.',
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      { json: 'terminatingReplicas', number: 7, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.RollingUpdateDaemonSet',
    fields: [
      { json: 'maxUnavailable', number: 1, type: 'intOrString', keepZero: true },
      { json: 'maxSurge', number: 2, type: 'intOrString', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.RollingUpdateDeployment',
    fields: [
      { json: 'maxUnavailable', number: 1, type: 'intOrString', keepZero: true },
      { json: 'maxSurge', number: 2, type: 'intOrString', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy',
    fields: [
      { json: 'partition', number: 1, type: 'int32', keepZero: true },
      { json: 'maxUnavailable', number: 2, type: 'intOrString', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSetCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      {
        json: 'lastTransitionTime',
        number: 3,
        type: 'time',
        description: 'When the condition last changed status.',
      },
      {
        json: 'reason',
        number: 4,
        type: 'string',
        description: 'A CamelCase word saying why the condition holds.',
      },
      { json: 'message', number: 5, type: 'string', description: 'A human-readable explanation.' },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSetOrdinals',
    fields: [{ json: 'start', number: 1, type: 'int32' }],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy',
    fields: [
      { json: 'whenDeleted', number: 1, type: 'string' },
      { json: 'whenScaled', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSetSpec',
    fields: [
      {
        json: 'replicas',
        number: 1,
        type: 'int32',
        description: 'Desired number of pods.',
        keepZero: true,
      },
      {
        json: 'selector',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        description: 'Label query selecting the objects this one manages or targets.',
        required: true,
      },
      {
        json: 'template',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.PodTemplateSpec' },
        description: 'The pod template new pods are created from.',
        required: true,
      },
      {
        json: 'volumeClaimTemplates',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaim' },
        repeated: true,
      },
      { json: 'serviceName', number: 5, type: 'string', keepZero: true, required: true },
      {
        json: 'podManagementPolicy',
        number: 6,
        type: 'string',
        enum: ['OrderedReady', 'Parallel'],
      },
      {
        json: 'updateStrategy',
        number: 7,
        type: { message: 'io.k8s.api.apps.v1.StatefulSetUpdateStrategy' },
      },
      {
        json: 'revisionHistoryLimit',
        number: 8,
        type: 'int32',
        description: 'Old revisions kept for rollback.',
        keepZero: true,
      },
      {
        json: 'minReadySeconds',
        number: 9,
        type: 'int32',
        description: 'Seconds a new pod must be ready, without crashing, to count as available.',
      },
      {
        json: 'persistentVolumeClaimRetentionPolicy',
        number: 10,
        type: { message: 'io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy' },
      },
      { json: 'ordinals', number: 11, type: { message: 'io.k8s.api.apps.v1.StatefulSetOrdinals' } },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSetStatus',
    fields: [
      {
        json: 'observedGeneration',
        number: 1,
        type: 'int64',
        description: 'The metadata.generation this status was computed for.',
      },
      { json: 'replicas', number: 2, type: 'int32', keepZero: true, required: true },
      { json: 'readyReplicas', number: 3, type: 'int32' },
      { json: 'currentReplicas', number: 4, type: 'int32' },
      { json: 'updatedReplicas', number: 5, type: 'int32' },
      { json: 'currentRevision', number: 6, type: 'string' },
      { json: 'updateRevision', number: 7, type: 'string' },
      { json: 'collisionCount', number: 9, type: 'int32', keepZero: true },
      {
        json: 'conditions',
        number: 10,
        type: { message: 'io.k8s.api.apps.v1.StatefulSetCondition' },
        description: 'The latest observations of the state, one entry per condition type.',
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      { json: 'availableReplicas', number: 11, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.apps.v1.StatefulSetUpdateStrategy',
    fields: [
      { json: 'type', number: 1, type: 'string', enum: ['OnDelete', 'RollingUpdate'] },
      {
        json: 'rollingUpdate',
        number: 2,
        type: { message: 'io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy' },
      },
    ],
  },
];
