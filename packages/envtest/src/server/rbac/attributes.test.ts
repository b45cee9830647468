import { describe, expect, it } from 'vitest';
import { requestAttributes } from './attributes.ts';

const user = { name: 'u', groups: [] };
const at = (method: string, path: string) =>
  requestAttributes(method, new URL(path, 'https://127.0.0.1'), user);

describe('requestAttributes (kube RequestInfoFactory)', () => {
  it('treats discovery and other paths as non-resource requests with the lowercased method', () => {
    for (const path of [
      '/',
      '/api',
      '/api/v1',
      '/apis',
      '/apis/apps',
      '/apis/apps/v1',
      '/version',
      '/openapi/v3',
    ]) {
      expect(at('GET', path)).toEqual({ user, verb: 'get', path });
    }
    expect(at('HEAD', '/healthz')).toEqual({ user, verb: 'head', path: '/healthz' });
  });

  it('derives verb, scope and name of resource requests', () => {
    expect(at('GET', '/api/v1/namespaces/ns/configmaps')).toMatchObject({
      verb: 'list',
      namespace: 'ns',
      resource: 'configmaps',
      name: '',
    });
    expect(at('GET', '/api/v1/namespaces/ns/configmaps?watch=true')).toMatchObject({
      verb: 'watch',
    });
    expect(at('GET', '/api/v1/namespaces/ns/configmaps?watch=0')).toMatchObject({ verb: 'list' });
    expect(at('GET', '/api/v1/watch/namespaces/ns/configmaps')).toMatchObject({
      verb: 'watch',
      namespace: 'ns',
      resource: 'configmaps',
    });
    expect(at('GET', '/api/v1/namespaces/ns/configmaps/a')).toMatchObject({
      verb: 'get',
      name: 'a',
    });
    expect(at('DELETE', '/api/v1/namespaces/ns/configmaps')).toMatchObject({
      verb: 'deletecollection',
    });
    expect(at('DELETE', '/api/v1/namespaces/ns/configmaps/a')).toMatchObject({
      verb: 'delete',
      name: 'a',
    });
    expect(at('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale')).toMatchObject({
      verb: 'update',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      name: 'd',
      subresource: 'scale',
    });
    expect(at('GET', '/api/v1/pods')).toMatchObject({
      verb: 'list',
      namespace: '',
      resource: 'pods',
    });
  });

  it('gives a namespace its own name as namespace, and keeps its status subresource', () => {
    expect(at('GET', '/api/v1/namespaces/a')).toMatchObject({
      resource: 'namespaces',
      namespace: 'a',
      name: 'a',
    });
    expect(at('PUT', '/api/v1/namespaces/a/status')).toMatchObject({
      resource: 'namespaces',
      name: 'a',
      subresource: 'status',
    });
    expect(at('PUT', '/api/v1/namespaces/a/finalize')).toMatchObject({ subresource: 'finalize' });
  });

  it('takes the name of a list or watch from a metadata.name field selector', () => {
    expect(
      at('GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dx'),
    ).toMatchObject({ verb: 'list', name: 'x' });
    expect(
      at('GET', '/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=metadata.name%3D%3Dx'),
    ).toMatchObject({ verb: 'watch', name: 'x' });
    expect(
      at('GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name!%3Dx'),
    ).toMatchObject({ name: '' });
  });
});
