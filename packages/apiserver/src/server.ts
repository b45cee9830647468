// The built-in API server's transport and lifecycle: node:https (or node:http) on a loopback port, its
// certificates and admin token, and the request chain (filters/) every request runs through.
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import {
  type Clock,
  defaultLogger,
  drainedResult,
  errorMessage,
  type Lifecycle,
  type Logger,
  type StopResult,
  systemClock,
} from '@lasso/core';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
import { mastersGroup, type UserInfo } from './authentication/authenticate.ts';
import { ControllerManager, type ControllerSelection } from './controllers/controller-manager.ts';
import { ApiCore } from './endpoints/dispatcher.ts';
import { WatchStreams } from './endpoints/watch-stream.ts';
import { type FaultInjector, FaultState } from './faults/fault-injector.ts';
import { withAuthentication } from './filters/authentication.ts';
import { withAuthorization } from './filters/authorization.ts';
import { composeFilters, type ExchangeHandler } from './filters/chain.ts';
import { dispatch } from './filters/dispatch.ts';
import { withFaults } from './filters/faults.ts';
import { withImpersonation } from './filters/impersonation.ts';
import { withRequestBody } from './filters/request-body.ts';
import { withStatusErrors } from './filters/status-errors.ts';
import { Authorizer } from './rbac/authorizer.ts';
import { bootstrapRbac } from './rbac/bootstrap.ts';
import { timestamp } from './registry/server-context.ts';
import { requestInfo } from './request/request-info.ts';
import { parseRequestTarget } from './request/request-target.ts';
import { Registry } from './resources/served-resources.ts';
import { Store } from './storage/store.ts';

/** Options of {@link startLocalApiServer}. */
export interface LocalApiServerOptions {
  /** Serve plain HTTP instead of HTTPS (no client-certificate auth then; the bearer token still works). */
  insecureHttp?: boolean | undefined;
  /** Interval of periodic BOOKMARK events on watches that allow them (kube-apiserver: about a minute). Default 60 000. */
  bookmarkIntervalMs?: number | undefined;
  /** Events kept for watches and consistent lists before older resourceVersions get 410. Default 20 000. */
  maxHistory?: number | undefined;
  /** Source of timestamps and of watch/bookmark timers. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where request failures (500s) are logged. Default `defaultLogger` (warnings and errors to stderr). */
  logger?: Logger | undefined;
  /**
   * kube-controller-manager controllers to run against the server's own storage while it serves. Both
   * default to off, as with controller-runtime's envtest (a real cluster runs them).
   */
  controllers?: LocalApiServerControllers | undefined;
  /**
   * Serve the `shardSelector` of list and watch as kube-apiserver 1.36 does with its ShardedListAndWatch
   * gate on (KEP-5866): only objects whose uid or namespace hashes into the ranges, `metadata.shardInfo`
   * echoed on lists. Default true; false ignores the parameter (everything, no shardInfo), as a server
   * before 1.36 or with the gate off does.
   */
  shardedListAndWatch?: boolean | undefined;
}

/**
 * The kube-controller-manager controllers a built-in server can run ({@link LocalApiServerOptions}).
 *
 * @example
 * ```ts
 * const server = createApiServer({
 *   controllers: { garbageCollector: true, namespaceLifecycle: true },
 * });
 * await server.start(signal);
 * await server.close();
 * ```
 */
export interface LocalApiServerControllers {
  /**
   * The garbage collector: an object whose owners (`metadata.ownerReferences`, by uid) are all gone is
   * deleted; `propagationPolicy: Foreground` deletes the dependents first (those with
   * `blockOwnerDeletion: true` hold the owner); `Orphan` removes the owner's reference from them.
   */
  garbageCollector?: boolean;
  /**
   * The namespace controller: a deleted namespace's objects are deleted (every served namespaced
   * resource, custom ones included), then its `kubernetes` finalizer is removed and it goes.
   */
  namespaceLifecycle?: boolean;
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

/**
 * A started built-in server with its admin credentials and its stop button.
 *
 * @deprecated The older dialect of {@link ApiServer}: use `createApiServer()`, `start(signal)` and `close()`.
 */
export interface RunningLocalApiServer extends LocalApiServer {
  readonly credentials: LocalApiServerCredentials;
  /**
   * Close every connection and the listening socket, cancel every timer. Idempotent.
   *
   * @deprecated Use `close()` (the lifecycle shape); it still works.
   */
  stop(): Promise<void>;
}

/**
 * A built-in server with the lasso lifecycle: `start(signal)` listens (on a random loopback port the first
 * time, the same port after a stop), aborting the signal stops it (connections, watches and timers end; the
 * objects stay), a later `start` serves the same objects again, and `close()` releases it for good.
 */
export interface ApiServer extends LocalApiServer, Lifecycle {
  /** The admin user's credentials; throws before the first start. */
  readonly credentials: LocalApiServerCredentials;
}

/**
 * Create a built-in Kubernetes API server, not yet listening; `start(signal)` starts it.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * await using server = createApiServer();
 * await server.start(stop.signal);
 * const { caPem, token } = server.credentials; // trust caPem, send `Authorization: Bearer ${token}`
 * stop.abort();
 * await server.stopped(); // { drained: true, pending: [] }
 * ```
 */
export function createApiServer(options: LocalApiServerOptions = {}): ApiServer {
  return new LocalServer(options);
}

/**
 * Start the built-in Kubernetes API server in-process on a random loopback port.
 *
 * @deprecated The older dialect of the lifecycle shape: use {@link createApiServer} then `start(signal)`,
 * `stopped()` and `close()`. It still works.
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
  await server.start(new AbortController().signal);
  return server;
}

class LocalServer implements ApiServer, RunningLocalApiServer {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #insecure: boolean;
  readonly #store: Store;
  readonly #api: ApiCore;
  readonly #aggregator: { stop(): void };
  readonly #faults: FaultState;
  readonly #watches: WatchStreams;
  readonly #tokens = new Map<string, UserInfo>();
  readonly #tokenValue: string;
  readonly #server: http.Server | https.Server;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<{ cancel(): void }>();
  readonly #controllers: ControllerManager;
  #credentials: LocalApiServerCredentials | undefined;
  #tls: { caPem: string; clientCertPem: string; clientKeyPem: string } | undefined;
  #port = 0;
  #running = false;
  #stopping = false;
  #closed = false;
  #stop: Promise<StopResult> | undefined;
  #restarting: Promise<void> | undefined;

  constructor(options: LocalApiServerOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? defaultLogger;
    const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    if (!(bookmarkIntervalMs > 0)) throw new RangeError('bookmarkIntervalMs must be > 0');
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
      logger: this.#logger,
      shardedListAndWatch: options.shardedListAndWatch !== false,
    });
    this.#api.bootstrap();
    this.#controllers = new ControllerManager({
      selection: controllerSelection(options.controllers),
      store: this.#store,
      registry,
      handle: (info, request) => this.#api.handle(info, request),
      logger: this.#logger,
      now: () => timestamp(this.#clock.now()),
    });
    const authorizer = new Authorizer(this.#store);
    const system: UserInfo = { name: 'system:apiserver', groups: [mastersGroup] };
    this.#aggregator = bootstrapRbac({
      store: this.#store,
      write: (method, path, object) => {
        const url = new URL(path, 'https://127.0.0.1');
        // The bootstrap policy is known to match its schema: checking it against the OpenAPI documents
        // (built for the purpose) would cost most of the start.
        url.searchParams.set('fieldValidation', 'Ignore');
        const body = Buffer.from(JSON.stringify(object));
        const info = requestInfo(method, url);
        this.#api.handle(info, { method, url, headers: {}, body, user: system });
      },
      onError: (error) => this.#logger.error('rbac write failed', { error: errorMessage(error) }),
    });
    this.#watches = new WatchStreams({ clock: this.#clock, bookmarkIntervalMs });
    this.#faults = new FaultState({
      closeWatches: () => this.#watches.endAll(),
      sendBookmarks: () => this.#watches.bookmarkAll(),
      expireHistory: () => this.#store.expireHistory(),
      restart: (downMs) => this.#restart(downMs),
    });
    this.#tokenValue = randomBytes(24).toString('hex');
    this.#tokens.set(this.#tokenValue, {
      name: 'lasso-admin',
      groups: [mastersGroup, 'system:authenticated'],
    });
    // kube-apiserver's filter chain, outermost first (pkg/server/config.go DefaultBuildHandlerChain).
    const chain: ExchangeHandler = composeFilters(
      [
        withStatusErrors(this.#logger),
        withFaults({
          faults: this.#faults,
          delay: (ms) => this.#delay(ms),
          isStopped: () => this.#stopping || !this.#running,
        }),
        withRequestBody(),
        withAuthentication({
          userForToken: (token) => this.#tokens.get(token) ?? this.#api.authenticateToken(token),
        }),
        withImpersonation(authorizer),
        withAuthorization(authorizer),
      ],
      dispatch(this.#api, this.#watches),
    );
    const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
      const exchange = {
        request,
        response,
        method: (request.method ?? 'GET').toUpperCase(),
        // As sent: `new URL` would resolve `..` and `.` segments (filters/request-target.ts).
        url: parseRequestTarget(request.url ?? '/'),
        cutAfter: undefined,
        body: Buffer.alloc(0),
        user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
        info: undefined,
      };
      void chain(exchange).catch((error: unknown) => {
        this.#logger.error('request failed', { error: errorMessage(error) });
        response.destroy();
      });
    };
    // kube-apiserver's http.Server takes a request line and headers up to MaxHeaderBytes 1 MiB
    // (k8s.io/apiserver pkg/server/secure_serving.go); Node's default is 16 KiB, less than the shardSelector
    // of one replica owning a few hundred ranges.
    const maxHeaderSize = 1 << 20;
    if (this.#insecure) {
      this.#server = http.createServer({ maxHeaderSize }, handler);
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
          maxHeaderSize,
        },
        handler,
      );
    }
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

  async start(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw new Error('server closed: create a new one');
    signal.throwIfAborted();
    if (this.#running) return;
    await this.#stop;
    this.#stopping = false;
    await this.#listen();
    this.#running = true;
    this.#stop = undefined;
    this.#controllers.start();
    if (signal.aborted) void this.#stopRunning();
    else signal.addEventListener('abort', () => void this.#stopRunning(), { once: true });
  }

  stopped(): Promise<StopResult> {
    return this.#stop ?? Promise.resolve(drainedResult);
  }

  isRunning(): boolean {
    return this.#running;
  }

  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#aggregator.stop();
    }
    if (this.#running) await this.#stopRunning();
    else await this.#stop;
  }

  /** {@link close}: the {@link RunningLocalApiServer} name. */
  stop(): Promise<void> {
    return this.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #stopRunning(): Promise<StopResult> {
    if (this.#stop !== undefined) return this.#stop;
    this.#stopping = true;
    // The controllers stop with the server (queued work is dropped; a new start resyncs).
    this.#controllers.stop();
    const run = async (): Promise<StopResult> => {
      // Cancel pending delays first: a restart waiting out its downtime ends at once.
      for (const timer of [...this.#timers]) timer.cancel();
      await this.#restarting?.catch(() => {});
      await this.#closeAll();
      this.#running = false;
      return drainedResult;
    };
    this.#stop = run();
    return this.#stop;
  }

  async #listen(): Promise<void> {
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

  /** Close the listener and every connection; watches end cleanly unless `abrupt`. */
  async #closeAll(abrupt = false): Promise<void> {
    // A hanging webhook must not hold the stop for its timeoutSeconds (nor its socket and timer after).
    this.#api.cancelWebhookCalls();
    if (!abrupt) this.#watches.endAll();
    for (const timer of [...this.#timers]) timer.cancel();
    this.#timers.clear();
    const closed = new Promise<void>((resolve) => {
      if (!this.#server.listening) resolve();
      else this.#server.close(() => resolve());
    });
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await closed;
  }

  #restart(downMs: number): Promise<void> {
    if (this.#stopping || !this.#running) return Promise.reject(new Error('server stopped'));
    const run = async (): Promise<void> => {
      await this.#closeAll(true);
      await this.#delay(downMs);
      if (this.#stopping) return;
      await this.#listen();
    };
    const restarting = run().finally(() => {
      if (this.#restarting === restarting) this.#restarting = undefined;
    });
    this.#restarting = restarting;
    return restarting;
  }

  /** Resolves after `ms` on the clock, or at once when the server stops. */
  #delay(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = this.#clock.schedule(ms, () => {
        this.#timers.delete(handle);
        resolve();
      });
      const handle = {
        cancel: () => {
          timer.cancel();
          this.#timers.delete(handle);
          resolve();
        },
      };
      this.#timers.add(handle);
    });
  }
}

/** The controllers option checked: an object of booleans. */
function controllerSelection(value: unknown): ControllerSelection {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('controllers must be an object');
  }
  const selection: ControllerSelection = {};
  for (const [name, enabled] of Object.entries(value)) {
    if (name !== 'garbageCollector' && name !== 'namespaceLifecycle') {
      throw new TypeError(`controllers.${name} is not a controller of the built-in server`);
    }
    if (enabled !== undefined && typeof enabled !== 'boolean') {
      throw new TypeError(`controllers.${name} must be a boolean`);
    }
    if (enabled === true) selection[name] = true;
  }
  return selection;
}
