// Discovery client (client-go discovery.DiscoveryClient): API groups, versions and resources, cached.
import { errorMessage, LassoError } from '@lasso/core';
import type { RestConfig } from './config/rest-config.ts';
import { checkPathSegment } from './path-segment.ts';
import { restTransportFor } from './transport/registry.ts';
import { RestTransport } from './transport.ts';

/** One served API group with its versions, preferred first. */
export interface ApiGroupInfo {
  /** `''` for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** One resource of a group version, as discovery lists it. */
export interface ApiResourceInfo {
  group: string;
  version: string;
  /** Plural resource name, e.g. `deployments`; `deployments/status` for a subresource. */
  name: string;
  singularName: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
}

/** Discovery of a whole server: every group's preferred-version resources, and the failures. */
export interface DiscoveryResult {
  groups: ApiGroupInfo[];
  resources: ApiResourceInfo[];
  /** Group versions whose discovery failed (`group/version` -> error); the rest still resolve. */
  failed: Map<string, Error>;
}

interface RawResourceList {
  resources?: Array<{
    name: string;
    singularName?: string;
    kind: string;
    namespaced?: boolean;
    verbs?: string[];
    shortNames?: string[];
    group?: string;
    version?: string;
  }>;
}

/**
 * Reads the server's API groups (`/api`, `/apis`) and the resources of each group version
 * (`/api/v1`, `/apis/<group>/<version>`), caching both until {@link DiscoveryClient.invalidate}.
 * A failing group version does not fail the others: {@link DiscoveryClient.discover} reports it in
 * `failed` (client-go's `ErrGroupDiscoveryFailed`).
 */
export class DiscoveryClient {
  readonly transport: RestTransport;
  #groups: Promise<ApiGroupInfo[]> | undefined;
  #resources = new Map<string, Promise<ApiResourceInfo[]>>();

  constructor(rest: RestConfig | RestTransport) {
    this.transport = rest instanceof RestTransport ? rest : restTransportFor(rest);
  }

  /** Every served group, the core group (`''`) first. */
  serverGroups(options: { signal?: AbortSignal | undefined } = {}): Promise<ApiGroupInfo[]> {
    if (this.#groups === undefined) {
      const loading = this.#loadGroups(options.signal);
      this.#groups = loading;
      loading.catch(() => {
        if (this.#groups === loading) this.#groups = undefined;
      });
    }
    return this.#groups;
  }

  /**
   * The resources of one group version (subresources included, as `name/sub`). `group` and
   * `version` must be path segments (no `.`/`..`, `/` or `%`): a TypeError otherwise.
   */
  serverResourcesForGroupVersion(
    group: string,
    version: string,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<ApiResourceInfo[]> {
    const where = 'DiscoveryClient.serverResourcesForGroupVersion';
    if (group !== '') checkPathSegment(group, 'group', where);
    checkPathSegment(version, 'version', where);
    const key = `${group}/${version}`;
    let cached = this.#resources.get(key);
    if (cached === undefined) {
      const loading = this.#loadResources(group, version, options.signal);
      cached = loading;
      this.#resources.set(key, loading);
      loading.catch(() => {
        if (this.#resources.get(key) === loading) this.#resources.delete(key);
      });
    }
    return cached;
  }

  /**
   * Groups plus the resources of every served version of every group (fetched in parallel).
   * Failing group versions land in `failed`; only a failure to list the groups throws.
   */
  async discover(options: { signal?: AbortSignal | undefined } = {}): Promise<DiscoveryResult> {
    const groups = await this.serverGroups(options);
    const failed = new Map<string, Error>();
    const lists = await Promise.all(
      groups.flatMap((group) =>
        group.versions.map(async (version) => {
          try {
            return await this.serverResourcesForGroupVersion(group.name, version, options);
          } catch (error) {
            failed.set(
              group.name === '' ? version : `${group.name}/${version}`,
              error instanceof Error ? error : new Error(errorMessage(error)),
            );
            return [];
          }
        }),
      ),
    );
    return { groups, resources: lists.flat(), failed };
  }

  /** Forget everything cached; the next call asks the server again. */
  invalidate(): void {
    this.#groups = undefined;
    this.#resources.clear();
  }

  async #loadGroups(signal: AbortSignal | undefined): Promise<ApiGroupInfo[]> {
    const [core, apis] = await Promise.all([
      this.transport.requestJson<{ versions?: string[] }>({ method: 'GET', path: '/api', signal }),
      this.transport.requestJson<{
        groups?: Array<{
          name: string;
          versions?: Array<{ version: string }>;
          preferredVersion?: { version: string };
        }>;
      }>({ method: 'GET', path: '/apis', signal }),
    ]);
    const groups: ApiGroupInfo[] = [];
    const coreVersions = core?.versions ?? [];
    if (coreVersions.length > 0) {
      groups.push({
        name: '',
        versions: coreVersions,
        preferredVersion: coreVersions[0] as string,
      });
    }
    for (const group of apis?.groups ?? []) {
      const versions = (group.versions ?? []).map((v) => v.version);
      const preferred = group.preferredVersion?.version ?? versions[0];
      if (preferred === undefined) continue;
      groups.push({
        name: group.name,
        versions: [preferred, ...versions.filter((v) => v !== preferred)],
        preferredVersion: preferred,
      });
    }
    return groups;
  }

  async #loadResources(
    group: string,
    version: string,
    signal: AbortSignal | undefined,
  ): Promise<ApiResourceInfo[]> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let list: RawResourceList;
    try {
      list = await this.transport.requestJson<RawResourceList>({ method: 'GET', path, signal });
    } catch (error) {
      throw new LassoError(
        'LASSO_DISCOVERY_FAILED',
        `discovery of ${group === '' ? version : `${group}/${version}`} failed: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    return (list?.resources ?? []).map((r) => ({
      group: r.group ?? group,
      version: r.version ?? version,
      name: r.name,
      singularName: r.singularName || r.kind.toLowerCase(),
      kind: r.kind,
      namespaced: r.namespaced === true,
      verbs: r.verbs ?? [],
      shortNames: r.shortNames ?? [],
    }));
  }
}
