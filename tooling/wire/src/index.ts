// Plain node:http(s) helpers for tests that check the wire (no @lasso/client, so a client bug cannot hide a
// server's): a request, a watch read line by line, and the bodies the suites send. One copy for
// @lasso/apiserver's wire tests, @lasso/envtest's and the conformance suites (@lasso-internal/conformance).
import * as http from 'node:http';
import * as https from 'node:https';

/**
 * Whatever a request is sent to: a started built-in server, an envtest environment, or anything else with
 * their credentials (a certificate, a bearer token, or neither).
 */
export interface Target {
  readonly credentials: {
    readonly server: string;
    readonly caPem?: string | undefined;
    readonly clientCertPem?: string | undefined;
    readonly clientKeyPem?: string | undefined;
    readonly token?: string | undefined;
  };
}

/** A buffered response with its parsed JSON body (when it has one). */
export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** Per-request options. */
export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** Send this bearer token instead of the admin client certificate. */
  token?: string;
  /** Send no credentials at all. */
  anonymous?: boolean;
}

function requestOptions(
  target: Target,
  method: string,
  options: RequestOptions,
): https.RequestOptions {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const { credentials } = target;
  const result: https.RequestOptions = { method, headers, agent: false };
  const useToken = options.token !== undefined;
  if (useToken) headers.Authorization = `Bearer ${options.token}`;
  if (credentials.server.startsWith('https:')) {
    if (credentials.caPem !== undefined) result.ca = credentials.caPem;
    if (!useToken && options.anonymous !== true && credentials.clientCertPem !== undefined) {
      result.cert = credentials.clientCertPem;
      result.key = credentials.clientKeyPem;
    }
  }
  if (
    !useToken &&
    options.anonymous !== true &&
    credentials.clientCertPem === undefined &&
    credentials.token !== undefined
  ) {
    headers.Authorization = `Bearer ${credentials.token}`;
  }
  return result;
}

function open(
  target: Target,
  method: string,
  path: string,
  options: RequestOptions,
  onResponse: (response: http.IncomingMessage) => void,
): http.ClientRequest {
  const url = new URL(path, target.credentials.server);
  const settings = requestOptions(target, method, options);
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    payload = Buffer.isBuffer(options.body)
      ? options.body
      : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
    const headers = settings.headers as Record<string, string>;
    headers['Content-Type'] = options.contentType ?? 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const request =
    url.protocol === 'https:'
      ? https.request(url, settings, onResponse)
      : http.request(url, settings, onResponse);
  request.end(payload);
  return request;
}

/** Send a request and buffer the reply. */
export function call(
  target: Target,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const request = open(target, method, path, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body });
      });
    });
    request.on('error', reject);
  });
}

/** A watch event as it arrives on the wire. */
export interface WireEvent {
  type: string;
  object: any;
}

/** An open watch response read line by line. */
export interface WatchStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every event received so far. */
  events: WireEvent[];
  /** The next event not yet taken by `next()`; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<WireEvent>;
  /** Take events until one satisfies `predicate`; rejects after `timeoutMs`. */
  until(predicate: (event: WireEvent) => boolean, timeoutMs?: number): Promise<WireEvent[]>;
  /** Settles when the server ends the response (true for a clean end, false for an abort). */
  ended: Promise<boolean>;
  close(): void;
}

/** Open a watch (`path` must include `watch=1`); resolves once the response headers arrive. */
export function watch(
  target: Target,
  path: string,
  options: RequestOptions = {},
): Promise<WatchStream> {
  return new Promise<WatchStream>((resolve, reject) => {
    const request = open(target, 'GET', path, options, (response) => {
      const events: WireEvent[] = [];
      let taken = 0;
      let buffer = '';
      const waiters = new Set<() => void>();
      let finished = false;
      let resolveEnded!: (clean: boolean) => void;
      const ended = new Promise<boolean>((done) => {
        resolveEnded = done;
      });
      const wake = (): void => {
        for (const waiter of [...waiters]) waiter();
      };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let index = buffer.indexOf('\n');
        while (index >= 0) {
          const line = buffer.slice(0, index).trim();
          buffer = buffer.slice(index + 1);
          if (line !== '') events.push(JSON.parse(line) as WireEvent);
          index = buffer.indexOf('\n');
        }
        wake();
      });
      response.on('end', () => {
        finished = true;
        resolveEnded(true);
        wake();
      });
      response.on('error', () => {
        finished = true;
        resolveEnded(false);
        wake();
      });
      response.on('aborted', () => {
        finished = true;
        resolveEnded(false);
        wake();
      });
      const next = (timeoutMs = 5_000): Promise<WireEvent> =>
        new Promise<WireEvent>((done, fail) => {
          const check = (): boolean => {
            if (taken < events.length) {
              cleanup();
              done(events[taken++]!);
              return true;
            }
            if (finished) {
              cleanup();
              fail(new Error(`watch ended after ${events.length} events`));
              return true;
            }
            return false;
          };
          const timer = setTimeout(() => {
            cleanup();
            fail(new Error(`no watch event within ${timeoutMs} ms (got ${events.length})`));
          }, timeoutMs);
          const waiter = (): void => {
            check();
          };
          const cleanup = (): void => {
            clearTimeout(timer);
            waiters.delete(waiter);
          };
          if (!check()) waiters.add(waiter);
        });
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        events,
        next,
        async until(predicate, timeoutMs = 5_000) {
          const seen: WireEvent[] = [];
          for (;;) {
            const event = await next(timeoutMs);
            seen.push(event);
            if (predicate(event)) return seen;
          }
        },
        ended,
        close: () => {
          request.destroy();
          response.destroy();
        },
      });
    });
    request.on('error', reject);
  });
}

/** A ConfigMap body. */
export function configMap(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): any {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: labels === undefined ? { name } : { name, labels },
    data,
  };
}

/** A minimal valid Deployment body. */
export function deployment(name: string, replicas = 1): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }] },
      },
    },
  };
}

/** A CRD body for `plural.group` with the given versions (first is the storage version). */
export function crd(options: {
  group: string;
  plural: string;
  kind: string;
  scope?: 'Namespaced' | 'Cluster';
  versions?: string[];
  status?: boolean;
  shortNames?: string[];
}): any {
  const versions = options.versions ?? ['v1'];
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            replicas: { type: 'integer' },
            message: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
        status: {
          type: 'object',
          properties: { ready: { type: 'boolean' }, observedGeneration: { type: 'integer' } },
        },
      },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${options.plural}.${options.group}` },
    spec: {
      group: options.group,
      scope: options.scope ?? 'Namespaced',
      names: {
        plural: options.plural,
        singular: options.kind.toLowerCase(),
        kind: options.kind,
        listKind: `${options.kind}List`,
        ...(options.shortNames === undefined ? {} : { shortNames: options.shortNames }),
      },
      versions: versions.map((name, index) => ({
        name,
        served: true,
        storage: index === 0,
        schema,
        ...(options.status === false ? {} : { subresources: { status: {} } }),
      })),
    },
  };
}

/** A short random suffix for unique names. */
export function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}
