// Built-in type definitions of batch/v1 (k8s.io/api): Job and CronJob.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The batch-v1 types, top-level kinds first. */
export const batchV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.batch.v1.CronJob',
    description: 'Jobs created on a schedule.',
    gvk: { group: 'batch', version: 'v1', kind: 'CronJob' },
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
        type: { message: 'io.k8s.api.batch.v1.CronJobSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.batch.v1.CronJobStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.Job',
    description: 'Pods that run to completion.',
    gvk: { group: 'batch', version: 'v1', kind: 'Job' },
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
        type: { message: 'io.k8s.api.batch.v1.JobSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.batch.v1.JobStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.CronJobSpec',
    fields: [
      {
        json: 'schedule',
        number: 1,
        type: 'string',
        description: 'Cron schedule of job creation.',
        keepZero: true,
        required: true,
      },
      {
        json: 'startingDeadlineSeconds',
        number: 2,
        type: 'int64',
        description: 'Seconds a missed run may still start late.',
        keepZero: true,
      },
      {
        json: 'concurrencyPolicy',
        number: 3,
        type: 'string',
        description: 'What happens when a run is due while another is active.',
        enum: ['Allow', 'Forbid', 'Replace'],
      },
      {
        json: 'suspend',
        number: 4,
        type: 'bool',
        description: 'Skip scheduled runs while true.',
        keepZero: true,
      },
      {
        json: 'jobTemplate',
        number: 5,
        type: { message: 'io.k8s.api.batch.v1.JobTemplateSpec' },
        description: 'The job created at each scheduled time.',
        required: true,
      },
      {
        json: 'successfulJobsHistoryLimit',
        number: 6,
        type: 'int32',
        description: 'Finished successful jobs kept.',
        keepZero: true,
      },
      {
        json: 'failedJobsHistoryLimit',
        number: 7,
        type: 'int32',
        description: 'Failed jobs kept.',
        keepZero: true,
      },
      {
        json: 'timeZone',
        number: 8,
        type: 'string',
        description: 'Time zone of the schedule.',
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.CronJobStatus',
    fields: [
      {
        json: 'active',
        number: 1,
        type: { message: 'io.k8s.api.core.v1.ObjectReference' },
        repeated: true,
      },
      { json: 'lastScheduleTime', number: 4, type: 'time', keepZero: true },
      { json: 'lastSuccessfulTime', number: 5, type: 'time' },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.JobCondition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'lastProbeTime', number: 3, type: 'time' },
      {
        json: 'lastTransitionTime',
        number: 4,
        type: 'time',
        description: 'When the condition last changed status.',
      },
      {
        json: 'reason',
        number: 5,
        type: 'string',
        description: 'A CamelCase word saying why the condition holds.',
      },
      { json: 'message', number: 6, type: 'string', description: 'A human-readable explanation.' },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.JobSpec',
    fields: [
      {
        json: 'parallelism',
        number: 1,
        type: 'int32',
        description: 'Pods running at once.',
        keepZero: true,
      },
      {
        json: 'completions',
        number: 2,
        type: 'int32',
        description: 'Successful pods needed to finish.',
        keepZero: true,
      },
      {
        json: 'activeDeadlineSeconds',
        number: 3,
        type: 'int64',
        description: 'Seconds the job may run before it fails.',
        keepZero: true,
      },
      {
        json: 'selector',
        number: 4,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
        description: 'Label query selecting the objects this one manages or targets.',
      },
      { json: 'manualSelector', number: 5, type: 'bool', keepZero: true },
      {
        json: 'template',
        number: 6,
        type: { message: 'io.k8s.api.core.v1.PodTemplateSpec' },
        description: 'The pod template new pods are created from.',
        required: true,
      },
      {
        json: 'backoffLimit',
        number: 7,
        type: 'int32',
        description: 'Retries before the job fails.',
        keepZero: true,
      },
      {
        json: 'ttlSecondsAfterFinished',
        number: 8,
        type: 'int32',
        description: 'Seconds after finishing before the job is deleted.',
        keepZero: true,
      },
      {
        json: 'completionMode',
        number: 9,
        type: 'string',
        keepZero: true,
        enum: ['Indexed', 'NonIndexed'],
      },
      {
        json: 'suspend',
        number: 10,
        type: 'bool',
        description: 'Stop creating pods while true.',
        keepZero: true,
      },
      {
        json: 'podFailurePolicy',
        number: 11,
        type: { message: 'io.k8s.api.batch.v1.PodFailurePolicy' },
      },
      { json: 'backoffLimitPerIndex', number: 12, type: 'int32', keepZero: true },
      { json: 'maxFailedIndexes', number: 13, type: 'int32', keepZero: true },
      {
        json: 'podReplacementPolicy',
        number: 14,
        type: 'string',
        keepZero: true,
        enum: ['Failed', 'TerminatingOrFailed'],
      },
      { json: 'managedBy', number: 15, type: 'string', keepZero: true },
      { json: 'successPolicy', number: 16, type: { message: 'io.k8s.api.batch.v1.SuccessPolicy' } },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.JobStatus',
    fields: [
      {
        json: 'conditions',
        number: 1,
        type: { message: 'io.k8s.api.batch.v1.JobCondition' },
        description: 'The latest observations of the state, one entry per condition type.',
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      { json: 'startTime', number: 2, type: 'time', keepZero: true },
      { json: 'completionTime', number: 3, type: 'time', keepZero: true },
      { json: 'active', number: 4, type: 'int32' },
      { json: 'succeeded', number: 5, type: 'int32' },
      { json: 'failed', number: 6, type: 'int32' },
      { json: 'completedIndexes', number: 7, type: 'string' },
      {
        json: 'uncountedTerminatedPods',
        number: 8,
        type: { message: 'io.k8s.api.batch.v1.UncountedTerminatedPods' },
      },
      { json: 'ready', number: 9, type: 'int32', keepZero: true },
      { json: 'failedIndexes', number: 10, type: 'string', keepZero: true },
      { json: 'terminating', number: 11, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.JobTemplateSpec',
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
        type: { message: 'io.k8s.api.batch.v1.JobSpec' },
        description: 'The desired state.',
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.PodFailurePolicy',
    fields: [
      {
        json: 'rules',
        number: 1,
        type: { message: 'io.k8s.api.batch.v1.PodFailurePolicyRule' },
        repeated: true,
        required: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement',
    fields: [
      { json: 'containerName', number: 1, type: 'string', keepZero: true },
      { json: 'operator', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'values', number: 3, type: 'int32', repeated: true, required: true, listType: 'set' },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.PodFailurePolicyRule',
    fields: [
      { json: 'action', number: 1, type: 'string', keepZero: true, required: true },
      {
        json: 'onExitCodes',
        number: 2,
        type: { message: 'io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement' },
      },
      {
        json: 'onPodConditions',
        number: 3,
        type: { message: 'io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.SuccessPolicy',
    fields: [
      {
        json: 'rules',
        number: 1,
        type: { message: 'io.k8s.api.batch.v1.SuccessPolicyRule' },
        repeated: true,
        required: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.SuccessPolicyRule',
    fields: [
      { json: 'succeededIndexes', number: 1, type: 'string', keepZero: true },
      { json: 'succeededCount', number: 2, type: 'int32', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.batch.v1.UncountedTerminatedPods',
    fields: [
      { json: 'succeeded', number: 1, type: 'string', repeated: true, listType: 'set' },
      { json: 'failed', number: 2, type: 'string', repeated: true, listType: 'set' },
    ],
  },
];
