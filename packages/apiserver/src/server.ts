// The built-in local API server: node:https (or node:http) on a random loopback port, client-certificate
// and bearer-token auth, a 3 MiB body limit, Status errors, chunked watch streams and the fault API.
import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import {
  type Clock,
  defaultLogger,
  errorMessage,
  type Logger,
  systemClock,
  type TimerHandle,
} from '@lasso/core';
import { ApiCore, type WatchPlan } from './api.ts';
import {
  anonymousUser,
  authenticate,
  ImpersonationError,
  impersonate,
  mastersGroup,
  type UserInfo,
} from './auth.ts';
import { type FaultInjector, FaultState, type RequestFacts } from './faults.ts';
import { createCertificateAuthority, createSignedCertificate } from './pki.ts';
import { authorizationAttributes } from './rbac/attributes.ts';
import { Authorizer } from './rbac/authorizer.ts';
import { bootstrapRbac } from './rbac/bootstrap.ts';
import { Registry } from './registry.ts';
import { requestInfo } from './request-info.ts';
import {
  badRequest,
  entityTooLarge,
  failure,
  internalError,
  reasonForCode,
  StatusError,
} from './status.ts';
import { Store } from './storage.ts';

/** kube-apiserver's request body limit for JSON bodies. */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/** Options of {@link startLocalApiServer}. */
export interface LocalApiServerOptions {
  /** Serve plain HTTP instead of HTTPS (no client-certificate auth then; the bearer token still works). */
  insecureHttp?: boolean;
  /** Interval of periodic BOOKMARK events on watches that allow them (kube-apiserver: about a minute). Default 60 000. */
  bookmarkIntervalMs?: number;
  /** Events kept for watches and consistent lists before older resourceVersions get 410. Default 20 000. */
  maxHistory?: number;
  /** Source of timestamps and of watch/bookmark timers. Default `systemClock`. */
  clock?: Clock;
  /** Where request failures (500s) are logged. Default `defaultLogger` (warnings and errors to stderr). */
  logger?: Logger;
}

/** Credentials of the admin user of a built-in server. */
export interface LocalApiServerCredentials {
  server: string;
  caPem?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token: string;
}

/**
 * The built-in API server of an environment: its URL, the fault API, and the current resourceVersion.
 */
export interface LocalApiServer {
  /** `https://127.0.0.1:PORT` (or `http://` with `insecureHttp`). */
  readonly url: string;
  /** Fault injection for tests. */
  readonly faults: FaultInjector;
  /** Current resourceVersion counter (for tests that reason about history). */
  currentResourceVersion(): string;
}

/** A started built-in server with its admin credentials and its stop button. */
export interface RunningLocalApiServer extends LocalApiServer {
  readonly credentials: LocalApiServerCredentials;
  /** Close every connection and the listening socket, cancel every timer. Idempotent. */
  stop(): Promise<void>;
}

interface ActiveWatch {
  end(): void;
  bookmark(): void;
}

function truthy(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/**
 * Start the built-in Kubernetes API server in-process on a random loopback port.
 *
 * @example
 * ```ts
 * const server = await startLocalApiServer();
 * const response = await fetch(`${server.url}/version`); // (HTTPS: trust server.credentials.caPem)
 * await server.stop();
 * ```
 */
export async function startLocalApiServer(
  options: LocalApiServerOptions = {},
): Promise<RunningLocalApiServer> {
  const server = new LocalServer(options);
  await server.listen();
  return server;
}

class LocalServer implements RunningLocalApiServer {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #bookmarkIntervalMs: number;
  readonly #insecure: boolean;
  readonly #store: Store;
  readonly #api: ApiCore;
  readonly #authorizer: Authorizer;
  readonly #aggregator: { stop(): void };
  readonly #faults: FaultState;
  readonly #tokens = new Map<string, UserInfo>();
  readonly #server: http.Server | https.Server;
  readonly #sockets = new Set<Socket>();
  readonly #watches = new Set<ActiveWatch>();
  readonly #timers = new Set<{ cancel(): void }>();
  #credentials: LocalApiServerCredentials | undefined;
  #tls: { caPem: string; clientCertPem: string; clientKeyPem: string } | undefined;
  #port = 0;
  #stopped = false;
  #restarting: Promise<void> | undefined;

  constructor(options: LocalApiServerOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    if (!(this.#bookmarkIntervalMs > 0)) throw new RangeError('bookmarkIntervalMs must be > 0');
    this.#insecure = options.insecureHttp === true;
    this.#store = new Store(
      options.maxHistory === undefined ? {} : { maxHistory: options.maxHistory },
    );
    const registry = new Registry();
    this.#api = new ApiCore({
      clock: this.#clock,
      registry,
      store: this.#store,
      serverAddress: () => `127.0.0.1:${this.#port}`,
    });
    this.#api.bootstrap();
    this.#authorizer = new Authorizer(this.#store);
    const system: UserInfo = { name: 'system:apiserver', groups: [mastersGroup] };
    this.#aggregator = bootstrapRbac({
      store: this.#store,
      write: (method, path, object) => {
        const url = new URL(path, 'https://127.0.0.1');
        const body = Buffer.from(JSON.stringify(object));
        const info = requestInfo(method, url, system);
        this.#api.handle(info, { method, url, headers: {}, body, user: system });
      },
      onError: (error) => this.#logger.error('rbac write failed', { error: errorMessage(error) }),
    });
    this.#faults = new FaultState({
      closeWatches: () => {
        for (const watch of [...this.#watches]) watch.end();
      },
      sendBookmarks: () => {
        for (const watch of [...this.#watches]) watch.bookmark();
      },
      expireHistory: () => this.#store.expireHistory(),
      restart: (downMs) => this.#restart(downMs),
    });
    const token = randomBytes(24).toString('hex');
    this.#tokens.set(token, {
      name: 'lasso-admin',
      groups: [mastersGroup, 'system:authenticated'],
    });
    const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
      void this.#onRequest(request, response).catch((error: unknown) => {
        this.#logger.error('request failed', { error: errorMessage(error) });
        response.destroy();
      });
    };
    if (this.#insecure) {
      this.#server = http.createServer(handler);
    } else {
      const ca = createCertificateAuthority({ commonName: 'lasso-envtest-ca', clock: this.#clock });
      const serving = createSignedCertificate(ca, {
        commonName: 'kube-apiserver',
        dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
        ipAddresses: ['127.0.0.1'],
        usage: 'server',
        clock: this.#clock,
      });
      const admin = createSignedCertificate(ca, {
        commonName: 'lasso-admin',
        organizations: [mastersGroup],
        usage: 'client',
        clock: this.#clock,
      });
      this.#tls = { caPem: ca.certPem, clientCertPem: admin.certPem, clientKeyPem: admin.keyPem };
      this.#server = https.createServer(
        {
          key: serving.keyPem,
          cert: serving.certPem,
          ca: [ca.certPem],
          requestCert: true,
          rejectUnauthorized: false,
        },
        handler,
      );
    }
    this.#tokenValue = token;
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    // A client that disconnects mid-handshake must not become an unhandled 'error'.
    this.#server.on('tlsClientError', () => {});
    this.#server.on('clientError', (_error, socket) => {
      socket.destroy();
    });
  }

  readonly #tokenValue: string;

  get url(): string {
    return `${this.#insecure ? 'http' : 'https'}://127.0.0.1:${this.#port}`;
  }

  get faults(): FaultInjector {
    return this.#faults;
  }

  get credentials(): LocalApiServerCredentials {
    if (this.#credentials === undefined) throw new Error('server not started');
    return this.#credentials;
  }

  currentResourceVersion(): string {
    return String(this.#store.currentRv());
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.#server.once('error', onError);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#server.off('error', onError);
        resolve();
      });
    });
    const address = this.#server.address();
    if (address !== null && typeof address === 'object') this.#port = address.port;
    const credentials: LocalApiServerCredentials = { server: this.url, token: this.#tokenValue };
    if (this.#tls !== undefined) {
      credentials.caPem = this.#tls.caPem;
      credentials.clientCertPem = this.#tls.clientCertPem;
      credentials.clientKeyPem = this.#tls.clientKeyPem;
    }
    this.#credentials = credentials;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#aggregator.stop();
    await this.#restarting?.catch(() => {});
    await this.#closeAll();
  }

  /** Close the listener and every connection; watches end cleanly unless `abrupt`. */
  async #closeAll(abrupt = false): Promise<void> {
    if (!abrupt) for (const watch of [...this.#watches]) watch.end();
    for (const timer of [...this.#timers]) timer.cancel();
    this.#timers.clear();
    const closed = new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
    });
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await closed;
  }

  #restart(downMs: number): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error('server stopped'));
    const run = async (): Promise<void> => {
      await this.#closeAll(true);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, downMs);
        timer.unref();
      });
      if (this.#stopped) return;
      await this.listen();
    };
    const restarting = run().finally(() => {
      if (this.#restarting === restarting) this.#restarting = undefined;
    });
    this.#restarting = restarting;
    return restarting;
  }

  #delay(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = this.#clock.schedule(ms, () => {
        this.#timers.delete(handle);
        resolve();
      });
      const handle = {
        cancel: () => {
          timer.cancel();
          resolve();
        },
      };
      this.#timers.add(handle);
    });
  }

  async #readBody(request: http.IncomingMessage): Promise<Buffer> {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > maxRequestBodyBytes) throw entityTooLarge(maxRequestBodyBytes);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxRequestBodyBytes) throw entityTooLarge(maxRequestBodyBytes);
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  }

  async #onRequest(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = (request.method ?? 'GET').toUpperCase();
    const facts: RequestFacts = {
      method,
      path: url.pathname,
      watch: truthy(url.searchParams.get('watch')) || /^\/apis?\/.*\/watch\//.test(url.pathname),
    };
    const cutAfter = this.#faults.takeCut(facts);
    try {
      const latency = this.#faults.latencyFor(facts);
      if (latency > 0) await this.#delay(latency);
      // A stop or restart during the delay dropped the connection: the request dies with it.
      if (this.#stopped || request.socket.destroyed) {
        response.destroy();
        return;
      }
      const fault = this.#faults.takeFailure(facts);
      if (fault !== undefined) {
        request.resume();
        const details: NonNullable<ReturnType<typeof failure>['details']> = {};
        const headers: Record<string, string> = {};
        if (fault.retryAfterSeconds !== undefined) {
          details.retryAfterSeconds = fault.retryAfterSeconds;
          headers['Retry-After'] = String(fault.retryAfterSeconds);
        }
        const reason = fault.reason ?? reasonForCode(fault.status);
        const message = fault.message ?? `injected fault: ${reason}`;
        throw new StatusError(failure(fault.status, reason, message, details), headers);
      }
      const body = await this.#readBody(request);
      let user =
        authenticate(
          request,
          (token) => this.#tokens.get(token) ?? this.#api.authenticateToken(token),
        ) ?? anonymousUser;
      try {
        user = impersonate(request, user, this.#authorizer);
      } catch (error) {
        if (error instanceof ImpersonationError) throw badRequest(error.message);
        throw error;
      }
      // As kube's filter chain: the request is classified once, then authorized on that classification
      // before routing (403 before 404 or 405); the router and handlers read the same classification.
      const info = requestInfo(method, url, user);
      this.#authorizer.check(authorizationAttributes(info));
      const result = this.#api.handle(info, { method, url, headers: request.headers, body, user });
      if (result.type === 'watch') {
        this.#startWatch(result.plan, response, cutAfter);
        return;
      }
      if (result.type === 'raw') {
        const { code, contentType, headers, body } = result;
        this.#send(response, code, contentType, body, headers, cutAfter, method);
        return;
      }
      if (result.type === 'text') {
        this.#send(
          response,
          result.code,
          'text/plain; charset=utf-8',
          result.body,
          {},
          cutAfter,
          method,
        );
        return;
      }
      this.#send(
        response,
        result.code,
        'application/json',
        JSON.stringify(result.body),
        result.warnings === undefined || result.warnings.length === 0
          ? {}
          : { Warning: [...result.warnings] },
        cutAfter,
        method,
      );
    } catch (error) {
      let statusError: StatusError;
      if (error instanceof StatusError) statusError = error;
      else {
        this.#logger.error('request failed', {
          method,
          path: url.pathname,
          error: errorMessage(error),
        });
        statusError = internalError(errorMessage(error));
      }
      const headers = { ...statusError.headers };
      this.#send(
        response,
        statusError.code,
        'application/json',
        JSON.stringify(statusError.status),
        headers,
        cutAfter,
        method,
      );
      if (statusError.code === 413) request.resume();
    }
  }

  #send(
    response: http.ServerResponse,
    code: number,
    contentType: string,
    text: string | Uint8Array,
    headers: Record<string, string | string[]>,
    cutAfter: number | undefined,
    method: string,
  ): void {
    if (response.destroyed) return;
    // A failure after a watch's headers went out: nothing sensible can follow, so drop the connection.
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
    response.writeHead(code, {
      'Content-Type': contentType,
      'Content-Length': String(body.length),
      'Audit-Id': randomUUID(),
      'Cache-Control': 'no-cache, private',
      ...headers,
    });
    if (method === 'HEAD') {
      response.end();
      return;
    }
    if (cutAfter !== undefined && cutAfter < body.length) {
      response.write(body.subarray(0, cutAfter), () => response.destroy());
      return;
    }
    response.end(body);
  }

  #startWatch(plan: WatchPlan, response: http.ServerResponse, cutAfter: number | undefined): void {
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Audit-Id': randomUUID(),
      'Cache-Control': 'no-cache, private',
    });
    response.flushHeaders();
    let ended = false;
    let written = 0;
    let control: { stop(): void; bookmark(): void } | undefined;
    const timers: TimerHandle[] = [];
    const cleanup = (): void => {
      ended = true;
      for (const timer of timers) timer.cancel();
      control?.stop();
      this.#watches.delete(active);
    };
    const end = (): void => {
      if (ended) return;
      cleanup();
      response.end();
    };
    const send = (event: unknown): void => {
      if (ended) return;
      const chunk = Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');
      if (cutAfter !== undefined && written + chunk.length >= cutAfter) {
        const partial = chunk.subarray(0, Math.max(0, cutAfter - written));
        cleanup();
        response.write(partial, () => response.destroy());
        return;
      }
      written += chunk.length;
      response.write(chunk);
    };
    const active: ActiveWatch = {
      end,
      bookmark: () => control?.bookmark(),
    };
    this.#watches.add(active);
    response.on('close', cleanup);
    control = plan.start(send, end);
    if (ended) {
      control.stop();
      return;
    }
    if (plan.timeoutMs !== undefined) timers.push(this.#clock.schedule(plan.timeoutMs, end));
    else timers.push(this.#clock.schedule(30 * 60_000, end));
    if (plan.bookmarks) {
      const scheduleBookmark = (): void => {
        const timer = this.#clock.schedule(this.#bookmarkIntervalMs, () => {
          if (ended) return;
          control?.bookmark();
          timers.splice(timers.indexOf(timer), 1);
          scheduleBookmark();
        });
        timers.push(timer);
      };
      scheduleBookmark();
    }
  }
}
