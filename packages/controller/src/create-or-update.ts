// Create an object or bring it to the wanted state: controller-runtime's controllerutil.CreateOrUpdate, reading
// from a cache when one is given, with AlreadyExists (a stale cache, a racing writer) and Conflict handled.
import { isDeepStrictEqual } from 'node:util';
import { type Client, isAlreadyExists, isNotFound, type KubeObjectLike } from '@lasso/client';
import type { Clock } from '@lasso/core';
import { type OwnerCaller, withControllerReference } from './owner-references.ts';
import { type RetryBackoff, retryOnConflict } from './retry-on-conflict.ts';

/** The calls `createOrUpdate` makes: a `Client<T>` fits, and so does a test fake. */
export type CreateOrUpdateClient<T extends KubeObjectLike> = Pick<
  Client<T>,
  'get' | 'create' | 'update'
>;

/**
 * Where `createOrUpdate` reads the current object before asking the server: a shared controller's lister
 * (`{ get(namespace, name) }`) or a function. Objects it returns are never changed.
 */
export type CreateOrUpdateLister<T> =
  | { get(namespace: string | undefined, name: string): T | undefined }
  | ((namespace: string | undefined, name: string) => T | undefined);

/** What `createOrUpdate` did (controller-runtime's `OperationResult`). */
export type CreateOrUpdateOperation = 'created' | 'updated' | 'unchanged';

/** The outcome of {@link createOrUpdate}: what it did and the object as the server last returned it. */
export interface CreateOrUpdateResult<T> {
  readonly operation: CreateOrUpdateOperation;
  /** The created or updated object; the current one when unchanged. */
  readonly object: T;
}

/** Options of {@link createOrUpdate}. */
export interface CreateOrUpdateOptions<T> {
  /** Read the current object here first (a cache); the server is read only after a conflict or a miss. */
  lister?: CreateOrUpdateLister<T> | undefined;
  /** Passed to every client call; also stops the waits between conflict retries. */
  signal?: AbortSignal | undefined;
  /** `fieldManager` of the create and update. */
  fieldManager?: string | undefined;
  /** Attempts after a 409 Conflict (default `defaultRetry`: 5 attempts, 10 ms apart). */
  backoff?: RetryBackoff | undefined;
  /** Time source of the retry waits (default `systemClock`). */
  clock?: Clock | undefined;
  /**
   * Make this object (as read from the server or a cache: it needs a `uid`) the controller of the written
   * object: after `mutate`, its controller owner reference is set as {@link setControllerReference} sets it,
   * on the object that is written (create and update), so `mutate` need not touch `metadata.ownerReferences`.
   * An object controlled by another owner fails with `AlreadyOwnedError`; one that already has this reference
   * is `unchanged`.
   */
  owner?: KubeObjectLike | undefined;
}

/**
 * Change an object to `T`'s wanted state, in place; it receives the current object (a copy: never a cached
 * one) or, when none exists, a copy of `object`.
 */
export type MutateFunc<T> = (object: T) => void | Promise<void>;

const ownerCaller: OwnerCaller = { caller: 'createOrUpdate', owner: 'options.owner' };

function nameOf(object: KubeObjectLike): { namespace: string | undefined; name: string } {
  const name = object?.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('createOrUpdate: object.metadata.name must be a non-empty string');
  }
  return { namespace: object.metadata?.namespace, name };
}

function read<T>(lister: CreateOrUpdateLister<T>, namespace: string | undefined, name: string) {
  return typeof lister === 'function' ? lister(namespace, name) : lister.get(namespace, name);
}

/**
 * Create `object` when it does not exist, otherwise update the current object when `mutate` changed it
 * (controller-runtime's `CreateOrUpdate`). `mutate` is called on the object to write in every case (on a copy
 * of `object` before a create), so it is where the wanted state is set.
 *
 * - With a `lister` (a shared controller's cache) the current object is read from it: no GET in the common
 *   case. A cache miss followed by AlreadyExists (the cache was behind) reads the server and updates.
 * - An update carries the current `resourceVersion`: a 409 Conflict re-reads the server and runs `mutate`
 *   again, up to `backoff.steps` attempts (then the Conflict is thrown).
 * - An object `mutate` left equal to the current one is not written (`unchanged`).
 * - `options.signal` is passed to every client call.
 * - `options.owner` makes that object the controller of the written one (its `ownerReferences` entry is set
 *   after `mutate`): the one way to own what `createOrUpdate` writes, instead of calling
 *   `setControllerReference` inside `mutate`.
 *
 * **Gotchas**: `mutate` must not change the name or namespace (TypeError). It may run several times. Fields
 * the server defaults (and the cache holds) count: set whole values rather than rebuilding `spec` from
 * scratch, or every call is an update. For fields several writers own, prefer {@link applyObject}.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * declare const configMaps: Client<ConfigMap>;
 * declare const app: KubeObject; // the owner, as read from the server (it has a uid)
 * const { operation } = await createOrUpdate(
 *   configMaps,
 *   { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'settings' } },
 *   (configMap) => {
 *     configMap.data = { color: 'blue' };
 *   },
 *   { signal, owner: app },
 * );
 * logger.info('settings', { operation });
 * ```
 *
 * @throws TypeError when `object` has no name, `mutate` is not a function or changed the name or namespace,
 *   or `owner` lacks `apiVersion`, `kind`, `metadata.name` or `metadata.uid`.
 * @throws RangeError when a namespaced `owner` is in another namespace than `object`, or `object` is cluster-scoped.
 * @throws AlreadyOwnedError when the object is already controlled by another owner.
 */
export async function createOrUpdate<T extends KubeObjectLike>(
  client: CreateOrUpdateClient<T>,
  object: T,
  mutate: MutateFunc<T>,
  options: CreateOrUpdateOptions<T> = {},
): Promise<CreateOrUpdateResult<T>> {
  if (
    typeof client?.get !== 'function' ||
    typeof client.create !== 'function' ||
    typeof client.update !== 'function'
  ) {
    throw new TypeError('createOrUpdate: client must have get, create and update');
  }
  if (typeof mutate !== 'function') {
    throw new TypeError('createOrUpdate: mutate must be a function');
  }
  const { namespace, name } = nameOf(object);
  const { lister, signal, fieldManager, owner } = options;
  // A bad owner (no uid, another namespace) fails here, before any request.
  if (owner !== undefined) withControllerReference(owner, object, {}, ownerCaller);
  const writeOptions = fieldManager === undefined ? { signal } : { signal, fieldManager };

  const mutated = async (current: T): Promise<T> => {
    const next = structuredClone(current);
    await mutate(next);
    const after = nameOf(next);
    if (after.name !== name || (after.namespace ?? '') !== (namespace ?? '')) {
      throw new TypeError('createOrUpdate: mutate must not change the name or namespace');
    }
    return owner === undefined ? next : withControllerReference(owner, next, {}, ownerCaller);
  };

  const update = async (current: T): Promise<CreateOrUpdateResult<T>> => {
    const next = await mutated(current);
    if (isDeepStrictEqual(next, current)) return { operation: 'unchanged', object: current };
    return { operation: 'updated', object: await client.update(namespace, next, writeOptions) };
  };

  // First attempt: from the cache when there is one; a miss means "create".
  let current: T | undefined;
  if (lister !== undefined) {
    current = read(lister, namespace, name);
  } else {
    try {
      current = await client.get(namespace, name, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  let first = true;
  return retryOnConflict(
    async () => {
      if (!first) current = await client.get(namespace, name, { signal });
      first = false;
      if (current !== undefined) return update(current);
      const fresh = await mutated(object);
      try {
        return {
          operation: 'created',
          object: await client.create(namespace, fresh, writeOptions),
        };
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        // A stale cache or a racing writer: it exists after all.
        current = await client.get(namespace, name, { signal });
        return update(current);
      }
    },
    { backoff: options.backoff, signal, clock: options.clock },
  );
}
