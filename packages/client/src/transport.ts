// RestTransport: one undici Agent per (cluster, user), auth, timeouts, Retry-After retries (client-go rest.Request).

import { inspect } from 'node:util';
import {
  abortReason,
  anySignal,
  type Clock,
  errorMessage,
  LassoError,
  type Logger,
  type MetricsProvider,
  noopLogger,
  noopMetricsProvider,
  raceSignal,
  sleep,
  systemClock,
  TimeoutError,
  timeoutSignal,
} from '@lasso/core';
import { createTokenBucket } from '@lasso/workqueue';
import { Agent, type Dispatcher, ProxyAgent } from 'undici';
import { type ExecCredential, ExecCredentialProvider } from './auth/exec.ts';
import { TokenFileSource } from './auth/token-file.ts';
import {
  type Impersonation,
  type RestConfig,
  redactRestConfig,
  type TlsConfig,
} from './config/rest-config.ts';
import { ApiError } from './errors.ts';
import type { Status } from './types.ts';
import { defaultUserAgent } from './version.ts';

/** Query parameters; undefined values are left out. */
export type QueryParams = Record<string, string | number | boolean | undefined>;

/** One API request as the transport sends it. */
export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API path, e.g. `/api/v1/namespaces/default/pods` (the server's path prefix is added). */
  path: string;
  query?: QueryParams | undefined;
  /** Request body: a string is sent as is, anything else as JSON. */
  body?: unknown;
  /** Content-Type of the body (default `application/json`). */
  contentType?: string | undefined;
  /** Per-request timeout; overrides the config's `timeoutMs` (0 disables). Watches take none. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Replaces the User-Agent of the config. */
  userAgent?: string | undefined;
  /** Replaces the impersonation of the config. */
  impersonation?: Impersonation | undefined;
}

/** A streaming response (watch): status 2xx, the body still to be read. */
export interface StreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The undici body: an async iterable of Buffers; destroy it when done. */
  body: Dispatcher.ResponseData['body'];
}

/**
 * Retries on 429 / 5xx with Retry-After and of GETs that lost their connection, as client-go's
 * `Request.MaxRetries`.
 */
const MAX_RETRIES = 10;
const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Retry-After of a 429 that carries none, and the wait before a GET that lost its connection is
 * sent again (client-go waits 1 s for both: its `retryAfterResponse()`).
 */
const DEFAULT_RETRY_AFTER_MS = 1_000;
/**
 * undici's errors for a connection reset or closed before the whole answer was read: client-go's
 * `net.IsConnectionReset` / `net.IsProbableEOF` (ECONNRESET, EOF, unexpected EOF, a write on a
 * broken connection). A refused connection, a TLS failure or a timeout are not among them, as in
 * client-go.
 */
const CONNECTION_LOSS_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
/** `SocketError` messages of undici meaning the peer closed the socket (EOF), not a malformed answer. */
const SOCKET_CLOSED_MESSAGES = new Set(['other side closed', 'closed']);

const HELP: Record<string, string> = {
  rest_client_requests_total:
    'Number of HTTP requests, partitioned by status code, method, and host.',
  rest_client_request_duration_seconds: 'Request latency in seconds (to the response headers).',
  rest_client_request_retries_total:
    'Number of request retries, partitioned by status code, verb, and host.',
};
/** client-go's request latency buckets. */
const DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** A client-side request limiter: `take` resolves when a request may be sent. */
export interface RequestRateLimiter {
  take(options: { signal?: AbortSignal | undefined }): Promise<unknown>;
}

/**
 * The HTTP layer shared by every {@link Client} of one {@link RestConfig}: one undici Agent
 * (keep-alive, HTTP/1.1, the config's TLS), authentication (token, token file, basic, exec plugin,
 * client certificate), User-Agent and impersonation headers, a per-request timeout on the injected
 * clock, retries of 429 and of 5xx carrying Retry-After (up to 10, honouring the signal), and a
 * 401 that refreshes a token file or exec credential once before failing. Every response body is
 * read or destroyed.
 *
 * A GET sent with {@link RestTransport.requestJson} whose connection is reset or closed before
 * the whole answer was read (before the headers or mid-body) is sent again after 1 s, within the
 * same 10 retries (client-go's `isErrRetryableFunc`). Nothing else is retried after a connection
 * failure: not POST, PUT, PATCH or DELETE, which may have reached the server, not a refused
 * connection, not a timeout, and not a watch ({@link RestTransport.stream}), whose body belongs
 * to the caller (a Reflector lists and watches again).
 *
 * Get the shared instance of a config with {@link restTransportFor}; `close()` it when done.
 */
export class RestTransport {
  readonly config: RestConfig;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #tokenFile: TokenFileSource | undefined;
  readonly #exec: ExecCredentialProvider | undefined;
  readonly #ownsDispatcher: boolean;
  #dispatcher: Dispatcher;
  /** Client certificate the current dispatcher was built with, when it came from an exec plugin. */
  #execCert: string | undefined;
  #limiter: RequestRateLimiter | undefined;
  #closed = false;
  readonly #metrics: MetricsProvider;
  readonly #host: string;
  readonly #series = new Map<string, { inc(): void; observe(value: number): void }>();

  constructor(config: RestConfig, options: { rateLimiter?: RequestRateLimiter } = {}) {
    const url = new URL(config.server);
    this.config = config;
    this.#origin = url.origin;
    this.#host = url.host;
    this.#metrics = config.metrics ?? noopMetricsProvider;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#clock = config.clock ?? systemClock;
    this.#logger = config.logger ?? noopLogger;
    this.#userAgent = config.userAgent ?? defaultUserAgent();
    this.#timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#limiter = options.rateLimiter;
    if (this.#limiter === undefined && config.qps !== undefined && config.qps > 0) {
      this.#limiter = createTokenBucket({
        qps: config.qps,
        burst: Math.max(1, Math.ceil(config.burst ?? config.qps)),
        clock: this.#clock,
      });
    }
    const auth = config.auth;
    if (auth?.type === 'tokenFile') {
      this.#tokenFile = new TokenFileSource(auth.path, {
        clock: this.#clock,
        refreshMs: auth.refreshMs,
        logger: this.#logger,
      });
    } else if (auth?.type === 'exec') {
      this.#exec = new ExecCredentialProvider(auth.exec, {
        clock: this.#clock,
        cluster: {
          server: config.server,
          tlsServerName: config.tls?.serverName,
          insecureSkipTLSVerify: config.tls?.insecureSkipTLSVerify,
          caPem: config.tls?.caPem,
          proxyUrl: config.proxyUrl,
          ...(auth.exec.clusterConfig !== undefined ? { config: auth.exec.clusterConfig } : {}),
        },
      });
    }
    this.#ownsDispatcher = config.dispatcher === undefined;
    this.#dispatcher = config.dispatcher ?? createDispatcher(config, config.tls);
  }

  /**
   * `util.inspect` (and so loggers and `console.log` of a transport or a {@link Client}) shows the
   * config redacted, even when it is a plain object that lacks the loaders' redacting hooks.
   */
  [inspect.custom](_depth: number, options: object, inspectFn: typeof inspect): string {
    return `RestTransport ${inspectFn(redactRestConfig(this.config), options)}`;
  }

  /** `JSON.stringify` of a transport: its config, redacted. */
  toJSON(): Record<string, unknown> {
    return redactRestConfig(this.config);
  }

  /** The exec credential provider, when the config authenticates with an exec plugin. */
  get execProvider(): ExecCredentialProvider | undefined {
    return this.#exec;
  }

  /** Replace the client-side limiter (by default a token bucket when the config sets `qps`). */
  setRateLimiter(limiter: RequestRateLimiter | undefined): void {
    this.#limiter = limiter;
  }

  /**
   * Send a request and parse the JSON answer; a non-2xx answer throws an {@link ApiError}. The
   * body is read whole before anything is returned, so a GET whose connection is lost (even
   * mid-body) is retried; other methods are not.
   */
  async requestJson<T>(request: RestRequest): Promise<T> {
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    const retryConnectionLoss = request.method === 'GET';
    return this.#send(request, timeoutMs, retryConnectionLoss, async (response, signal) => {
      const text = await raceSignal(response.body.text(), signal);
      if (response.statusCode >= 200 && response.statusCode < 300) {
        if (text === '') return undefined as T;
        try {
          return JSON.parse(text) as T;
        } catch {
          // No cause: JSON.parse's message quotes the body, which may hold Secret data.
          throw new LassoError(
            'LASSO_API_ERROR',
            `${request.method} ${request.path}: the server answered ${response.statusCode} with a body that is not JSON`,
          );
        }
      }
      throw apiErrorFrom(request, response.statusCode, response.headers, text, this.#clock.now());
    });
  }

  /**
   * Send a request whose body is read as a stream (watch). No timeout applies; the caller runs
   * its own inactivity timer and destroys the body. A non-2xx answer throws an {@link ApiError}.
   */
  async stream(request: RestRequest): Promise<StreamResponse> {
    return this.#send(request, 0, false, async (response, signal) => {
      if (response.statusCode >= 200 && response.statusCode < 300) {
        return { statusCode: response.statusCode, headers: response.headers, body: response.body };
      }
      const text = await raceSignal(response.body.text(), signal);
      throw apiErrorFrom(request, response.statusCode, response.headers, text, this.#clock.now());
    });
  }

  /** Close the connections of this transport (only those of an Agent it created itself). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #send<R>(
    request: RestRequest,
    timeoutMs: number,
    retryConnectionLoss: boolean,
    handle: (response: Dispatcher.ResponseData, signal: AbortSignal | undefined) => Promise<R>,
  ): Promise<R> {
    if (this.#closed) {
      throw new LassoError('LASSO_CONNECTION_FAILED', 'the transport is closed');
    }
    const userSignal = request.signal;
    const path = this.#basePath + request.path + queryString(request.query);
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    }
    let refreshedAuth = false;
    for (let attempt = 0; ; attempt++) {
      userSignal?.throwIfAborted();
      if (this.#limiter !== undefined) await this.#limiter.take({ signal: userSignal });
      const { headers, credential } = await this.#headers(request, body !== undefined);
      const timeout = timeoutMs > 0 ? timeoutSignal(this.#clock, timeoutMs) : undefined;
      // Without a timeout the caller's signal goes to undici as is: a stream's body must keep
      // listening to it after this call returned (a disposed combination would not).
      const combined =
        timeout !== undefined
          ? anySignal([userSignal, timeout.signal])
          : { signal: userSignal, dispose: () => {} };
      try {
        let response: Dispatcher.ResponseData;
        const started = this.#clock.monotonic();
        try {
          response = await this.#dispatcher.request({
            origin: this.#origin,
            path,
            method: request.method,
            headers,
            body: body ?? null,
            signal: combined.signal,
          });
        } catch (error) {
          this.#record(request.method, '<error>', started);
          const thrown = failure(request, error, combined.signal);
          if (
            retryConnectionLoss &&
            !combined.signal?.aborted &&
            (await this.#retryConnectionLoss(request, error, attempt, timeout, userSignal))
          ) {
            continue;
          }
          throw thrown;
        }
        const status = response.statusCode;
        this.#record(request.method, String(status), started);
        if (status === 401 && !refreshedAuth && this.#canRefreshAuth()) {
          refreshedAuth = true;
          await drain(response);
          this.#tokenFile?.invalidate();
          this.#exec?.invalidate(credential);
          this.#logger.debug('credentials refreshed after 401', { path: request.path });
          attempt--;
          continue;
        }
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.#clock.now());
        if (
          attempt < MAX_RETRIES &&
          (status === 429 || (status >= 500 && retryAfterMs !== undefined))
        ) {
          await drain(response);
          this.#seriesOf('counter', 'rest_client_request_retries_total', {
            code: String(status),
            verb: request.method,
          }).inc();
          const delayMs = retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
          this.#logger.debug('request throttled, retrying', {
            path: request.path,
            status,
            attempt: attempt + 1,
            delayMs,
          });
          timeout?.clear();
          await sleep(this.#clock, delayMs, { signal: userSignal });
          continue;
        }
        try {
          return await handle(response, combined.signal);
        } catch (error) {
          response.body.destroy();
          if (isApiOrLasso(error)) throw error;
          // A body cut mid-read surfaces as undici's raw SocketError: report it as a connection
          // failure. requestJson reads the whole body before returning, so nothing reached the
          // caller yet and a GET can be sent again.
          const thrown = failure(request, error, combined.signal);
          if (
            retryConnectionLoss &&
            !combined.signal?.aborted &&
            (await this.#retryConnectionLoss(request, error, attempt, timeout, userSignal))
          ) {
            continue;
          }
          throw thrown;
        }
      } finally {
        timeout?.clear();
        combined.dispose();
      }
    }
  }

  /**
   * When `error` is a lost connection (client-go's `IsConnectionReset` / `IsProbableEOF`): count
   * and log the retry, wait 1 s on the clock (the caller's signal cuts it short) and say so.
   */
  async #retryConnectionLoss(
    request: RestRequest,
    error: unknown,
    attempt: number,
    timeout: { clear(): void } | undefined,
    userSignal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (attempt >= MAX_RETRIES || !isConnectionLoss(error)) return false;
    this.#seriesOf('counter', 'rest_client_request_retries_total', {
      code: '<error>',
      verb: request.method,
    }).inc();
    const code = (error as { code?: unknown }).code;
    this.#logger.debug('connection lost, retrying', {
      path: request.path,
      error: errorMessage(error),
      ...(typeof code === 'string' ? { code } : {}),
      attempt: attempt + 1,
      delayMs: DEFAULT_RETRY_AFTER_MS,
    });
    timeout?.clear();
    await sleep(this.#clock, DEFAULT_RETRY_AFTER_MS, { signal: userSignal });
    return true;
  }

  /** client-go's `rest_client_requests_total` and `rest_client_request_duration_seconds` (to the headers). */
  #record(method: string, code: string, started: number): void {
    this.#seriesOf('counter', 'rest_client_requests_total', { code, method }).inc();
    this.#seriesOf('histogram', 'rest_client_request_duration_seconds', { verb: method }).observe(
      (this.#clock.monotonic() - started) / 1000,
    );
  }

  #seriesOf(
    type: 'counter' | 'histogram',
    name: string,
    labels: Record<string, string>,
  ): { inc(): void; observe(value: number): void } {
    const all = { ...labels, host: this.#host };
    const key = `${name}${JSON.stringify(all)}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      if (type === 'counter') {
        const counter = this.#metrics.counter({ name, help: HELP[name] ?? name, labels: all });
        series = { inc: () => counter.inc(), observe: () => {} };
      } else {
        const histogram = this.#metrics.histogram({
          name,
          help: HELP[name] ?? name,
          labels: all,
          buckets: DURATION_BUCKETS,
        });
        series = { inc: () => {}, observe: (value) => histogram.observe(value) };
      }
      this.#series.set(key, series);
    }
    return series;
  }

  #canRefreshAuth(): boolean {
    return this.#tokenFile !== undefined || this.#exec !== undefined;
  }

  async #headers(
    request: RestRequest,
    hasBody: boolean,
  ): Promise<{ headers: Record<string, string | string[]>; credential?: ExecCredential }> {
    let credential: ExecCredential | undefined;
    const headers: Record<string, string | string[]> = {
      accept: 'application/json',
      'user-agent': request.userAgent ?? this.#userAgent,
    };
    if (hasBody) headers['content-type'] = request.contentType ?? 'application/json';
    const auth = this.config.auth;
    if (auth?.type === 'token') {
      headers.authorization = `Bearer ${auth.token}`;
    } else if (auth?.type === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    } else if (this.#tokenFile !== undefined) {
      headers.authorization = `Bearer ${await this.#tokenFile.token()}`;
    } else if (this.#exec !== undefined) {
      credential = await this.#exec.credential();
      this.#useExecCertificate(credential);
      if (credential.token !== undefined) headers.authorization = `Bearer ${credential.token}`;
    }
    const who = request.impersonation ?? this.config.impersonation;
    if (who !== undefined) {
      headers['impersonate-user'] = who.user;
      if (who.uid !== undefined) headers['impersonate-uid'] = who.uid;
      if (who.groups !== undefined && who.groups.length > 0)
        headers['impersonate-group'] = who.groups;
      for (const [key, values] of Object.entries(who.extra ?? {})) {
        headers[`impersonate-extra-${encodeURIComponent(key).toLowerCase()}`] = values;
      }
    }
    return credential !== undefined ? { headers, credential } : { headers };
  }

  /** An exec plugin may hand out a client certificate: rebuild the Agent when it changes. */
  #useExecCertificate(credential: ExecCredential): void {
    if (!this.#ownsDispatcher || credential.clientCertPem === undefined) return;
    if (credential.clientCertPem === this.#execCert) return;
    const previous = this.#dispatcher;
    this.#execCert = credential.clientCertPem;
    this.#dispatcher = createDispatcher(this.config, {
      ...this.config.tls,
      certPem: credential.clientCertPem,
      keyPem: credential.clientKeyPem,
    });
    // In-flight requests on the old Agent finish; close() waits for them.
    void previous.close().catch(() => {});
  }
}

function createDispatcher(config: RestConfig, tls: TlsConfig | undefined): Dispatcher {
  const connect = {
    ...(tls?.caPem !== undefined ? { ca: tls.caPem } : {}),
    ...(tls?.certPem !== undefined ? { cert: tls.certPem } : {}),
    ...(tls?.keyPem !== undefined ? { key: tls.keyPem } : {}),
    ...(tls?.serverName !== undefined ? { servername: tls.serverName } : {}),
    rejectUnauthorized: tls?.insecureSkipTLSVerify !== true,
  };
  // Our own clock-driven timeouts replace undici's real-time ones (a quiet watch is not an error).
  const common = { keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0, allowH2: false };
  if (config.proxyUrl !== undefined) {
    // As client-go (Go's http.Transport), the cluster's CA and insecure-skip-tls-verify also govern
    // an https proxy's certificate; the client certificate and tls-server-name are for the server only.
    const proxyTls = {
      ...(tls?.caPem !== undefined ? { ca: tls.caPem } : {}),
      rejectUnauthorized: tls?.insecureSkipTLSVerify !== true,
    };
    return new ProxyAgent({ uri: config.proxyUrl, requestTls: connect, proxyTls, ...common });
  }
  return new Agent({ connect, ...common });
}

function queryString(query: QueryParams | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Retry-After in ms: delta-seconds (or an HTTP date, relative to now). */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Build the ApiError of a non-2xx answer: from its Status body, or from the HTTP status (`nowMs` dates a Retry-After HTTP date). */
export function apiErrorFrom(
  request: Pick<RestRequest, 'method' | 'path'>,
  statusCode: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  nowMs = Date.now(),
): ApiError {
  const retryAfterMs = parseRetryAfter(headers['retry-after'], nowMs);
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && (parsed as Status).kind === 'Status') {
    return ApiError.fromStatus(parsed as Status, statusCode, retryAfterMs);
  }
  const snippet = parsed === undefined && text !== '' ? `: ${text.slice(0, 200).trim()}` : '';
  return new ApiError({
    status: statusCode,
    message: `${request.method} ${request.path}: the server responded ${statusCode}${snippet}`,
    retryAfterMs,
  });
}

/**
 * Whether undici's `error` (or an error in its `cause` chain) says the connection was reset or
 * closed before the answer was complete: client-go's `net.IsConnectionReset(err) ||
 * net.IsProbableEOF(err)`.
 */
export function isConnectionLoss(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && CONNECTION_LOSS_CODES.has(code)) return true;
    if (
      code === 'UND_ERR_SOCKET' &&
      typeof message === 'string' &&
      SOCKET_CLOSED_MESSAGES.has(message)
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function isApiOrLasso(error: unknown): boolean {
  return error instanceof LassoError;
}

/** The error to throw when undici failed: the abort reason, a timeout, or a connection failure. */
function failure(request: RestRequest, error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) {
    const reason = abortReason(signal);
    if (reason instanceof TimeoutError) {
      return new TimeoutError(
        `${request.method} ${request.path}: ${reason.message}`,
        reason.timeoutMs,
        { cause: error },
      );
    }
    return reason;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return new LassoError(
    'LASSO_CONNECTION_FAILED',
    `${request.method} ${request.path}: connection failed${typeof code === 'string' ? ` (${code})` : ''}: ${errorMessage(error)}`,
    { cause: error },
  );
}

async function drain(response: Dispatcher.ResponseData): Promise<void> {
  try {
    await response.body.dump({ limit: 1 << 20 });
  } catch {
    response.body.destroy();
  }
}

const transports = new WeakMap<RestConfig, RestTransport>();

/**
 * The transport shared by every client of `config` (one per config object: one (cluster, user)).
 * Created on first use; close it with `restTransportFor(config).close()` at shutdown.
 */
export function restTransportFor(config: RestConfig): RestTransport {
  let transport = transports.get(config);
  if (transport === undefined) {
    transport = new RestTransport(config);
    transports.set(config, transport);
  }
  return transport;
}
