// Who closes the connections, against an API server: the factories reach it through a TCP pass-through that
// counts the client's sockets, so "the socket pool is closed" is observed from the other end of each socket. A
// factory closes the transport it created (every socket ends), never one handed to it, and two factories from one
// config keep working when the other closes.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createRestConfig, type RestConfig, RestTransport } from '@lasso/client';
import { createTestLogger } from '@lasso/core/testing';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kindFor } from '../../src/kind.ts';
import { createSharedCacheFactory } from '../../src/shared-cache-factory.ts';
import { createSharedClientFactory } from '../../src/shared-client-factory.ts';
import {
  createSharedControllerFactory,
  createSharedControllerFactoryFromConfig,
} from '../../src/shared-controller-factory.ts';
import { startCluster, type TestCluster } from './helpers.ts';

/** A TCP pass-through to the API server that knows which client sockets are still open. */
interface SocketCounter {
  /** A copy of the admin config pointed at the pass-through (same IP: the serving certificate still fits). */
  readonly rest: RestConfig;
  open(): number;
  /** Resolves once every client socket accepted so far has closed; rejects when `signal` aborts first. */
  allClosed(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

async function startSocketCounter(admin: RestConfig): Promise<SocketCounter> {
  const target = new URL(admin.server);
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(port, target.hostname.replace(/^\[|\]$/g, ''));
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', () => {
      sockets.delete(client);
      end();
    });
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) =>
    server.listen(0, target.hostname.replace(/^\[|\]$/g, ''), resolve),
  );
  const address = server.address() as { port: number };
  const proxied = new URL(admin.server);
  proxied.port = String(address.port);
  return {
    rest: createRestConfig({
      ...admin,
      server: proxied.origin + proxied.pathname.replace(/\/$/, ''),
    }),
    open: () => sockets.size,
    allClosed(signal) {
      const pending = [...sockets].map(
        (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
      );
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void =>
          reject(new Error(`${sockets.size} client socket(s) still open: the pool was not closed`));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        void Promise.all(pending).then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const configMaps = kindFor('v1', 'ConfigMap');

let cluster: TestCluster;
let proxy: SocketCounter;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  cluster = await startCluster();
  proxy = await startSocketCounter(cluster.admin);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

/**
 * Registers a handler on `factory`'s ConfigMap controller; `wait(ms)` resolves with the first key it reconciles
 * named `name`, or rejects once `ms` passed since `wait` was called.
 */
function reconciled(
  factory: ReturnType<typeof createSharedControllerFactoryFromConfig>,
  signal: AbortSignal,
  name: string,
): { wait(ms: number): Promise<string> } {
  const seen = new Promise<string>((resolve) => {
    void factory.forKind(configMaps).then((controller) =>
      controller.registerHandler(signal, `wait-${name}`, (key, object) => {
        if (key.endsWith(`/${name}`)) resolve(key);
        return object;
      }),
    );
  });
  return {
    wait: (ms) =>
      new Promise<string>((resolve, reject) => {
        const deadline = AbortSignal.timeout(ms);
        deadline.addEventListener('abort', () => reject(new Error(`${name} never reconciled`)), {
          once: true,
        });
        void seen.then(resolve);
      }),
  };
}

describe('factory ownership of transports', () => {
  it('a controller factory from a config closes every socket of the transport it created', async () => {
    const namespace = await cluster.namespace('owned');
    const factory = createSharedControllerFactoryFromConfig(proxy.rest, {
      logger: createTestLogger(),
      cache: { defaultNamespace: namespace },
    });
    const stop = new AbortController();
    (await factory.forKind(configMaps)).registerHandler(stop.signal, 'noop', (_key, cm) => cm);
    await factory.start(stop.signal, 1);
    await factory.whenSynced({ signal: AbortSignal.timeout(30_000) });
    expect(proxy.open()).toBeGreaterThan(0); // the list's keep-alive socket and the watch
    stop.abort();
    await factory.stopped();

    await factory.close();
    expect(factory.sharedClientFactory().transport.closed).toBe(true);
    await proxy.allClosed(AbortSignal.timeout(5_000));
    expect(proxy.open()).toBe(0);
  }, 60_000);

  it('a transport handed to the client factory stays open after every factory over it closed', async () => {
    const namespace = await cluster.namespace('handed');
    const transport = new RestTransport(proxy.rest);
    cleanups.push(() => transport.close());
    const clients = createSharedClientFactory(transport);
    const caches = createSharedCacheFactory(clients, { defaultNamespace: namespace });
    const factory = createSharedControllerFactory(caches, { logger: createTestLogger() });
    const stop = new AbortController();
    (await factory.forKind(configMaps)).registerHandler(stop.signal, 'noop', (_key, cm) => cm);
    await factory.start(stop.signal, 1);
    await factory.whenSynced({ signal: AbortSignal.timeout(30_000) });
    stop.abort();
    await factory.stopped();
    await factory.close();
    await caches.close();
    await clients.close();

    expect(transport.closed).toBe(false);
    await expect(
      transport.requestJson<{ gitVersion?: string }>({ method: 'GET', path: '/version' }),
    ).resolves.toHaveProperty('gitVersion');
    expect(proxy.open()).toBeGreaterThan(0);
    await transport.close();
    await proxy.allClosed(AbortSignal.timeout(5_000));
    expect(proxy.open()).toBe(0);
  }, 60_000);

  it('two factories from one config: closing one leaves the other watching', async () => {
    const namespace = await cluster.namespace('two');
    const logger = createTestLogger();
    const options = { logger, cache: { defaultNamespace: namespace } };
    const first = createSharedControllerFactoryFromConfig(proxy.rest, options);
    const second = createSharedControllerFactoryFromConfig(proxy.rest, options);
    cleanups.push(() => second.close());
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    const seen = reconciled(second, stop.signal, 'after-close');
    for (const factory of [first, second]) {
      (await factory.forKind(configMaps)).registerHandler(stop.signal, 'noop', (_key, cm) => cm);
      await factory.start(stop.signal, 1);
      await factory.whenSynced({ signal: AbortSignal.timeout(30_000) });
    }

    await first.close();
    expect(first.sharedClientFactory().transport.closed).toBe(true);
    expect(second.sharedClientFactory().transport.closed).toBe(false);
    const written = await second
      .sharedClientFactory()
      .forResourceKind<ConfigMap>(
        { group: '', version: 'v1', resource: 'configmaps' },
        'ConfigMap',
        true,
      )
      .create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'after-close' },
      });
    expect(written.metadata?.name).toBe('after-close');
    const key = await seen.wait(15_000).catch((error: unknown) => {
      const logged = logger.entries.filter((entry) => entry.level !== 'debug');
      throw new Error(
        `${String(error)}; second: ${JSON.stringify(second.status())}; logged: ${JSON.stringify(logged)}`,
      );
    });
    expect(key).toBe(`${namespace}/after-close`);
  }, 60_000);
});
