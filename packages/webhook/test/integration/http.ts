// Plain node:https calls to the environment's API server and a small misbehaving webhook, for the end-to-end
// suite: no @lasso/client in between, so the suite sees exactly the status, body and Warning headers a client gets.
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Environment } from '@lasso/envtest';

/** A buffered reply with its parsed JSON body. */
export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** Send `method path` to the environment's API server as its admin user. */
export function call(
  env: Environment,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const { credentials } = env;
  const url = new URL(path, credentials.server);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  if (credentials.clientCertPem === undefined && credentials.token !== undefined) {
    headers.Authorization = `Bearer ${credentials.token}`;
  }
  const options: https.RequestOptions = { method, headers, agent: false };
  if (credentials.caPem !== undefined) options.ca = credentials.caPem;
  if (credentials.clientCertPem !== undefined) {
    options.cert = credentials.clientCertPem;
    options.key = credentials.clientKeyPem;
  }
  return new Promise<Reply>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed });
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * An HTTPS endpoint that misbehaves as a broken webhook does, by path: `/hang` never answers (until `stop`),
 * `/garbage` answers 200 with a body that is not JSON.
 */
export class BrokenWebhook {
  readonly #server: https.Server;
  readonly #hanging = new Set<http.ServerResponse>();

  constructor(tls: { certPem: string; keyPem: string }) {
    this.#server = https.createServer(
      { cert: tls.certPem, key: tls.keyPem },
      (request, response) => {
        request.resume();
        request.on('end', () => {
          if ((request.url ?? '').startsWith('/hang')) {
            this.#hanging.add(response);
            return;
          }
          response.setHeader('Content-Type', 'application/json');
          response.end('this is not a review');
        });
      },
    );
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const response of this.#hanging) response.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A loopback port nothing listens on: one that was just free and is closed again. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
