// Client's resource checks: the constructor against the built-in table, verify() against discovery.
import { LassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { useClients } from '../test/helpers/clients.ts';
import { Client, type ClientOptions } from './client.ts';
import type { RestMapper, RestMapping } from './rest-mapper.ts';
import type { RestTransport } from './transport.ts';
import type { GroupVersionResource } from './types.ts';

const { transport } = useClients();

const rest = (): RestTransport => transport('https://k8s.example:6443');

function gvr(apiVersion: string, resource: string): GroupVersionResource {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group: group as string, version: version as string, resource };
}

/** A mapper answering from a fixed list, as discovery would (plural, singular or short name). */
function fakeMapper(served: RestMapping[]): RestMapper & { lookups: number } {
  const mapper = {
    lookups: 0,
    async mappingFor(wanted: { group: string; version?: string | undefined; resource: string }) {
      mapper.lookups++;
      const hit = served.find(
        (m) =>
          m.gvr.group === wanted.group &&
          (!wanted.version || m.gvr.version === wanted.version) &&
          (m.gvr.resource === wanted.resource || m.gvk.kind.toLowerCase() === wanted.resource),
      );
      if (hit === undefined) {
        throw new LassoError('LASSO_NO_KIND_MATCH', `no matches for resource "${wanted.resource}"`);
      }
      return hit;
    },
    async kindFor(wanted: { group: string; version?: string | undefined; resource: string }) {
      return (await mapper.mappingFor(wanted)).gvk;
    },
    async resourceFor(): Promise<RestMapping> {
      throw new Error('not used');
    },
    reset() {},
  };
  return mapper;
}

const widgets: RestMapping = {
  gvr: { group: 'example.com', version: 'v1', resource: 'widgets' },
  gvk: { group: 'example.com', version: 'v1', kind: 'Widget' },
  namespaced: true,
};

describe('Client', () => {
  describe('constructor', () => {
    it.for([
      {
        name: 'refuses a namespaced built-in declared cluster-scoped',
        apiVersion: 'v1',
        resource: 'configmaps',
        kind: 'ConfigMap',
        namespaced: false,
        message:
          'Client(v1, built-in): configmaps is namespaced but was declared namespaced: false',
      },
      {
        name: 'refuses a cluster-scoped built-in declared namespaced',
        apiVersion: 'rbac.authorization.k8s.io/v1',
        resource: 'clusterroles',
        kind: 'ClusterRole',
        namespaced: true,
        message:
          'Client(rbac.authorization.k8s.io/v1, built-in): clusterroles is cluster-scoped but was declared namespaced: true',
      },
      {
        name: 'refuses a built-in resource declared with another kind',
        apiVersion: 'v1',
        resource: 'configmaps',
        kind: 'Pod',
        namespaced: true,
        message:
          "Client(v1, built-in): configmaps holds kind ConfigMap but was declared kind: 'Pod'",
      },
      {
        name: 'names every disagreement at once',
        apiVersion: 'apps/v1',
        resource: 'deployments',
        kind: 'Deploy',
        namespaced: false,
        message:
          "Client(apps/v1, built-in): deployments holds kind Deployment but was declared kind: 'Deploy'; deployments is namespaced but was declared namespaced: false",
      },
      {
        name: 'refuses a built-in kind declared with a resource that does not serve it',
        apiVersion: 'v1',
        resource: 'configmap',
        kind: 'ConfigMap',
        namespaced: true,
        message:
          "Client(v1, built-in): kind ConfigMap is served as configmaps but was declared resource: 'configmap'",
      },
    ])('$name', ({ apiVersion, resource, kind, namespaced, message }) => {
      const options: ClientOptions = {
        gvr: gvr(apiVersion, resource),
        kind,
        namespaced,
        rest: rest(),
      };
      expect(() => new Client(options)).toThrow(TypeError);
      expect(() => new Client(options)).toThrow(new TypeError(message));
    });

    it.for([
      {
        name: 'a built-in as the table has it',
        apiVersion: 'apps/v1',
        resource: 'deployments',
        kind: 'Deployment',
        namespaced: true,
      },
      {
        name: 'a custom resource (unchecked until verify)',
        apiVersion: 'example.com/v1',
        resource: 'widgets',
        kind: 'Widget',
        namespaced: false,
      },
      {
        name: 'a built-in group version the table does not list',
        apiVersion: 'apps/v1beta1',
        resource: 'deployments',
        kind: 'Whatever',
        namespaced: false,
      },
    ])('accepts $name', ({ apiVersion, resource, kind, namespaced }) => {
      const client = new Client({ gvr: gvr(apiVersion, resource), kind, namespaced, rest: rest() });
      expect(client.apiVersion).toBe(apiVersion);
    });
  });

  describe('verify()', () => {
    it('resolves when the declaration matches discovery', async () => {
      const client = new Client({
        gvr: widgets.gvr,
        kind: 'Widget',
        namespaced: true,
        rest: rest(),
      });
      const mapper = fakeMapper([widgets]);
      await expect(client.verify(mapper)).resolves.toBeUndefined();
      expect(mapper.lookups).toBe(1);
    });

    it.for([
      {
        name: 'refuses a namespaced resource declared cluster-scoped, naming both sides',
        declared: { resource: 'widgets', kind: 'Widget', namespaced: false },
        message:
          'Client(example.com/v1): widgets is namespaced on the server but was declared namespaced: false',
      },
      {
        name: 'refuses a kind the resource does not hold',
        declared: { resource: 'widgets', kind: 'Gadget', namespaced: true },
        message:
          "Client(example.com/v1): widgets holds kind Widget on the server but was declared kind: 'Gadget'",
      },
      {
        name: 'refuses a singular name, which discovery resolves but a URL does not',
        declared: { resource: 'widget', kind: 'Widget', namespaced: true },
        message:
          "Client(example.com/v1): widgets is the resource on the server but was declared resource: 'widget'",
      },
    ])('$name', async ({ declared, message }) => {
      const client = new Client({
        gvr: { ...widgets.gvr, resource: declared.resource },
        kind: declared.kind,
        namespaced: declared.namespaced,
        rest: rest(),
      });
      const error = await client.verify(fakeMapper([widgets])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(message);
    });

    it('rejects with the mapper error when the server does not serve the resource', async () => {
      const client = new Client({
        gvr: widgets.gvr,
        kind: 'Widget',
        namespaced: true,
        rest: rest(),
      });
      await expect(client.verify(fakeMapper([]))).rejects.toMatchObject({
        code: 'LASSO_NO_KIND_MATCH',
      });
    });
  });
});
