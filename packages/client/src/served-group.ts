// The API group a CustomResourceDefinition or APIService is about: what discovery watchers (the factory's kind
// supervisor, the dynamic controller) refresh when one changes. One implementation for every package.

/**
 * The API group a `CustomResourceDefinition` or `APIService` serves (its `spec.group`), or `undefined` when the
 * object does not say (e.g. the local `v1.` APIService, or a malformed object). Unwrap a cache tombstone
 * (`DeletedFinalStateUnknown`) before calling it.
 *
 * @example
 * ```ts
 * servedGroupOf({ spec: { group: 'example.com', names: { kind: 'Widget' } } }); // 'example.com'
 * servedGroupOf({ metadata: { name: 'v1.' }, spec: {} }); // undefined
 * ```
 */
export function servedGroupOf(object: unknown): string | undefined {
  const group = (object as { spec?: { group?: unknown } } | null | undefined)?.spec?.group;
  return typeof group === 'string' ? group : undefined;
}
