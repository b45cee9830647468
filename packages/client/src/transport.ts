// RestTransport: the request loop of one (cluster, user): limiter, headers, per-request timeout and
// the retries of client-go's rest.Request. Its parts live in ./transport/ (one concern per file).

import { inspect } from 'node:util';
import {
  anySignal,
  type Clock,
  checkTracerProvider,
  defaultLogger,
  errorMessage,
  guardLogger,
  LassoError,
  type Logger,
  noopMetricsProvider,
  raceSignal,
  resolveTracing,
  sleep,
  systemClock,
  type Tracing,
} from '@lasso/core';
import { createTokenBucket } from '@lasso/workqueue';
import type { Dispatcher } from 'undici';
import type { ExecCredential, ExecCredentialProvider } from './auth/exec.ts';
import { defaultServerScheme, type RestConfig, redactRestConfig } from './config/rest-config.ts';
import {
  checkTimeoutOption,
  DEFAULT_PROGRESS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type RequestDeadlines,
  RequestTimeoutError,
  requestClassOf,
  resolveDeadlines,
} from './timeout-policy.ts';
import { allowConcurrentRequests } from './transport/abort-listener-limit.ts';
import { Authenticator } from './transport/authenticator.ts';
import { isConnectionLoss } from './transport/connection-loss.ts';
import { apiErrorFrom, requestFailure } from './transport/error-mapping.ts';
import { ExecCertificateAgent } from './transport/exec-certificate-agent.ts';
import { decodeItemsOf, readListBody } from './transport/list-body.ts';
import { RequestDeadline } from './transport/request-deadline.ts';
import { requestHeaders } from './transport/request-headers.ts';
import { RequestMetrics } from './transport/request-metrics.ts';
import { traceRequest } from './transport/request-tracing.ts';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  decodeJsonBody,
  ERROR_BODY_BYTES,
  readBounded,
} from './transport/response-body.ts';
import {
  queryString,
  type RequestRateLimiter,
  type RestRequest,
  type StreamResponse,
} from './transport/rest-request.ts';
import { parseRetryAfter } from './transport/retry-after.ts';
import { DEFAULT_RETRY_AFTER_MS, MAX_RETRIES, throttleDelayMs } from './transport/retry-policy.ts';
import { speaksTls } from './transport/tls-probe.ts';
import { defaultUserAgent, VERSION } from './version.ts';

/** The body of Go's `net/http` server's answer to plain HTTP on a TLS port. */
const GO_HTTP_TO_HTTPS = 'Client sent an HTTP request to an HTTPS server.';

/**
 * The HTTP layer shared by every {@link Client} of one {@link RestConfig}: one undici Agent
 * (keep-alive, HTTP/1.1, the config's TLS), authentication (token, token file, basic, exec plugin,
 * client certificate), User-Agent and impersonation headers, the deadlines of {@link TIMEOUT_POLICY}
 * on the injected clock (a short request's total `timeoutMs`, a list's `progressTimeoutMs`), retries of 429 and of 5xx carrying Retry-After (up to 10, honouring the signal), and a
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
 * Ownership: whoever calls `new RestTransport(config)` owns it and `close()`s it at shutdown (a client
 * factory created from a config does this for the transport it creates). {@link restTransportFor} hands out
 * the registry's shared instance of a config instead, which nobody needs to close.
 */
export class RestTransport {
  readonly config: RestConfig;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #progressTimeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #plainHttp: boolean;
  #plainHttpConfirmed = false;
  readonly #auth: Authenticator;
  readonly #agent: ExecCertificateAgent;
  readonly #metrics: RequestMetrics;
  // Undefined when tracing is off: then a request pays one comparison for it.
  readonly #tracing: Tracing | undefined;
  #limiter: RequestRateLimiter | undefined;
  #closed = false;
  #guards: readonly { readonly guard: () => void }[] = [];

  constructor(config: RestConfig, options: { rateLimiter?: RequestRateLimiter } = {}) {
    let url: URL;
    try {
      url = new URL(defaultServerScheme(config.server, config.tls));
    } catch {
      // Not quoted (nor Node's error, whose `input` holds it): it may carry userinfo.
      throw new TypeError('RestTransport: config.server is not a valid URL');
    }
    this.config = config;
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#clock = config.clock ?? systemClock;
    this.#logger = guardLogger(config.logger ?? defaultLogger);
    this.#metrics = new RequestMetrics(
      config.metrics ?? noopMetricsProvider,
      this.#clock,
      url.host,
    );
    checkTracerProvider(config.tracerProvider, 'config.tracerProvider');
    this.#tracing = resolveTracing(config.tracerProvider, '@lasso/client', VERSION);
    this.#userAgent = config.userAgent ?? defaultUserAgent();
    checkTimeoutOption(config.timeoutMs, 'config.timeoutMs', 'RestTransport');
    checkTimeoutOption(config.progressTimeoutMs, 'config.progressTimeoutMs', 'RestTransport');
    this.#timeoutMs = config.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#progressTimeoutMs = config.progressTimeoutMs ?? DEFAULT_PROGRESS_TIMEOUT_MS;
    this.#maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#plainHttp = url.protocol === 'http:' && config.proxyUrl === undefined;
    this.#limiter = options.rateLimiter;
    if (this.#limiter === undefined && config.qps !== undefined && config.qps > 0) {
      this.#limiter = createTokenBucket({
        qps: config.qps,
        burst: Math.max(1, Math.ceil(config.burst ?? config.qps)),
        clock: this.#clock,
      });
    }
    this.#auth = new Authenticator(config, { clock: this.#clock, logger: this.#logger });
    this.#agent = new ExecCertificateAgent(config);
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
    return this.#auth.execProvider;
  }

  /** Replace the client-side limiter (by default a token bucket when the config sets `qps`). */
  setRateLimiter(limiter: RequestRateLimiter | undefined): void {
    this.#limiter = limiter;
  }

  /**
   * Send a request and parse the JSON answer; a non-2xx answer throws an {@link ApiError}. The
   * body is read whole before anything is returned, so a GET whose connection is lost (even
   * mid-body) is retried; other methods are not.
   *
   * Deadlines ({@link TIMEOUT_POLICY}), each attempt its own: a list (a GET of a collection) fails
   * when no response bytes arrived for `progressTimeoutMs` (the config's, default 30 s) and has no
   * total deadline; any other request must be answered whole within `timeoutMs` (the config's,
   * default 30 s). The request's own `timeoutMs` / `progressTimeoutMs` replace those and apply to
   * any request (0: none); a negative or non-finite one throws a RangeError naming it. A passed
   * deadline throws a {@link RequestTimeoutError} (`LASSO_TIMEOUT`). Under a progress deadline the body,
   * from the headers on, must also bring `MIN_RESPONSE_BYTES_PER_SECOND` over each window of that length,
   * or the request fails with a `SlowResponseError` (`LASSO_RESPONSE_TOO_SLOW`).
   */
  async requestJson<T>(request: RestRequest): Promise<T> {
    const deadlines = resolveDeadlines(
      requestClassOf(request.method, request.path, request.query),
      request,
      { timeoutMs: this.#timeoutMs, progressTimeoutMs: this.#progressTimeoutMs },
      request,
    );
    const retryConnectionLoss = request.method === 'GET';
    const limit = request.maxResponseBytes ?? this.#maxResponseBytes;
    const trace = traceRequest(this.#tracing, request);
    const sent = this.#send(
      request,
      deadlines,
      retryConnectionLoss,
      async (response, signal, progress) => {
        trace?.status(response.statusCode);
        if (response.statusCode >= 200 && response.statusCode < 300) {
          const { decodeListItem } = request;
          const encoding = response.headers['content-encoding'];
          if (decodeListItem !== undefined && (encoding === undefined || encoding === 'identity')) {
            const list = await raceSignal(
              readListBody(
                response.body,
                limit,
                request,
                response.statusCode,
                decodeListItem,
                progress.chunk,
              ),
              signal,
            );
            progress.done();
            return list as T;
          }
          const bytes = await raceSignal(
            readBounded(response.body, limit, request, 'throw', progress.chunk),
            signal,
          );
          progress.done();
          const decoded = await decodeJsonBody(
            bytes ?? Buffer.alloc(0),
            response.headers['content-encoding'],
            response.statusCode,
            limit,
            request,
          );
          return (
            decodeListItem === undefined ? decoded : decodeItemsOf(decoded, decodeListItem)
          ) as T;
        }
        throw await this.#errorAnswer(request, response, signal, progress);
      },
    );
    return trace === undefined ? sent : trace.around(sent);
  }

  /**
   * Send a request whose body is read as a stream (watch). No deadline of the transport applies
   * (`timeoutMs` and `progressTimeoutMs` are ignored): the caller runs its own inactivity deadline
   * ({@link TIMEOUT_POLICY}'s `watch` row) and destroys the body. A non-2xx answer throws an
   * {@link ApiError}.
   */
  async stream(request: RestRequest): Promise<StreamResponse> {
    const trace = traceRequest(this.#tracing, request);
    const sent = this.#send(request, NO_DEADLINES, false, async (response, signal) => {
      trace?.status(response.statusCode);
      if (response.statusCode >= 200 && response.statusCode < 300) {
        return { statusCode: response.statusCode, headers: response.headers, body: response.body };
      }
      throw await this.#errorAnswer(request, response, signal);
    });
    return trace === undefined ? sent : trace.around(sent);
  }

  /**
   * Close the connections of this transport (only those of an Agent it created itself) and kill a
   * running exec credential plugin. Idempotent; requests after it fail with `LASSO_CONNECTION_FAILED`.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#auth.close();
    await this.#agent.close();
  }

  /** True once {@link close} was called: its Agent's sockets are closed (or closing) and no request is sent. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Run `guard` synchronously right before each attempt of every request of this transport is handed to the
   * socket, with nothing awaited in between; returns its removal. A guard may abort signals (a request whose
   * signal it aborted is not sent) or throw (the request fails with that error). A sharded controller factory
   * checks its fence here: a process that wakes from a pause past its renew deadline may resume a handler from an
   * I/O callback before its fence timer runs, and this check stops the write it would send.
   *
   * @example
   * ```ts
   * const transport = restTransportFor(rest);
   * const deadline = Date.now() + 10_000;
   * const fence = new AbortController();
   * const remove = transport.addRequestGuard(() => {
   *   if (Date.now() >= deadline) fence.abort(new Error('past the deadline'));
   * });
   * remove();
   * ```
   */
  addRequestGuard(guard: () => void): () => void {
    if (typeof guard !== 'function') {
      throw new TypeError('RestTransport.addRequestGuard: guard must be a function');
    }
    // Replaced, never mutated: a request iterating the guards keeps the list it started with.
    const entry = { guard };
    this.#guards = [...this.#guards, entry];
    return () => {
      this.#guards = this.#guards.filter((other) => other !== entry);
    };
  }

  /** The ApiError of a non-2xx answer; a body over {@link ERROR_BODY_BYTES} is not read. */
  async #errorAnswer(
    request: RestRequest,
    response: Dispatcher.ResponseData,
    signal: AbortSignal | undefined,
    progress?: BodyProgress,
  ): Promise<Error> {
    const bytes = await raceSignal(
      readBounded(response.body, ERROR_BODY_BYTES, request, 'truncate', progress?.chunk),
      signal,
    );
    progress?.done();
    const text = bytes === undefined ? '' : bytes.toString('utf8');
    const error = apiErrorFrom(
      request,
      response.statusCode,
      response.headers,
      text,
      this.#clock.now(),
    );
    // Go's TLS server answers a plain-HTTP request with this 400 (kube-apiserver included).
    if (response.statusCode === 400 && text.startsWith(GO_HTTP_TO_HTTPS)) {
      return new LassoError(
        'LASSO_CONNECTION_FAILED',
        `${request.method} ${request.path}: ${this.#origin} answers TLS: the config's server says http://, use https://`,
        { cause: error },
      );
    }
    return error;
  }

  async #send<R>(
    request: RestRequest,
    deadlines: RequestDeadlines,
    retryConnectionLoss: boolean,
    handle: (
      response: Dispatcher.ResponseData,
      signal: AbortSignal | undefined,
      progress: BodyProgress,
    ) => Promise<R>,
  ): Promise<R> {
    if (this.#closed) {
      throw new LassoError('LASSO_CONNECTION_FAILED', 'the transport is closed');
    }
    const userSignal = request.signal;
    allowConcurrentRequests(userSignal);
    const path = this.#basePath + request.path + queryString(request.query);
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    }
    let refreshedAuth = false;
    for (let attempt = 0; ; attempt++) {
      userSignal?.throwIfAborted();
      if (this.#limiter !== undefined) await this.#limiter.take({ signal: userSignal });
      const headers = requestHeaders({
        userAgent: request.userAgent ?? this.#userAgent,
        contentType: request.contentType,
        hasBody: body !== undefined,
        impersonation: request.impersonation ?? this.config.impersonation,
        accept: request.accept,
      });
      const timeout = new RequestDeadline(this.#clock, deadlines, request);
      const progress: BodyProgress = {
        chunk: (bytes) => timeout.progress(bytes),
        done: () => timeout.bodyDone(),
      };
      // Without a deadline the caller's signal goes to undici as is: a stream's body must keep
      // listening to it after this call returned (a disposed combination would not).
      const combined =
        timeout.signal !== undefined
          ? anySignal([userSignal, timeout.signal])
          : { signal: userSignal, dispose: () => {} };
      // Set once the headers arrived: from then on a LassoError is the answer (an ApiError, or a
      // timeout while reading the body), anything else a connection that broke mid-body.
      let response: Dispatcher.ResponseData | undefined;
      let credential: ExecCredential | undefined;
      try {
        // The request's timeout and signal cover waiting for an exec plugin (which has its own
        // timeout and goes on for the next request when this one gives up).
        credential = await raceSignal(this.#auth.authorize(headers), combined.signal);
        if (credential !== undefined) this.#agent.use(credential);
      } catch (error) {
        timeout.clear();
        combined.dispose();
        if (combined.signal?.aborted) {
          const failure = requestFailure(request, error, combined.signal);
          // A deadline that passed while an exec plugin ran: the plugin is what hangs, so say which one.
          const plugin = this.#auth.execProvider;
          throw failure instanceof RequestTimeoutError && plugin?.running === true
            ? failure.whileWaitingFor(plugin.description)
            : failure;
        }
        throw error;
      }
      try {
        // Nothing is awaited between the guards and the hand-off to the socket: a signal they abort stops the send.
        for (const { guard } of this.#guards) guard();
        const started = this.#clock.monotonic();
        try {
          response = await this.#agent.current.request({
            origin: this.#origin,
            path,
            method: request.method,
            headers,
            body: body ?? null,
            signal: combined.signal,
          });
        } finally {
          this.#metrics.requestDone(
            request.method,
            String(response?.statusCode ?? '<error>'),
            started,
          );
        }
        // The headers are response bytes: progress, and from now the body runs under the throughput floor.
        timeout.headers();
        const status = response.statusCode;
        if (status === 401 && !refreshedAuth && this.#auth.canRefresh) {
          refreshedAuth = true;
          await drain(response);
          this.#auth.refresh(credential);
          this.#logger.debug('credentials refreshed after 401', { path: request.path });
          attempt--;
          continue;
        }
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.#clock.now());
        const delayMs = throttleDelayMs(status, retryAfterMs, attempt);
        if (delayMs !== undefined) {
          await drain(response);
          this.#metrics.retried(request.method, String(status));
          this.#logger.debug('request throttled, retrying', {
            path: request.path,
            status,
            attempt: attempt + 1,
            delayMs,
          });
          timeout.clear();
          await sleep(this.#clock, delayMs, { signal: userSignal });
          continue;
        }
        return await handle(response, combined.signal, progress);
      } catch (error) {
        if (response !== undefined) {
          response.body.destroy();
          if (error instanceof LassoError) throw error;
        }
        // A failure before the headers, or a body cut mid-read (undici's raw SocketError): a
        // connection failure. requestJson reads the whole body before returning, so nothing
        // reached the caller yet and a GET can be sent again.
        let thrown = requestFailure(request, error, combined.signal);
        if (
          response === undefined &&
          this.#plainHttp &&
          !combined.signal?.aborted &&
          isConnectionLoss(error) &&
          (await this.#speaksTls(userSignal))
        ) {
          thrown = new LassoError(
            'LASSO_CONNECTION_FAILED',
            `${request.method} ${request.path}: ${this.#origin} answers TLS: the config's server says http://, use https://`,
            { cause: error },
          );
          throw thrown;
        }
        if (
          retryConnectionLoss &&
          !combined.signal?.aborted &&
          (await this.#retryConnectionLoss(request, error, attempt, timeout, userSignal))
        ) {
          continue;
        }
        throw thrown;
      } finally {
        timeout.clear();
        combined.dispose();
      }
    }
  }

  /**
   * Whether the server of an http:// config answers TLS (probed after a connection lost before any
   * answer; a server found to speak plain HTTP is not probed again).
   */
  async #speaksTls(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.#plainHttpConfirmed) return false;
    const tls = await speaksTls(this.#origin, signal);
    if (!tls && !signal?.aborted) this.#plainHttpConfirmed = true;
    return tls;
  }

  /**
   * When `error` is a lost connection (client-go's `IsConnectionReset` / `IsProbableEOF`): count
   * and log the retry, wait 1 s on the clock (the caller's signal cuts it short) and say so.
   */
  async #retryConnectionLoss(
    request: RestRequest,
    error: unknown,
    attempt: number,
    timeout: { clear(): void },
    userSignal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (attempt >= MAX_RETRIES || !isConnectionLoss(error)) return false;
    this.#metrics.retried(request.method, '<error>');
    const code = (error as { code?: unknown }).code;
    this.#logger.debug('connection lost, retrying', {
      path: request.path,
      error: errorMessage(error),
      ...(typeof code === 'string' ? { code } : {}),
      attempt: attempt + 1,
      delayMs: DEFAULT_RETRY_AFTER_MS,
    });
    timeout.clear();
    await sleep(this.#clock, DEFAULT_RETRY_AFTER_MS, { signal: userSignal });
    return true;
  }
}

/** What a handler tells the deadlines of its attempt as it reads the body. */
interface BodyProgress {
  /** A chunk of `bytes` arrived. */
  chunk: (bytes: number) => void;
  /** The whole body was read. */
  done: () => void;
}

/** A streamed request (watch): no deadline of the transport. */
const NO_DEADLINES: RequestDeadlines = { totalMs: 0, progressMs: 0 };

/** Read and discard a body we do not use, so its connection goes back to the pool. */
async function drain(response: Dispatcher.ResponseData): Promise<void> {
  try {
    await response.body.dump({ limit: 1 << 20 });
  } catch {
    response.body.destroy();
  }
}
