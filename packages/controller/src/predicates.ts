// Predicates: filters on informer events before their key is enqueued, as controller-runtime's predicate
// package (GenerationChangedPredicate and friends) and kube-rs's predicate_filter.
import type { KubeObjectLike } from '@lasso/client';
import { compileLabelSelector, type LabelSelectorInput } from './label-selector.ts';

/**
 * An informer event a {@link Predicate} decides on. `object` is the object after the event (for a delete, the
 * last state the informer knew; `finalStateUnknown` is true when the delete was only seen through a relist, so
 * that state may be stale); `oldObject` is the state before an update.
 */
export type PredicateEvent<T> =
  | { readonly type: 'create'; readonly object: T }
  | { readonly type: 'update'; readonly object: T; readonly oldObject: T }
  | { readonly type: 'delete'; readonly object: T; readonly finalStateUnknown: boolean };

/**
 * Decides whether an informer event enqueues its key (controller-runtime `predicate.Predicate`). Pass
 * predicates to `registerHandler(signal, name, handler, { predicates })`: an event passes a handler's
 * predicates when every one of them accepts it. Predicates see informer events only: `enqueue`,
 * `enqueueAfter`, `enqueueKey`, retries and the replay to a late handler are never filtered.
 */
export interface Predicate<T> {
  /** Names the predicate in logs and test output. */
  readonly name: string;
  /** True to let the event enqueue its key. Must not throw (a throw counts as true, and is logged). */
  readonly accept: (event: PredicateEvent<T>) => boolean;
}

/**
 * A predicate from a function of the event (controller-runtime `predicate.Funcs` / `NewPredicateFuncs`).
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 *
 * // Only ConfigMaps labelled app=web, whatever the event.
 * const webOnly = predicate<ConfigMap>(({ object }) => object.metadata?.labels?.app === 'web', 'web-only');
 * ```
 */
export function predicate<T>(
  accept: (event: PredicateEvent<T>) => boolean,
  name: string = accept.name || 'predicate',
): Predicate<T> {
  if (typeof accept !== 'function') {
    throw new TypeError(`predicate: accept must be a function, got ${typeof accept}`);
  }
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('predicate: name must be a non-empty string');
  }
  return Object.freeze({ name, accept });
}

// Updates only: creates and deletes always pass, as in controller-runtime.
function updateChanged(
  name: string,
  read: (object: KubeObjectLike) => unknown,
): Predicate<KubeObjectLike> {
  return predicate<KubeObjectLike>(
    (event) => event.type !== 'update' || !same(read(event.oldObject), read(event.object)),
    name,
  );
}

// Labels and annotations compare as maps (key order is not a change); anything else by identity.
function same(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (!isStringMap(left) && !isStringMap(right)) return false;
  const a = isStringMap(left) ? left : {};
  const b = isStringMap(right) ? right : {};
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

function isStringMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function metadataOf(object: KubeObjectLike): KubeObjectLike['metadata'] {
  return typeof object === 'object' && object !== null ? object.metadata : undefined;
}

/**
 * Lets an update through only when `metadata.generation` changed (controller-runtime
 * `GenerationChangedPredicate`): spec changes, not status or metadata-only writes. Creates and deletes pass.
 * Objects without a generation (ConfigMaps, most built-ins without a spec) then see no updates at all.
 */
export const generationChangedPredicate: Predicate<KubeObjectLike> = updateChanged(
  'generation-changed',
  (object) => metadataOf(object)?.generation,
);

/**
 * Lets an update through only when `metadata.resourceVersion` changed (controller-runtime
 * `ResourceVersionChangedPredicate`): drops the informer's periodic resyncs. Creates and deletes pass.
 */
export const resourceVersionChangedPredicate: Predicate<KubeObjectLike> = updateChanged(
  'resource-version-changed',
  (object) => metadataOf(object)?.resourceVersion,
);

/**
 * Lets an update through only when `metadata.labels` changed (controller-runtime `LabelChangedPredicate`).
 * Creates and deletes pass.
 */
export const labelsChangedPredicate: Predicate<KubeObjectLike> = updateChanged(
  'labels-changed',
  (object) => metadataOf(object)?.labels,
);

/**
 * Lets an update through only when `metadata.annotations` changed (controller-runtime
 * `AnnotationChangedPredicate`). Creates and deletes pass.
 */
export const annotationsChangedPredicate: Predicate<KubeObjectLike> = updateChanged(
  'annotations-changed',
  (object) => metadataOf(object)?.annotations,
);

/**
 * Lets through the events of objects whose labels match `selector` (kubectl's string syntax,
 * `'a=b,c!=d,e in (x,y),f notin (z),!g,h'`, or a metav1 `LabelSelector`; controller-runtime
 * `LabelSelectorPredicate`). An update passes when the object matches before or after it, so a handler sees an
 * object leave the selection (its label removed) as well as enter it. Give it to a controller once with
 * `shared.withPredicates([...])` to filter both its own events and the owners `enqueueOwnerHandler` enqueues.
 *
 * Unlike an informer's label selector, the cache still holds every object: the objects a controller owns
 * (which may be of the same kind and lack the label) stay visible to `enqueueOwnerHandler`.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * declare const configMaps: SharedController<ConfigMap>;
 * const sources = configMaps.withPredicates([labelSelectorPredicate('example.com/derive=true')]);
 * sources.registerHandler(signal, 'derive', (_key, source) => {
 *   console.log(source?.metadata?.labels);
 * });
 * ```
 *
 * @throws RangeError when `selector` does not parse (the message names the position or token).
 * @throws TypeError when `selector` is neither a string nor a `LabelSelector`.
 */
export function labelSelectorPredicate(
  selector: LabelSelectorInput,
  name = `label-selector(${typeof selector === 'string' ? selector : 'object'})`,
): Predicate<KubeObjectLike> {
  if (selector === undefined || selector === null) {
    throw new TypeError('labelSelectorPredicate: selector must be a string or a LabelSelector');
  }
  const matches = compileLabelSelector(selector, 'labelSelectorPredicate');
  const labelsMatch = (object: KubeObjectLike): boolean => matches(metadataOf(object)?.labels);
  return predicate<KubeObjectLike>(
    (event) =>
      labelsMatch(event.object) || (event.type === 'update' && labelsMatch(event.oldObject)),
    name,
  );
}

/**
 * True when `event` passes every predicate of `predicates` (an empty list passes everything). A predicate that
 * throws counts as accepting: an event is never lost to a broken filter. `onThrow` hears about it.
 */
export function acceptsAll<T>(
  predicates: readonly Predicate<T>[],
  event: PredicateEvent<T>,
  onThrow: (predicate: Predicate<T>, error: unknown) => void,
): boolean {
  for (const candidate of predicates) {
    let accepted = true;
    try {
      accepted = candidate.accept(event) !== false;
    } catch (error) {
      onThrow(candidate, error);
    }
    if (!accepted) return false;
  }
  return true;
}

/** Checks the `predicates` option of a registration; returns a frozen copy. */
export function checkPredicates<T>(value: unknown, where: string): readonly Predicate<T>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(`${where}: predicates must be an array of predicates`);
  }
  value.forEach((candidate: unknown, index) => {
    if (typeof (candidate as Partial<Predicate<T>> | null)?.accept !== 'function') {
      throw new TypeError(
        `${where}: predicates[${index}] must be a predicate (make one with predicate(fn))`,
      );
    }
  });
  return Object.freeze([...(value as Predicate<T>[])]);
}

/**
 * @internal The predicates a handler brings for the informer events of the controller it is registered on (an
 * `enqueueOwnerHandler`: objects with a matching owner reference). The shared handler adds them to the
 * registration's own; `withPredicates` views add theirs only to handlers without this mark, since a mapped
 * object is not one of the view's objects.
 */
export const hostEventPredicates: unique symbol = Symbol(
  'lasso.controller.hostEventPredicates',
) as never;

/** @internal A handler carrying {@link hostEventPredicates}. */
export interface WithHostEventPredicates<T> {
  readonly [hostEventPredicates]: readonly Predicate<T>[];
}

/** @internal The {@link hostEventPredicates} of `handler`, or an empty list. Total. */
export function hostEventPredicatesOf<T>(handler: unknown): readonly Predicate<T>[] {
  try {
    const own = (handler as Partial<WithHostEventPredicates<T>> | null)?.[hostEventPredicates];
    return Array.isArray(own) ? own : [];
  } catch {
    return [];
  }
}
