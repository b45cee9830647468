// A loopback node:http server recording requests, for unit tests of the transport, client and watch.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (
  request: RecordedRequest,
  response: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

export interface Loopback {
  url: string;
  requests: RecordedRequest[];
  /** Resolves when the server saw a response's connection close (the client destroyed it). */
  closed: Promise<void>[];
  close(): Promise<void>;
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const closed: Promise<void>[] = [];
  const server = createServer((raw, response) => {
    const chunks: Buffer[] = [];
    closed.push(new Promise<void>((resolve) => response.on('close', () => resolve())));
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const request: RecordedRequest = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      void Promise.resolve(handler(request, response, raw)).catch((error: unknown) => {
        response.destroy(error as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export function status(
  code: number,
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
) {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, ...extra };
}
