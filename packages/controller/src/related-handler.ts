// Related-resource watches: a change of one kind enqueues keys of another, through a mapping the user writes.
// Ports the intent of controller-runtime's handler.EnqueueRequestsFromMapFunc and wrangler's relatedresource.Watch
// (lasso itself only has owner references, see owner-handler.ts).
import type { KubeObjectLike } from '@lasso/client';
import type { Controller } from './controller-types.ts';
import type { ReconcileContext } from './reconcile-context.ts';
import type { SharedControllerHandler } from './shared-handler.ts';

/** A key to enqueue: `namespace/name` (`name` for a cluster-scoped kind) or its parts. */
export type RelatedKey =
  | string
  | { readonly namespace?: string | undefined; readonly name: string };

/**
 * Maps a changed object of the watched kind to the keys of the target kind to reconcile. `object` is
 * `undefined` once deleted (the keys it mapped to last are enqueued anyway). Throwing fails the handler, which
 * the watched kind's controller retries with backoff.
 */
export type RelatedMapFunc<S extends KubeObjectLike> = (
  key: string,
  object: S | undefined,
  context: ReconcileContext,
) => readonly RelatedKey[] | undefined;

/** What {@link enqueueRelatedHandler} enqueues into: any controller (a shared controller is one). */
export type RelatedTarget = Pick<Controller<KubeObjectLike>, 'enqueueKey'>;

/**
 * A shared-controller handler, for the kind whose changes matter, that enqueues on `target` the keys `map`
 * returns (controller-runtime's `EnqueueRequestsFromMapFunc`, wrangler's `relatedresource.Watch`): a Secret
 * change reconciles the apps that mount it, a Namespace label change reconciles what lives in it.
 *
 * - On a change it enqueues the keys mapped now and those mapped last time for the same object, so a target
 *   the object stopped pointing to reconciles too (controller-runtime maps the old and the new object).
 * - On a delete it enqueues the keys mapped last (and what `map` returns for `undefined`), then forgets the
 *   object: one entry per live object that maps to something.
 * - It returns nothing: the next handler sees the object unchanged.
 *
 * **Gotchas**: an object deleted before this handler ever saw it cannot be mapped. Under sharding, the target
 * key may belong to another replica, which does not see this kind's event: list the watched kind in the factory's
 * `sharding.unshardedKinds` so every replica sees it (each replica reconciles only the targets it owns).
 *
 * @example
 * ```ts
 * import type { Secret } from 'kubernetes-types/core/v1.js';
 * declare const secrets: SharedController<Secret>;
 * declare const apps: SharedController<KubeObject>;
 * secrets.registerHandler(
 *   signal,
 *   'enqueue-apps-mounting',
 *   enqueueRelatedHandler<Secret>(apps, (_key, secret) => {
 *     const app = secret?.metadata?.annotations?.['example.com/app'];
 *     return app === undefined ? [] : [{ namespace: secret?.metadata?.namespace, name: app }];
 *   }),
 * );
 * ```
 *
 * @throws TypeError when `target` has no `enqueueKey` or `map` is not a function.
 */
export function enqueueRelatedHandler<S extends KubeObjectLike>(
  target: RelatedTarget,
  map: RelatedMapFunc<S>,
): SharedControllerHandler<S> {
  if (typeof target?.enqueueKey !== 'function') {
    throw new TypeError('enqueueRelatedHandler: target must have an enqueueKey method');
  }
  if (typeof map !== 'function') {
    throw new TypeError('enqueueRelatedHandler: map must be a function');
  }
  // Object key -> target keys mapped last; only objects that mapped to something, so the map stays small.
  const lastMapped = new Map<string, string[]>();
  return (key, object, context) => {
    const current = normalized(map(key, object, context), key);
    const previous = lastMapped.get(key);
    if (object === undefined || current.length === 0) lastMapped.delete(key);
    else lastMapped.set(key, current);
    for (const targetKey of current) target.enqueueKey(targetKey);
    for (const targetKey of previous ?? []) {
      if (!current.includes(targetKey)) target.enqueueKey(targetKey);
    }
  };
}

function normalized(keys: readonly RelatedKey[] | undefined, source: string): string[] {
  if (keys === undefined) return [];
  if (!Array.isArray(keys)) {
    throw new TypeError(
      `enqueueRelatedHandler: map returned ${typeof keys} for '${source}'; it must return an array of keys`,
    );
  }
  const out: string[] = [];
  for (const entry of keys) {
    const key = keyOf(entry);
    if (key === undefined) {
      throw new TypeError(
        `enqueueRelatedHandler: map returned an invalid key for '${source}' (a 'namespace/name' string or { namespace?, name } with a non-empty name)`,
      );
    }
    if (!out.includes(key)) out.push(key);
  }
  return out;
}

function keyOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry === '' || entry.endsWith('/') ? undefined : entry;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { namespace, name } = entry as { namespace?: unknown; name?: unknown };
  if (typeof name !== 'string' || name === '' || name.includes('/')) return undefined;
  if (namespace === undefined || namespace === '') return name;
  if (typeof namespace !== 'string' || namespace.includes('/')) return undefined;
  return `${namespace}/${name}`;
}
