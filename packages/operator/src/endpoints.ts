// The operator's plain-HTTP endpoints over node:http: /healthz and /readyz for the kubelet, /metrics for
// Prometheus. Two endpoints given the same host and port share one server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, type Logger } from '@lasso/core';
import { OperatorListenError } from './errors.ts';

/**
 * Where an endpoint listens.
 *
 * @example
 * ```ts
 * const health: EndpointAddress = { port: 8081 }; // all IPv4 interfaces, as a kubelet probes the Pod IP
 * const metrics: EndpointAddress = { host: '127.0.0.1', port: 0 }; // a free port: operator.addresses()
 * await createOperator({ health, metrics });
 * ```
 */
export interface EndpointAddress {
  /** TCP port; 0 picks a free one (read it back from `operator.addresses()`). */
  port: number;
  /** Host or IP to bind; default `'0.0.0.0'` (all IPv4 interfaces), as a kubelet probes the Pod's IP. */
  host?: string | undefined;
}

/** One path's answer. */
export interface RouteAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string | undefined;
}

/** @internal A path's handler: synchronous, so a probe answers even while the event loop is busy elsewhere. */
export type Route = () => RouteAnswer;

/** @internal A listening server: its bound address and its close. */
export interface Listening {
  readonly address: string;
  close(): Promise<void>;
}

function display(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** @internal Serve `routes` on `address`; other paths answer 404, other methods than GET and HEAD 405. */
export async function listen(
  endpoint: 'health' | 'metrics',
  address: EndpointAddress,
  routes: ReadonlyMap<string, Route>,
  logger: Logger,
): Promise<Listening> {
  const host = address.host ?? '0.0.0.0';
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = routes.get(path);
    if (route === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response
        .writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' })
        .end();
      return;
    }
    let answer: RouteAnswer;
    try {
      answer = route();
    } catch (error) {
      // A route that throws is our bug: said loudly, answered 500 without the error's text (no secrets out).
      logger.error('endpoint failed', { path, error: errorMessage(error) });
      answer = { status: 500, body: 'internal error\n' };
    }
    response
      .writeHead(answer.status, {
        'content-type': answer.contentType ?? 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
      })
      .end(request.method === 'HEAD' ? undefined : answer.body);
  });
  // A scrape or probe connection must not keep a stopping process alive.
  server.keepAliveTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw new OperatorListenError(endpoint, display(host, address.port), { cause: error });
  }
  server.on('error', (error) =>
    logger.error('endpoint server failed', { endpoint, error: errorMessage(error) }),
  );
  const bound = server.address() as AddressInfo;
  const where = display(bound.address, bound.port);
  logger.info('serving', { endpoint, address: where, paths: [...routes.keys()].join(', ') });
  return {
    address: where,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
