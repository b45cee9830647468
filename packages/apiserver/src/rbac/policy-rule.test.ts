import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from './attributes.ts';
import { type PolicyRule, ruleAllows } from './policy-rule.ts';

const user = { name: 'u', groups: [] };

function resource(
  verb: string,
  group: string,
  resourceName: string,
  options: { subresource?: string; name?: string; namespace?: string } = {},
): AuthorizationAttributes {
  return {
    user,
    verb,
    group,
    version: 'v1',
    resource: resourceName,
    subresource: options.subresource ?? '',
    namespace: options.namespace ?? 'default',
    name: options.name ?? '',
  };
}

const path = (verb: string, url: string): AuthorizationAttributes => ({ user, verb, path: url });

describe('ruleAllows (kube evaluation helpers)', () => {
  const cases: Array<[string, PolicyRule, AuthorizationAttributes, boolean]> = [
    [
      'exact verb, group, resource',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      resource('get', '', 'configmaps'),
      true,
    ],
    [
      'other verb',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      resource('list', '', 'configmaps'),
      false,
    ],
    [
      'verb *',
      { verbs: ['*'], apiGroups: [''], resources: ['configmaps'] },
      resource('deletecollection', '', 'configmaps'),
      true,
    ],
    [
      'other group',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] },
      resource('get', '', 'configmaps'),
      false,
    ],
    [
      'group *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] },
      resource('get', 'apps', 'deployments'),
      true,
    ],
    [
      'no apiGroups matches nothing',
      { verbs: ['get'], resources: ['configmaps'] },
      resource('get', '', 'configmaps'),
      false,
    ],
    [
      'resource *',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      resource('get', '', 'secrets'),
      true,
    ],
    [
      'resource * covers subresources',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      resource('get', '', 'pods', { subresource: 'status' }),
      true,
    ],
    [
      'resource does not grant its subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      resource('get', '', 'pods', { subresource: 'status' }),
      false,
    ],
    [
      'subresource does not grant its resource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/status'] },
      resource('get', '', 'pods'),
      false,
    ],
    [
      'exact subresource',
      { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] },
      resource('update', '', 'pods', { subresource: 'status' }),
      true,
    ],
    [
      '*/scale for any resource',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      resource('get', 'apps', 'deployments', { subresource: 'scale' }),
      true,
    ],
    [
      '*/scale is not */status',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      resource('get', 'apps', 'deployments', { subresource: 'status' }),
      false,
    ],
    [
      '*/scale without a subresource',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      resource('get', 'apps', 'deployments'),
      false,
    ],
    [
      'pods/* is no wildcard',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] },
      resource('get', '', 'pods', { subresource: 'status' }),
      false,
    ],
    [
      'resourceNames match the name',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      resource('get', '', 'configmaps', { name: 'a' }),
      true,
    ],
    [
      'resourceNames refuse another name',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      resource('get', '', 'configmaps', { name: 'b' }),
      false,
    ],
    [
      'resourceNames refuse a nameless list',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      resource('list', '', 'configmaps'),
      false,
    ],
    [
      'resource rule never grants a path',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      path('get', '/healthz'),
      false,
    ],
    [
      'exact path',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      path('get', '/healthz'),
      true,
    ],
    [
      'path is not a prefix without *',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      path('get', '/healthz/etcd'),
      false,
    ],
    [
      'trailing * is a prefix',
      { verbs: ['get'], nonResourceURLs: ['/healthz*'] },
      path('get', '/healthz/etcd'),
      true,
    ],
    [
      '/api/* under /api',
      { verbs: ['get'], nonResourceURLs: ['/api/*'] },
      path('get', '/api/v1'),
      true,
    ],
    [
      '/api/* is not /api',
      { verbs: ['get'], nonResourceURLs: ['/api/*'] },
      path('get', '/api'),
      false,
    ],
    ['path *', { verbs: ['get'], nonResourceURLs: ['*'] }, path('get', '/anything'), true],
    [
      'path verb is the method',
      { verbs: ['get'], nonResourceURLs: ['*'] },
      path('post', '/anything'),
      false,
    ],
    [
      'path rule never grants a resource',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      resource('get', '', 'configmaps'),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, rule, attributes, allowed) => {
    expect(ruleAllows(attributes, rule)).toBe(allowed);
  });
});
