// The set of resources the local API server serves right now (built-ins plus those of established CRDs).
import { apiVersionOf, builtinResources, type ResourceInfo } from './builtin-resources.ts';

/** Served resources indexed by group/version and resource name. */
export class Registry {
  readonly #byGroupVersion = new Map<string, Map<string, ResourceInfo>>();
  /** Group -> versions in preference order (first is preferred). */
  readonly #groupVersions = new Map<string, string[]>();

  constructor() {
    for (const info of builtinResources()) this.add(info);
  }

  /** Serve `info`; a later add for the same group/version/resource replaces it. */
  add(info: ResourceInfo, versionOrder?: string[]): void {
    const groupVersion = apiVersionOf(info);
    let resources = this.#byGroupVersion.get(groupVersion);
    if (resources === undefined) {
      resources = new Map();
      this.#byGroupVersion.set(groupVersion, resources);
    }
    resources.set(info.resource, info);
    const versions = this.#groupVersions.get(info.group) ?? [];
    if (!versions.includes(info.version)) versions.push(info.version);
    if (versionOrder !== undefined) {
      versions.sort((a, b) => rank(versionOrder, a) - rank(versionOrder, b));
    }
    this.#groupVersions.set(info.group, versions);
  }

  /** Stop serving `resource` of `group` in every version. */
  removeResource(group: string, resource: string): void {
    for (const version of this.#groupVersions.get(group) ?? []) {
      const groupVersion = group === '' ? version : `${group}/${version}`;
      const resources = this.#byGroupVersion.get(groupVersion);
      resources?.delete(resource);
      if (resources !== undefined && resources.size === 0) {
        this.#byGroupVersion.delete(groupVersion);
      }
    }
    const remaining = (this.#groupVersions.get(group) ?? []).filter((version) =>
      this.#byGroupVersion.has(group === '' ? version : `${group}/${version}`),
    );
    if (remaining.length === 0) this.#groupVersions.delete(group);
    else this.#groupVersions.set(group, remaining);
  }

  /** The resource served at group/version/resource, if any. */
  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.#byGroupVersion.get(group === '' ? version : `${group}/${version}`)?.get(resource);
  }

  /** Any served version of group/resource (for namespace lookups and storage). */
  anyVersion(group: string, resource: string): ResourceInfo | undefined {
    for (const version of this.#groupVersions.get(group) ?? []) {
      const found = this.lookup(group, version, resource);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Resources of one group/version, or undefined when it is not served. */
  groupVersion(group: string, version: string): ResourceInfo[] | undefined {
    const resources = this.#byGroupVersion.get(group === '' ? version : `${group}/${version}`);
    return resources === undefined ? undefined : [...resources.values()];
  }

  /** Served groups (without the core group) with their versions, preferred first. */
  groups(): Array<{ name: string; versions: string[] }> {
    return [...this.#groupVersions.entries()]
      .filter(([name]) => name !== '')
      .map(([name, versions]) => ({ name, versions: [...versions] }));
  }

  /** Every served resource in every version. */
  all(): ResourceInfo[] {
    return [...this.#byGroupVersion.values()].flatMap((resources) => [...resources.values()]);
  }
}

function rank(order: string[], version: string): number {
  const index = order.indexOf(version);
  return index === -1 ? order.length : index;
}
