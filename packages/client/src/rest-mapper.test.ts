import { isLassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { useClients } from '../test/helpers/clients.ts';
import { json, type Loopback, status } from '../test/helpers/loopback.ts';
import { DiscoveryClient } from './discovery.ts';
import { createRestMapper } from './rest-mapper.ts';

const { serve, transport: open } = useClients();

/** A fake discovery server; `crdInstalled` toggles the example.com group. */
async function discoveryServer(state: { crdInstalled: boolean }): Promise<Loopback> {
  return serve((request, response) => {
    const groups = [
      {
        name: 'apps',
        versions: [{ version: 'v1' }],
        preferredVersion: { version: 'v1' },
      },
      { name: 'broken.io', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } },
      ...(state.crdInstalled
        ? [
            {
              name: 'example.com',
              versions: [{ version: 'v1beta1' }, { version: 'v1' }],
              preferredVersion: { version: 'v1' },
            },
          ]
        : []),
    ];
    switch (request.url) {
      case '/api':
        return json(response, 200, { kind: 'APIVersions', versions: ['v1'] });
      case '/apis':
        return json(response, 200, { kind: 'APIGroupList', groups });
      case '/api/v1':
        return json(response, 200, {
          resources: [
            {
              name: 'configmaps',
              singularName: 'configmap',
              namespaced: true,
              kind: 'ConfigMap',
              verbs: ['get'],
              shortNames: ['cm'],
            },
            {
              name: 'namespaces',
              singularName: 'namespace',
              namespaced: false,
              kind: 'Namespace',
              verbs: ['get'],
            },
            {
              name: 'pods/status',
              singularName: '',
              namespaced: true,
              kind: 'Pod',
              verbs: ['get'],
            },
            { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'] },
          ],
        });
      case '/apis/apps/v1':
        return json(response, 200, {
          resources: [
            {
              name: 'deployments',
              singularName: 'deployment',
              namespaced: true,
              kind: 'Deployment',
              verbs: ['get'],
              shortNames: ['deploy'],
            },
          ],
        });
      case '/apis/broken.io/v1':
        return json(
          response,
          503,
          status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'),
        );
      case '/apis/example.com/v1':
      case '/apis/example.com/v1beta1':
        return json(response, 200, {
          resources: [
            {
              name: 'icecreams',
              singularName: 'icecream',
              namespaced: true,
              kind: 'Icecream',
              verbs: ['get'],
            },
            // Served by the older version only.
            ...(request.url.endsWith('v1beta1')
              ? [
                  {
                    name: 'sundaes',
                    singularName: 'sundae',
                    namespaced: false,
                    kind: 'Sundae',
                    verbs: ['get'],
                  },
                ]
              : []),
          ],
        });
      default:
        return json(
          response,
          404,
          status(404, 'NotFound', 'the server could not find the requested resource'),
        );
    }
  });
}

describe('DiscoveryClient', () => {
  it('lists groups with the preferred version first and reports failed group versions', async () => {
    const server = await discoveryServer({ crdInstalled: true });
    const discovery = new DiscoveryClient(open(server));
    const result = await discovery.discover();
    expect(result.groups.map((g) => [g.name, g.versions])).toEqual([
      ['', ['v1']],
      ['apps', ['v1']],
      ['broken.io', ['v1']],
      ['example.com', ['v1', 'v1beta1']],
    ]);
    expect([...result.failed.keys()]).toEqual(['broken.io/v1']);
    expect(isLassoError(result.failed.get('broken.io/v1'), 'LASSO_DISCOVERY_FAILED')).toBe(true);
    const before = server.requests.length;
    await discovery.discover();
    // Cached, except the failed group version, which is asked again.
    expect(server.requests.length - before).toBe(1);
  });
});

describe('createRestMapper', () => {
  it('maps resources to kinds and kinds to resources with their scope', async () => {
    const server = await discoveryServer({ crdInstalled: false });
    const mapper = createRestMapper(open(server));
    await expect(
      mapper.kindFor({ group: 'apps', version: 'v1', resource: 'deployments' }),
    ).resolves.toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    await expect(mapper.kindFor({ group: '', resource: 'cm' })).resolves.toEqual({
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
    });
    await expect(
      mapper.resourceFor({ group: '', version: 'v1', kind: 'Namespace' }),
    ).resolves.toEqual({
      gvr: { group: '', version: 'v1', resource: 'namespaces' },
      gvk: { group: '', version: 'v1', kind: 'Namespace' },
      namespaced: false,
      verbs: ['get'],
    });
    await expect(mapper.resourceFor({ group: '', kind: 'Pod' })).resolves.toMatchObject({
      gvr: { resource: 'pods' },
      namespaced: true,
    });
  });

  it('answers mappingFor with the kind, the plural resource and the scope', async () => {
    const server = await discoveryServer({ crdInstalled: false });
    const mapper = createRestMapper(open(server));
    await expect(mapper.mappingFor({ group: '', version: 'v1', resource: 'cm' })).resolves.toEqual({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
      namespaced: true,
      verbs: ['get'],
    });
    await expect(mapper.mappingFor({ group: '', resource: 'namespaces' })).resolves.toMatchObject({
      gvk: { kind: 'Namespace' },
      namespaced: false,
    });
  });

  it('refreshes once on a miss so a CRD installed after start resolves, with the preferred version', async () => {
    const state = { crdInstalled: false };
    const server = await discoveryServer(state);
    const mapper = createRestMapper(open(server));
    await mapper.resourceFor({ group: 'apps', kind: 'Deployment' });
    state.crdInstalled = true;
    await expect(
      mapper.resourceFor({ group: 'example.com', kind: 'Icecream' }),
    ).resolves.toMatchObject({
      gvr: { group: 'example.com', version: 'v1', resource: 'icecreams' },
    });
  });

  it('falls back to a non-preferred version serving the kind when no version is given', async () => {
    const server = await discoveryServer({ crdInstalled: true });
    const mapper = createRestMapper(open(server));
    await expect(mapper.resourceFor({ group: 'example.com', kind: 'Sundae' })).resolves.toEqual({
      gvr: { group: 'example.com', version: 'v1beta1', resource: 'sundaes' },
      gvk: { group: 'example.com', version: 'v1beta1', kind: 'Sundae' },
      namespaced: false,
      verbs: ['get'],
    });
    await expect(mapper.kindFor({ group: 'example.com', resource: 'sundae' })).resolves.toEqual({
      group: 'example.com',
      version: 'v1beta1',
      kind: 'Sundae',
    });
    // The preferred version still wins when it serves the kind; an explicit version is exact.
    await expect(
      mapper.resourceFor({ group: 'example.com', kind: 'Icecream' }),
    ).resolves.toMatchObject({ gvr: { version: 'v1' } });
    const error = await mapper
      .resourceFor({ group: 'example.com', version: 'v1', kind: 'Sundae' })
      .catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_NO_KIND_MATCH')).toBe(true);
  });

  it('throws LASSO_NO_KIND_MATCH after one refresh when the kind does not exist', async () => {
    const server = await discoveryServer({ crdInstalled: false });
    const mapper = createRestMapper(open(server));
    await mapper.kindFor({ group: '', resource: 'pods' });
    const groupsCalls = () => server.requests.filter((r) => r.url === '/apis').length;
    expect(groupsCalls()).toBe(1);
    const error = await mapper
      .resourceFor({ group: 'nope.io', kind: 'Thing' })
      .catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_NO_KIND_MATCH')).toBe(true);
    expect((error as Error).message).toBe('no matches for kind "Thing" in group "nope.io"');
    expect(groupsCalls()).toBe(2);
  });

  it('keeps resolving other groups when one group fails, and names the failure for that group', async () => {
    const server = await discoveryServer({ crdInstalled: false });
    const mapper = createRestMapper(open(server));
    await expect(mapper.resourceFor({ group: 'apps', kind: 'Deployment' })).resolves.toMatchObject({
      namespaced: true,
    });
    const error = await mapper
      .resourceFor({ group: 'broken.io', kind: 'Widget' })
      .catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_DISCOVERY_FAILED')).toBe(true);
    expect((error as Error).message).toContain('broken.io/v1');
  });
});
