// RESTMapper (client-go restmapper.DeferredDiscoveryRESTMapper): GVR <-> GVK from discovery, refreshed on a miss.
import { LassoError } from '@lasso/core';
import type { RestConfig } from './config/rest-config.ts';
import { type ApiResourceInfo, DiscoveryClient, type DiscoveryResult } from './discovery.ts';
import type { RestTransport } from './transport.ts';
import type { GroupVersionKind, GroupVersionResource } from './types.ts';

/** Where a kind is served: its resource and scope. */
export interface RestMapping {
  gvr: GroupVersionResource;
  gvk: GroupVersionKind;
  namespaced: boolean;
  /**
   * The verbs discovery lists for the resource (`get`, `list`, `watch`, ...). Absent when the mapping did not come
   * from discovery (a hand-written mapper): then nothing is known, and callers take every verb as served.
   */
  verbs?: readonly string[] | undefined;
}

/**
 * A resource to resolve; an empty or missing `version` means the group's preferred version, or
 * the first other version (in discovery order) serving it.
 */
export interface PartialGroupVersionResource {
  group: string;
  version?: string | undefined;
  /** Plural (`deployments`), singular (`deployment`) or a short name (`deploy`). */
  resource: string;
}

/**
 * A kind to resolve; an empty or missing `version` means the group's preferred version, or the
 * first other version (in discovery order) serving it.
 */
export interface PartialGroupVersionKind {
  group: string;
  version?: string | undefined;
  kind: string;
}

/** Maps resources to kinds and back, from discovery. See {@link createRestMapper}. */
export interface RestMapper {
  /** The kind served at `gvr`. Throws `LASSO_NO_KIND_MATCH` when the server has no such resource. */
  kindFor(
    gvr: PartialGroupVersionResource,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<GroupVersionKind>;
  /**
   * The kind served at `gvr` and its scope; `gvr.resource` in the answer is the plural name even when
   * a singular or short name was asked for. Throws `LASSO_NO_KIND_MATCH` when the server has no such
   * resource.
   */
  mappingFor(
    gvr: PartialGroupVersionResource,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<RestMapping>;
  /** The resource serving `gvk`, and whether it is namespaced. Throws `LASSO_NO_KIND_MATCH` on a miss. */
  resourceFor(
    gvk: PartialGroupVersionKind,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<RestMapping>;
  /** Drop the cached discovery; the next lookup reads it again. */
  reset(): void;
}

/**
 * A RESTMapper over discovery, loaded on first use and cached. On a miss it invalidates the cache
 * and asks the server once more, so a CRD installed after start resolves. When the group of the
 * miss failed discovery, the error is `LASSO_DISCOVERY_FAILED` with that failure as `cause`
 * (other groups keep resolving).
 *
 * @example
 * ```ts
 * const mapper = createRestMapper(rest);
 * const { gvr, namespaced } = await mapper.resourceFor({ group: 'apps', version: 'v1', kind: 'Deployment' });
 * ```
 */
export function createRestMapper(source: DiscoveryClient | RestConfig | RestTransport): RestMapper {
  const discovery = source instanceof DiscoveryClient ? source : new DiscoveryClient(source);
  let state: Promise<DiscoveryResult> | undefined;

  const load = (signal: AbortSignal | undefined): Promise<DiscoveryResult> => {
    if (state === undefined) {
      const loading = discovery.discover({ signal });
      state = loading;
      loading.catch(() => {
        if (state === loading) state = undefined;
      });
    }
    return state;
  };

  async function lookup<R>(
    find: (result: DiscoveryResult) => R | undefined,
    group: string,
    describe: string,
    signal: AbortSignal | undefined,
  ): Promise<R> {
    const first = await load(signal);
    const hit = find(first);
    if (hit !== undefined) return hit;
    // A miss may be a CRD installed since the cache was filled: ask once more.
    if (state === undefined || (await state) === first) {
      state = undefined;
      discovery.invalidate();
    }
    const second = await load(signal);
    const again = find(second);
    if (again !== undefined) return again;
    for (const [groupVersion, error] of second.failed) {
      const failedGroup = groupVersion.includes('/') ? groupVersion.split('/')[0] : '';
      if (failedGroup === group) {
        throw new LassoError(
          'LASSO_DISCOVERY_FAILED',
          `no match for ${describe}: discovery of ${groupVersion} failed`,
          { cause: error },
        );
      }
    }
    throw new LassoError('LASSO_NO_KIND_MATCH', `no matches for ${describe}`);
  }

  // Without a version: the preferred one first, then the group's other versions in discovery order,
  // so a kind served only by a non-preferred version still resolves (client-go's priority mapper).
  const versionsOf = (result: DiscoveryResult, group: string, version: string | undefined) =>
    version ? [version] : (result.groups.find((g) => g.name === group)?.versions ?? []);

  const findIn = (
    result: DiscoveryResult,
    group: string,
    version: string | undefined,
    matches: (r: ApiResourceInfo) => boolean,
  ): ApiResourceInfo | undefined => {
    for (const v of versionsOf(result, group, version)) {
      const match = result.resources.find(
        (r) => r.group === group && r.version === v && !r.name.includes('/') && matches(r),
      );
      if (match !== undefined) return match;
    }
    return undefined;
  };

  const mapping = (r: ApiResourceInfo): RestMapping => ({
    gvr: { group: r.group, version: r.version, resource: r.name },
    gvk: { group: r.group, version: r.version, kind: r.kind },
    namespaced: r.namespaced,
    verbs: r.verbs,
  });

  const mappingFor: RestMapper['mappingFor'] = (gvr, options = {}) => {
    const resource = gvr.resource.toLowerCase();
    return lookup(
      (result) => {
        const match = findIn(
          result,
          gvr.group,
          gvr.version,
          (r) =>
            r.name === resource || r.singularName === resource || r.shortNames.includes(resource),
        );
        return match === undefined ? undefined : mapping(match);
      },
      gvr.group,
      `resource "${gvr.resource}" in group "${gvr.group}"${gvr.version ? ` version "${gvr.version}"` : ''}`,
      options.signal,
    );
  };

  return {
    async kindFor(gvr, options = {}) {
      return (await mappingFor(gvr, options)).gvk;
    },
    mappingFor,
    resourceFor(gvk, options = {}) {
      return lookup(
        (result) => {
          const match = findIn(result, gvk.group, gvk.version, (r) => r.kind === gvk.kind);
          return match === undefined ? undefined : mapping(match);
        },
        gvk.group,
        `kind "${gvk.kind}" in group "${gvk.group}"${gvk.version ? ` version "${gvk.version}"` : ''}`,
        options.signal,
      );
    },
    reset() {
      state = undefined;
      discovery.invalidate();
    },
  };
}
