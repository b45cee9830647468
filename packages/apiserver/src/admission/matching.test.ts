import { describe, expect, it } from 'vitest';
import {
  objectSelectorMatches,
  type RuleAttributes,
  ruleMatches,
  selectorMatches,
} from './matching.ts';

const pods: RuleAttributes = {
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'team',
  isNamespace: false,
};

function rule(resources: string[], extra: Record<string, unknown> = {}) {
  return { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources, ...extra };
}

describe('ruleMatches', () => {
  it('reads resource wildcards as kube does: * is every resource without subresources, pods/* pods and theirs', () => {
    const status = { ...pods, subresource: 'status' };
    expect(ruleMatches(rule(['*']), pods)).toBe(true);
    expect(ruleMatches(rule(['*']), status)).toBe(false);
    expect(ruleMatches(rule(['*/*']), status)).toBe(true);
    expect(ruleMatches(rule(['pods/*']), status)).toBe(true);
    expect(ruleMatches(rule(['pods/*']), pods)).toBe(true);
    expect(ruleMatches(rule(['*/status']), status)).toBe(true);
    expect(ruleMatches(rule(['pods/status']), status)).toBe(true);
    expect(ruleMatches(rule(['pods']), status)).toBe(false);
    expect(ruleMatches(rule(['deployments']), pods)).toBe(false);
  });

  it('matches operations, groups and versions by name or *', () => {
    expect(ruleMatches(rule(['pods'], { operations: ['UPDATE'] }), pods)).toBe(false);
    expect(ruleMatches(rule(['pods'], { operations: ['CREATE'] }), pods)).toBe(true);
    expect(ruleMatches(rule(['pods'], { apiGroups: ['apps'] }), pods)).toBe(false);
    expect(ruleMatches(rule(['pods'], { apiVersions: ['v2'] }), pods)).toBe(false);
    expect(ruleMatches(rule(['pods'], { operations: [] }), pods)).toBe(false);
  });

  it('takes a Namespace as cluster-scoped whatever its request namespace', () => {
    const namespace: RuleAttributes = {
      ...pods,
      resource: 'namespaces',
      namespace: 'team',
      isNamespace: true,
    };
    expect(ruleMatches(rule(['namespaces'], { scope: 'Cluster' }), namespace)).toBe(true);
    expect(ruleMatches(rule(['namespaces'], { scope: 'Namespaced' }), namespace)).toBe(false);
    expect(ruleMatches(rule(['pods'], { scope: 'Namespaced' }), pods)).toBe(true);
    expect(ruleMatches(rule(['pods'], { scope: 'Cluster' }), pods)).toBe(false);
    expect(ruleMatches(rule(['pods'], { scope: '*' }), pods)).toBe(true);
  });
});

describe('selectors', () => {
  it('matches matchLabels and every matchExpressions operator; {} selects everything', () => {
    const labels = { app: 'web', tier: 'front' };
    expect(selectorMatches({}, labels)).toBe(true);
    expect(selectorMatches(undefined, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { app: 'web' } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { app: 'db' } }, labels)).toBe(false);
    const expression = (operator: string, values?: string[]) => ({
      matchExpressions: [{ key: 'tier', operator, ...(values ? { values } : {}) }],
    });
    expect(selectorMatches(expression('In', ['front', 'back']), labels)).toBe(true);
    expect(selectorMatches(expression('NotIn', ['front']), labels)).toBe(false);
    expect(selectorMatches(expression('Exists'), labels)).toBe(true);
    expect(selectorMatches(expression('DoesNotExist'), labels)).toBe(false);
    expect(selectorMatches(expression('Bogus'), labels)).toBe(false);
  });

  it('selects an object by its new or its old labels, never an absent one', () => {
    const selector = { matchLabels: { keep: 'yes' } };
    const labelled = { metadata: { labels: { keep: 'yes' } } };
    const plain = { metadata: {} };
    expect(objectSelectorMatches(selector, plain, labelled)).toBe(true);
    expect(objectSelectorMatches(selector, labelled, undefined)).toBe(true);
    expect(objectSelectorMatches(selector, plain, plain)).toBe(false);
    expect(objectSelectorMatches(selector, undefined, undefined)).toBe(false);
    expect(objectSelectorMatches({}, undefined, undefined)).toBe(true);
  });
});
