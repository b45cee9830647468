// apiVersion <-> group and version (apimachinery's schema.ParseGroupVersion), the one parser of the packages.
import { pathSegmentProblem } from './path-segment.ts';

/**
 * The group and version of an `apiVersion`: `v1` -> `{ group: '', version: 'v1' }`, `apps/v1` ->
 * `{ group: 'apps', version: 'v1' }` (apimachinery's `schema.ParseGroupVersion`, stricter: an empty
 * part, more than one `/`, or a part that cannot be a URL path segment (`..`, `%`) is refused).
 * Throws a TypeError `<where> must be "version" or "group/version", got "…"`; `where` defaults to
 * `apiVersion` (pass e.g. `Owner: object.apiVersion`).
 *
 * @example
 * ```ts
 * const { group, version } = parseApiVersion('apps/v1'); // { group: 'apps', version: 'v1' }
 * const owner: { apiVersion?: string } = { apiVersion: 'v1' };
 * parseApiVersion(owner.apiVersion, 'setOwnerReference: owner.apiVersion');
 * ```
 */
export function parseApiVersion(
  apiVersion: unknown,
  where = 'apiVersion',
): { group: string; version: string } {
  const parts = typeof apiVersion === 'string' ? apiVersion.split('/') : [];
  const [first, second] = parts;
  const valid = (part: string | undefined): part is string =>
    part !== undefined && part !== '' && pathSegmentProblem(part) === undefined;
  if (parts.length === 1 && valid(first)) return { group: '', version: first };
  if (parts.length === 2 && valid(first) && valid(second)) return { group: first, version: second };
  throw new TypeError(
    `${where} must be "version" or "group/version", got ${apiVersion === undefined ? 'undefined' : JSON.stringify(apiVersion)}`,
  );
}

/**
 * The API group of an `apiVersion` without checking it (`apps/v1` -> `apps`, `v1` -> `''`): for
 * comparing references that were checked when written (controller-runtime's `referSameObject`).
 *
 * @example
 * ```ts
 * groupOfApiVersion('apps/v1'); // 'apps'
 * ```
 */
export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}
