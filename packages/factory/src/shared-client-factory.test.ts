// Unit tests of createSharedClientFactory: one client per GVR, shared lookups through the RESTMapper, scope
// checks, /version health, and the config it derives for an injected clock/logger/metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  createRestConfig,
  type GroupVersionKind,
  type RestConfig,
  type RestMapper,
  type RestMapping,
  RestTransport,
  restTransportFor,
} from '@lasso/client';
import { LassoError } from '@lasso/core';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { deferred } from './__fixtures__/fake-cluster.ts';
import { createSharedClientFactory, type SharedClientFactory } from './shared-client-factory.ts';

const deploymentGvk = { group: 'apps', version: 'v1', kind: 'Deployment' } as const;
const deployments: RestMapping = {
  gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
  gvk: deploymentGvk,
  namespaced: true,
};

/** A RESTMapper over a fixed list that counts lookups and can hold them. */
function fakeMapper(mappings: RestMapping[]) {
  const calls: string[] = [];
  let gate: Promise<void> | undefined;
  const miss = (what: string) => new LassoError('LASSO_NO_KIND_MATCH', `no matches for ${what}`);
  const mapper: RestMapper = {
    async resourceFor(gvk) {
      calls.push(`kind ${gvk.kind}`);
      await gate;
      const found = mappings.find((m) => m.gvk.group === gvk.group && m.gvk.kind === gvk.kind);
      if (found === undefined) throw miss(`kind "${gvk.kind}"`);
      return found;
    },
    async mappingFor(gvr) {
      calls.push(`resource ${gvr.resource}`);
      await gate;
      const found = mappings.find((m) => m.gvr.resource === gvr.resource);
      if (found === undefined) throw miss(`resource "${gvr.resource}"`);
      return found;
    },
    async kindFor(gvr) {
      return (await mapper.mappingFor(gvr)).gvk;
    },
    reset() {},
  };
  return {
    mapper,
    calls,
    hold(): () => void {
      const held = deferred();
      gate = held.promise;
      return () => {
        gate = undefined;
        held.resolve();
      };
    },
  };
}

let agent: MockAgent | undefined;
const factories: SharedClientFactory[] = [];
afterEach(async () => {
  for (const factory of factories.splice(0)) await factory.close();
  await agent?.close();
  agent = undefined;
});

function setup(mappings: RestMapping[] = [deployments], extra: Partial<RestConfig> = {}) {
  agent = new MockAgent();
  agent.disableNetConnect();
  const config = createRestConfig({
    server: 'https://k8s.example:6443',
    dispatcher: agent,
    ...extra,
  });
  const fake = fakeMapper(mappings);
  const factory = createSharedClientFactory(config, { mapper: fake.mapper });
  factories.push(factory);
  return { config, factory, fake, agent };
}

describe('createSharedClientFactory', () => {
  describe('forKind()', () => {
    it('resolves the resource through the mapper and keeps one client per GVR', async () => {
      const { factory, fake } = setup();
      const release = fake.hold();
      const pending = Array.from({ length: 50 }, () => factory.forKind(deploymentGvk));
      release();
      const clients = await Promise.all(pending);
      expect(new Set(clients).size).toBe(1);
      // Concurrent lookups of one kind share one mapper call.
      expect(fake.calls).toEqual(['kind Deployment']);
      expect(clients[0]?.gvr).toEqual(deployments.gvr);
      expect(clients[0]?.namespaced).toBe(true);
      expect(await factory.forResource(deployments.gvr, true)).toBe(clients[0]);
      expect(factory.forResourceKind(deployments.gvr, 'Deployment', true)).toBe(clients[0]);
    });

    it('asks again after a miss, so a kind installed later resolves', async () => {
      const mappings: RestMapping[] = [];
      const { factory, fake } = setup(mappings);
      await expect(factory.forKind(deploymentGvk)).rejects.toThrow(/Deployment/);
      mappings.push(deployments);
      await expect(factory.forKind(deploymentGvk)).resolves.toBeDefined();
      expect(fake.calls).toEqual(['kind Deployment', 'kind Deployment']);
    });

    it('stops waiting on the caller signal without failing the other callers', async () => {
      const { factory, fake } = setup();
      const release = fake.hold();
      const stop = new AbortController();
      const leaving = factory.forKind(deploymentGvk, { signal: stop.signal });
      const staying = factory.forKind(deploymentGvk);
      stop.abort(new Error('gave up'));
      await expect(leaving).rejects.toThrow('gave up');
      release();
      await expect(staying).resolves.toBeDefined();
    });
  });

  describe('forResource()', () => {
    it('refuses a scope that disagrees with the server', async () => {
      const { factory } = setup();
      await expect(factory.forResource(deployments.gvr, false)).rejects.toThrow(
        /namespaced: true.*namespaced: false/,
      );
    });
  });

  describe('forResourceKind()', () => {
    it('refuses another kind or scope for a resource it already has a client for', () => {
      const { factory } = setup();
      factory.forResourceKind(
        { group: 'example.com', version: 'v1', resource: 'widgets' },
        'Widget',
        true,
      );
      expect(() =>
        factory.forResourceKind(
          { group: 'example.com', version: 'v1', resource: 'widgets' },
          'Gadget',
          true,
        ),
      ).toThrow(/Widget/);
    });

    it('refuses malformed arguments naming them', () => {
      const { factory } = setup();
      expect(() =>
        factory.forResourceKind({ group: 'a', version: 'v1', resource: '' }, 'A', true),
      ).toThrow(/gvr\.resource/);
      expect(() =>
        factory.forResourceKind({ group: 'a', version: 'v1', resource: 'as' }, 'A', 'yes' as never),
      ).toThrow(/namespaced/);
    });
  });

  describe('lookups', () => {
    it('answers isNamespaced, resourceForGVK and gvkForResource from the mapper', async () => {
      const { factory } = setup();
      expect(await factory.isNamespaced(deploymentGvk)).toBe(true);
      expect(await factory.resourceForGVK(deploymentGvk)).toEqual(deployments);
      expect(await factory.gvkForResource(deployments.gvr)).toEqual(deploymentGvk);
      await expect(
        factory.resourceForGVK({ group: 'x', version: 'v1', kind: 'Y' } as GroupVersionKind),
      ).rejects.toSatisfy((error: unknown) => (error as LassoError).code === 'LASSO_NO_KIND_MATCH');
    });
  });

  describe('isHealthy()', () => {
    it('is true when /version answers and false otherwise', async () => {
      const { factory, agent } = setup();
      const pool = agent.get('https://k8s.example:6443');
      pool.intercept({ path: '/version', method: 'GET' }).reply(200, { gitVersion: 'v1.30.0' });
      expect(await factory.isHealthy()).toBe(true);
      pool.intercept({ path: '/version', method: 'GET' }).reply(500, { kind: 'Status' });
      expect(await factory.isHealthy()).toBe(false);
      pool.intercept({ path: '/version', method: 'GET' }).replyWithError(new Error('refused'));
      expect(await factory.isHealthy()).toBe(false);
      expect(await factory.isHealthy({ signal: AbortSignal.abort() })).toBe(false);
    });
  });

  describe('options', () => {
    it('derives a config carrying an injected clock, logger and metrics, and owns its transport', () => {
      agent = new MockAgent();
      const config = createRestConfig({ server: 'https://k8s.example:6443', dispatcher: agent });
      const clock = new FakeClock();
      const logger = createTestLogger();
      const derived = createSharedClientFactory(config, { clock, logger });
      factories.push(derived);
      expect(derived.config).not.toBe(config);
      expect(derived.config.clock).toBe(clock);
      expect(derived.config.logger).toBe(logger);
      const plain = createSharedClientFactory(config);
      factories.push(plain);
      expect(plain.config).toBe(config);
    });

    it('refuses a clock or metrics other than the handed transport config', () => {
      const transport = new RestTransport(createRestConfig({ server: 'https://k8s.example:6443' }));
      expect(() => createSharedClientFactory(transport, { clock: new FakeClock() })).toThrow(
        /clock/,
      );
      expect(() =>
        createSharedClientFactory(transport, { metrics: createTestMetricsProvider() }),
      ).toThrow(/metrics/);
      expect(() =>
        createSharedClientFactory(transport, {
          clock: transport.config.clock,
          logger: createTestLogger(),
        }),
      ).not.toThrow();
    });

    it('refuses bad options naming them', () => {
      const config = createRestConfig({ server: 'https://k8s.example:6443' });
      expect(() => createSharedClientFactory(config, { defaultTimeoutMs: -1 })).toThrow(
        /defaultTimeoutMs/,
      );
      expect(() => createSharedClientFactory(config, { mapper: {} as never })).toThrow(/mapper/);
      expect(() => createSharedClientFactory(undefined as never)).toThrow(TypeError);
    });
  });
});

/** A loopback API server answering /version, recording the sockets it accepted. */
async function versionServer(): Promise<{ url: string; sockets: Socket[]; server: Server }> {
  const sockets: Socket[] = [];
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"gitVersion":"v1.30.0"}');
  });
  server.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const socketClosed = (socket: Socket): Promise<void> =>
  socket.destroyed
    ? Promise.resolve()
    : new Promise((resolve) => socket.once('close', () => resolve()));

describe('createSharedClientFactory ownership', () => {
  it('created from a config, closes the transport it created: its keep-alive sockets end', async () => {
    const { url, sockets } = await versionServer();
    const config = createRestConfig({ server: url });
    const factory = createSharedClientFactory(config);
    expect(factory.transport).not.toBe(restTransportFor(config));
    expect(factory.transport.config).toBe(config);
    await factory.ping();
    expect(sockets).toHaveLength(1);
    expect(sockets[0]?.destroyed).toBe(false);

    await factory.close();
    expect(factory.transport.closed).toBe(true);
    await socketClosed(sockets[0] as Socket);
    await expect(factory.ping()).rejects.toThrow('the transport is closed');
    await factory[Symbol.asyncDispose](); // idempotent
    expect(restTransportFor(config).closed).toBe(false);
  });

  it('never closes a transport handed in', async () => {
    const { url, sockets } = await versionServer();
    const transport = new RestTransport(createRestConfig({ server: url }));
    const factory = createSharedClientFactory(transport, { logger: createTestLogger() });
    expect(factory.transport).toBe(transport);
    expect(factory.config).toBe(transport.config);
    await factory.ping();
    await factory.close();
    expect(transport.closed).toBe(false);
    expect(sockets[0]?.destroyed).toBe(false);
    await expect(transport.requestJson({ method: 'GET', path: '/version' })).resolves.toEqual({
      gitVersion: 'v1.30.0',
    });
    await transport.close();
    expect(transport.closed).toBe(true);
  });

  it('two factories from one config have a transport each: closing one leaves the other working', async () => {
    const { url } = await versionServer();
    const config = createRestConfig({ server: url });
    const first = createSharedClientFactory(config);
    const second = createSharedClientFactory(config);
    expect(second.transport).not.toBe(first.transport);
    await first.close();
    expect(first.transport.closed).toBe(true);
    expect(second.transport.closed).toBe(false);
    await expect(second.ping()).resolves.toBeUndefined();
    await second.close();
    expect(second.transport.closed).toBe(true);
  });
});
