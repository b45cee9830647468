// A minimal HTTPS client over node:https for the environment's own setup requests (CRD install, namespace
// creation); @lasso/envtest must not depend on @lasso/client.
import * as http from 'node:http';
import * as https from 'node:https';

/** Credentials a request is sent with. */
export interface RequestCredentials {
  server: string;
  caPem?: string | undefined;
  clientCertPem?: string | undefined;
  clientKeyPem?: string | undefined;
  token?: string | undefined;
}

/** A buffered response. */
export interface SimpleResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

/** Send one request and buffer the response; `options.signal` aborts it (the promise rejects). */
export function sendRequest(
  credentials: RequestCredentials,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  options: { signal?: AbortSignal | undefined } = {},
): Promise<SimpleResponse> {
  const url = new URL(path, credentials.server);
  const payload =
    body === undefined
      ? undefined
      : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const requestHeaders: Record<string, string> = { Accept: 'application/json', ...headers };
  if (payload !== undefined) {
    requestHeaders['Content-Type'] ??= 'application/json';
    requestHeaders['Content-Length'] = String(payload.length);
  }
  const useCertificate =
    credentials.clientCertPem !== undefined && credentials.clientKeyPem !== undefined;
  if (!useCertificate && credentials.token !== undefined) {
    requestHeaders.Authorization = `Bearer ${credentials.token}`;
  }
  return new Promise<SimpleResponse>((resolve, reject) => {
    const settings: https.RequestOptions = { method, headers: requestHeaders, agent: false };
    if (options.signal !== undefined) settings.signal = options.signal;
    if (url.protocol === 'https:') {
      if (credentials.caPem !== undefined) settings.ca = credentials.caPem;
      if (useCertificate) {
        settings.cert = credentials.clientCertPem;
        settings.key = credentials.clientKeyPem;
      }
    }
    const onResponse = (response: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text,
          json: () => JSON.parse(text) as unknown,
        });
      });
    };
    const request =
      url.protocol === 'https:'
        ? https.request(url, settings, onResponse)
        : http.request(url, settings, onResponse);
    request.on('error', reject);
    request.end(payload);
  });
}
