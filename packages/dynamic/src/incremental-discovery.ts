// Discovery that reads only what changed (lasso reads every group version on every refresh): the group list
// (`/api`, `/apis`) is read each time, then only the group versions that are new, that failed last time, or whose
// group a CRD/APIService event named; the others come from the previous refresh.
import type { ApiGroupInfo, ApiResourceInfo, DiscoveryResult } from '@lasso/client';
import { errorMessage } from '@lasso/core';
import type { DiscoverySource } from './discovery-refresher.ts';

/** The part of `@lasso/client`'s `DiscoveryClient` an {@link IncrementalDiscovery} reads through. */
export interface DiscoveryReader {
  serverGroups(options: { signal?: AbortSignal | undefined }): Promise<ApiGroupInfo[]>;
  serverResourcesForGroupVersion(
    group: string,
    version: string,
    options: { signal?: AbortSignal | undefined },
  ): Promise<ApiResourceInfo[]>;
  invalidate(): void;
}

/** @internal A {@link DiscoverySource} that rereads only changed groups (see the file comment). */
export class IncrementalDiscovery implements DiscoverySource {
  readonly #reader: DiscoveryReader;
  readonly #known = new Map<string, ApiResourceInfo[]>();
  readonly #changed = new Set<string>();
  #all = true;

  constructor(reader: DiscoveryReader) {
    this.#reader = reader;
  }

  /** Read everything at the next `discover`. */
  invalidate(): void {
    this.#all = true;
  }

  /** Read `group`'s versions again at the next `discover`. */
  changed(group: string): void {
    this.#changed.add(group);
  }

  async discover(options: { signal?: AbortSignal | undefined }): Promise<DiscoveryResult> {
    const all = this.#all;
    const changed = new Set(this.#changed);
    this.#changed.clear();
    this.#all = false;
    this.#reader.invalidate();
    let groups: ApiGroupInfo[];
    try {
      groups = await this.#reader.serverGroups(options);
    } catch (error) {
      this.#all = this.#all || all;
      for (const group of changed) this.#changed.add(group);
      throw error;
    }
    const failed = new Map<string, Error>();
    const served = new Set<string>();
    const lists = await Promise.all(
      groups.flatMap((group) =>
        group.versions.map(async (version) => {
          const key = group.name === '' ? version : `${group.name}/${version}`;
          served.add(key);
          const known = this.#known.get(key);
          if (!all && known !== undefined && !changed.has(group.name)) return known;
          try {
            const resources = await this.#reader.serverResourcesForGroupVersion(
              group.name,
              version,
              options,
            );
            this.#known.set(key, resources);
            return resources;
          } catch (error) {
            this.#known.delete(key);
            failed.set(key, error instanceof Error ? error : new Error(errorMessage(error)));
            return [];
          }
        }),
      ),
    );
    for (const key of [...this.#known.keys()]) if (!served.has(key)) this.#known.delete(key);
    return { groups, resources: lists.flat(), failed };
  }
}
