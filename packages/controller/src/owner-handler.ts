// Owner-to-key mapping: a handler on owned objects that enqueues their owners. Ports controller-runtime
// pkg/handler/enqueue_owner.go (EnqueueRequestForOwner) and rancher/wrangler's relatedresource owner resolver.
import type { KubeObjectLike } from '@lasso/client';
import { errorMessage } from '@lasso/core';
import type { Controller } from './controller-types.ts';
import { groupOf } from './owner-references.ts';
import {
  acceptsAll,
  hostEventPredicates,
  type Predicate,
  predicate,
  type WithHostEventPredicates,
} from './predicates.ts';
import type { ReconcileContext } from './reconcile-context.ts';
import type { SharedControllerHandler } from './shared-handler.ts';

/**
 * What `enqueueOwnerHandler` enqueues into: a controller, and optionally the predicates given to it once
 * (`shared.withPredicates(...)`) with the cache they read owners from.
 */
export type OwnerController = Pick<Controller<KubeObjectLike>, 'enqueueKey'> & {
  /** Predicates an owner must pass (read from `get`) to be enqueued; a `withPredicates` view has them. */
  readonly predicates?: readonly Predicate<never>[] | undefined;
  /** The owner controller's cache. */
  get?(namespace: string, name: string): KubeObjectLike | undefined;
};

/** Which owners {@link ownerKeysOf} and {@link enqueueOwnerHandler} look for. */
export interface OwnerKindOptions {
  /** The owner's kind, e.g. `Deployment`. */
  kind: string;
  /** The owner's API group (`''` for the core group); give this or `apiVersion`. Versions are ignored. */
  group?: string | undefined;
  /** The owner's `apiVersion` (only its group is compared); give this or `group`. */
  apiVersion?: string | undefined;
  /** Only the controller reference counts (default `true`); `false` maps every matching owner reference. */
  controllerOnly?: boolean | undefined;
  /**
   * The owner kind is cluster-scoped (default `false`): keys are then `name`. Otherwise the owner is taken to
   * be in the object's namespace, the only place a namespaced owner can be.
   */
  clusterScoped?: boolean | undefined;
}

interface OwnerMatcher {
  readonly group: string;
  readonly kind: string;
  readonly controllerOnly: boolean;
  readonly clusterScoped: boolean;
}

function ownerMatcher(caller: string, options: OwnerKindOptions): OwnerMatcher {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${caller}: options must be an object`);
  }
  const { kind, group, apiVersion, controllerOnly = true, clusterScoped = false } = options;
  if (typeof kind !== 'string' || kind === '') {
    throw new TypeError(`${caller}: options.kind must be a non-empty string`);
  }
  if (group !== undefined && typeof group !== 'string') {
    throw new TypeError(`${caller}: options.group must be a string`);
  }
  if (apiVersion !== undefined && (typeof apiVersion !== 'string' || apiVersion === '')) {
    throw new TypeError(`${caller}: options.apiVersion must be a non-empty string`);
  }
  if (group === undefined && apiVersion === undefined) {
    throw new TypeError(`${caller}: options.group or options.apiVersion is required`);
  }
  const resolved = apiVersion === undefined ? (group as string) : groupOf(apiVersion);
  if (group !== undefined && group !== resolved) {
    throw new TypeError(
      `${caller}: options.group ${JSON.stringify(group)} disagrees with options.apiVersion ${JSON.stringify(apiVersion)}`,
    );
  }
  if (typeof controllerOnly !== 'boolean') {
    throw new TypeError(`${caller}: options.controllerOnly must be a boolean`);
  }
  if (typeof clusterScoped !== 'boolean') {
    throw new TypeError(`${caller}: options.clusterScoped must be a boolean`);
  }
  return { group: resolved, kind, controllerOnly, clusterScoped };
}

function keysOf(object: KubeObjectLike, matcher: OwnerMatcher): string[] {
  const references = object.metadata?.ownerReferences;
  if (references === undefined || references.length === 0) return [];
  const namespace = matcher.clusterScoped ? '' : (object.metadata?.namespace ?? '');
  const keys: string[] = [];
  for (const reference of references) {
    if (matcher.controllerOnly && reference.controller !== true) continue;
    if (reference.kind !== matcher.kind || groupOf(reference.apiVersion) !== matcher.group)
      continue;
    const key = namespace === '' ? reference.name : `${namespace}/${reference.name}`;
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

function hasOwner(object: unknown, matcher: OwnerMatcher): boolean {
  try {
    return (
      typeof object === 'object' &&
      object !== null &&
      keysOf(object as KubeObjectLike, matcher).length > 0
    );
  } catch {
    return true;
  }
}

/**
 * The filter on owner keys of `ownerController`'s predicates: an owner found in its cache is enqueued when it
 * passes them as a create event would (a label selector decides; change predicates such as
 * `generationChangedPredicate` pass); an owner not in the cache is enqueued (its reconcile sees it gone).
 */
function ownerGate(
  ownerController: OwnerController,
): ((ownerKey: string, context: ReconcileContext | undefined) => boolean) | undefined {
  const predicates = ownerController.predicates as readonly Predicate<KubeObjectLike>[] | undefined;
  if (!Array.isArray(predicates) || predicates.length === 0) return undefined;
  if (typeof ownerController.get !== 'function') return undefined;
  return (ownerKey, context) => {
    const slash = ownerKey.indexOf('/');
    const namespace = slash === -1 ? '' : ownerKey.slice(0, slash);
    const name = slash === -1 ? ownerKey : ownerKey.slice(slash + 1);
    let owner: KubeObjectLike | undefined;
    try {
      owner = ownerController.get?.(namespace, name);
    } catch {
      // The owner controller could not be built: its enqueue is a no-op anyway.
      return true;
    }
    if (owner === undefined) return true;
    return acceptsAll(predicates, { type: 'create', object: owner }, (refused, error) => {
      context?.logger.warn('predicate threw; the owner is enqueued', {
        predicate: refused.name,
        owner: ownerKey,
        error: errorMessage(error),
      });
    });
  };
}

/**
 * The keys (`namespace/name`, or `name` for a cluster-scoped owner kind) of `object`'s owners of the given
 * group and kind: its controller only, unless `controllerOnly: false`. The namespace is `object`'s own, since
 * a namespaced owner is always in its dependents' namespace.
 *
 * @example
 * ```ts
 * import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
 * declare const replicaSet: ReplicaSet;
 * ownerKeysOf(replicaSet, { group: 'apps', kind: 'Deployment' }); // ['default/web']
 * ```
 *
 * @throws TypeError when `kind` is missing or neither `group` nor `apiVersion` is given.
 */
export function ownerKeysOf(object: KubeObjectLike, options: OwnerKindOptions): string[] {
  return keysOf(object, ownerMatcher('ownerKeysOf', options));
}

/**
 * A shared-controller handler for an owned kind that enqueues the owners of every changed object on the
 * owner's controller (controller-runtime's `EnqueueRequestForOwner`). It returns nothing, so the next handler
 * sees the object unchanged.
 *
 * - On a change, it enqueues the current owners and those the object had when last seen, so an owner that
 *   lost the object also reconciles (controller-runtime enqueues the old and the new object's owners).
 * - On a delete, the shared controller passes `undefined`, and a key says nothing about owners: the handler
 *   keeps the owner keys last seen per object key and enqueues those, then forgets the key. Its memory holds
 *   one entry per live object that has a matching owner.
 *
 * - Its registration filters the informer events of the controller it is registered on to objects that have
 *   (or had, before an update) a matching owner reference, whatever predicates other handlers have; a
 *   `withPredicates` view does not add its predicates to it (the owned objects are not the view's objects).
 * - When `ownerController` is a `withPredicates` view, an owner is enqueued only when it passes those
 *   predicates as read from the view's cache (as a create event: a label selector decides, change predicates
 *   pass); an owner not in the cache is enqueued. So predicates given once to the owner controller apply to
 *   its own events and to the owners this handler maps to.
 *
 * **Gotchas**: an object deleted before this handler ever saw it (registered while the object was already
 * gone) cannot be mapped. Use one handler per owner controller: each keeps its own memory.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * declare const configMapController: SharedController<ConfigMap>;
 * declare const appController: SharedController<KubeObject>;
 * configMapController.registerHandler(signal, 'enqueue-app', enqueueOwnerHandler(appController, {
 *   group: 'example.com', kind: 'App',
 * }));
 * ```
 *
 * @throws TypeError when `ownerController` has no `enqueueKey` or the owner kind is incomplete.
 */
export function enqueueOwnerHandler<T extends KubeObjectLike>(
  ownerController: OwnerController,
  options: OwnerKindOptions,
): SharedControllerHandler<T> {
  if (typeof ownerController?.enqueueKey !== 'function') {
    throw new TypeError('enqueueOwnerHandler: ownerController must have an enqueueKey method');
  }
  const matcher = ownerMatcher('enqueueOwnerHandler', options);
  const gate = ownerGate(ownerController);
  const enqueue = (ownerKey: string, context: ReconcileContext | undefined): void => {
    if (gate === undefined || gate(ownerKey, context)) ownerController.enqueueKey(ownerKey);
  };
  // Object key -> owner keys last seen; only objects with matching owners, so the map stays small.
  const lastOwners = new Map<string, string[]>();
  const handler: SharedControllerHandler<T> = (key, object, context) => {
    const previous = lastOwners.get(key);
    if (object === undefined) {
      lastOwners.delete(key);
      for (const ownerKey of previous ?? []) enqueue(ownerKey, context);
      return;
    }
    const current = keysOf(object, matcher);
    if (current.length === 0) lastOwners.delete(key);
    else lastOwners.set(key, current);
    for (const ownerKey of current) enqueue(ownerKey, context);
    for (const ownerKey of previous ?? []) {
      if (!current.includes(ownerKey)) enqueue(ownerKey, context);
    }
  };
  // Only events of objects with a matching owner (before or after) can enqueue anything here.
  const owned = predicate<T>(
    (event) =>
      hasOwner(event.object, matcher) ||
      (event.type === 'update' && hasOwner(event.oldObject, matcher)),
    `owned-by-${matcher.kind}`,
  );
  const marked: WithHostEventPredicates<T> = { [hostEventPredicates]: Object.freeze([owned]) };
  return Object.assign(handler, marked, { [ownerHandlerMark]: true });
}

const ownerHandlerMark = Symbol('lasso.controller.ownerHandler');

/**
 * Whether `handler` was made by {@link enqueueOwnerHandler}: the kind it is registered on is watched as an owned
 * kind (a sharded controller factory then hashes that kind's objects by their controller owner, so they land on
 * the owner's replica).
 *
 * @example
 * ```ts
 * declare const appController: SharedController<KubeObject>;
 * const handler = enqueueOwnerHandler(appController, { group: 'example.com', kind: 'App' });
 * isOwnerHandler(handler); // true
 * ```
 */
export function isOwnerHandler(handler: unknown): boolean {
  return (
    typeof handler === 'function' &&
    (handler as unknown as Record<symbol, unknown>)[ownerHandlerMark] === true
  );
}
