// Built-in type definitions of meta/v1 (k8s.io/apimachinery): object metadata, selectors, delete options and Status.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The meta-v1 types, top-level kinds first. */
export const metaV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    description: 'Options of a delete call: grace period, preconditions, propagation.',
    gvk: { group: '', version: 'v1', kind: 'DeleteOptions' },
    fields: [
      { json: 'gracePeriodSeconds', number: 1, type: 'int64', keepZero: true },
      {
        json: 'preconditions',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions' },
      },
      { json: 'orphanDependents', number: 3, type: 'bool', keepZero: true },
      { json: 'propagationPolicy', number: 4, type: 'string', keepZero: true },
      { json: 'dryRun', number: 5, type: 'string', repeated: true },
      {
        json: 'ignoreStoreReadErrorWithClusterBreakingPotential',
        number: 6,
        type: 'bool',
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    description: 'The result of a call that does not return an object, usually an error.',
    gvk: { group: '', version: 'v1', kind: 'Status' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
      },
      { json: 'status', number: 2, type: 'string' },
      { json: 'message', number: 3, type: 'string' },
      { json: 'reason', number: 4, type: 'string' },
      {
        json: 'details',
        number: 5,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails' },
      },
      { json: 'code', number: 6, type: 'int32' },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.Condition',
    fields: [
      { json: 'type', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'status', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'observedGeneration', number: 3, type: 'int64' },
      { json: 'lastTransitionTime', number: 4, type: 'time', keepZero: true, required: true },
      { json: 'reason', number: 5, type: 'string', keepZero: true, required: true },
      { json: 'message', number: 6, type: 'string', keepZero: true, required: true },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector',
    fields: [
      { json: 'matchLabels', number: 1, type: { map: 'string' } },
      {
        json: 'matchExpressions',
        number: 2,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement',
    fields: [
      {
        json: 'key',
        number: 1,
        type: 'string',
        keepZero: true,
        required: true,
        patchStrategy: 'merge',
        patchMergeKey: 'key',
      },
      { json: 'operator', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'values', number: 3, type: 'string', repeated: true },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
    fields: [
      { json: 'selfLink', number: 1, type: 'string' },
      { json: 'resourceVersion', number: 2, type: 'string' },
      { json: 'continue', number: 3, type: 'string' },
      { json: 'remainingItemCount', number: 4, type: 'int64', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry',
    fields: [
      { json: 'manager', number: 1, type: 'string' },
      { json: 'operation', number: 2, type: 'string' },
      { json: 'apiVersion', number: 3, type: 'string' },
      { json: 'time', number: 4, type: 'time', keepZero: true },
      { json: 'fieldsType', number: 6, type: 'string' },
      { json: 'fieldsV1', number: 7, type: 'rawExtension', keepZero: true },
      { json: 'subresource', number: 8, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    fields: [
      { json: 'name', number: 1, type: 'string' },
      { json: 'generateName', number: 2, type: 'string' },
      { json: 'namespace', number: 3, type: 'string' },
      { json: 'selfLink', number: 4, type: 'string' },
      { json: 'uid', number: 5, type: 'string' },
      { json: 'resourceVersion', number: 6, type: 'string' },
      { json: 'generation', number: 7, type: 'int64' },
      { json: 'creationTimestamp', number: 8, type: 'time' },
      { json: 'deletionTimestamp', number: 9, type: 'time', keepZero: true },
      { json: 'deletionGracePeriodSeconds', number: 10, type: 'int64', keepZero: true },
      { json: 'labels', number: 11, type: { map: 'string' } },
      { json: 'annotations', number: 12, type: { map: 'string' } },
      {
        json: 'ownerReferences',
        number: 13,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference' },
        repeated: true,
        patchStrategy: 'merge',
        patchMergeKey: 'uid',
      },
      { json: 'finalizers', number: 14, type: 'string', repeated: true, patchStrategy: 'merge' },
      {
        json: 'managedFields',
        number: 17,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry' },
        repeated: true,
      },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
    fields: [
      { json: 'kind', number: 1, type: 'string', keepZero: true, required: true },
      { json: 'name', number: 3, type: 'string', keepZero: true, required: true },
      { json: 'uid', number: 4, type: 'string', keepZero: true, required: true },
      { json: 'apiVersion', number: 5, type: 'string', keepZero: true, required: true },
      { json: 'controller', number: 6, type: 'bool', keepZero: true },
      { json: 'blockOwnerDeletion', number: 7, type: 'bool', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions',
    fields: [
      { json: 'uid', number: 1, type: 'string', keepZero: true },
      { json: 'resourceVersion', number: 2, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause',
    fields: [
      { json: 'reason', number: 1, type: 'string' },
      { json: 'message', number: 2, type: 'string' },
      { json: 'field', number: 3, type: 'string' },
    ],
  },
  {
    name: 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails',
    fields: [
      { json: 'name', number: 1, type: 'string' },
      { json: 'group', number: 2, type: 'string' },
      { json: 'kind', number: 3, type: 'string' },
      {
        json: 'causes',
        number: 4,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause' },
        repeated: true,
      },
      { json: 'retryAfterSeconds', number: 5, type: 'int32' },
      { json: 'uid', number: 6, type: 'string' },
    ],
  },
];
