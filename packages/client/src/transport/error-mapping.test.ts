import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { status } from '../../test/helpers/loopback.ts';
import { isNotFound, isTooManyRequests } from '../errors.ts';
import { apiErrorFrom } from './error-mapping.ts';

describe('apiErrorFrom', () => {
  it('builds the error from a Status body with its reason, details and causes', () => {
    const error = apiErrorFrom(
      { method: 'POST', path: '/api/v1/namespaces/default/configmaps' },
      422,
      {},
      JSON.stringify(
        status(422, 'Invalid', 'ConfigMap "x" is invalid', {
          details: {
            name: 'x',
            kind: 'configmaps',
            causes: [{ type: 'FieldValueInvalid', field: 'metadata.name', message: 'bad' }],
          },
        }),
      ),
    );
    expect(error).toMatchObject({
      status: 422,
      reason: 'Invalid',
      message: 'create configmaps in namespace "default": ConfigMap "x" is invalid',
    });
    expect(error.causes).toEqual([
      { type: 'FieldValueInvalid', field: 'metadata.name', message: 'bad' },
    ]);
    expect(error.details?.name).toBe('x');
  });

  it('derives the reason from the HTTP status for a non-Status body', () => {
    const error = apiErrorFrom(
      { method: 'GET', path: '/api/v1/pods' },
      404,
      { 'content-type': 'text/plain; charset=utf-8' },
      '404 page not found',
    );
    expect(isNotFound(error)).toBe(true);
    expect(error.message).toContain('404 page not found');
    expect(apiErrorFrom({ method: 'GET', path: '/x' }, 409, {}, '').reason).toBe('Conflict');
  });

  it('takes retryAfterMs from the Retry-After header over the details', () => {
    const error = apiErrorFrom(
      { method: 'GET', path: '/x' },
      429,
      { 'retry-after': '3' },
      JSON.stringify(
        status(429, 'TooManyRequests', 'slow down', { details: { retryAfterSeconds: 7 } }),
      ),
    );
    expect(error.retryAfterMs).toBe(3000);
    expect(isTooManyRequests(error)).toBe(true);
  });
});

describe('apiErrorFrom: what was asked', () => {
  const notFound = JSON.stringify(status(404, 'NotFound', 'the server could not find it'));
  it.for([
    {
      name: 'a get of a namespaced object',
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps/a',
      query: undefined,
      prefix: 'get configmaps "a" in namespace "default"',
      request: {
        verb: 'get',
        group: '',
        version: 'v1',
        resource: 'configmaps',
        namespace: 'default',
        name: 'a',
      },
    },
    {
      name: 'a list across namespaces of a grouped resource',
      method: 'GET',
      path: '/apis/apps/v1/deployments',
      query: { limit: 500 },
      prefix: 'list deployments.apps',
      request: { verb: 'list', group: 'apps', version: 'v1', resource: 'deployments' },
    },
    {
      name: 'a watch',
      method: 'GET',
      path: '/apis/apps/v1/namespaces/prod/deployments',
      query: { watch: 'true', resourceVersion: '7' },
      prefix: 'watch deployments.apps in namespace "prod"',
      request: { verb: 'watch', resource: 'deployments', namespace: 'prod' },
    },
    {
      name: 'an update of a subresource',
      method: 'PUT',
      path: '/apis/apps/v1/namespaces/prod/deployments/web/status',
      query: undefined,
      prefix: 'update deployments.apps/status "web" in namespace "prod"',
      request: { verb: 'update', resource: 'deployments', subresource: 'status', name: 'web' },
    },
    {
      name: 'a create',
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      query: undefined,
      prefix: 'create configmaps in namespace "default"',
      request: { verb: 'create', resource: 'configmaps', namespace: 'default' },
    },
    {
      name: 'a patch with an encoded name',
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/a%3Ab',
      query: undefined,
      prefix: 'patch configmaps "a:b" in namespace "default"',
      request: { verb: 'patch', name: 'a:b' },
    },
    {
      name: 'a delete of a cluster-scoped object',
      method: 'DELETE',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin',
      query: undefined,
      prefix: 'delete clusterroles.rbac.authorization.k8s.io "admin"',
      request: { verb: 'delete', resource: 'clusterroles', name: 'admin' },
    },
    {
      name: 'a delete of a collection',
      method: 'DELETE',
      path: '/api/v1/namespaces/default/pods',
      query: { labelSelector: 'app=web' },
      prefix: 'deletecollection pods in namespace "default"',
      request: { verb: 'deletecollection', resource: 'pods', namespace: 'default' },
    },
    {
      name: 'a namespace (cluster-scoped, its name is no namespace)',
      method: 'GET',
      path: '/api/v1/namespaces/kube-system',
      query: undefined,
      prefix: 'get namespaces "kube-system"',
      request: { verb: 'get', resource: 'namespaces', name: 'kube-system' },
    },
    {
      name: 'the finalize subresource of a namespace',
      method: 'PUT',
      path: '/api/v1/namespaces/gone/finalize',
      query: undefined,
      prefix: 'update namespaces/finalize "gone"',
      request: { resource: 'namespaces', subresource: 'finalize', name: 'gone' },
    },
    {
      name: 'a discovery path',
      method: 'GET',
      path: '/apis/example.com/v1',
      query: undefined,
      prefix: 'get /apis/example.com/v1',
      request: { verb: 'get', path: '/apis/example.com/v1' },
    },
  ] as const)(
    'names $name in the message and in request',
    ({ method, path, query, prefix, request }) => {
      const error = apiErrorFrom({ method, path, query }, 404, {}, notFound);
      expect(error.message).toBe(`${prefix}: the server could not find it`);
      expect(error.request).toMatchObject(request);
      expect(error.request?.path).toBe(path);
      // Cluster-scoped objects and non-resource paths carry no namespace, and the latter no resource.
      if (!prefix.includes(' in namespace ')) expect(error.request?.namespace).toBeUndefined();
      if (prefix.includes(' /')) expect(error.request?.resource).toBeUndefined();
      expect(error).toMatchObject({ status: 404, reason: 'NotFound' });
      expect(error.body?.message).toBe('the server could not find it');
    },
  );

  it('names the request before the HTTP status of a non-Status answer', () => {
    const error = apiErrorFrom(
      { method: 'GET', path: '/api/v1/namespaces/default/configmaps/a' },
      502,
      {},
      '',
    );
    expect(error.message).toBe(
      'get configmaps "a" in namespace "default": the server responded 502 Unknown',
    );
  });
});

describe('apiErrorFrom: what of a non-Status body is shown', () => {
  const request = { method: 'GET', path: '/api/v1/namespaces/default/configmaps/a' } as const;
  const prefix = 'get configmaps "a" in namespace "default": the server responded';
  it.for([
    {
      name: 'text/plain, whole',
      type: 'text/plain; charset=utf-8',
      body: '404 page not found\n',
      message: `${prefix} 404 NotFound: 404 page not found`,
    },
    {
      name: 'JSON that is not a Status, whole',
      type: 'application/json',
      body: '{"error":"no route"}',
      message: `${prefix} 404 NotFound: {"error":"no route"}`,
    },
    {
      name: 'a +json type',
      type: 'application/problem+json',
      body: '{"title":"gone"}',
      message: `${prefix} 404 NotFound: {"title":"gone"}`,
    },
    {
      name: 'text cut at 200 characters, on one line',
      type: 'text/plain',
      body: `line one\r\n\u001b[31mline two\t${'x'.repeat(300)}`,
      message: `${prefix} 404 NotFound: line one line two ${'x'.repeat(182)}…`,
    },
    {
      name: 'HTML (a proxy page) by size only',
      type: 'text/html',
      body: '<html><body>s3cret-in-html</body></html>',
      message: `${prefix} 404 NotFound (a 40-byte text/html body, not shown)`,
    },
    {
      name: 'a body without Content-Type by size only',
      type: undefined,
      body: 's3cret-untyped',
      message: `${prefix} 404 NotFound (a 14-byte body without Content-Type, not shown)`,
    },
    {
      name: 'an empty body as nothing',
      type: 'text/plain',
      body: '',
      message: `${prefix} 404 NotFound`,
    },
  ])('shows $name', ({ type, body, message }) => {
    const headers = {
      ...(type !== undefined ? { 'content-type': type } : {}),
      'www-authenticate': 'Bearer realm="s3cret-header"',
      'set-cookie': 'session=s3cret-cookie',
    };
    const error = apiErrorFrom(request, 404, headers, body);
    expect(error.message).toBe(message);
    expect(isNotFound(error)).toBe(true);
    // Headers never, and no copy of the body on the error.
    expect(inspect(error, { depth: Number.POSITIVE_INFINITY })).not.toMatch(/s3cret/);
    expect(error.body).toBeUndefined();
  });
});
