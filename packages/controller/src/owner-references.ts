// Controller owner references: set, read and test the one ownerReference with `controller: true`. Ports
// controller-runtime pkg/controller/controllerutil (SetControllerReference) and apimachinery's GetControllerOf
// and IsControlledBy.
import { groupOfApiVersion, type KubeObjectLike } from '@lasso/client';
import { LassoError } from '@lasso/core';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';

/** Options of {@link setControllerReference}. */
export interface ControllerReferenceOptions {
  /**
   * Value of `blockOwnerDeletion` (default `true`, as controller-runtime): a foreground deletion of the owner
   * waits for this object. Setting it to `true` needs the `update` permission on the owner's `finalizers`
   * subresource when the OwnerReferencesPermissionEnforcement admission plugin is on.
   */
  blockOwnerDeletion?: boolean | undefined;
}

/**
 * Thrown by {@link setControllerReference} when the object already has a controller reference to another
 * owner (another group, kind or name): an object has at most one controller. `existing` is that reference.
 */
export class AlreadyOwnedError extends LassoError {
  /** The controller reference the object already carries. */
  readonly existing: OwnerReference;
  /** `namespace/name` (or `name`) of the object that is already owned. */
  readonly object: string;

  constructor(object: string, existing: OwnerReference, wanted: OwnerReference) {
    super(
      'LASSO_ALREADY_OWNED',
      `${object} is already controlled by ${describeReference(existing)}, cannot set controller ${describeReference(wanted)}`,
    );
    this.existing = existing;
    this.object = object;
  }
}

function describeReference(reference: OwnerReference): string {
  const group = groupOf(reference.apiVersion);
  return `${reference.kind}${group === '' ? '' : `.${group}`} ${reference.name} (uid ${reference.uid})`;
}

/** @internal The API group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> `''`): the client's one parser. */
export const groupOf: (apiVersion: string) => string = groupOfApiVersion;

function keyOf(object: KubeObjectLike): string {
  const name = object.metadata?.name ?? object.metadata?.generateName ?? '<unnamed>';
  const namespace = object.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

function describeObject(object: KubeObjectLike): string {
  return `${object.kind ?? 'object'} ${keyOf(object)}`;
}

// controller-runtime's referSameObject: group, kind and name identify an owner; the version and the uid do
// not, so a new uid (the owner was deleted and recreated) replaces the entry instead of adding a second one.
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

/** @internal Who asks (`createOrUpdate`) and what it calls the owner (`options.owner`), for error messages. */
export interface OwnerCaller {
  readonly caller: string;
  readonly owner: string;
}

const direct: OwnerCaller = { caller: 'setControllerReference', owner: 'owner' };

function requireString(value: unknown, field: string, from: OwnerCaller): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${from.caller}: ${from.owner}.${field} must be a non-empty string`);
  }
  return value;
}

/**
 * The owner reference `setControllerReference` would write for `owner`: `controller: true` and
 * `blockOwnerDeletion: true` unless told otherwise.
 *
 * @throws TypeError when the owner lacks `apiVersion`, `kind`, `metadata.name` or `metadata.uid`.
 */
function controllerReferenceTo(
  owner: KubeObjectLike,
  options: ControllerReferenceOptions,
  from: OwnerCaller,
): OwnerReference {
  if (typeof owner !== 'object' || owner === null) {
    throw new TypeError(`${from.caller}: ${from.owner} must be an object`);
  }
  const blockOwnerDeletion = options.blockOwnerDeletion ?? true;
  if (typeof blockOwnerDeletion !== 'boolean') {
    throw new TypeError(`${from.caller}: options.blockOwnerDeletion must be a boolean`);
  }
  return {
    apiVersion: requireString(owner.apiVersion, 'apiVersion', from),
    kind: requireString(owner.kind, 'kind', from),
    name: requireString(owner.metadata?.name, 'metadata.name', from),
    uid: requireString(owner.metadata?.uid, 'metadata.uid', from),
    controller: true,
    blockOwnerDeletion,
  };
}

/**
 * Make `owner` the controller of `object` (controller-runtime's `controllerutil.SetControllerReference`) and
 * return the result. The garbage collector then deletes `object` when `owner` is deleted, and a handler built
 * with `enqueueOwnerHandler` maps changes of `object` to the owner's key.
 *
 * - Setting the same owner again (same group, kind and name) is idempotent: the entry is replaced in place,
 *   taking the owner's current `apiVersion` and `uid`.
 * - Other owner references (non-controller ones) are kept.
 * - A cluster-scoped owner may own a namespaced object; a namespaced owner may own only objects in its own
 *   namespace (kube's garbage collector would treat any other reference as dangling).
 *
 * **Gotchas**: unlike controller-runtime, `object` is not modified: the result is a copy with a new
 * `metadata` and `ownerReferences` array (the rest is shared), so objects read from an informer's cache stay
 * untouched. Write the result back (create or update) for it to take effect. With `createOrUpdate` or
 * `applyObject`, do not call this: pass the owner as their `owner` option, which sets the reference on the
 * object they write.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * declare const app: KubeObject; // the owner, as read from the server (it has a uid)
 * declare const configMaps: Client<ConfigMap>;
 * const configMap = setControllerReference<ConfigMap>(app, {
 *   apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-settings', namespace: 'default' },
 * });
 * await configMaps.create('default', configMap, { signal });
 * ```
 *
 * @throws TypeError when `owner` lacks `apiVersion`, `kind`, `metadata.name` or `metadata.uid`.
 * @throws RangeError when a namespaced owner would own a cluster-scoped object or one in another namespace.
 * @throws AlreadyOwnedError when `object` is already controlled by another owner.
 */
export function setControllerReference<T extends KubeObjectLike>(
  owner: KubeObjectLike,
  object: T,
  options: ControllerReferenceOptions = {},
): T {
  return withControllerReference(owner, object, options, direct);
}

/** @internal {@link setControllerReference}, its errors naming `from`. */
export function withControllerReference<T extends KubeObjectLike>(
  owner: KubeObjectLike,
  object: T,
  options: ControllerReferenceOptions,
  from: OwnerCaller,
): T {
  const reference = controllerReferenceTo(owner, options ?? {}, from);
  if (typeof object !== 'object' || object === null) {
    throw new TypeError(`${from.caller}: object must be an object`);
  }
  const existing = getControllerOf(object);
  if (existing !== undefined && !sameOwner(existing, reference)) {
    throw new AlreadyOwnedError(keyOf(object), existing, reference);
  }
  const ownerNamespace = owner.metadata?.namespace ?? '';
  const objectNamespace = object.metadata?.namespace ?? '';
  if (ownerNamespace !== '') {
    if (objectNamespace === '') {
      throw new RangeError(
        `${from.caller}: cluster-scoped ${describeObject(object)} cannot have an owner in namespace ${ownerNamespace}`,
      );
    }
    if (objectNamespace !== ownerNamespace) {
      throw new RangeError(
        `${from.caller}: cross-namespace owner references are not allowed: owner in ${ownerNamespace}, ${describeObject(object)}`,
      );
    }
  }
  const references = [...(object.metadata?.ownerReferences ?? [])];
  const index = references.findIndex((candidate) => sameOwner(candidate, reference));
  if (index === -1) references.push(reference);
  else references[index] = reference;
  return { ...object, metadata: { ...object.metadata, ownerReferences: references } };
}

/**
 * The controller reference of `object` (the first owner reference with `controller: true`), or `undefined`.
 * The returned reference is the object's own entry: do not modify it.
 */
export function getControllerOf(object: KubeObjectLike): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((reference) => reference.controller === true);
}

/**
 * True when `object`'s controller reference points at `owner`, by uid (apimachinery's `IsControlledBy`):
 * an owner deleted and recreated under the same name is a different owner.
 */
export function isControlledBy(object: KubeObjectLike, owner: KubeObjectLike): boolean {
  const uid = owner.metadata?.uid;
  if (uid === undefined || uid === '') return false;
  return getControllerOf(object)?.uid === uid;
}
