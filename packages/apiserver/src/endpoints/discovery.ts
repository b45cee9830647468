// Discovery documents of the local API server: /version, /api, /api/v1, /apis, /apis/{group}[/{version}]
// (the legacy, non-aggregated shapes of k8s.io/apimachinery/pkg/apis/meta/v1 APIVersions/APIGroupList).

import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';

/**
 * The newest released kube-apiserver minor version (1.37, released 2026-08-26; 1.38 is due 2026-12-16):
 * the release whose answers the built-in server gives, and the one it reports.
 */
export const newestReleasedMinor = 37;

/**
 * `/version` of the built-in server: kube-apiserver's version.Info for the newest release, field for field
 * (the emulation and minimum compatibility versions appeared in 1.33; a binary emulates its own release and
 * stays compatible with the one before).
 */
export const builtinVersion = {
  major: '1',
  minor: String(newestReleasedMinor),
  emulationMajor: '1',
  emulationMinor: String(newestReleasedMinor),
  minCompatibilityMajor: '1',
  minCompatibilityMinor: String(newestReleasedMinor - 1),
  gitVersion: `v1.${newestReleasedMinor}.0`,
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-08-26T00:00:00Z',
  goVersion: 'go1.26.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** `/api`. */
export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(group: { name: string; versions: string[] }): Record<string, unknown> {
  const versions = group.versions.map((version) => ({
    groupVersion: `${group.name}/${version}`,
    version,
  }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/** `/apis`. */
export function groupList(registry: Registry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: registry.groups().map(groupDocument) };
}

/** `/apis/{group}`, or undefined when the group is not served. */
export function group(registry: Registry, name: string): Record<string, unknown> | undefined {
  const found = registry.groups().find((candidate) => candidate.name === name);
  if (found === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(found) };
}

function resourceEntries(info: ResourceInfo): Array<Record<string, unknown>> {
  const main: Record<string, unknown> = {
    name: info.resource,
    singularName: info.singularName,
    namespaced: info.namespaced,
    kind: info.kind,
    verbs: info.verbs,
  };
  if (info.shortNames.length > 0) main.shortNames = info.shortNames;
  if (info.categories.length > 0) main.categories = info.categories;
  const entries = [main];
  for (const subresource of info.subresources) {
    const entry: Record<string, unknown> = {
      name: `${info.resource}/${subresource}`,
      singularName: '',
      namespaced: info.namespaced,
      kind: info.kind,
      verbs: ['get', 'patch', 'update'],
    };
    if (subresource === 'scale') {
      entry.group = 'autoscaling';
      entry.version = 'v1';
      entry.kind = 'Scale';
    } else if (subresource === 'finalize') {
      entry.verbs = ['update'];
    } else if (subresource === 'log') {
      entry.kind = 'Pod';
      entry.verbs = ['get'];
    } else if (subresource === 'proxy') {
      entry.kind = info.kind === 'Pod' ? 'PodProxyOptions' : 'ServiceProxyOptions';
      entry.verbs = ['create', 'delete', 'get', 'patch', 'update'];
    } else if (subresource === 'binding') {
      entry.kind = 'Binding';
      entry.verbs = ['create'];
    } else if (subresource === 'eviction') {
      entry.group = 'policy';
      entry.version = 'v1';
      entry.kind = 'Eviction';
      entry.verbs = ['create'];
    } else if (subresource === 'token') {
      entry.group = 'authentication.k8s.io';
      entry.version = 'v1';
      entry.kind = 'TokenRequest';
      entry.verbs = ['create'];
    }
    entries.push(entry);
  }
  return entries;
}

/** `/api/v1` or `/apis/{group}/{version}`, or undefined when not served. */
export function resourceList(
  registry: Registry,
  groupName: string,
  version: string,
): Record<string, unknown> | undefined {
  const resources = registry.groupVersion(groupName, version);
  if (resources === undefined) return undefined;
  // kube's API installer registers a built-in group-version's storage paths in sort.Strings order,
  // subresources included (`deployments`, `deployments/scale`, `deployments/status`): byte order of the
  // whole name, as Go compares strings. The CRD discovery controller does not sort: each CRD (in its
  // lister's order, which is a map's; here by plural) lists its resource, then `/status`, then `/scale`.
  const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...resources].sort((a, b) => byName(a.resource, b.resource));
  const entries = sorted.flatMap(resourceEntries);
  if (sorted.every((info) => info.builtin)) {
    entries.sort((a, b) => byName(String(a.name), String(b.name)));
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupName === '' ? version : `${groupName}/${version}`,
    resources: entries,
  };
}
