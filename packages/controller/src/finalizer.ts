// Finalizers: pure add/remove/contains helpers (controller-runtime pkg/controller/controllerutil) and a
// shared-controller handler that keeps a finalizer on live objects and runs cleanup before releasing it
// (rancher/wrangler's generated OnRemove handlers).
import type { KubeObjectLike } from '@lasso/client';
import { qualifiedNameProblem } from './qualified-name.ts';
import type { ReconcileContext } from './reconcile-context.ts';
import type { SharedControllerHandler, SharedHandlerResult } from './shared-handler.ts';

function requireFinalizer(caller: string, finalizer: unknown): asserts finalizer is string {
  if (typeof finalizer !== 'string' || finalizer === '') {
    throw new TypeError(`${caller}: finalizer must be a non-empty string`);
  }
}

/** True when `object` lists `finalizer` (controller-runtime's `ContainsFinalizer`). */
export function containsFinalizer(object: KubeObjectLike, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * `object` with `finalizer` appended to `metadata.finalizers` (controller-runtime's `AddFinalizer`).
 * Returns `object` itself when it already has the finalizer, so `result !== object` says whether it changed;
 * otherwise a copy with a new `metadata` (the input is never modified).
 */
export function addFinalizer<T extends KubeObjectLike>(object: T, finalizer: string): T {
  requireFinalizer('addFinalizer', finalizer);
  if (containsFinalizer(object, finalizer)) return object;
  const finalizers = [...(object.metadata?.finalizers ?? []), finalizer];
  return { ...object, metadata: { ...object.metadata, finalizers } };
}

/**
 * `object` without any occurrence of `finalizer` (controller-runtime's `RemoveFinalizer`). Returns `object`
 * itself when it lacks the finalizer; otherwise a copy with a new `metadata` (the input is never modified).
 */
export function removeFinalizer<T extends KubeObjectLike>(object: T, finalizer: string): T {
  requireFinalizer('removeFinalizer', finalizer);
  if (!containsFinalizer(object, finalizer)) return object;
  const finalizers = (object.metadata?.finalizers ?? []).filter((entry) => entry !== finalizer);
  return { ...object, metadata: { ...object.metadata, finalizers } };
}

/** What {@link finalizerHandler} writes through: a `Client<T>` fits. */
export interface FinalizerClient<T> {
  update(
    namespace: string | undefined,
    object: T,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<T>;
}

/** The callbacks of {@link finalizerHandler}; each may return the object it wrote (the newest version). */
export interface FinalizerCallbacks<T> {
  /**
   * Called for a live object, after the finalizer is on it (and written). Its returned object, if any, is
   * what the handler returns.
   */
  onChange?:
    | ((
        key: string,
        object: T,
        context: ReconcileContext,
      ) => SharedHandlerResult<T> | Promise<SharedHandlerResult<T>>)
    | undefined;
  /**
   * Cleanup for an object being deleted that still carries the finalizer. Throw to keep the finalizer and
   * have the key retried; once it returns, the finalizer is removed from its returned object (or, when it
   * returns nothing, from the object it got).
   */
  onRemove: (
    key: string,
    object: T,
    context: ReconcileContext,
  ) => SharedHandlerResult<T> | Promise<SharedHandlerResult<T>>;
}

/**
 * A shared-controller handler that guards cleanup with `finalizer`, the way wrangler's `OnRemove` does:
 *
 * - Live object without the finalizer: adds it with an update and passes the updated object on (to
 *   `onChange` and to the next handler).
 * - Object being deleted (`deletionTimestamp` set) with the finalizer: runs `onRemove`, then removes the
 *   finalizer with an update and returns the result. A failing `onRemove` or update (a conflict included)
 *   propagates, so the controller retries the key and the finalizer stays until cleanup succeeded.
 * - Object being deleted without the finalizer, or already gone (`undefined`): does nothing.
 *
 * Writes are full updates of the object the handler got, so a stale cached copy fails with a conflict and
 * is retried rather than overwriting newer state.
 *
 * **Gotchas**: `onRemove` may run more than once for one deletion (a failed finalizer update is retried):
 * make cleanup idempotent. Kube refuses new finalizers on an object being deleted, so an object created and
 * deleted before the handler saw it is never cleaned up.
 *
 * @example
 * ```ts
 * declare const controller: SharedController<KubeObject>;
 * declare function dropExternalDatabase(app: KubeObject): Promise<void>;
 * controller.registerHandler(signal, 'cleanup', finalizerHandler(controller.client(), 'example.com/cleanup', {
 *   onRemove: async (key, app) => { await dropExternalDatabase(app); },
 * }));
 * ```
 *
 * @throws TypeError when `finalizer` is not a domain-qualified name, `client` has no `update`, or `onRemove`
 * is missing.
 */
export function finalizerHandler<T extends KubeObjectLike>(
  client: FinalizerClient<T>,
  finalizer: string,
  callbacks: FinalizerCallbacks<T>,
): SharedControllerHandler<T> {
  // Kube accepts unqualified finalizer names only for its own standard finalizers.
  const problem = qualifiedNameProblem(finalizer, { requirePrefix: true });
  if (problem !== undefined) {
    throw new TypeError(`finalizerHandler: finalizer ${JSON.stringify(finalizer)} ${problem}`);
  }
  if (typeof client?.update !== 'function') {
    throw new TypeError('finalizerHandler: client must have an update method');
  }
  if (typeof callbacks?.onRemove !== 'function') {
    throw new TypeError('finalizerHandler: callbacks.onRemove must be a function');
  }
  const { onChange, onRemove } = callbacks;
  if (onChange !== undefined && typeof onChange !== 'function') {
    throw new TypeError('finalizerHandler: callbacks.onChange must be a function');
  }
  return async (key, object, context) => {
    if (object === undefined) return undefined;
    // The reconcile's signal on every write: a stopped controller or a lost leader writes nothing more.
    const options = { signal: context?.signal };
    const namespace = object.metadata?.namespace;
    const deleting = object.metadata?.deletionTimestamp != null;
    if (deleting) {
      if (!containsFinalizer(object, finalizer)) return undefined;
      const cleaned = (await onRemove(key, object, context)) ?? object;
      return await client.update(namespace, removeFinalizer(cleaned, finalizer), options);
    }
    let current = object;
    let wrote = false;
    if (!containsFinalizer(object, finalizer)) {
      current = await client.update(namespace, addFinalizer(object, finalizer), options);
      wrote = true;
    }
    const changed = onChange === undefined ? undefined : await onChange(key, current, context);
    if (changed != null) return changed;
    return wrote ? current : undefined;
  };
}
