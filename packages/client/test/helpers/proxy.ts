// A loopback CONNECT proxy (plain or TLS) recording the tunnels it opened, for proxy-url tests.
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface LoopbackProxy {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  url: string;
  /** The `host:port` of every CONNECT request, in order. */
  connects: string[];
  /** Proxy-Authorization headers seen (undefined when absent). */
  proxyAuthorization: Array<string | undefined>;
  close(): Promise<void>;
}

/**
 * Start a CONNECT proxy. Every tunnel goes to `target` (`host:port`) when given, whatever the
 * client asked for: a test can then ask for a host name the server certificate does not carry.
 */
export async function startProxy(
  options: { target?: string; tls?: { certPem: string; keyPem: string } } = {},
): Promise<LoopbackProxy> {
  const connects: string[] = [];
  const proxyAuthorization: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const server: Server =
    options.tls !== undefined
      ? createHttpsServer({ cert: options.tls.certPem, key: options.tls.keyPem })
      : createHttpServer();
  server.on('request', (_request: IncomingMessage, response) => {
    // Only tunnels are served: a forwarded request would mean the client bypassed CONNECT.
    response.writeHead(405).end();
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    connects.push(request.url ?? '');
    proxyAuthorization.push(request.headers['proxy-authorization']);
    const [host, port] = (options.target ?? request.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(client);
    sockets.add(upstream);
    const done = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.on('error', done);
    upstream.on('close', done);
    client.on('error', done);
    client.on('close', done);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls !== undefined ? 'https' : 'http'}://127.0.0.1:${port}`,
    connects,
    proxyAuthorization,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
