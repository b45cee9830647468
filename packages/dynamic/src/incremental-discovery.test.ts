import type { ApiGroupInfo, ApiResourceInfo } from '@lasso/client';
import { describe, expect, it } from 'vitest';
import { type DiscoveryReader, IncrementalDiscovery } from './incremental-discovery.ts';

function reader(groups: ApiGroupInfo[]) {
  const reads: string[] = [];
  const failing = new Set<string>();
  const fake: DiscoveryReader & { reads: string[]; groups: ApiGroupInfo[]; failing: Set<string> } =
    {
      reads,
      groups,
      failing,
      async serverGroups() {
        reads.push('groups');
        return fake.groups;
      },
      async serverResourcesForGroupVersion(group, version) {
        const key = group === '' ? version : `${group}/${version}`;
        reads.push(key);
        if (failing.has(key)) throw new Error(`${key} unavailable`);
        const resource: ApiResourceInfo = {
          group,
          version,
          name: `things-${reads.length}`,
          singularName: 'thing',
          kind: 'Thing',
          namespaced: true,
          verbs: ['list', 'watch'],
          shortNames: [],
        };
        return [resource];
      },
      invalidate() {},
    };
  return fake;
}

const group = (name: string, ...versions: string[]): ApiGroupInfo => ({
  name,
  versions,
  preferredVersion: versions[0] as string,
});

describe('IncrementalDiscovery', () => {
  it('reads every group version first, then only new, changed and failed ones', async () => {
    const fake = reader([group('', 'v1'), group('apps', 'v1'), group('a.example.com', 'v1')]);
    const discovery = new IncrementalDiscovery(fake);
    await discovery.discover({});
    expect(fake.reads.splice(0)).toEqual(['groups', 'v1', 'apps/v1', 'a.example.com/v1']);

    // A CRD of a.example.com changed, and b.example.com appeared; metrics fails.
    fake.groups = [
      ...fake.groups,
      group('b.example.com', 'v1'),
      group('metrics.k8s.io', 'v1beta1'),
    ];
    fake.failing.add('metrics.k8s.io/v1beta1');
    discovery.changed('a.example.com');
    const second = await discovery.discover({});
    expect(fake.reads.splice(0).sort()).toEqual(
      ['groups', 'a.example.com/v1', 'b.example.com/v1', 'metrics.k8s.io/v1beta1'].sort(),
    );
    expect([...second.failed.keys()]).toEqual(['metrics.k8s.io/v1beta1']);
    expect(second.resources.map((resource) => resource.group).sort()).toEqual(
      ['', 'a.example.com', 'apps', 'b.example.com'].sort(),
    );

    // Nothing changed: only the group list, and the failed group version again.
    fake.failing.clear();
    await discovery.discover({});
    expect(fake.reads.splice(0)).toEqual(['groups', 'metrics.k8s.io/v1beta1']);

    // A group gone is gone from the result; invalidate() reads everything again.
    fake.groups = fake.groups.filter((g) => g.name !== 'b.example.com');
    discovery.invalidate();
    const fourth = await discovery.discover({});
    expect(fake.reads.splice(0)).toHaveLength(5);
    expect(fourth.resources.some((resource) => resource.group === 'b.example.com')).toBe(false);
  });
});
