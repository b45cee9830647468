// Plain node:http(s) helpers for the conformance suite: no @lasso/client, so the suite checks the wire.
import * as http from 'node:http';
import * as https from 'node:https';
import { newestReleasedMinor } from '../../../apiserver/src/endpoints/discovery.ts';
import type { Environment } from '../../src/index.ts';

/**
 * The newest released kube-apiserver minor version: the release the built-in server answers as (1.37
 * until 1.38 ships on 2026-12-16). A behaviour gated on a release not yet shipped is not the built-in's.
 */
export const newestReleased = newestReleasedMinor;

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
  env: Environment,
  method: string,
  options: RequestOptions,
): https.RequestOptions {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const { credentials } = env;
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
  env: Environment,
  method: string,
  path: string,
  options: RequestOptions,
  onResponse: (response: http.IncomingMessage) => void,
): http.ClientRequest {
  const url = new URL(path, env.credentials.server);
  const settings = requestOptions(env, method, options);
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
  env: Environment,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const request = open(env, method, path, options, (response) => {
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
  env: Environment,
  path: string,
  options: RequestOptions = {},
): Promise<WatchStream> {
  return new Promise<WatchStream>((resolve, reject) => {
    const request = open(env, 'GET', path, options, (response) => {
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

/**
 * Re-run `check` until it returns true or `timeoutMs` passes. Only real API servers need a second
 * try (their discovery and CRD finalizers settle asynchronously); the built-in server passes first time.
 */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The release a server answers as, read from its `/version` once per environment. */
export interface ServerVersion {
  /**
   * The minor release (1.`minor`). The built-in server counts as the newest released kube-apiserver
   * ({@link newestReleased}) whatever its `/version` says: gates on released versions pass on it, gates on
   * a release yet to ship do not.
   */
  minor: number;
  gitVersion: string;
}

const versions = new WeakMap<Environment, Promise<ServerVersion>>();

async function readVersion(env: Environment): Promise<ServerVersion> {
  const reply = await call(env, 'GET', '/version');
  const body = reply.body ?? {};
  const gitVersion = String(body.gitVersion ?? '');
  if (env.server !== undefined) return { minor: newestReleased, gitVersion };
  // `minor` may carry a `+` (a build past the release, as managed clusters report).
  const major = Number.parseInt(String(body.major ?? ''), 10);
  const minor = Number.parseInt(String(body.minor ?? ''), 10);
  if (major > 1) return { minor: Number.POSITIVE_INFINITY, gitVersion };
  if (major === 1 && Number.isFinite(minor)) return { minor, gitVersion };
  const fromGit = /^v1\.(\d+)\./.exec(gitVersion);
  if (fromGit !== null) return { minor: Number(fromGit[1]), gitVersion };
  throw new Error(`GET /version answered ${reply.status} without a version: ${reply.text}`);
}

/** The server's version, read from `/version` on the first call for `env` and cached for the others. */
export function serverVersion(env: Environment): Promise<ServerVersion> {
  let version = versions.get(env);
  if (version === undefined) {
    version = readVersion(env);
    versions.set(env, version);
    // A failed read is not cached: the next caller asks again.
    version.catch(() => versions.delete(env));
  }
  return version;
}

/**
 * Whether the server is kube-apiserver 1.`minor` or newer (the built-in server counts as the newest
 * released one, {@link newestReleased}). Gate on the release that introduced a behaviour, say which in the
 * test name, and name the change (PR) at the gate.
 */
export async function atLeast(env: Environment, minor: number): Promise<boolean> {
  return (await serverVersion(env)).minor >= minor;
}

/**
 * Skip the running test on a real kube-apiserver older than 1.`minor`: for behaviour that release
 * introduced and that older releases have no answer of their own for (say the version in the test name).
 */
export async function skipBefore(
  env: Environment,
  skip: (note?: string) => void,
  minor: number,
): Promise<void> {
  const version = await serverVersion(env);
  if (version.minor < minor) {
    skip(`kube-apiserver ${version.gitVersion} is older than 1.${minor}`);
  }
}
