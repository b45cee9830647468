import { describe, expect, it } from 'vitest';
import { type RequestInfo, requestInfo } from './request-info.ts';

const classify = (method: string, target: string): RequestInfo =>
  requestInfo(method, new URL(target, 'https://127.0.0.1'));

/** The fields a row pins; the rest of a resource request's fields are '' (parts are derived). */
type Expected = Partial<Omit<RequestInfo, 'query'>>;

const resource = (expected: Expected): Expected => ({
  isResourceRequest: true,
  apiGroup: '',
  apiVersion: 'v1',
  subresource: '',
  name: '',
  ...expected,
});

describe('requestInfo (kube RequestInfoFactory)', () => {
  it('classifies discovery, version, health and unknown paths as non-resource requests', () => {
    const rows: Array<[string, string]> = [
      ['GET', '/'],
      ['GET', '/api'],
      ['GET', '/api/v1'],
      ['GET', '/api/v1/'],
      ['GET', '/apis'],
      ['GET', '/apis/apps'],
      ['GET', '/apis/apps/v1'],
      ['GET', '/version'],
      ['GET', '/openapi/v3/apis/apps/v1'],
      ['HEAD', '/healthz'],
      ['POST', '/version'],
      ['GET', '/nothing/at/all/here'],
    ];
    for (const [method, path] of rows) {
      expect(classify(method, path), `${method} ${path}`).toMatchObject({
        isResourceRequest: false,
        path,
        verb: method.toLowerCase(),
        resource: '',
        parts: [],
      });
    }
  });

  const rows: Array<[string, string, Expected]> = [
    // Verbs from methods, and list/get, delete/deletecollection by whether the path names an object.
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps',
      resource({ verb: 'list', apiPrefix: 'api', namespace: 'ns', resource: 'configmaps' }),
    ],
    [
      'HEAD',
      '/api/v1/namespaces/ns/configmaps/a',
      resource({
        verb: 'get',
        namespace: 'ns',
        resource: 'configmaps',
        name: 'a',
        parts: ['configmaps', 'a'],
      }),
    ],
    [
      'POST',
      '/api/v1/namespaces/ns/configmaps',
      resource({ verb: 'create', resource: 'configmaps' }),
    ],
    ['PUT', '/api/v1/namespaces/ns/configmaps/a', resource({ verb: 'update', name: 'a' })],
    ['PATCH', '/api/v1/namespaces/ns/configmaps/a', resource({ verb: 'patch', name: 'a' })],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/a', resource({ verb: 'delete', name: 'a' })],
    [
      'DELETE',
      '/api/v1/namespaces/ns/configmaps',
      resource({ verb: 'deletecollection', name: '' }),
    ],
    // Methods no verb stands for classify with the empty verb (routing answers 405).
    ['OPTIONS', '/api/v1/namespaces/ns/configmaps', resource({ verb: '', resource: 'configmaps' })],
    // Collections across namespaces and cluster-scoped resources.
    [
      'GET',
      '/api/v1/pods',
      resource({ verb: 'list', namespace: '', resource: 'pods', parts: ['pods'] }),
    ],
    [
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin',
      resource({
        verb: 'get',
        apiPrefix: 'apis',
        apiGroup: 'rbac.authorization.k8s.io',
        namespace: '',
        resource: 'clusterroles',
        name: 'admin',
      }),
    ],
    // A namespace is its own namespace; status and finalize are its subresources, not resources in it.
    [
      'GET',
      '/api/v1/namespaces',
      resource({ verb: 'list', namespace: '', resource: 'namespaces', parts: ['namespaces'] }),
    ],
    [
      'GET',
      '/api/v1/namespaces/x',
      resource({
        verb: 'get',
        namespace: 'x',
        resource: 'namespaces',
        name: 'x',
        parts: ['namespaces', 'x'],
      }),
    ],
    [
      'PUT',
      '/api/v1/namespaces/x/status',
      resource({
        verb: 'update',
        namespace: 'x',
        resource: 'namespaces',
        name: 'x',
        subresource: 'status',
      }),
    ],
    [
      'PUT',
      '/api/v1/namespaces/x/finalize',
      resource({ verb: 'update', resource: 'namespaces', name: 'x', subresource: 'finalize' }),
    ],
    // In any group, as kube has it (no group serves a resource named status).
    [
      'GET',
      '/apis/apps/v1/namespaces/x/status',
      resource({
        verb: 'get',
        apiGroup: 'apps',
        namespace: 'x',
        resource: 'namespaces',
        name: 'x',
        subresource: 'status',
      }),
    ],
    // The subresource/name split; what follows a subresource stays in parts.
    [
      'PUT',
      '/apis/apps/v1/namespaces/ns/deployments/d/scale',
      resource({
        verb: 'update',
        apiGroup: 'apps',
        namespace: 'ns',
        resource: 'deployments',
        name: 'd',
        subresource: 'scale',
        parts: ['deployments', 'd', 'scale'],
      }),
    ],
    [
      'GET',
      '/api/v1/namespaces/ns/pods/p/log/extra',
      resource({
        verb: 'get',
        resource: 'pods',
        name: 'p',
        subresource: 'log',
        parts: ['pods', 'p', 'log', 'extra'],
      }),
    ],
    // The watch prefix is the verb whatever the method, and takes no field-selector name.
    [
      'GET',
      '/api/v1/watch/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da',
      resource({
        verb: 'watch',
        namespace: 'ns',
        resource: 'configmaps',
        name: '',
        parts: ['configmaps'],
      }),
    ],
    [
      'GET',
      '/api/v1/watch/namespaces/ns/configmaps/a',
      resource({ verb: 'watch', namespace: 'ns', resource: 'configmaps', name: 'a' }),
    ],
    ['DELETE', '/api/v1/watch/configmaps', resource({ verb: 'watch', resource: 'configmaps' })],
    // A verb word with nothing after it is an ordinary segment (kube fails it; routing answers 404).
    ['GET', '/api/v1/watch', resource({ verb: 'list', resource: 'watch', parts: ['watch'] })],
    // proxy takes no subresource: the segment after the name stays in parts alone.
    [
      'GET',
      '/api/v1/proxy/namespaces/ns/pods/p/path',
      resource({
        verb: 'proxy',
        namespace: 'ns',
        resource: 'pods',
        name: 'p',
        subresource: '',
        parts: ['pods', 'p', 'path'],
      }),
    ],
    // ?watch on collections: only 0 and false (any case) are false; never on a named get.
    ['GET', '/api/v1/configmaps?watch=true', resource({ verb: 'watch' })],
    ['GET', '/api/v1/configmaps?watch=1', resource({ verb: 'watch' })],
    ['GET', '/api/v1/configmaps?watch=yes', resource({ verb: 'watch' })],
    ['GET', '/api/v1/configmaps?watch=', resource({ verb: 'watch' })],
    ['GET', '/api/v1/configmaps?watch=0', resource({ verb: 'list' })],
    ['GET', '/api/v1/configmaps?watch=FALSE', resource({ verb: 'list' })],
    ['GET', '/api/v1/configmaps?watch=false&watch=true', resource({ verb: 'list' })],
    ['GET', '/api/v1/namespaces/ns/configmaps/a?watch=true', resource({ verb: 'get', name: 'a' })],
    // A metadata.name field selector names the object a list or watch is of.
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dx',
      resource({ verb: 'list', name: 'x', parts: ['configmaps'] }),
    ],
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=metadata.name%3D%3Dx',
      resource({ verb: 'watch', name: 'x' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.namespace%3Dns,metadata.name%3Dx',
      resource({ verb: 'list', name: 'x' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name!%3Dx',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3D',
      resource({ verb: 'list', name: '' }),
    ],
    // ... but not a name that could not be a path segment, nor when the options do not decode.
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Da%2Fb',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3D..',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dx&limit=abc',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dx&limit=',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dx&limit=5',
      resource({ verb: 'list', name: 'x' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dx&timeoutSeconds=99999999999999999999',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dx&labelSelector=a%20in',
      resource({ verb: 'list', name: '' }),
    ],
    [
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dx,nonsense',
      resource({ verb: 'list', name: '' }),
    ],
    // A bad watch value still watches; the selector is then not read.
    [
      'GET',
      '/api/v1/configmaps?watch=true&limit=x&fieldSelector=metadata.name%3Dx',
      resource({ verb: 'watch', name: '' }),
    ],
    // Only lists and watches read it.
    [
      'DELETE',
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dx',
      resource({ verb: 'deletecollection', name: '' }),
    ],
    // Empty segments inside the path are kept, as Go's split keeps them.
    [
      'GET',
      '/api/v1//configmaps',
      resource({ verb: 'get', resource: '', name: 'configmaps', parts: ['', 'configmaps'] }),
    ],
  ];

  it.each(rows)('classifies %s %s', (method, target, expected) => {
    const info = classify(method, target);
    expect(info).toMatchObject(expected);
    expect(info.path).toBe(new URL(target, 'https://127.0.0.1').pathname);
  });

  it('carries the query, and not the user (it travels beside the RequestInfo, as in kube)', () => {
    const info = classify('GET', '/api/v1/configmaps?limit=3&labelSelector=a%3Db');
    expect(Object.keys(info)).not.toContain('user');
    expect(info.query.get('limit')).toBe('3');
    expect(info.query.get('labelSelector')).toBe('a=b');
  });
});
