// Who closes what: each factory closes what it created (down to the transport) and never what it was handed.
import { createRestConfig, RestTransport, restTransportFor } from '@lasso/client';
import { createTestLogger } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createSharedCacheFactory } from './shared-cache-factory.ts';
import { createSharedClientFactory } from './shared-client-factory.ts';
import {
  createSharedControllerFactory,
  createSharedControllerFactoryFromConfig,
} from './shared-controller-factory.ts';

// Nothing here sends a request: a factory creates its transport eagerly and its connections lazily.
const rest = () =>
  createRestConfig({ server: 'https://k8s.example:6443', logger: createTestLogger() });

describe('factory ownership', () => {
  it('a controller factory from a config closes its cache factory, client factory and transport', async () => {
    const config = rest();
    const factory = createSharedControllerFactoryFromConfig(config);
    const clients = factory.sharedClientFactory();
    expect(clients).toBe(factory.sharedCacheFactory().sharedClientFactory());
    expect(clients.transport).not.toBe(restTransportFor(config));
    await factory.close();
    expect(clients.transport.closed).toBe(true);
    await expect(factory.start(new AbortController().signal)).rejects.toMatchObject({
      code: 'LASSO_FACTORY_CLOSED',
    });
    expect(restTransportFor(config).closed).toBe(false);
  });

  it('a controller factory over a cache factory closes neither it nor the client factory', async () => {
    const clients = createSharedClientFactory(rest());
    const caches = createSharedCacheFactory(clients);
    const factory = createSharedControllerFactory(caches);
    expect(factory.sharedClientFactory()).toBe(clients);
    await factory.close();
    expect(clients.transport.closed).toBe(false);
    await caches.close();
    expect(clients.transport.closed).toBe(false);
    await clients.close();
    expect(clients.transport.closed).toBe(true);
  });

  it('a cache factory from a config closes the client factory it created; over one, leaves it open', async () => {
    const owned = createSharedCacheFactory(rest());
    const transport = owned.sharedClientFactory().transport;
    await owned.close();
    expect(transport.closed).toBe(true);

    const clients = createSharedClientFactory(rest());
    const borrowed = createSharedCacheFactory(clients);
    await borrowed.close();
    expect(clients.transport.closed).toBe(false);
    await clients.close();
  });

  it('a cache factory from a config refuses bad options and a value that is no config', () => {
    expect(() => createSharedCacheFactory(rest(), { defaultResyncMs: -1 })).toThrow(
      /defaultResyncMs/,
    );
    expect(() => createSharedCacheFactory({} as never)).toThrow(TypeError);
  });

  it('two controller factories from one config do not close each other', async () => {
    const config = rest();
    const first = createSharedControllerFactoryFromConfig(config);
    const second = createSharedControllerFactoryFromConfig(config);
    const firstTransport = first.sharedClientFactory().transport;
    const secondTransport = second.sharedClientFactory().transport;
    expect(secondTransport).not.toBe(firstTransport);
    await first.close();
    expect(firstTransport.closed).toBe(true);
    expect(secondTransport.closed).toBe(false);
    await second.close();
    expect(secondTransport.closed).toBe(true);
  });

  it('a transport handed to a client factory stays open through every layer above it', async () => {
    const transport = new RestTransport(rest());
    const clients = createSharedClientFactory(transport);
    const factory = createSharedControllerFactory(createSharedCacheFactory(clients));
    await factory.close();
    await factory.sharedCacheFactory().close();
    await clients.close();
    expect(transport.closed).toBe(false);
    await transport.close();
  });
});
