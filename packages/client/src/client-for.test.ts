import { isLassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { useClients } from '../test/helpers/clients.ts';
import { json, type Loopback, status } from '../test/helpers/loopback.ts';
import { clientFor, clientForKind } from './client-for.ts';
import { createRestMapper } from './rest-mapper.ts';
import type { RestTransport } from './transport.ts';

const { serve, transport } = useClients();

const open = (url = 'https://k8s.example:6443'): RestTransport => transport(url);

/** Discovery of the core group and one CRD group, and empty lists for every collection. */
function apiServer(): Promise<Loopback> {
  return serve((request, response) => {
    const path = request.url.split('?')[0];
    switch (path) {
      case '/api':
        return json(response, 200, { versions: ['v1'] });
      case '/apis':
        return json(response, 200, {
          groups: [
            {
              name: 'example.com',
              versions: [{ version: 'v1' }],
              preferredVersion: { version: 'v1' },
            },
          ],
        });
      case '/api/v1':
        return json(response, 200, {
          resources: [
            { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap' },
          ],
        });
      case '/apis/example.com/v1':
        return json(response, 200, {
          resources: [
            { name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget' },
          ],
        });
      default:
        if (request.method === 'GET' && /\/(configmaps|widgets)$/.test(path ?? '')) {
          return json(response, 200, { metadata: { resourceVersion: '1' }, items: [] });
        }
        return json(response, 404, status(404, 'NotFound', 'not found'));
    }
  });
}

describe('clientFor', () => {
  it.for([
    {
      name: 'builds a core-group client from the built-in table',
      apiVersion: 'v1',
      kind: 'ConfigMap',
      expected: { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
    },
    {
      name: 'builds a cluster-scoped client of a named group',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      expected: {
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        resource: 'clusterroles',
        namespaced: false,
      },
    },
  ] as const)('$name', ({ apiVersion, kind, expected }) => {
    const client = clientFor(open(), { apiVersion, kind });
    const { namespaced, ...gvr } = expected;
    expect(client.gvr).toEqual(gvr);
    expect(client.kind).toBe(kind);
    expect(client.namespaced).toBe(namespaced);
    expect(client.apiVersion).toBe(apiVersion);
  });

  it('passes the per-client options on', async () => {
    const server = await apiServer();
    const client = clientFor(open(server.url), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      userAgent: 'lasso-test/1',
    });
    await client.list('default');
    expect(server.requests.at(-1)).toMatchObject({
      url: '/api/v1/namespaces/default/configmaps',
      headers: { 'user-agent': 'lasso-test/1' },
    });
  });

  it.for([
    {
      name: 'an unknown kind',
      apiVersion: 'v1',
      kind: 'Widget',
      message: 'is not a built-in kind',
    },
    {
      name: 'an unknown apiVersion',
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      message: 'is not a built-in kind',
    },
    {
      name: 'a malformed apiVersion',
      apiVersion: 'a/b/c',
      kind: 'Pod',
      message: 'apiVersion must be',
    },
  ])('throws a TypeError for $name', ({ apiVersion, kind, message }) => {
    const call = () => clientFor(open(), { apiVersion, kind } as never);
    expect(call).toThrow(TypeError);
    expect(call).toThrow(message);
  });
});

describe('clientForKind', () => {
  it('resolves a custom resource through the RESTMapper, scope included', async () => {
    const server = await apiServer();
    const rest = open(server.url);
    const widgets = await clientForKind(rest, createRestMapper(rest), {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
    });
    expect(widgets.gvr).toEqual({ group: 'example.com', version: 'v1', resource: 'widgets' });
    expect(widgets.namespaced).toBe(false);
    // Cluster-scoped: a namespace argument does not reach the URL.
    await widgets.list('default');
    expect(server.requests.at(-1)?.url).toBe('/apis/example.com/v1/widgets');
  });

  it('resolves a built-in kind from the server, not the table', async () => {
    const server = await apiServer();
    const rest = open(server.url);
    const configMaps = await clientForKind(rest, createRestMapper(rest), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    expect(configMaps.gvr.resource).toBe('configmaps');
    expect(server.requests.some((r) => r.url === '/api/v1')).toBe(true);
  });

  it('rejects with LASSO_NO_KIND_MATCH when the server does not serve the kind', async () => {
    const server = await apiServer();
    const rest = open(server.url);
    const error = await clientForKind(rest, createRestMapper(rest), {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
    }).catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_NO_KIND_MATCH')).toBe(true);
  });

  it.for([
    { name: 'apiVersion', options: { apiVersion: '', kind: 'Widget' } },
    { name: 'kind', options: { apiVersion: 'example.com/v1', kind: '' } },
  ])('rejects a bad $name with a TypeError naming it', async ({ name, options }) => {
    const rest = open();
    const error = await clientForKind(rest, createRestMapper(rest), options).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(name);
  });
});
