// W3's event source: a loopback HTTP server that answers a ConfigMap list and then streams MODIFIED events
// as fast as the socket drains, so the benchmark measures the client side only. The built-in API server of
// @lasso/envtest is not used here: each write there goes through validation, a structuredClone into
// history and a JSON.stringify per watcher, so 200,000 real updates would measure the server instead.
import { once } from 'node:events';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { benchConfigMap } from './fixtures.ts';

/** Options of {@link startStreamServer}. */
export interface StreamServerOptions {
  /** The namespace served; other paths answer 404. */
  namespace: string;
  /** ConfigMaps in the list (resourceVersions 1..objects; the list's resourceVersion is `objects`). */
  objects: number;
  /** MODIFIED events streamed to a watch from the list's resourceVersion, cycling over the objects. */
  events: number;
}

/** A started stream server. */
export interface StreamServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Close every connection and the listening socket. */
  stop(): Promise<void>;
}

/** Lines written per socket write: big enough that the server is never the bottleneck. */
const linesPerWrite = 256;

function drainedOrClosed(response: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });
}

/**
 * Serve `GET /api/v1/namespaces/{namespace}/configmaps` as a (paginated, when `limit` is set) list, and with
 * `watch=true` as a watch: from the list's resourceVersion it streams `events` MODIFIED events (each with the
 * next resourceVersion) and then stays open without events until the client leaves; from any other
 * resourceVersion it only stays open. A watch with `sendInitialEvents` (a streaming list) gets 422 Invalid, as from a
 * kube-apiserver without the WatchList feature. Every contender of W3 reads the same bytes.
 */
export async function startStreamServer(options: StreamServerOptions): Promise<StreamServer> {
  const { namespace, objects, events } = options;
  const listRv = objects;
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const items = Array.from({ length: objects }, (_, index) => {
    const object = benchConfigMap(index, namespace);
    object.metadata.uid = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
    object.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    return object;
  });
  // Each watch line is prefix + resourceVersion + suffix: cheap to produce, so the socket sets the pace.
  const templates = items.map((object) => {
    const marker = '__RV__';
    const line = JSON.stringify({
      type: 'MODIFIED',
      object: { ...object, metadata: { ...object.metadata, resourceVersion: marker } },
    });
    const at = line.indexOf(marker);
    return { prefix: line.slice(0, at), suffix: `${line.slice(at + marker.length)}\n` };
  });
  const sockets = new Set<Socket>();

  function list(query: URLSearchParams, response: http.ServerResponse): void {
    const limit = Number(query.get('limit') ?? '0');
    const start = Number(query.get('continue') || '0');
    const end = limit > 0 ? Math.min(objects, start + limit) : objects;
    const page = items.slice(start, end).map((object, offset) => {
      // Typed lists of built-in kinds carry no kind/apiVersion per item, as from kube-apiserver.
      const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
      return {
        ...rest,
        metadata: { ...rest.metadata, resourceVersion: String(start + offset + 1) },
      };
    });
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    if (end < objects) {
      metadata.continue = String(end);
      metadata.remainingItemCount = objects - end;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(
      JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata, items: page }),
    );
  }

  async function watch(query: URLSearchParams, response: http.ServerResponse): Promise<void> {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
    response.flushHeaders();
    if (query.get('resourceVersion') !== String(listRv)) return; // a resumed watch: nothing new
    let next = 0;
    while (next < events && !response.destroyed) {
      let chunk = '';
      const stop = Math.min(events, next + linesPerWrite);
      for (; next < stop; next++) {
        const template = templates[next % objects] as { prefix: string; suffix: string };
        chunk += template.prefix + String(listRv + 1 + next) + template.suffix;
      }
      if (!response.write(chunk)) await drainedOrClosed(response);
    }
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method !== 'GET' || url.pathname !== path) {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(status(404, 'NotFound', `the server could not find ${url.pathname}`));
      return;
    }
    const isWatch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    if (!isWatch) {
      list(url.searchParams, response);
      return;
    }
    if (url.searchParams.has('sendInitialEvents')) {
      // Streaming lists (KEP-3157) are not served: refused as kube-apiserver does without the WatchList feature,
      // so that an informer falls back to a list at once and every contender reads the same list and events.
      response.writeHead(422, { 'Content-Type': 'application/json' });
      response.end(status(422, 'Invalid', 'sendInitialEvents is not supported by this server'));
      return;
    }
    watch(url.searchParams, response).catch((error: unknown) => {
      console.error('stream server: watch failed', error);
      response.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${address.port}`,
    stop: () => {
      stopped ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        for (const socket of sockets) socket.destroy();
      });
      return stopped;
    },
  };
}
