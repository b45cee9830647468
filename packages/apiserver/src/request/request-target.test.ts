import { describe, expect, it } from 'vitest';
import { parseRequestTarget } from './request-target.ts';

describe('parseRequestTarget', () => {
  it.for([
    ['/api/v1/namespaces/victim/configmaps/..', '/api/v1/namespaces/victim/configmaps/..'],
    ['/api/v1/namespaces/ns/configmaps/.', '/api/v1/namespaces/ns/configmaps/.'],
    ['/api/v1/namespaces/ns/configmaps/%2e%2E', '/api/v1/namespaces/ns/configmaps/..'],
    ['/api/v1/namespaces/x/../ns/configmaps/a', '/api/v1/namespaces/x/../ns/configmaps/a'],
    ['//api/v1/namespaces//configmaps/', '//api/v1/namespaces//configmaps/'],
    ['/api/v1/namespaces/ns/configmaps/a%2Fb', '/api/v1/namespaces/ns/configmaps/a/b'],
    ['/api/v1/namespaces/ns/configmaps/a%25b', '/api/v1/namespaces/ns/configmaps/a%b'],
    ['/api/v1/namespaces/ns/configmaps/%E2%9C%93%zz', '/api/v1/namespaces/ns/configmaps/✓%zz'],
    ['', '/'],
  ] as const)(
    'keeps %s as %s (no dot-segment removal, decoded as Go decodes)',
    ([target, path]) => {
      expect(parseRequestTarget(target).pathname).toBe(path);
    },
  );

  it('reads the query as URLSearchParams, and the absolute form', () => {
    const target = parseRequestTarget(
      'https://127.0.0.1:6443/api/v1/pods/..?watch=1&labelSelector=a%3Db#x',
    );
    expect(target.pathname).toBe('/api/v1/pods/..');
    expect(target.searchParams.get('watch')).toBe('1');
    expect(target.searchParams.get('labelSelector')).toBe('a=b');
  });
});
