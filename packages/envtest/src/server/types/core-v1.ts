// Built-in type definitions of core/v1 (k8s.io/api): the kinds kubectl create and run generate in the core group, and the whole PodSpec.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The core-v1 types, top-level kinds first. */
export const coreV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.core.v1.ConfigMap',
    description: 'Configuration data as string or binary key/value pairs for pods to read.',
    gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'data', number: 2, type: { map: 'string' } },
      { json: 'binaryData', number: 3, type: { map: 'bytes' } },
      { json: 'immutable', number: 4, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Event',
    description: 'A report of something that happened to an object.',
    gvk: { group: '', version: 'v1', kind: 'Event' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        required: true,
      },
      {
        json: 'involvedObject',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.ObjectReference' },
        required: true,
      },
      { json: 'reason', number: 3, type: 'string' },
      { json: 'message', number: 4, type: 'string' },
      { json: 'source', number: 5, type: { message: 'io.k8s.api.core.v1.EventSource' } },
      { json: 'firstTimestamp', number: 6, type: 'time' },
      { json: 'lastTimestamp', number: 7, type: 'time' },
      { json: 'count', number: 8, type: 'int32' },
      { json: 'type', number: 9, type: 'string' },
      { json: 'eventTime', number: 10, type: 'microTime' },
      { json: 'series', number: 11, type: { message: 'io.k8s.api.core.v1.EventSeries' } },
      { json: 'action', number: 12, type: 'string' },
      { json: 'related', number: 13, type: { message: 'io.k8s.api.core.v1.ObjectReference' } },
      { json: 'reportingComponent', number: 14, type: 'string', keepZero: true },
      { json: 'reportingInstance', number: 15, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Namespace',
    description: 'A scope for the names of namespaced objects.',
    gvk: { group: '', version: 'v1', kind: 'Namespace' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'spec', number: 2, type: { message: 'io.k8s.api.core.v1.NamespaceSpec' } },
      { json: 'status', number: 3, type: { message: 'io.k8s.api.core.v1.NamespaceStatus' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Pod',
    description:
      'One or more containers scheduled together on a node, sharing network and volumes.',
    gvk: { group: '', version: 'v1', kind: 'Pod' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'spec', number: 2, type: { message: 'io.k8s.api.core.v1.PodSpec' } },
      { json: 'status', number: 3, type: { message: 'io.k8s.api.core.v1.PodStatus' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceQuota',
    description: 'Limits on the total resources a namespace may consume.',
    gvk: { group: '', version: 'v1', kind: 'ResourceQuota' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'spec', number: 2, type: { message: 'io.k8s.api.core.v1.ResourceQuotaSpec' } },
      { json: 'status', number: 3, type: { message: 'io.k8s.api.core.v1.ResourceQuotaStatus' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Secret',
    description:
      'Sensitive key/value data, base64 in JSON, with a type that says which keys it must hold.',
    gvk: { group: '', version: 'v1', kind: 'Secret' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'data', number: 2, type: { map: 'bytes' } },
      { json: 'type', number: 3, type: 'string' },
      { json: 'stringData', number: 4, type: { map: 'string' } },
      { json: 'immutable', number: 5, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Service',
    description:
      'A stable name and virtual address in front of a set of pods chosen by a selector.',
    gvk: { group: '', version: 'v1', kind: 'Service' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'spec', number: 2, type: { message: 'io.k8s.api.core.v1.ServiceSpec' } },
      { json: 'status', number: 3, type: { message: 'io.k8s.api.core.v1.ServiceStatus' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ServiceAccount',
    description: 'An identity for processes that run in pods.',
    gvk: { group: '', version: 'v1', kind: 'ServiceAccount' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      {
        json: 'secrets',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.ObjectReference' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      {
        json: 'imagePullSecrets',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        repeated: true,
      },
      { json: 'automountServiceAccountToken', number: 4, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource',
    fields: [
      { json: 'volumeID', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
      { json: 'partition', number: 3, type: 'int32' },
      { json: 'readOnly', number: 4, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Affinity',
    fields: [
      { json: 'nodeAffinity', number: 1, type: { message: 'io.k8s.api.core.v1.NodeAffinity' } },
      { json: 'podAffinity', number: 2, type: { message: 'io.k8s.api.core.v1.PodAffinity' } },
      {
        json: 'podAntiAffinity',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.PodAntiAffinity' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.AppArmorProfile',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'localhostProfile', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.AzureDiskVolumeSource',
    fields: [
      { json: 'diskName', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'diskURI', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'cachingMode', number: 3, type: 'string', keepZero: true },
      { json: 'fsType', number: 4, type: 'string', keepZero: true },
      { json: 'readOnly', number: 5, type: 'bool', keepZero: true },
      { json: 'kind', number: 6, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.AzureFileVolumeSource',
    fields: [
      { json: 'secretName', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'shareName', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 3, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.CSIVolumeSource',
    fields: [
      { json: 'driver', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 2, type: 'bool', keepZero: true },
      { json: 'fsType', number: 3, type: 'string', keepZero: true },
      { json: 'volumeAttributes', number: 4, type: { map: 'string' } },
      {
        json: 'nodePublishSecretRef',
        number: 5,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Capabilities',
    fields: [
      { json: 'add', number: 1, type: 'string', repeated: true },
      { json: 'drop', number: 2, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.CephFSVolumeSource',
    fields: [
      {
        json: 'monitors',
        number: 1,
        type: 'string',
        repeated: true,
        keepZero: true,
        required: true,
      },
      { json: 'path', number: 2, type: 'string' },
      { json: 'user', number: 3, type: 'string' },
      { json: 'secretFile', number: 4, type: 'string' },
      {
        json: 'secretRef',
        number: 5,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
      { json: 'readOnly', number: 6, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.CinderVolumeSource',
    fields: [
      { json: 'volumeID', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
      { json: 'readOnly', number: 3, type: 'bool' },
      {
        json: 'secretRef',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ClientIPConfig',
    fields: [{ json: 'timeoutSeconds', number: 1, type: 'int32', keepZero: true }],
  },
  {
    name: 'io.k8s.api.core.v1.ClusterTrustBundleProjection',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true },
      { json: 'signerName', number: 2, type: 'string', keepZero: true },
      {
        json: 'labelSelector',
        number: 3,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      },
      { json: 'path', number: 4, type: 'string', keepZero: true, required: true },
      { json: 'optional', number: 5, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ConfigMapEnvSource',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      { json: 'optional', number: 2, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ConfigMapKeySelector',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      { json: 'key', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'optional', number: 3, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ConfigMapProjection',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      {
        json: 'items',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.KeyToPath' },
        repeated: true,
      },
      { json: 'optional', number: 4, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ConfigMapVolumeSource',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      {
        json: 'items',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.KeyToPath' },
        repeated: true,
      },
      { json: 'defaultMode', number: 3, type: 'int32', keepZero: true },
      { json: 'optional', number: 4, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Container',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'image', number: 2, type: 'string' },
      { json: 'command', number: 3, type: 'string', repeated: true },
      { json: 'args', number: 4, type: 'string', repeated: true },
      { json: 'workingDir', number: 5, type: 'string' },
      {
        json: 'ports',
        number: 6,
        type: { message: 'io.k8s.api.core.v1.ContainerPort' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'containerPort',
        listType: 'map',
        listMapKeys: ['containerPort', 'protocol'],
      },
      {
        json: 'env',
        number: 7,
        type: { message: 'io.k8s.api.core.v1.EnvVar' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      {
        json: 'resources',
        number: 8,
        type: { message: 'io.k8s.api.core.v1.ResourceRequirements' },
      },
      {
        json: 'volumeMounts',
        number: 9,
        type: { message: 'io.k8s.api.core.v1.VolumeMount' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'mountPath',
      },
      { json: 'livenessProbe', number: 10, type: { message: 'io.k8s.api.core.v1.Probe' } },
      { json: 'readinessProbe', number: 11, type: { message: 'io.k8s.api.core.v1.Probe' } },
      { json: 'lifecycle', number: 12, type: { message: 'io.k8s.api.core.v1.Lifecycle' } },
      { json: 'terminationMessagePath', number: 13, type: 'string' },
      {
        json: 'imagePullPolicy',
        number: 14,
        type: 'string',
        enum: ['Always', 'IfNotPresent', 'Never'],
      },
      {
        json: 'securityContext',
        number: 15,
        type: { message: 'io.k8s.api.core.v1.SecurityContext' },
      },
      { json: 'stdin', number: 16, type: 'bool' },
      { json: 'stdinOnce', number: 17, type: 'bool' },
      { json: 'tty', number: 18, type: 'bool' },
      {
        json: 'envFrom',
        number: 19,
        type: { message: 'io.k8s.api.core.v1.EnvFromSource' },
        repeated: true,
      },
      {
        json: 'terminationMessagePolicy',
        number: 20,
        type: 'string',
        enum: ['FallbackToLogsOnError', 'File'],
      },
      {
        json: 'volumeDevices',
        number: 21,
        type: { message: 'io.k8s.api.core.v1.VolumeDevice' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'devicePath',
      },
      { json: 'startupProbe', number: 22, type: { message: 'io.k8s.api.core.v1.Probe' } },
      {
        json: 'resizePolicy',
        number: 23,
        type: { message: 'io.k8s.api.core.v1.ContainerResizePolicy' },
        repeated: true,
        listType: 'atomic',
      },
      { json: 'restartPolicy', number: 24, type: 'string', keepZero: true },
      {
        json: 'restartPolicyRules',
        number: 25,
        type: { message: 'io.k8s.api.core.v1.ContainerRestartRule' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerPort',
    fields: [
      { json: 'name', number: 1, type: 'string' },
      { json: 'hostPort', number: 2, type: 'int32' },
      { json: 'containerPort', number: 3, type: 'int32', keepZero: true, required: true },
      { json: 'protocol', number: 4, type: 'string', enum: ['SCTP', 'TCP', 'UDP'] },
      { json: 'hostIP', number: 5, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerResizePolicy',
    fields: [
      { json: 'resourceName', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'restartPolicy', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerRestartRule',
    fields: [
      { json: 'action', number: 1, type: 'string', required: true },
      {
        json: 'exitCodes',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes',
    fields: [
      { json: 'operator', number: 1, type: 'string', required: true },
      { json: 'values', number: 2, type: 'int32', repeated: true, listType: 'set' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerState',
    fields: [
      { json: 'waiting', number: 1, type: { message: 'io.k8s.api.core.v1.ContainerStateWaiting' } },
      { json: 'running', number: 2, type: { message: 'io.k8s.api.core.v1.ContainerStateRunning' } },
      {
        json: 'terminated',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.ContainerStateTerminated' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerStateRunning',
    fields: [{ json: 'startedAt', number: 1, type: 'time' }],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerStateTerminated',
    fields: [
      { json: 'exitCode', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'signal', number: 2, type: 'int32' },
      { json: 'reason', number: 3, type: 'string' },
      { json: 'message', number: 4, type: 'string' },
      { json: 'startedAt', number: 5, type: 'time' },
      { json: 'finishedAt', number: 6, type: 'time' },
      { json: 'containerID', number: 7, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerStateWaiting',
    fields: [
      { json: 'reason', number: 1, type: 'string' },
      { json: 'message', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerStatus',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'state', number: 2, type: { message: 'io.k8s.api.core.v1.ContainerState' } },
      { json: 'lastState', number: 3, type: { message: 'io.k8s.api.core.v1.ContainerState' } },
      { json: 'ready', number: 4, type: 'bool', keepZero: true, required: true },
      { json: 'restartCount', number: 5, type: 'int32', keepZero: true, required: true },
      { json: 'image', number: 6, type: 'string', keepZero: true, required: true },
      { json: 'imageID', number: 7, type: 'string', keepZero: true, required: true },
      { json: 'containerID', number: 8, type: 'string' },
      { json: 'started', number: 9, type: 'bool', keepZero: true },
      { json: 'allocatedResources', number: 10, type: { map: 'quantity' } },
      {
        json: 'resources',
        number: 11,
        type: { message: 'io.k8s.api.core.v1.ResourceRequirements' },
      },
      {
        json: 'volumeMounts',
        number: 12,
        type: { message: 'io.k8s.api.core.v1.VolumeMountStatus' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'mountPath',
        listType: 'map',
        listMapKeys: ['mountPath'],
      },
      { json: 'user', number: 13, type: { message: 'io.k8s.api.core.v1.ContainerUser' } },
      {
        json: 'allocatedResourcesStatus',
        number: 14,
        type: { message: 'io.k8s.api.core.v1.ResourceStatus' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
        listType: 'map',
        listMapKeys: ['name'],
      },
      { json: 'stopSignal', number: 15, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ContainerUser',
    fields: [
      { json: 'linux', number: 1, type: { message: 'io.k8s.api.core.v1.LinuxContainerUser' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.DownwardAPIProjection',
    fields: [
      {
        json: 'items',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.DownwardAPIVolumeFile' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.DownwardAPIVolumeFile',
    fields: [
      { json: 'path', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fieldRef', number: 2, type: { message: 'io.k8s.api.core.v1.ObjectFieldSelector' } },
      {
        json: 'resourceFieldRef',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.ResourceFieldSelector' },
      },
      { json: 'mode', number: 4, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.DownwardAPIVolumeSource',
    fields: [
      {
        json: 'items',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.DownwardAPIVolumeFile' },
        repeated: true,
      },
      { json: 'defaultMode', number: 2, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EmptyDirVolumeSource',
    fields: [
      { json: 'medium', number: 1, type: 'string' },
      { json: 'sizeLimit', number: 2, type: 'quantity', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EnvFromSource',
    fields: [
      { json: 'prefix', number: 1, type: 'string' },
      {
        json: 'configMapRef',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.ConfigMapEnvSource' },
      },
      { json: 'secretRef', number: 3, type: { message: 'io.k8s.api.core.v1.SecretEnvSource' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EnvVar',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'value', number: 2, type: 'string' },
      { json: 'valueFrom', number: 3, type: { message: 'io.k8s.api.core.v1.EnvVarSource' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EnvVarSource',
    fields: [
      { json: 'fieldRef', number: 1, type: { message: 'io.k8s.api.core.v1.ObjectFieldSelector' } },
      {
        json: 'resourceFieldRef',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.ResourceFieldSelector' },
      },
      {
        json: 'configMapKeyRef',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.ConfigMapKeySelector' },
      },
      {
        json: 'secretKeyRef',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.SecretKeySelector' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EphemeralContainer',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.EphemeralContainerCommon' },
        inline: true,
      },
      { json: 'targetContainerName', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EphemeralContainerCommon',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'image', number: 2, type: 'string' },
      { json: 'command', number: 3, type: 'string', repeated: true },
      { json: 'args', number: 4, type: 'string', repeated: true },
      { json: 'workingDir', number: 5, type: 'string' },
      {
        json: 'ports',
        number: 6,
        type: { message: 'io.k8s.api.core.v1.ContainerPort' },
        repeated: true,
      },
      {
        json: 'env',
        number: 7,
        type: { message: 'io.k8s.api.core.v1.EnvVar' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      {
        json: 'resources',
        number: 8,
        type: { message: 'io.k8s.api.core.v1.ResourceRequirements' },
      },
      {
        json: 'volumeMounts',
        number: 9,
        type: { message: 'io.k8s.api.core.v1.VolumeMount' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'mountPath',
      },
      { json: 'livenessProbe', number: 10, type: { message: 'io.k8s.api.core.v1.Probe' } },
      { json: 'readinessProbe', number: 11, type: { message: 'io.k8s.api.core.v1.Probe' } },
      { json: 'lifecycle', number: 12, type: { message: 'io.k8s.api.core.v1.Lifecycle' } },
      { json: 'terminationMessagePath', number: 13, type: 'string' },
      {
        json: 'imagePullPolicy',
        number: 14,
        type: 'string',
        enum: ['Always', 'IfNotPresent', 'Never'],
      },
      {
        json: 'securityContext',
        number: 15,
        type: { message: 'io.k8s.api.core.v1.SecurityContext' },
      },
      { json: 'stdin', number: 16, type: 'bool' },
      { json: 'stdinOnce', number: 17, type: 'bool' },
      { json: 'tty', number: 18, type: 'bool' },
      {
        json: 'envFrom',
        number: 19,
        type: { message: 'io.k8s.api.core.v1.EnvFromSource' },
        repeated: true,
      },
      {
        json: 'terminationMessagePolicy',
        number: 20,
        type: 'string',
        enum: ['FallbackToLogsOnError', 'File'],
      },
      {
        json: 'volumeDevices',
        number: 21,
        type: { message: 'io.k8s.api.core.v1.VolumeDevice' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'devicePath',
      },
      { json: 'startupProbe', number: 22, type: { message: 'io.k8s.api.core.v1.Probe' } },
      {
        json: 'resizePolicy',
        number: 23,
        type: { message: 'io.k8s.api.core.v1.ContainerResizePolicy' },
        repeated: true,
        listType: 'atomic',
      },
      { json: 'restartPolicy', number: 24, type: 'string', keepZero: true },
      {
        json: 'restartPolicyRules',
        number: 25,
        type: { message: 'io.k8s.api.core.v1.ContainerRestartRule' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EphemeralVolumeSource',
    fields: [
      {
        json: 'volumeClaimTemplate',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaimTemplate' },
      },
      { json: 'readOnly', number: 2, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EventSeries',
    fields: [
      { json: 'count', number: 1, type: 'int32' },
      { json: 'lastObservedTime', number: 2, type: 'microTime' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.EventSource',
    fields: [
      { json: 'component', number: 1, type: 'string' },
      { json: 'host', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ExecAction',
    fields: [{ json: 'command', number: 1, type: 'string', repeated: true }],
  },
  {
    name: 'io.k8s.api.core.v1.FCVolumeSource',
    fields: [
      { json: 'targetWWNs', number: 1, type: 'string', repeated: true },
      { json: 'lun', number: 2, type: 'int32', keepZero: true },
      { json: 'fsType', number: 3, type: 'string' },
      { json: 'readOnly', number: 4, type: 'bool' },
      { json: 'wwids', number: 5, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.FlexVolumeSource',
    fields: [
      { json: 'driver', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
      {
        json: 'secretRef',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
      { json: 'readOnly', number: 4, type: 'bool' },
      { json: 'options', number: 5, type: { map: 'string' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.FlockerVolumeSource',
    fields: [
      { json: 'datasetName', number: 1, type: 'string' },
      { json: 'datasetUUID', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.GCEPersistentDiskVolumeSource',
    fields: [
      { json: 'pdName', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
      { json: 'partition', number: 3, type: 'int32' },
      { json: 'readOnly', number: 4, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.GRPCAction',
    fields: [
      { json: 'port', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'service', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.GitRepoVolumeSource',
    fields: [
      { json: 'repository', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'revision', number: 2, type: 'string' },
      { json: 'directory', number: 3, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.GlusterfsVolumeSource',
    fields: [
      { json: 'endpoints', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'path', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 3, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.HTTPGetAction',
    fields: [
      { json: 'path', number: 1, type: 'string' },
      { json: 'port', number: 2, type: 'intOrString', keepZero: true, required: true },
      { json: 'host', number: 3, type: 'string' },
      { json: 'scheme', number: 4, type: 'string', enum: ['HTTP', 'HTTPS'] },
      {
        json: 'httpHeaders',
        number: 5,
        type: { message: 'io.k8s.api.core.v1.HTTPHeader' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.HTTPHeader',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'value', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.HostAlias',
    fields: [
      { json: 'ip', number: 1, type: 'string' },
      { json: 'hostnames', number: 2, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.HostIP',
    fields: [{ json: 'ip', number: 1, type: 'string', keepZero: true, required: true }],
  },
  {
    name: 'io.k8s.api.core.v1.HostPathVolumeSource',
    fields: [
      { json: 'path', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'type', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ISCSIVolumeSource',
    fields: [
      { json: 'targetPortal', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'iqn', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'lun', number: 3, type: 'int32', keepZero: true, required: true },
      { json: 'iscsiInterface', number: 4, type: 'string' },
      { json: 'fsType', number: 5, type: 'string' },
      { json: 'readOnly', number: 6, type: 'bool' },
      { json: 'portals', number: 7, type: 'string', repeated: true },
      { json: 'chapAuthDiscovery', number: 8, type: 'bool' },
      {
        json: 'secretRef',
        number: 10,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
      { json: 'chapAuthSession', number: 11, type: 'bool' },
      { json: 'initiatorName', number: 12, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ImageVolumeSource',
    fields: [
      { json: 'reference', number: 1, type: 'string' },
      { json: 'pullPolicy', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.KeyToPath',
    fields: [
      { json: 'key', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'path', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'mode', number: 3, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Lifecycle',
    fields: [
      { json: 'postStart', number: 1, type: { message: 'io.k8s.api.core.v1.LifecycleHandler' } },
      { json: 'preStop', number: 2, type: { message: 'io.k8s.api.core.v1.LifecycleHandler' } },
      { json: 'stopSignal', number: 3, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.LifecycleHandler',
    fields: [
      { json: 'exec', number: 1, type: { message: 'io.k8s.api.core.v1.ExecAction' } },
      { json: 'httpGet', number: 2, type: { message: 'io.k8s.api.core.v1.HTTPGetAction' } },
      { json: 'tcpSocket', number: 3, type: { message: 'io.k8s.api.core.v1.TCPSocketAction' } },
      { json: 'sleep', number: 4, type: { message: 'io.k8s.api.core.v1.SleepAction' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.LinuxContainerUser',
    fields: [
      { json: 'uid', number: 1, type: 'int64', keepZero: true, required: true },
      { json: 'gid', number: 2, type: 'int64', keepZero: true, required: true },
      { json: 'supplementalGroups', number: 3, type: 'int64', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.LoadBalancerIngress',
    fields: [
      { json: 'ip', number: 1, type: 'string' },
      { json: 'hostname', number: 2, type: 'string' },
      { json: 'ipMode', number: 3, type: 'string', keepZero: true },
      {
        json: 'ports',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.PortStatus' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.LoadBalancerStatus',
    fields: [
      {
        json: 'ingress',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LoadBalancerIngress' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.LocalObjectReference',
    fields: [{ json: 'name', number: 1, type: 'string' }],
  },
  {
    name: 'io.k8s.api.core.v1.ModifyVolumeStatus',
    fields: [
      { json: 'targetVolumeAttributesClassName', number: 1, type: 'string' },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NFSVolumeSource',
    fields: [
      { json: 'server', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'path', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 3, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NamespaceCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'lastTransitionTime', number: 4, type: 'time' },
      { json: 'reason', number: 5, type: 'string' },
      { json: 'message', number: 6, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NamespaceSpec',
    fields: [{ json: 'finalizers', number: 1, type: 'string', repeated: true }],
  },
  {
    name: 'io.k8s.api.core.v1.NamespaceStatus',
    fields: [
      { json: 'phase', number: 1, type: 'string', enum: ['Active', 'Terminating'] },
      {
        json: 'conditions',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.NamespaceCondition' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NodeAffinity',
    fields: [
      {
        json: 'requiredDuringSchedulingIgnoredDuringExecution',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.NodeSelector' },
      },
      {
        json: 'preferredDuringSchedulingIgnoredDuringExecution',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.PreferredSchedulingTerm' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NodeSelector',
    fields: [
      {
        json: 'nodeSelectorTerms',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.NodeSelectorTerm' },
        repeated: true,
        keepZero: true,
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NodeSelectorRequirement',
    fields: [
      { json: 'key', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'operator', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'values', number: 3, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NodeSelectorTerm',
    fields: [
      {
        json: 'matchExpressions',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.NodeSelectorRequirement' },
        repeated: true,
      },
      {
        json: 'matchFields',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.NodeSelectorRequirement' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ObjectFieldSelector',
    fields: [
      { json: 'apiVersion', number: 1, type: 'string' },
      { json: 'fieldPath', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ObjectReference',
    fields: [
      { json: 'kind', number: 1, type: 'string' },
      { json: 'namespace', number: 2, type: 'string' },
      { json: 'name', number: 3, type: 'string' },
      { json: 'uid', number: 4, type: 'string' },
      { json: 'apiVersion', number: 5, type: 'string' },
      { json: 'resourceVersion', number: 6, type: 'string' },
      { json: 'fieldPath', number: 7, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PersistentVolumeClaim',
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec' },
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaimStatus' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PersistentVolumeClaimCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'lastProbeTime', number: 3, type: 'time' },
      { json: 'lastTransitionTime', number: 4, type: 'time' },
      { json: 'reason', number: 5, type: 'string' },
      { json: 'message', number: 6, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec',
    fields: [
      { json: 'accessModes', number: 1, type: 'string', repeated: true },
      {
        json: 'resources',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.VolumeResourceRequirements' },
      },
      { json: 'volumeName', number: 3, type: 'string' },
      {
        json: 'selector',
        number: 4,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      },
      { json: 'storageClassName', number: 5, type: 'string', keepZero: true },
      { json: 'volumeMode', number: 6, type: 'string', keepZero: true },
      {
        json: 'dataSource',
        number: 7,
        type: { message: 'io.k8s.api.core.v1.TypedLocalObjectReference' },
      },
      {
        json: 'dataSourceRef',
        number: 8,
        type: { message: 'io.k8s.api.core.v1.TypedObjectReference' },
      },
      { json: 'volumeAttributesClassName', number: 9, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PersistentVolumeClaimStatus',
    fields: [
      { json: 'phase', number: 1, type: 'string' },
      { json: 'accessModes', number: 2, type: 'string', repeated: true },
      { json: 'capacity', number: 3, type: { map: 'quantity' } },
      {
        json: 'conditions',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaimCondition' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      { json: 'allocatedResources', number: 5, type: { map: 'quantity' } },
      {
        json: 'allocatedResourceStatuses',
        number: 7,
        type: { map: 'string' },
        mapType: 'granular',
      },
      { json: 'currentVolumeAttributesClassName', number: 8, type: 'string', keepZero: true },
      {
        json: 'modifyVolumeStatus',
        number: 9,
        type: { message: 'io.k8s.api.core.v1.ModifyVolumeStatus' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PersistentVolumeClaimTemplate',
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec' },
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource',
    fields: [
      { json: 'claimName', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 2, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource',
    fields: [
      { json: 'pdID', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodAffinity',
    fields: [
      {
        json: 'requiredDuringSchedulingIgnoredDuringExecution',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.PodAffinityTerm' },
        repeated: true,
      },
      {
        json: 'preferredDuringSchedulingIgnoredDuringExecution',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.WeightedPodAffinityTerm' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodAffinityTerm',
    fields: [
      {
        json: 'labelSelector',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      },
      { json: 'namespaces', number: 2, type: 'string', repeated: true },
      { json: 'topologyKey', number: 3, type: 'string', keepZero: true, required: true },
      {
        json: 'namespaceSelector',
        number: 4,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      },
      { json: 'matchLabelKeys', number: 5, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'mismatchLabelKeys', number: 6, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodAntiAffinity',
    fields: [
      {
        json: 'requiredDuringSchedulingIgnoredDuringExecution',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.PodAffinityTerm' },
        repeated: true,
      },
      {
        json: 'preferredDuringSchedulingIgnoredDuringExecution',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.WeightedPodAffinityTerm' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'lastProbeTime', number: 3, type: 'time' },
      { json: 'lastTransitionTime', number: 4, type: 'time' },
      { json: 'reason', number: 5, type: 'string' },
      { json: 'message', number: 6, type: 'string' },
      { json: 'observedGeneration', number: 7, type: 'int64' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodDNSConfig',
    fields: [
      { json: 'nameservers', number: 1, type: 'string', repeated: true },
      { json: 'searches', number: 2, type: 'string', repeated: true },
      {
        json: 'options',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.PodDNSConfigOption' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodDNSConfigOption',
    fields: [
      { json: 'name', number: 1, type: 'string' },
      { json: 'value', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodIP',
    fields: [{ json: 'ip', number: 1, type: 'string' }],
  },
  {
    name: 'io.k8s.api.core.v1.PodOS',
    fields: [{ json: 'name', number: 1, type: 'string', keepZero: true, required: true }],
  },
  {
    name: 'io.k8s.api.core.v1.PodReadinessGate',
    fields: [{ json: 'conditionType', number: 1, type: 'string', keepZero: true, required: true }],
  },
  {
    name: 'io.k8s.api.core.v1.PodResourceClaim',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'resourceClaimName', number: 3, type: 'string', keepZero: true },
      { json: 'resourceClaimTemplateName', number: 4, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodResourceClaimStatus',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'resourceClaimName', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodSchedulingGate',
    fields: [{ json: 'name', number: 1, type: 'string', keepZero: true, required: true }],
  },
  {
    name: 'io.k8s.api.core.v1.PodSecurityContext',
    fields: [
      { json: 'seLinuxOptions', number: 1, type: { message: 'io.k8s.api.core.v1.SELinuxOptions' } },
      { json: 'runAsUser', number: 2, type: 'int64', keepZero: true },
      { json: 'runAsNonRoot', number: 3, type: 'bool', keepZero: true },
      { json: 'supplementalGroups', number: 4, type: 'int64', repeated: true },
      { json: 'fsGroup', number: 5, type: 'int64', keepZero: true },
      { json: 'runAsGroup', number: 6, type: 'int64', keepZero: true },
      {
        json: 'sysctls',
        number: 7,
        type: { message: 'io.k8s.api.core.v1.Sysctl' },
        repeated: true,
      },
      {
        json: 'windowsOptions',
        number: 8,
        type: { message: 'io.k8s.api.core.v1.WindowsSecurityContextOptions' },
      },
      { json: 'fsGroupChangePolicy', number: 9, type: 'string', keepZero: true },
      {
        json: 'seccompProfile',
        number: 10,
        type: { message: 'io.k8s.api.core.v1.SeccompProfile' },
      },
      {
        json: 'appArmorProfile',
        number: 11,
        type: { message: 'io.k8s.api.core.v1.AppArmorProfile' },
      },
      { json: 'supplementalGroupsPolicy', number: 12, type: 'string', keepZero: true },
      { json: 'seLinuxChangePolicy', number: 13, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodSpec',
    fields: [
      {
        json: 'volumes',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.Volume' },
        repeated: true,
        patchStrategy: 'merge,retainKeys',
        patchMergeKey: 'name',
      },
      {
        json: 'containers',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.Container' },
        repeated: true,
        keepZero: true,
        required: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      { json: 'restartPolicy', number: 3, type: 'string', enum: ['Always', 'Never', 'OnFailure'] },
      { json: 'terminationGracePeriodSeconds', number: 4, type: 'int64', keepZero: true },
      { json: 'activeDeadlineSeconds', number: 5, type: 'int64', keepZero: true },
      {
        json: 'dnsPolicy',
        number: 6,
        type: 'string',
        enum: ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'],
      },
      { json: 'nodeSelector', number: 7, type: { map: 'string' } },
      { json: 'serviceAccountName', number: 8, type: 'string' },
      { json: 'serviceAccount', number: 9, type: 'string' },
      { json: 'nodeName', number: 10, type: 'string' },
      { json: 'hostNetwork', number: 11, type: 'bool' },
      { json: 'hostPID', number: 12, type: 'bool' },
      { json: 'hostIPC', number: 13, type: 'bool' },
      {
        json: 'securityContext',
        number: 14,
        type: { message: 'io.k8s.api.core.v1.PodSecurityContext' },
      },
      {
        json: 'imagePullSecrets',
        number: 15,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      { json: 'hostname', number: 16, type: 'string' },
      { json: 'subdomain', number: 17, type: 'string' },
      { json: 'affinity', number: 18, type: { message: 'io.k8s.api.core.v1.Affinity' } },
      { json: 'schedulerName', number: 19, type: 'string' },
      {
        json: 'initContainers',
        number: 20,
        type: { message: 'io.k8s.api.core.v1.Container' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      { json: 'automountServiceAccountToken', number: 21, type: 'bool', keepZero: true },
      {
        json: 'tolerations',
        number: 22,
        type: { message: 'io.k8s.api.core.v1.Toleration' },
        repeated: true,
      },
      {
        json: 'hostAliases',
        number: 23,
        type: { message: 'io.k8s.api.core.v1.HostAlias' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'ip',
      },
      { json: 'priorityClassName', number: 24, type: 'string' },
      { json: 'priority', number: 25, type: 'int32', keepZero: true },
      { json: 'dnsConfig', number: 26, type: { message: 'io.k8s.api.core.v1.PodDNSConfig' } },
      { json: 'shareProcessNamespace', number: 27, type: 'bool', keepZero: true },
      {
        json: 'readinessGates',
        number: 28,
        type: { message: 'io.k8s.api.core.v1.PodReadinessGate' },
        repeated: true,
      },
      { json: 'runtimeClassName', number: 29, type: 'string', keepZero: true },
      { json: 'enableServiceLinks', number: 30, type: 'bool', keepZero: true },
      {
        json: 'preemptionPolicy',
        number: 31,
        type: 'string',
        keepZero: true,
        enum: ['Never', 'PreemptLowerPriority'],
      },
      { json: 'overhead', number: 32, type: { map: 'quantity' } },
      {
        json: 'topologySpreadConstraints',
        number: 33,
        type: { message: 'io.k8s.api.core.v1.TopologySpreadConstraint' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'topologyKey',
        listType: 'map',
        listMapKeys: ['topologyKey', 'whenUnsatisfiable'],
      },
      {
        json: 'ephemeralContainers',
        number: 34,
        type: { message: 'io.k8s.api.core.v1.EphemeralContainer' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
      { json: 'setHostnameAsFQDN', number: 35, type: 'bool', keepZero: true },
      { json: 'os', number: 36, type: { message: 'io.k8s.api.core.v1.PodOS' } },
      { json: 'hostUsers', number: 37, type: 'bool', keepZero: true },
      {
        json: 'schedulingGates',
        number: 38,
        type: { message: 'io.k8s.api.core.v1.PodSchedulingGate' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
        listType: 'map',
        listMapKeys: ['name'],
      },
      {
        json: 'resourceClaims',
        number: 39,
        type: { message: 'io.k8s.api.core.v1.PodResourceClaim' },
        repeated: true,
        patchStrategy: 'merge,retainKeys',
        patchMergeKey: 'name',
        listType: 'map',
        listMapKeys: ['name'],
      },
      {
        json: 'resources',
        number: 40,
        type: { message: 'io.k8s.api.core.v1.ResourceRequirements' },
      },
      { json: 'hostnameOverride', number: 41, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodStatus',
    fields: [
      {
        json: 'phase',
        number: 1,
        type: 'string',
        enum: ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'],
      },
      {
        json: 'conditions',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.PodCondition' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      { json: 'message', number: 3, type: 'string' },
      { json: 'reason', number: 4, type: 'string' },
      { json: 'hostIP', number: 5, type: 'string' },
      { json: 'podIP', number: 6, type: 'string' },
      { json: 'startTime', number: 7, type: 'time', keepZero: true },
      {
        json: 'containerStatuses',
        number: 8,
        type: { message: 'io.k8s.api.core.v1.ContainerStatus' },
        repeated: true,
      },
      { json: 'qosClass', number: 9, type: 'string' },
      {
        json: 'initContainerStatuses',
        number: 10,
        type: { message: 'io.k8s.api.core.v1.ContainerStatus' },
        repeated: true,
      },
      { json: 'nominatedNodeName', number: 11, type: 'string' },
      {
        json: 'podIPs',
        number: 12,
        type: { message: 'io.k8s.api.core.v1.PodIP' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'ip',
      },
      {
        json: 'ephemeralContainerStatuses',
        number: 13,
        type: { message: 'io.k8s.api.core.v1.ContainerStatus' },
        repeated: true,
      },
      { json: 'resize', number: 14, type: 'string' },
      {
        json: 'resourceClaimStatuses',
        number: 15,
        type: { message: 'io.k8s.api.core.v1.PodResourceClaimStatus' },
        repeated: true,
        patchStrategy: 'merge,retainKeys',
        patchMergeKey: 'name',
        listType: 'map',
        listMapKeys: ['name'],
      },
      {
        json: 'hostIPs',
        number: 16,
        type: { message: 'io.k8s.api.core.v1.HostIP' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'ip',
        listType: 'atomic',
      },
      { json: 'observedGeneration', number: 17, type: 'int64' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PodTemplateSpec',
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'spec', number: 2, type: { message: 'io.k8s.api.core.v1.PodSpec' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PortStatus',
    fields: [
      { json: 'port', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'protocol', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'error', number: 3, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PortworxVolumeSource',
    fields: [
      { json: 'volumeID', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
      { json: 'readOnly', number: 3, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.PreferredSchedulingTerm',
    fields: [
      { json: 'weight', number: 1, type: 'int32', keepZero: true, required: true },
      {
        json: 'preference',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.NodeSelectorTerm' },
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Probe',
    fields: [
      { json: '', number: 1, type: { message: 'io.k8s.api.core.v1.ProbeHandler' }, inline: true },
      { json: 'initialDelaySeconds', number: 2, type: 'int32' },
      { json: 'timeoutSeconds', number: 3, type: 'int32' },
      { json: 'periodSeconds', number: 4, type: 'int32' },
      { json: 'successThreshold', number: 5, type: 'int32' },
      { json: 'failureThreshold', number: 6, type: 'int32' },
      { json: 'terminationGracePeriodSeconds', number: 7, type: 'int64', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ProbeHandler',
    fields: [
      { json: 'exec', number: 1, type: { message: 'io.k8s.api.core.v1.ExecAction' } },
      { json: 'httpGet', number: 2, type: { message: 'io.k8s.api.core.v1.HTTPGetAction' } },
      { json: 'tcpSocket', number: 3, type: { message: 'io.k8s.api.core.v1.TCPSocketAction' } },
      { json: 'grpc', number: 4, type: { message: 'io.k8s.api.core.v1.GRPCAction' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ProjectedVolumeSource',
    fields: [
      {
        json: 'sources',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.VolumeProjection' },
        repeated: true,
        keepZero: true,
      },
      { json: 'defaultMode', number: 2, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.QuobyteVolumeSource',
    fields: [
      { json: 'registry', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'volume', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 3, type: 'bool' },
      { json: 'user', number: 4, type: 'string' },
      { json: 'group', number: 5, type: 'string' },
      { json: 'tenant', number: 6, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.RBDVolumeSource',
    fields: [
      {
        json: 'monitors',
        number: 1,
        type: 'string',
        repeated: true,
        keepZero: true,
        required: true,
      },
      { json: 'image', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 3, type: 'string' },
      { json: 'pool', number: 4, type: 'string' },
      { json: 'user', number: 5, type: 'string' },
      { json: 'keyring', number: 6, type: 'string' },
      {
        json: 'secretRef',
        number: 7,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
      { json: 'readOnly', number: 8, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceClaim',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'request', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceFieldSelector',
    fields: [
      { json: 'containerName', number: 1, type: 'string' },
      { json: 'resource', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'divisor', number: 3, type: 'quantity' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceHealth',
    fields: [
      { json: 'resourceID', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'health', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceQuotaSpec',
    fields: [
      { json: 'hard', number: 1, type: { map: 'quantity' } },
      { json: 'scopes', number: 2, type: 'string', repeated: true },
      { json: 'scopeSelector', number: 3, type: { message: 'io.k8s.api.core.v1.ScopeSelector' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceQuotaStatus',
    fields: [
      { json: 'hard', number: 1, type: { map: 'quantity' } },
      { json: 'used', number: 2, type: { map: 'quantity' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceRequirements',
    fields: [
      { json: 'limits', number: 1, type: { map: 'quantity' } },
      { json: 'requests', number: 2, type: { map: 'quantity' } },
      {
        json: 'claims',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.ResourceClaim' },
        repeated: true,
        listType: 'map',
        listMapKeys: ['name'],
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ResourceStatus',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      {
        json: 'resources',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.ResourceHealth' },
        repeated: true,
        listType: 'map',
        listMapKeys: ['resourceID'],
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SELinuxOptions',
    fields: [
      { json: 'user', number: 1, type: 'string' },
      { json: 'role', number: 2, type: 'string' },
      { json: 'type', number: 3, type: 'string' },
      { json: 'level', number: 4, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ScaleIOVolumeSource',
    fields: [
      { json: 'gateway', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'system', number: 2, type: 'string', keepZero: true, required: true },
      {
        json: 'secretRef',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        required: true,
      },
      { json: 'sslEnabled', number: 4, type: 'bool' },
      { json: 'protectionDomain', number: 5, type: 'string' },
      { json: 'storagePool', number: 6, type: 'string' },
      { json: 'storageMode', number: 7, type: 'string' },
      { json: 'volumeName', number: 8, type: 'string' },
      { json: 'fsType', number: 9, type: 'string' },
      { json: 'readOnly', number: 10, type: 'bool' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ScopeSelector',
    fields: [
      {
        json: 'matchExpressions',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.ScopedResourceSelectorRequirement' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ScopedResourceSelectorRequirement',
    fields: [
      { json: 'scopeName', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'operator', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'values', number: 3, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SeccompProfile',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'localhostProfile', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SecretEnvSource',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      { json: 'optional', number: 2, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SecretKeySelector',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      { json: 'key', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'optional', number: 3, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SecretProjection',
    fields: [
      {
        json: '',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
        inline: true,
      },
      {
        json: 'items',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.KeyToPath' },
        repeated: true,
      },
      { json: 'optional', number: 4, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SecretVolumeSource',
    fields: [
      { json: 'secretName', number: 1, type: 'string' },
      {
        json: 'items',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.KeyToPath' },
        repeated: true,
      },
      { json: 'defaultMode', number: 3, type: 'int32', keepZero: true },
      { json: 'optional', number: 4, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SecurityContext',
    fields: [
      { json: 'capabilities', number: 1, type: { message: 'io.k8s.api.core.v1.Capabilities' } },
      { json: 'privileged', number: 2, type: 'bool', keepZero: true },
      { json: 'seLinuxOptions', number: 3, type: { message: 'io.k8s.api.core.v1.SELinuxOptions' } },
      { json: 'runAsUser', number: 4, type: 'int64', keepZero: true },
      { json: 'runAsNonRoot', number: 5, type: 'bool', keepZero: true },
      { json: 'readOnlyRootFilesystem', number: 6, type: 'bool', keepZero: true },
      { json: 'allowPrivilegeEscalation', number: 7, type: 'bool', keepZero: true },
      { json: 'runAsGroup', number: 8, type: 'int64', keepZero: true },
      { json: 'procMount', number: 9, type: 'string', keepZero: true },
      {
        json: 'windowsOptions',
        number: 10,
        type: { message: 'io.k8s.api.core.v1.WindowsSecurityContextOptions' },
      },
      {
        json: 'seccompProfile',
        number: 11,
        type: { message: 'io.k8s.api.core.v1.SeccompProfile' },
      },
      {
        json: 'appArmorProfile',
        number: 12,
        type: { message: 'io.k8s.api.core.v1.AppArmorProfile' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ServiceAccountTokenProjection',
    fields: [
      { json: 'audience', number: 1, type: 'string' },
      { json: 'expirationSeconds', number: 2, type: 'int64', keepZero: true },
      { json: 'path', number: 3, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ServicePort',
    fields: [
      { json: 'name', number: 1, type: 'string' },
      { json: 'protocol', number: 2, type: 'string', enum: ['SCTP', 'TCP', 'UDP'] },
      { json: 'port', number: 3, type: 'int32', keepZero: true, required: true },
      { json: 'targetPort', number: 4, type: 'intOrString' },
      { json: 'nodePort', number: 5, type: 'int32' },
      { json: 'appProtocol', number: 6, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ServiceSpec',
    fields: [
      {
        json: 'ports',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.ServicePort' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'port',
        listType: 'map',
        listMapKeys: ['port', 'protocol'],
      },
      { json: 'selector', number: 2, type: { map: 'string' } },
      { json: 'clusterIP', number: 3, type: 'string' },
      {
        json: 'type',
        number: 4,
        type: 'string',
        enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'],
      },
      { json: 'externalIPs', number: 5, type: 'string', repeated: true },
      { json: 'sessionAffinity', number: 7, type: 'string', enum: ['ClientIP', 'None'] },
      { json: 'loadBalancerIP', number: 8, type: 'string' },
      { json: 'loadBalancerSourceRanges', number: 9, type: 'string', repeated: true },
      { json: 'externalName', number: 10, type: 'string' },
      { json: 'externalTrafficPolicy', number: 11, type: 'string', enum: ['Cluster', 'Local'] },
      { json: 'healthCheckNodePort', number: 12, type: 'int32' },
      { json: 'publishNotReadyAddresses', number: 13, type: 'bool' },
      {
        json: 'sessionAffinityConfig',
        number: 14,
        type: { message: 'io.k8s.api.core.v1.SessionAffinityConfig' },
      },
      {
        json: 'ipFamilyPolicy',
        number: 17,
        type: 'string',
        keepZero: true,
        enum: ['PreferDualStack', 'RequireDualStack', 'SingleStack'],
      },
      { json: 'clusterIPs', number: 18, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'ipFamilies', number: 19, type: 'string', repeated: true, listType: 'atomic' },
      { json: 'allocateLoadBalancerNodePorts', number: 20, type: 'bool', keepZero: true },
      { json: 'loadBalancerClass', number: 21, type: 'string', keepZero: true },
      {
        json: 'internalTrafficPolicy',
        number: 22,
        type: 'string',
        keepZero: true,
        enum: ['Cluster', 'Local'],
      },
      { json: 'trafficDistribution', number: 23, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ServiceStatus',
    fields: [
      {
        json: 'loadBalancer',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.LoadBalancerStatus' },
      },
      {
        json: 'conditions',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.Condition' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
        listType: 'map',
        listMapKeys: ['type'],
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SessionAffinityConfig',
    fields: [
      { json: 'clientIP', number: 1, type: { message: 'io.k8s.api.core.v1.ClientIPConfig' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.SleepAction',
    fields: [{ json: 'seconds', number: 1, type: 'int64', keepZero: true, required: true }],
  },
  {
    name: 'io.k8s.api.core.v1.StorageOSVolumeSource',
    fields: [
      { json: 'volumeName', number: 1, type: 'string' },
      { json: 'volumeNamespace', number: 2, type: 'string' },
      { json: 'fsType', number: 3, type: 'string' },
      { json: 'readOnly', number: 4, type: 'bool' },
      {
        json: 'secretRef',
        number: 5,
        type: { message: 'io.k8s.api.core.v1.LocalObjectReference' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Sysctl',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'value', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.TCPSocketAction',
    fields: [
      { json: 'port', number: 1, type: 'intOrString', keepZero: true, required: true },
      { json: 'host', number: 2, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Toleration',
    fields: [
      { json: 'key', number: 1, type: 'string' },
      { json: 'operator', number: 2, type: 'string', enum: ['Equal', 'Exists'] },
      { json: 'value', number: 3, type: 'string' },
      {
        json: 'effect',
        number: 4,
        type: 'string',
        enum: ['NoExecute', 'NoSchedule', 'PreferNoSchedule'],
      },
      { json: 'tolerationSeconds', number: 5, type: 'int64', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.TopologySpreadConstraint',
    fields: [
      { json: 'maxSkew', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'topologyKey', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'whenUnsatisfiable', number: 3, type: 'string', keepZero: true, required: true },
      {
        json: 'labelSelector',
        number: 4,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      },
      { json: 'minDomains', number: 5, type: 'int32', keepZero: true },
      { json: 'nodeAffinityPolicy', number: 6, type: 'string', keepZero: true },
      { json: 'nodeTaintsPolicy', number: 7, type: 'string', keepZero: true },
      { json: 'matchLabelKeys', number: 8, type: 'string', repeated: true, listType: 'atomic' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.TypedLocalObjectReference',
    fields: [
      { json: 'apiGroup', number: 1, type: 'string', keepZero: true },
      { json: 'kind', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'name', number: 3, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.TypedObjectReference',
    fields: [
      { json: 'apiGroup', number: 1, type: 'string', keepZero: true },
      { json: 'kind', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'name', number: 3, type: 'string', keepZero: true, required: true },
      { json: 'namespace', number: 4, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.Volume',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: '', number: 2, type: { message: 'io.k8s.api.core.v1.VolumeSource' }, inline: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VolumeDevice',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'devicePath', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VolumeMount',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 2, type: 'bool' },
      { json: 'mountPath', number: 3, type: 'string', keepZero: true, required: true },
      { json: 'subPath', number: 4, type: 'string' },
      { json: 'mountPropagation', number: 5, type: 'string', keepZero: true },
      { json: 'subPathExpr', number: 6, type: 'string' },
      { json: 'recursiveReadOnly', number: 7, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VolumeMountStatus',
    fields: [
      { json: 'name', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'mountPath', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'readOnly', number: 3, type: 'bool' },
      { json: 'recursiveReadOnly', number: 4, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VolumeProjection',
    fields: [
      { json: 'secret', number: 1, type: { message: 'io.k8s.api.core.v1.SecretProjection' } },
      {
        json: 'downwardAPI',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.DownwardAPIProjection' },
      },
      { json: 'configMap', number: 3, type: { message: 'io.k8s.api.core.v1.ConfigMapProjection' } },
      {
        json: 'serviceAccountToken',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.ServiceAccountTokenProjection' },
      },
      {
        json: 'clusterTrustBundle',
        number: 5,
        type: { message: 'io.k8s.api.core.v1.ClusterTrustBundleProjection' },
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VolumeResourceRequirements',
    fields: [
      { json: 'limits', number: 1, type: { map: 'quantity' } },
      { json: 'requests', number: 2, type: { map: 'quantity' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VolumeSource',
    fields: [
      { json: 'hostPath', number: 1, type: { message: 'io.k8s.api.core.v1.HostPathVolumeSource' } },
      { json: 'emptyDir', number: 2, type: { message: 'io.k8s.api.core.v1.EmptyDirVolumeSource' } },
      {
        json: 'gcePersistentDisk',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.GCEPersistentDiskVolumeSource' },
      },
      {
        json: 'awsElasticBlockStore',
        number: 4,
        type: { message: 'io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource' },
      },
      { json: 'gitRepo', number: 5, type: { message: 'io.k8s.api.core.v1.GitRepoVolumeSource' } },
      { json: 'secret', number: 6, type: { message: 'io.k8s.api.core.v1.SecretVolumeSource' } },
      { json: 'nfs', number: 7, type: { message: 'io.k8s.api.core.v1.NFSVolumeSource' } },
      { json: 'iscsi', number: 8, type: { message: 'io.k8s.api.core.v1.ISCSIVolumeSource' } },
      {
        json: 'glusterfs',
        number: 9,
        type: { message: 'io.k8s.api.core.v1.GlusterfsVolumeSource' },
      },
      {
        json: 'persistentVolumeClaim',
        number: 10,
        type: { message: 'io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource' },
      },
      { json: 'rbd', number: 11, type: { message: 'io.k8s.api.core.v1.RBDVolumeSource' } },
      { json: 'flexVolume', number: 12, type: { message: 'io.k8s.api.core.v1.FlexVolumeSource' } },
      { json: 'cinder', number: 13, type: { message: 'io.k8s.api.core.v1.CinderVolumeSource' } },
      { json: 'cephfs', number: 14, type: { message: 'io.k8s.api.core.v1.CephFSVolumeSource' } },
      { json: 'flocker', number: 15, type: { message: 'io.k8s.api.core.v1.FlockerVolumeSource' } },
      {
        json: 'downwardAPI',
        number: 16,
        type: { message: 'io.k8s.api.core.v1.DownwardAPIVolumeSource' },
      },
      { json: 'fc', number: 17, type: { message: 'io.k8s.api.core.v1.FCVolumeSource' } },
      {
        json: 'azureFile',
        number: 18,
        type: { message: 'io.k8s.api.core.v1.AzureFileVolumeSource' },
      },
      {
        json: 'configMap',
        number: 19,
        type: { message: 'io.k8s.api.core.v1.ConfigMapVolumeSource' },
      },
      {
        json: 'vsphereVolume',
        number: 20,
        type: { message: 'io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource' },
      },
      { json: 'quobyte', number: 21, type: { message: 'io.k8s.api.core.v1.QuobyteVolumeSource' } },
      {
        json: 'azureDisk',
        number: 22,
        type: { message: 'io.k8s.api.core.v1.AzureDiskVolumeSource' },
      },
      {
        json: 'photonPersistentDisk',
        number: 23,
        type: { message: 'io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource' },
      },
      {
        json: 'portworxVolume',
        number: 24,
        type: { message: 'io.k8s.api.core.v1.PortworxVolumeSource' },
      },
      { json: 'scaleIO', number: 25, type: { message: 'io.k8s.api.core.v1.ScaleIOVolumeSource' } },
      {
        json: 'projected',
        number: 26,
        type: { message: 'io.k8s.api.core.v1.ProjectedVolumeSource' },
      },
      {
        json: 'storageos',
        number: 27,
        type: { message: 'io.k8s.api.core.v1.StorageOSVolumeSource' },
      },
      { json: 'csi', number: 28, type: { message: 'io.k8s.api.core.v1.CSIVolumeSource' } },
      {
        json: 'ephemeral',
        number: 29,
        type: { message: 'io.k8s.api.core.v1.EphemeralVolumeSource' },
      },
      { json: 'image', number: 30, type: { message: 'io.k8s.api.core.v1.ImageVolumeSource' } },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource',
    fields: [
      { json: 'volumePath', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'fsType', number: 2, type: 'string' },
      { json: 'storagePolicyName', number: 3, type: 'string' },
      { json: 'storagePolicyID', number: 4, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.WeightedPodAffinityTerm',
    fields: [
      { json: 'weight', number: 1, type: 'int32', keepZero: true, required: true },
      {
        json: 'podAffinityTerm',
        number: 2,
        type: { message: 'io.k8s.api.core.v1.PodAffinityTerm' },
        required: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.WindowsSecurityContextOptions',
    fields: [
      { json: 'gmsaCredentialSpecName', number: 1, type: 'string', keepZero: true },
      { json: 'gmsaCredentialSpec', number: 2, type: 'string', keepZero: true },
      { json: 'runAsUserName', number: 3, type: 'string', keepZero: true },
      { json: 'hostProcess', number: 4, type: 'bool', keepZero: true },
    ],
  },
];
