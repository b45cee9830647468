import { describe, expect, it } from 'vitest';
import { Store } from '../storage/store.ts';
import { aggregatedRules, ClusterRoleAggregator } from './aggregation.ts';
import { bootstrapClusterRoles } from './bootstrap-policy.ts';
import { rbacKeys } from './rule-resolver.ts';

const get = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
const list = { verbs: ['list'], apiGroups: [''], resources: ['pods'] };

describe('aggregatedRules', () => {
  it('unites the rules of matching roles by name order, once each, never the role itself', () => {
    const role = {
      metadata: { name: 'agg', labels: { a: 'true' } },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { a: 'true' } },
          { matchExpressions: [{ key: 'b', operator: 'Exists' }] },
        ],
      },
    };
    const roles = [
      role,
      { metadata: { name: 'z', labels: { a: 'true' } }, rules: [list] },
      { metadata: { name: 'y', labels: { a: 'true' } }, rules: [get] },
      { metadata: { name: 'x', labels: { b: '' } }, rules: [get, list] },
      { metadata: { name: 'w', labels: { a: 'false' } }, rules: [{ ...get, verbs: ['delete'] }] },
    ];
    expect(aggregatedRules(role, roles)).toEqual([get, list]);
  });
});

describe('ClusterRoleAggregator', () => {
  it('aggregates the bootstrap roles at start and follows a labelled role', async () => {
    const store = new Store();
    for (const role of bootstrapClusterRoles()) store.create(rbacKeys.clusterRoles, role);
    const writes: string[] = [];
    const aggregator = new ClusterRoleAggregator({
      store,
      update: (role) => {
        writes.push(String(role.metadata?.name));
        store.update(rbacKeys.clusterRoles, role);
      },
      onError: (error) => {
        throw error;
      },
    });
    aggregator.start();
    await Promise.resolve();
    await Promise.resolve();
    const rules = (name: string) =>
      (store.get(rbacKeys.clusterRoles, '', name)?.rules ?? []) as Array<{ resources?: string[] }>;
    expect(rules('view').some((rule) => rule.resources?.includes('pods'))).toBe(true);
    // admin aggregates edit, which aggregates view: everything view may do, admin may.
    expect(rules('admin').length).toBeGreaterThan(rules('edit').length);
    expect(rules('edit').length).toBeGreaterThan(rules('view').length);

    store.create(rbacKeys.clusterRoles, {
      metadata: {
        name: 'widgets',
        labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
      },
      rules: [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }],
    });
    for (let round = 0; round < 5; round += 1) await Promise.resolve();
    for (const name of ['view', 'edit', 'admin']) {
      expect(rules(name).some((rule) => rule.resources?.includes('widgets'))).toBe(true);
    }
    const before = writes.length;
    aggregator.sync();
    expect(writes.length).toBe(before);
    aggregator.stop();
  });
});
