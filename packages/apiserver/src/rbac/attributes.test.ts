import { describe, expect, it } from 'vitest';
import { requestInfo } from '../request/request-info.ts';
import { authorizationAttributes } from './attributes.ts';

const user = { name: 'u', groups: [] };
const at = (method: string, path: string) =>
  authorizationAttributes(requestInfo(method, new URL(path, 'https://127.0.0.1')), user);

describe('authorizationAttributes (kube GetAuthorizerAttributes)', () => {
  it('gives non-resource requests their path and lowercased method', () => {
    expect(at('GET', '/apis/apps')).toEqual({ user, verb: 'get', path: '/apis/apps' });
    expect(at('HEAD', '/healthz/')).toEqual({ user, verb: 'head', path: '/healthz/' });
  });

  it('gives resource requests their classification, a namespace its own name as namespace', () => {
    expect(at('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale')).toEqual({
      user,
      verb: 'update',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'ns',
      name: 'd',
    });
    expect(at('GET', '/api/v1/namespaces/a')).toEqual({
      user,
      verb: 'get',
      group: '',
      version: 'v1',
      resource: 'namespaces',
      subresource: '',
      namespace: 'a',
      name: 'a',
    });
  });

  it('authorizes a list or watch of one object by the name its field selector pins', () => {
    expect(
      at('GET', '/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=metadata.name%3Dx'),
    ).toMatchObject({ verb: 'watch', resource: 'configmaps', namespace: 'ns', name: 'x' });
  });
});
