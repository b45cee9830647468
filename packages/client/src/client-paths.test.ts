import { describe, expect, it } from 'vitest';
import { useClients } from '../test/helpers/clients.ts';
import { json, type Loopback } from '../test/helpers/loopback.ts';
import { Client } from './client.ts';
import { DiscoveryClient } from './discovery.ts';
import { checkPathSegment, pathSegmentProblem } from './path-segment.ts';
import type { KubeObject } from './types.ts';

const clients = useClients();
const { serve, transport } = clients;

function client(loopback: Loopback, resource = 'configmaps', namespaced = true): Client {
  return clients.client(loopback, {
    gvr: { group: '', version: 'v1', resource },
    kind: resource === 'configmaps' ? 'ConfigMap' : 'Namespace',
    namespaced,
  });
}

const named = (name: string, namespace?: string): KubeObject => ({
  metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
});

describe('pathSegmentProblem / checkPathSegment', () => {
  it.for([
    ['.', "may not be '.'"],
    ['..', "may not be '..'"],
    ['a/b', "may not contain '/'"],
    ['a%2Fb', "may not contain '%'"],
    ['../%', "may not contain '/', may not contain '%'"],
  ] as const)('refuses %j: %s', ([value, problem]) => {
    expect(pathSegmentProblem(value)).toBe(problem);
    expect(() => checkPathSegment(value, 'name', 'Client(pods).get')).toThrow(
      new TypeError(`Client(pods).get: invalid name ${JSON.stringify(value)}: ${problem}`),
    );
  });

  it.for(['a', '...', 'a.b', 'x..y', 'web-1', 'ä'])('accepts %j', (value) => {
    expect(pathSegmentProblem(value)).toBeUndefined();
    expect(checkPathSegment(value, 'name', 'w')).toBe(value);
  });

  it('refuses an empty value, a non-string and cuts a long value in the message', () => {
    expect(() => checkPathSegment('', 'name', 'w')).toThrow(
      new TypeError('w: name must not be empty'),
    );
    expect(() => checkPathSegment(7, 'namespace', 'w')).toThrow(
      new TypeError('w: namespace must be a string, got number 7'),
    );
    const long = `${'a'.repeat(200)}/`;
    expect(() => checkPathSegment(long, 'name', 'w')).toThrow(
      `w: invalid name "${'a'.repeat(100)}"… (201 characters): may not contain '/'`,
    );
  });
});

describe('Client path safety', () => {
  // Each of these reached another object before: delete('victim', '..') deleted the Namespace victim.
  it.for([
    {
      call: 'delete(victim, ..)',
      run: (c: Client) => c.delete('victim', '..'),
      message: `Client(configmaps).delete: invalid name "..": may not be '..'`,
    },
    {
      call: 'get(victim, .)',
      run: (c: Client) => c.get('victim', '.'),
      message: `Client(configmaps).get: invalid name ".": may not be '.'`,
    },
    {
      call: 'get(.., x)',
      run: (c: Client) => c.get('..', 'x'),
      message: `Client(configmaps).get: invalid namespace "..": may not be '..'`,
    },
    {
      call: 'get(a/b, x)',
      run: (c: Client) => c.get('a/b', 'x'),
      message: `Client(configmaps).get: invalid namespace "a/b": may not contain '/'`,
    },
    {
      call: 'get(ns, a%2F..)',
      run: (c: Client) => c.get('ns', 'a%2F..'),
      message: `Client(configmaps).get: invalid name "a%2F..": may not contain '%'`,
    },
    {
      call: 'list(..)',
      run: (c: Client) => c.list('..'),
      message: `Client(configmaps).list: invalid namespace "..": may not be '..'`,
    },
    {
      call: 'deleteCollection(.)',
      run: (c: Client) => c.deleteCollection('.'),
      message: `Client(configmaps).deleteCollection: invalid namespace ".": may not be '.'`,
    },
    {
      call: 'create(.., obj)',
      run: (c: Client) => c.create(undefined, named('x', '..')),
      message: `Client(configmaps).create: invalid namespace "..": may not be '..'`,
    },
    {
      call: 'update(ns, {name: ..})',
      run: (c: Client) => c.update('ns', named('..')),
      message: `Client(configmaps).update: invalid name "..": may not be '..'`,
    },
    {
      call: 'updateStatus(ns, {name: a/b})',
      run: (c: Client) => c.updateStatus('ns', named('a/b')),
      message: `Client(configmaps).updateStatus: invalid name "a/b": may not contain '/'`,
    },
    {
      call: 'patch(ns, x, .., subresource ..)',
      run: (c: Client) => c.patch('ns', 'x', 'merge', {}, {}, '..'),
      message: `Client(configmaps).patch: invalid subresource "..": may not be '..'`,
    },
    {
      call: 'apply(ns, {name: .})',
      run: (c: Client) => c.apply('ns', named('.'), { fieldManager: 'm' }),
      message: `Client(configmaps).patch: invalid name ".": may not be '.'`,
    },
  ])('$call throws a TypeError naming the value and sends nothing', async ({ run, message }) => {
    const server = await serve((_request, response) => json(response, 200, {}));
    const c = client(server);
    await expect(run(c)).rejects.toThrow(new TypeError(message));
    expect(server.requests).toHaveLength(0);
  });

  it('checks a watch namespace when watch() is called, before any request', async () => {
    const server = await serve((_request, response) => json(response, 200, {}));
    const c = client(server);
    expect(() => c.watch('..')).toThrow(
      new TypeError(`Client(configmaps).watch: invalid namespace "..": may not be '..'`),
    );
    expect(server.requests).toHaveLength(0);
  });

  it('checks the names of a cluster-scoped resource too', async () => {
    const server = await serve((_request, response) => json(response, 200, {}));
    const ns = client(server, 'namespaces', false);
    await expect(ns.get(undefined, '..')).rejects.toThrow(
      `Client(namespaces).get: invalid name "..": may not be '..'`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a gvr part that is not a path segment', () => {
    const rest = transport('https://k8s.example');
    expect(
      () =>
        new Client({
          gvr: { group: 'example.com', version: 'v1', resource: '../secrets' },
          kind: 'Widget',
          namespaced: true,
          rest,
        }),
    ).toThrow(`Client: invalid gvr.resource "../secrets": may not contain '/'`);
    expect(
      () =>
        new Client({
          gvr: { group: '..', version: 'v1', resource: 'widgets' },
          kind: 'Widget',
          namespaced: true,
          rest,
        }),
    ).toThrow(`Client: invalid gvr.group "..": may not be '..'`);
  });

  it('still encodes ordinary names that need escaping', async () => {
    const server = await serve((_request, response) => json(response, 200, {}));
    await client(server).get('ns', 'a:b@c');
    expect(server.requests[0]?.url).toBe('/api/v1/namespaces/ns/configmaps/a%3Ab%40c');
  });

  it('checks the group and version a discovery request names', async () => {
    const server = await serve((_request, response) => json(response, 200, {}));
    const discovery = new DiscoveryClient(transport(server));
    expect(() => discovery.serverResourcesForGroupVersion('..', 'v1')).toThrow(
      new TypeError(
        `DiscoveryClient.serverResourcesForGroupVersion: invalid group "..": may not be '..'`,
      ),
    );
    expect(() => discovery.serverResourcesForGroupVersion('', 'v1/../..')).toThrow(
      `invalid version "v1/../..": may not contain '/'`,
    );
    expect(server.requests).toHaveLength(0);
  });
});
