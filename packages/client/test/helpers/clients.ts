// The setup the client's tests share: loopback servers, and transports and clients on them, all closed when
// the test ends (the transports first, then the servers).
import { afterEach } from 'vitest';
import { Client, type ClientOptions } from '../../src/client.ts';
import { createRestConfig, type RestConfig } from '../../src/config/rest-config.ts';
import { RestTransport } from '../../src/transport.ts';
import { type Handler, type Loopback, startLoopback } from './loopback.ts';

/** The resource a client is for: its gvr, kind and scope. */
export type Resource = Pick<ClientOptions, 'gvr' | 'kind' | 'namespaced'>;

export const CONFIG_MAPS: Resource = {
  gvr: { group: '', version: 'v1', resource: 'configmaps' },
  kind: 'ConfigMap',
  namespaced: true,
};

export const NAMESPACES: Resource = {
  gvr: { group: '', version: 'v1', resource: 'namespaces' },
  kind: 'Namespace',
  namespaced: false,
};

/** Config fields of a new transport, besides its server. */
export type TestConfig = Omit<RestConfig, 'server'>;

/** What {@link TestClients.client} builds: ConfigMaps unless `gvr`, `kind` and `namespaced` say otherwise. */
export interface TestClientOptions extends Partial<Omit<ClientOptions, 'rest'>> {
  /** The config of the new transport (not with a transport given). */
  config?: TestConfig;
}

export interface TestClients {
  /** Starts a loopback server, closed when the test ends. */
  serve(handler: Handler): Promise<Loopback>;
  /** Closes `transport` when the test ends; returns it. */
  track(transport: RestTransport): RestTransport;
  /** A transport on `createRestConfig({ server, ...config })`, closed when the test ends. */
  transport(server: Loopback | string, config?: TestConfig): RestTransport;
  /** A client on `rest`, or on a new transport to a loopback server or URL. */
  client(rest: RestTransport | Loopback | string, options?: TestClientOptions): Client;
}

/**
 * Call once at the top of a test file: registers the `afterEach` that closes what the file's tests opened
 * through the returned functions (which need no `this`).
 */
export function useClients(): TestClients {
  const transports: RestTransport[] = [];
  const servers: Loopback[] = [];
  afterEach(async () => {
    for (const transport of transports.splice(0)) await transport.close();
    for (const server of servers.splice(0)) await server.close();
  });
  const track = (transport: RestTransport): RestTransport => {
    transports.push(transport);
    return transport;
  };
  const transport = (server: Loopback | string, config: TestConfig = {}): RestTransport =>
    track(
      new RestTransport(
        createRestConfig({ server: typeof server === 'string' ? server : server.url, ...config }),
      ),
    );
  return {
    async serve(handler) {
      const server = await startLoopback(handler);
      servers.push(server);
      return server;
    },
    track,
    transport,
    client(rest, { config, ...options } = {}) {
      return new Client({
        ...CONFIG_MAPS,
        ...options,
        rest: rest instanceof RestTransport ? rest : transport(rest, config),
      });
    },
  };
}

/** The error `promise` rejects with; throws when it resolves or rejects with a non-Error. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  const result = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(result instanceof Error)) throw new Error(`expected a rejection, got ${String(result)}`);
  return result;
}
