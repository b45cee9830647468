// Server-side apply of an object a controller owns the fields of: controller-runtime's client.Apply with
// client.FieldOwner and client.ForceOwnership, with the metadata a server refuses in an apply body removed.
import type { Client, KubeObjectLike } from '@lasso/client';
import { type OwnerCaller, withControllerReference } from './owner-references.ts';

/** The call `applyObject` makes: a `Client<T>` fits, and so does a test fake. */
export type ApplyClient<T extends KubeObjectLike> = Pick<Client<T>, 'patch'>;

/** Options of {@link applyObject}. */
export interface ApplyObjectOptions {
  /** The field manager that owns the applied fields (required), e.g. `example.com/app-controller`. */
  fieldManager: string;
  /**
   * Take over fields another manager owns instead of failing with 409 Conflict (default true: a controller
   * is the authority on what it applies, as controller-runtime's `ForceOwnership`).
   */
  force?: boolean | undefined;
  /** Apply to the `status` subresource instead of the object. */
  subresource?: 'status' | undefined;
  /** Validate and answer without persisting (`dryRun=All`). */
  dryRun?: boolean | undefined;
  /** Passed to the request. */
  signal?: AbortSignal | undefined;
  /**
   * Make this object (as read from the server or a cache: it needs a `uid`) the controller of the applied one:
   * its controller owner reference is added to the body (as {@link setControllerReference} adds it), so this
   * manager owns that entry. An object already controlled by another owner in `object` fails with
   * `AlreadyOwnedError` (one controlled by another owner only on the server is the server's 422).
   */
  owner?: KubeObjectLike | undefined;
}

const ownerCaller: OwnerCaller = { caller: 'applyObject', owner: 'options.owner' };

// Metadata the server sets: an apply body must not carry managedFields (400), and a resourceVersion would
// turn the apply into a conditional write that fails as soon as the object changes.
const serverOwnedMetadata = [
  'managedFields',
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'selfLink',
] as const;

/**
 * Server-side apply `object` as `fieldManager` (PATCH `application/apply-patch+yaml`): the server merges the
 * fields it sets with everyone else's, records this manager as their owner, creates the object when it does
 * not exist, and removes fields this manager applied before and no longer sets.
 *
 * Send only the fields the controller decides (a fresh object, not one read back): every field sent is
 * claimed. `apiVersion`, `kind` and `metadata.name` are required. Server-set metadata (`managedFields`,
 * `resourceVersion`, `uid`, `generation`, `creationTimestamp`) is removed from the body, so an object read
 * from a cache can be applied as is, though it then claims every field it holds.
 *
 * **Gotchas**: `force` defaults to true, unlike `kubectl apply`: a controller takes its fields back from a
 * human edit. Lists are merged by their `x-kubernetes-list-map-keys`; a custom resource without them has
 * its lists replaced whole. Status needs `subresource: 'status'` (the object's status is ignored otherwise).
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * declare const configMaps: Client<ConfigMap>;
 * declare const app: KubeObject; // the owner, as read from the server (it has a uid)
 * const applied = await applyObject(
 *   configMaps,
 *   { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'settings' }, data: { color: 'blue' } },
 *   { fieldManager: 'example.com/settings-controller', signal, owner: app },
 * );
 * ```
 *
 * @throws TypeError when `fieldManager` is empty, `object` lacks apiVersion, kind or metadata.name, or
 *   `owner` lacks `apiVersion`, `kind`, `metadata.name` or `metadata.uid`.
 * @throws RangeError when a namespaced `owner` is in another namespace than `object`, or `object` is cluster-scoped.
 * @throws AlreadyOwnedError when `object` names another controller.
 */
export async function applyObject<T extends KubeObjectLike>(
  client: ApplyClient<T>,
  object: T,
  options: ApplyObjectOptions,
): Promise<T> {
  if (typeof client?.patch !== 'function') {
    throw new TypeError('applyObject: client must have patch');
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('applyObject: options must be an object with a fieldManager');
  }
  const { fieldManager, subresource } = options;
  if (typeof fieldManager !== 'string' || fieldManager === '') {
    throw new TypeError('applyObject: options.fieldManager must be a non-empty string');
  }
  if (subresource !== undefined && subresource !== 'status') {
    throw new TypeError(
      `applyObject: options.subresource must be 'status', got ${String(subresource)}`,
    );
  }
  if (options.force !== undefined && typeof options.force !== 'boolean') {
    throw new TypeError('applyObject: options.force must be a boolean');
  }
  const { apiVersion, kind } = object ?? {};
  const name = object?.metadata?.name;
  if (
    typeof apiVersion !== 'string' ||
    apiVersion === '' ||
    typeof kind !== 'string' ||
    kind === ''
  ) {
    throw new TypeError(
      'applyObject: object must have apiVersion and kind (apply bodies need both)',
    );
  }
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('applyObject: object.metadata.name must be a non-empty string');
  }
  const owned =
    options.owner === undefined
      ? object
      : withControllerReference(options.owner, object, {}, ownerCaller);
  const metadata: Record<string, unknown> = { ...owned.metadata };
  for (const field of serverOwnedMetadata) delete metadata[field];
  const body = { ...owned, metadata };
  const patchOptions = {
    fieldManager,
    force: options.force ?? true,
    dryRun: options.dryRun,
    signal: options.signal,
  };
  const namespace = object.metadata?.namespace;
  return subresource === undefined
    ? client.patch(namespace, name, 'apply', body, patchOptions)
    : client.patch(namespace, name, 'apply', body, patchOptions, subresource);
}
