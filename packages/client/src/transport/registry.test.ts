// Ownership of transports: an owned RestTransport's close() ends its keep-alive sockets; the registry's shared
// transport is one per config and replaced (never handed out closed) after a deprecated close.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { json, type Loopback, startLoopback } from '../../test/helpers/loopback.ts';
import { Client } from '../client.ts';
import { createRestConfig } from '../config/rest-config.ts';
import { RestTransport } from '../transport.ts';
import { restTransportFor } from './registry.ts';

let server: Loopback | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  sockets.length = 0;
});

async function versionServer(): Promise<Loopback> {
  server = await startLoopback((_request, response, raw) => {
    if (!sockets.includes(raw.socket)) sockets.push(raw.socket);
    json(response, 200, { gitVersion: 'v1.30.0' });
  });
  return server;
}

const socketClosed = (socket: Socket): Promise<void> =>
  socket.destroyed
    ? Promise.resolve()
    : new Promise((resolve) => socket.once('close', () => resolve()));

describe('RestTransport ownership', () => {
  it('close() ends the keep-alive sockets of its own Agent and marks it closed', async () => {
    const loopback = await versionServer();
    const transport = new RestTransport(createRestConfig({ server: loopback.url }));
    await transport.requestJson({ method: 'GET', path: '/version' });
    expect(sockets).toHaveLength(1);
    const [socket] = sockets;
    expect(socket?.destroyed).toBe(false); // kept alive for the next request
    expect(transport.closed).toBe(false);

    await transport.close();
    expect(transport.closed).toBe(true);
    await socketClosed(socket as Socket);
    await expect(transport.requestJson({ method: 'GET', path: '/version' })).rejects.toThrow(
      'the transport is closed',
    );
    await transport.close(); // idempotent
  });
});

describe('restTransportFor', () => {
  it('hands out one transport per config object, the one clients built from the config use', async () => {
    const loopback = await versionServer();
    const config = createRestConfig({ server: loopback.url });
    const other = createRestConfig({ server: loopback.url });
    const shared = restTransportFor(config);
    expect(restTransportFor(config)).toBe(shared);
    expect(restTransportFor(other)).not.toBe(shared);
    const client = new Client({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest: config,
    });
    expect(client.transport).toBe(shared);
    expect(shared.closed).toBe(false);
  });

  it('after a (deprecated) close of the shared transport, builds a fresh one instead of handing out the closed one', async () => {
    const loopback = await versionServer();
    const config = createRestConfig({ server: loopback.url });
    const first = restTransportFor(config);
    await first.close();
    const second = restTransportFor(config);
    expect(second).not.toBe(first);
    expect(second.closed).toBe(false);
    await expect(second.requestJson({ method: 'GET', path: '/version' })).resolves.toEqual({
      gitVersion: 'v1.30.0',
    });
    expect(restTransportFor(config)).toBe(second);
  });
});
