// /healthz, /readyz and /metrics over node:http: what a kubelet probes and Prometheus scrapes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One path's answer: a status code and a text body. */
export type Route = () => Promise<{ status: number; body: string; contentType?: string }>;

/** A running endpoint server. */
export interface Endpoints {
  /** The bound address, e.g. `127.0.0.1:40123` (useful with port 0). */
  readonly address: string;
  close(): Promise<void>;
}

function split(address: string): { host: string | undefined; port: number } {
  const index = address.lastIndexOf(':');
  const host = address.slice(0, index);
  return {
    host: host === '' ? undefined : host.replace(/^\[(.*)\]$/, '$1'),
    port: Number(address.slice(index + 1)),
  };
}

/** Serve `routes` on `address` (`host:port`, `:port`); unknown paths answer 404. */
export async function serveEndpoints(
  address: string,
  routes: Record<string, Route>,
): Promise<Endpoints> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = routes[path];
    if (route === undefined || request.method !== 'GET') {
      response.writeHead(route === undefined ? 404 : 405, { 'content-type': 'text/plain' }).end();
      return;
    }
    route().then(
      ({ status, body, contentType }) => {
        response
          .writeHead(status, { 'content-type': contentType ?? 'text/plain; charset=utf-8' })
          .end(body);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      },
    );
  });
  const { host, port } = split(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
