// The webhook server: node:https serving admission.k8s.io/v1 AdmissionReview (validating and mutating handlers
// typed by kind) and apiextensions.k8s.io/v1 ConversionReview, in lasso's lifecycle shape; controller-runtime's
// pkg/webhook (server.go, admission/http.go, conversion/conversion.go) is the model.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeObject, KubeObjectLike } from '@lasso/client';
import {
  anySignal,
  type Clock,
  defaultLogger,
  drainedResult,
  drainWithin,
  errorMessage,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  raceSignal,
  type StopResult,
  systemClock,
  timeoutSignal,
} from '@lasso/core';
import type { Kind } from '@lasso/factory';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from 'kubernetes-types/admissionregistration/v1.js';
import type { CustomResourceConversion } from 'kubernetes-types/apiextensions/v1.js';
import {
  buildConversionStanza,
  buildMutatingConfiguration,
  buildValidatingConfiguration,
  type ConversionStanzaOptions,
  type WebhookConfigurationOptions,
} from './configurations.ts';
import type { Conversion } from './conversion.ts';
import { parseGoDuration } from './duration.ts';
import { MalformedReviewError, WebhookClosedError, WebhookListenError } from './errors.ts';
import { createJsonPatch, type JsonValue } from './json-patch.ts';
import { WebhookMetrics, type WebhookSeries } from './metrics.ts';
import {
  type AdmissionRegistration,
  createRegistration,
  type MutatingWebhookOptions,
  type ValidatingWebhookOptions,
} from './registrations.ts';
import {
  type AdmissionResponseBody,
  admissionReviewResponse,
  conversionReviewResponse,
  type DecodedAdmissionRequest,
  decodeAdmissionReview,
  decodeConversionReview,
} from './review.ts';
import {
  type LoadedCertificate,
  ServingCertificate,
  type WebhookTlsOptions,
} from './serving-certificate.ts';
import { type AdmissionRequest, isAdmissionVerdict } from './types.ts';

/** The path conversion webhooks are served at (controller-runtime's). */
export const conversionPath = '/convert';

/**
 * The default bound on a request body: 7 MiB, as controller-runtime. kube-apiserver bounds its own request bodies
 * at 3 MiB, but an AdmissionReview of an UPDATE carries the object and the old object (etcd stores up to 1.5 MiB
 * each) plus the request's fields.
 */
export const defaultMaxRequestBytes = 7 * 1024 * 1024;

/** Options of {@link createWebhookServer}. */
export interface WebhookServerOptions {
  /** The serving certificate: files (reloaded when they change on disk) or PEM text. */
  tls: WebhookTlsOptions;
  /** Address to listen on (default: every interface, as controller-runtime). */
  host?: string;
  /** Port (default 9443, controller-runtime's; 0 for any free port). */
  port?: number;
  /** Bound on a request body in bytes (default {@link defaultMaxRequestBytes}); a larger body gets HTTP 413. */
  maxRequestBytes?: number;
  /** The handler's time bound when a request has no `?timeout=` (default 10 000, admissionregistration's default). */
  defaultTimeoutMs?: number;
  /** How long a stop waits for requests in flight before closing their connections (default 10 000). */
  gracefulShutdownTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  metrics?: MetricsProvider;
}

/**
 * An HTTPS server for validating, mutating and conversion webhooks, in lasso's {@link Lifecycle} shape: `start`
 * listens (and watches the certificate files), aborting the signal stops it, it can start again, `close()` ends it.
 *
 * **Answers** (HTTP 200 unless said otherwise):
 * - a handler that returns nothing or `allow()`: `allowed: true`, with the warnings it added;
 * - `deny(message, { code })`: `allowed: false`, `status: { code (default 403), message, reason }`;
 * - a mutating handler that returns an object: `allowed: true` and the base64 JSON Patch (`patchType: JSONPatch`)
 *   from the request's object to it (none when equal);
 * - a handler that throws, or whose signal's time bound passes: `allowed: false`, `status: { code: 500, message }`
 *   with the error's message, as controller-runtime's `Errored`; kube-apiserver then fails the request (it does not
 *   apply `failurePolicy`, which is for a webhook it cannot call or that does not answer);
 * - a conversion that throws: `result: { status: 'Failure', message }`;
 * - not POST: 405; not `application/json`: 415; no webhook at the path: 404; a body over `maxRequestBytes`: 413;
 *   a body that is not a review: 400 with the reason, as a `metav1.Status`.
 */
export interface WebhookServer extends Lifecycle {
  /**
   * Serve a validating webhook for `kind` (at `options.path`, default `/validate-<group>-<version>-<kind>`).
   * Throws a TypeError/RangeError for a bad option or a path already taken.
   */
  validating<T extends KubeObjectLike>(kind: Kind<T>, options: ValidatingWebhookOptions<T>): void;
  /** Serve a mutating (defaulting) webhook for `kind` (default path `/mutate-<group>-<version>-<kind>`). */
  mutating<T extends KubeObjectLike>(kind: Kind<T>, options: MutatingWebhookOptions<T>): void;
  /** Serve `conversion` at `/convert` (one path for every kind, routed by each object's group and kind). */
  conversion(conversion: Conversion): void;
  /** Where the server listens, while it runs. */
  address(): { host: string; port: number } | undefined;
  /** `https://<host>:<port>` while it runs (`localhost` when listening on every interface). */
  url(): string;
  /** The certificate served now (after a reload, the new one), while it runs. */
  certificate(): { fingerprint256: string; validTo: string } | undefined;
  /** A ValidatingWebhookConfiguration for every validating webhook registered. */
  validatingWebhookConfiguration(
    options: WebhookConfigurationOptions,
  ): ValidatingWebhookConfiguration;
  /** A MutatingWebhookConfiguration for every mutating webhook registered. */
  mutatingWebhookConfiguration(options: WebhookConfigurationOptions): MutatingWebhookConfiguration;
  /** The CRD `spec.conversion` stanza pointing at this server's `/convert`. */
  conversionStanza(options: ConversionStanzaOptions): CustomResourceConversion;
}

class HttpError {
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  constructor(status: number, reason: string, message: string) {
    this.status = status;
    this.reason = reason;
    this.message = message;
  }
}

interface Run {
  readonly server: Server;
  readonly certificate: ServingCertificate;
  readonly sockets: Set<Socket>;
  readonly inFlight: Map<number, string>;
  /** Aborted when the drain bound passes: handlers still running see their signal abort. */
  readonly hardStop: AbortController;
  /** The stop of this run, once begun (by the start signal or by close()). */
  stopping: Promise<StopResult> | undefined;
  /** stopped() callers waiting for the stop to begin and end. */
  readonly waiters: Array<(result: StopResult) => void>;
}

function positive(
  value: number | undefined,
  fallback: number,
  what: string,
  allowZero = false,
): number {
  const result = value ?? fallback;
  if (
    typeof result !== 'number' ||
    Number.isNaN(result) ||
    result < 0 ||
    (!allowZero && result === 0)
  ) {
    throw new RangeError(
      `createWebhookServer: options.${what} must be a number > ${allowZero ? '= ' : ''}0, got ${String(value)}`,
    );
  }
  return result;
}

/**
 * Create a webhook server. Register handlers with `validating`, `mutating` and `conversion` (before or after
 * start), then `start(signal)`.
 *
 * Throws a TypeError or RangeError naming a bad option.
 *
 * @example
 * ```ts
 * interface Widget extends KubeObject { spec?: { size?: number } }
 * const widgets = kindFor<Widget>('example.com/v1', 'Widget', { resource: 'widgets', namespaced: true });
 * const server = createWebhookServer({ tls: { certFile: '/certs/tls.crt', keyFile: '/certs/tls.key' } });
 * server.validating(widgets, {
 *   handler: ({ object }) => ((object?.spec?.size ?? 0) > 10 ? deny('spec.size must be at most 10') : undefined),
 * });
 * const stop = new AbortController();
 * await server.start(stop.signal);
 * ```
 */
export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createWebhookServer: options must be an object with tls');
  }
  ServingCertificate.checkOptions(options.tls);
  const port = options.port ?? 9443;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(
      `createWebhookServer: options.port must be an integer from 0 to 65535, got ${String(options.port)}`,
    );
  }
  if (options.host !== undefined && (typeof options.host !== 'string' || options.host === '')) {
    throw new TypeError('createWebhookServer: options.host must be a non-empty string');
  }
  return new WebhookServerImpl(options, port);
}

class WebhookServerImpl implements WebhookServer {
  readonly #options: WebhookServerOptions;
  readonly #port: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: WebhookMetrics;
  readonly #maxRequestBytes: number;
  readonly #defaultTimeoutMs: number;
  readonly #gracefulMs: number;
  readonly #admission = new Map<string, AdmissionRegistration>();
  readonly #conversions = new Map<string, Conversion>();
  #run: Run | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;
  #nextRequest = 0;

  constructor(options: WebhookServerOptions, port: number) {
    this.#options = options;
    this.#port = port;
    this.#clock = options.clock ?? systemClock;
    this.#logger = (options.logger ?? defaultLogger).child({ component: 'webhook-server' });
    this.#metrics = new WebhookMetrics(options.metrics ?? noopMetricsProvider);
    this.#maxRequestBytes = positive(
      options.maxRequestBytes,
      defaultMaxRequestBytes,
      'maxRequestBytes',
    );
    this.#defaultTimeoutMs = positive(options.defaultTimeoutMs, 10_000, 'defaultTimeoutMs');
    this.#gracefulMs = positive(
      options.gracefulShutdownTimeoutMs,
      10_000,
      'gracefulShutdownTimeoutMs',
      true,
    );
  }

  validating<T extends KubeObjectLike>(kind: Kind<T>, options: ValidatingWebhookOptions<T>): void {
    this.#register(
      createRegistration('validating', kind as Kind<KubeObjectLike>, options as never),
    );
  }

  mutating<T extends KubeObjectLike>(kind: Kind<T>, options: MutatingWebhookOptions<T>): void {
    this.#register(createRegistration('mutating', kind as Kind<KubeObjectLike>, options as never));
  }

  #register(registration: AdmissionRegistration): void {
    if (registration.path === conversionPath || this.#admission.has(registration.path)) {
      throw new TypeError(
        `WebhookServer.${registration.type}: the path ${registration.path} is already served`,
      );
    }
    for (const other of this.#admission.values()) {
      if (other.name === registration.name && other.type === registration.type) {
        throw new TypeError(
          `WebhookServer.${registration.type}: a webhook named ${registration.name} exists`,
        );
      }
    }
    this.#admission.set(registration.path, registration);
  }

  conversion(conversion: Conversion): void {
    if (typeof conversion?.convert !== 'function' || typeof conversion.kind !== 'string') {
      throw new TypeError(
        'WebhookServer.conversion: expected a Conversion from createConversion()',
      );
    }
    const key = `${conversion.group}/${conversion.kind}`;
    if (this.#conversions.has(key)) {
      throw new TypeError(
        `WebhookServer.conversion: ${conversion.kind} of ${JSON.stringify(conversion.group)} is already converted`,
      );
    }
    this.#conversions.set(key, conversion);
  }

  address(): { host: string; port: number } | undefined {
    const address = this.#run?.server.address() as AddressInfo | null | undefined;
    if (address === null || address === undefined) return undefined;
    return { host: address.address, port: address.port };
  }

  url(): string {
    const address = this.address();
    if (address === undefined) throw new TypeError('WebhookServer.url: the server is not running');
    const host =
      address.host === '::' || address.host === '0.0.0.0'
        ? 'localhost'
        : address.host.includes(':')
          ? `[${address.host}]`
          : address.host;
    return `https://${host}:${address.port}`;
  }

  certificate(): { fingerprint256: string; validTo: string } | undefined {
    const current = this.#run?.certificate.current;
    return current === undefined
      ? undefined
      : { fingerprint256: current.fingerprint256, validTo: current.validTo };
  }

  validatingWebhookConfiguration(
    options: WebhookConfigurationOptions,
  ): ValidatingWebhookConfiguration {
    return buildValidatingConfiguration(
      [...this.#admission.values()].filter((r) => r.type === 'validating'),
      options,
    );
  }

  mutatingWebhookConfiguration(options: WebhookConfigurationOptions): MutatingWebhookConfiguration {
    return buildMutatingConfiguration(
      [...this.#admission.values()].filter((r) => r.type === 'mutating'),
      options,
    );
  }

  conversionStanza(options: ConversionStanzaOptions): CustomResourceConversion {
    return buildConversionStanza(options);
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw new WebhookClosedError();
    if (!(signal instanceof AbortSignal))
      throw new TypeError('WebhookServer.start: signal must be an AbortSignal');
    if (this.#starting !== undefined) return this.#starting;
    // A start during a stop waits for the stop, then runs again.
    if (this.#run?.stopping !== undefined) await this.#run.stopping;
    if (this.#starting !== undefined) return this.#starting;
    if (this.#closed) throw new WebhookClosedError();
    if (this.#run !== undefined) return;
    if (signal.aborted) return;
    this.#starting = this.#start(signal).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(signal: AbortSignal): Promise<void> {
    const metrics = this.#metrics;
    let server: Server | undefined;
    const certificate = new ServingCertificate({
      options: this.#options.tls,
      clock: this.#clock,
      logger: this.#logger,
      onReload: (next: LoadedCertificate) => {
        server?.setSecureContext({ cert: next.cert, key: next.key });
        metrics.certificateReload('success').inc();
      },
      onReloadFailure: () => metrics.certificateReload('failure').inc(),
    });
    const loaded = await certificate.load();
    server = createServer({ cert: loaded.cert, key: loaded.key });
    const sockets = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('tlsClientError', (error: Error) => {
      // A client that rejects our certificate (a stale caBundle) shows here and nowhere else.
      this.#logger.debug('tls handshake failed', { error: errorMessage(error) });
    });
    const inFlight = new Map<number, string>();
    const hardStop = new AbortController();
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.#serve(request, response, inFlight, hardStop.signal);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error): void => reject(error);
        (server as Server).once('error', onError);
        (server as Server).listen(this.#port, this.#options.host, () => {
          (server as Server).off('error', onError);
          resolve();
        });
      });
    } catch (error) {
      throw new WebhookListenError(
        `listening on ${this.#options.host ?? '*'}:${this.#port} failed: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    server.on('error', (error: Error) => {
      this.#logger.error('webhook server error', { error: errorMessage(error) });
    });
    certificate.watch();
    const run: Run = {
      server,
      certificate,
      sockets,
      inFlight,
      hardStop,
      stopping: undefined,
      waiters: [],
    };
    this.#run = run;
    this.#logger.info('webhook server started', {
      url: this.url(),
      fingerprint256: loaded.fingerprint256,
    });
    const stop = (): void => {
      void this.#stop(run);
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  }

  #stop(run: Run): Promise<StopResult> {
    run.stopping ??= this.#drain(run);
    return run.stopping;
  }

  async #drain(run: Run): Promise<StopResult> {
    const closed = new Promise<void>((resolve) => run.server.close(() => resolve()));
    run.server.closeIdleConnections();
    const certificateStopped = run.certificate.stop();
    const result = await drainWithin(this.#clock, closed, this.#gracefulMs, () => [
      ...run.inFlight.values(),
    ]);
    if (!result.drained) {
      this.#logger.warn('webhook requests still running at shutdown; closing their connections', {
        pending: result.pending,
      });
    }
    run.hardStop.abort(new WebhookClosedError());
    for (const socket of run.sockets) socket.destroy();
    await closed;
    await certificateStopped;
    if (this.#run === run) this.#run = undefined;
    this.#logger.info('webhook server stopped');
    for (const resolve of run.waiters.splice(0)) resolve(result);
    return result;
  }

  async stopped(): Promise<StopResult> {
    if (this.#starting !== undefined) await this.#starting.catch(() => undefined);
    const run = this.#run;
    if (run === undefined) return drainedResult;
    if (run.stopping !== undefined) return run.stopping;
    // Settles when the start signal aborts (or close() stops the run).
    return new Promise<StopResult>((resolve) => {
      run.waiters.push(resolve);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#starting !== undefined) await this.#starting.catch(() => undefined);
    const run = this.#run;
    // Stop as an abort of the start signal would, without needing that signal.
    if (run !== undefined) await this.#stop(run);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- requests ----

  #serve(
    request: IncomingMessage,
    response: ServerResponse,
    inFlight: Map<number, string>,
    hardStop: AbortSignal,
  ): void {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const isConversion = path === conversionPath && this.#conversions.size > 0;
    const registration = this.#admission.get(path);
    const label = isConversion || registration !== undefined ? path : 'unmatched';
    const series = this.#metrics.for(label);
    const id = this.#nextRequest++;
    inFlight.set(id, `${request.method ?? '?'} ${path}`);
    series.inFlight.inc();
    let finished = false;
    const finish = (status: number, body: object, started: number | undefined): void => {
      if (finished) return;
      finished = true;
      inFlight.delete(id);
      series.inFlight.dec();
      series.requests(status).inc();
      if (started !== undefined) series.latency.observe((this.#clock.monotonic() - started) / 1000);
      if (response.writableEnded || response.destroyed) return;
      const text = JSON.stringify(body);
      response.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...(status === 405 ? { allow: 'POST' } : {}),
        ...(status === 413 ? { connection: 'close' } : {}),
      });
      response.end(text);
    };
    const fail = (error: HttpError): void => {
      if (error.status >= 500)
        this.#logger.error('webhook request failed', { path, error: error.message });
      else
        this.#logger.warn('webhook request refused', {
          path,
          status: error.status,
          error: error.message,
        });
      finish(
        error.status,
        {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: error.message,
          reason: error.reason,
          code: error.status,
        },
        undefined,
      );
      if (error.status === 413) request.resume();
    };
    // The request closed before an answer (kube-apiserver timed out or went away): the handler's signal aborts.
    const disconnect = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished)
        disconnect.abort(new Error('the caller closed the connection'));
      if (!finished) {
        finished = true;
        inFlight.delete(id);
        series.inFlight.dec();
        series.requests(499).inc();
      }
    });
    try {
      if (!isConversion && registration === undefined) {
        throw new HttpError(404, 'NotFound', `no webhook is served at ${path}`);
      }
      if (request.method !== 'POST') {
        throw new HttpError(
          405,
          'MethodNotAllowed',
          `${request.method ?? 'this method'} is not allowed; webhooks take POST`,
        );
      }
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        throw new HttpError(
          415,
          'UnsupportedMediaType',
          `content type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported; send application/json`,
        );
      }
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.#maxRequestBytes) {
        throw new HttpError(
          413,
          'RequestEntityTooLarge',
          `the body of ${declared} bytes exceeds the limit of ${this.#maxRequestBytes}`,
        );
      }
    } catch (error) {
      fail(error as HttpError);
      return;
    }
    this.#readBody(request)
      .then(async (raw) => {
        const started = this.#clock.monotonic();
        let body: unknown;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch (error) {
          throw new HttpError(400, 'BadRequest', `the body is not JSON: ${errorMessage(error)}`);
        }
        const timeoutMs = this.#timeoutOf(request.url ?? '');
        if (isConversion) {
          const answer = await this.#convert(
            body,
            series,
            [disconnect.signal, hardStop],
            timeoutMs,
          );
          finish(200, answer, started);
        } else {
          const answer = await this.#admit(
            registration as AdmissionRegistration,
            body,
            series,
            [disconnect.signal, hardStop],
            timeoutMs,
          );
          finish(200, answer, started);
        }
      })
      .catch((error: unknown) => {
        if (error instanceof HttpError) fail(error);
        else if (error instanceof MalformedReviewError)
          fail(new HttpError(400, 'BadRequest', error.message));
        else
          fail(
            new HttpError(
              500,
              'InternalError',
              `serving the request failed: ${errorMessage(error)}`,
            ),
          );
      });
  }

  #readBody(request: IncomingMessage): Promise<Buffer> {
    const limit = this.#maxRequestBytes;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      request.on('data', (chunk: Buffer) => {
        if (over) return;
        size += chunk.length;
        if (size > limit) {
          over = true;
          chunks.length = 0;
          reject(
            new HttpError(
              413,
              'RequestEntityTooLarge',
              `the body exceeds the limit of ${limit} bytes`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      request.once('end', () => {
        if (!over) resolve(Buffer.concat(chunks));
      });
      request.once('error', (error) =>
        reject(new HttpError(400, 'BadRequest', `reading the body failed: ${errorMessage(error)}`)),
      );
    });
  }

  // kube-apiserver adds `?timeout=<timeoutSeconds>s`; a missing or unreadable one gets the default, and one above
  // the 30 s admissionregistration allows is capped there.
  #timeoutOf(url: string): number {
    const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
    const text = new URLSearchParams(query).get('timeout');
    const parsed = text === null ? undefined : parseGoDuration(text);
    if (parsed === undefined || parsed <= 0) return this.#defaultTimeoutMs;
    return Math.min(parsed, 30_000);
  }

  async #admit(
    registration: AdmissionRegistration,
    body: unknown,
    series: WebhookSeries,
    signals: AbortSignal[],
    timeoutMs: number,
  ): Promise<object> {
    const decoded = decodeAdmissionReview(body);
    const kind = registration.kind;
    const logger = this.#logger.child({ webhook: registration.name, uid: decoded.uid });
    if (
      decoded.kind.group !== kind.group ||
      decoded.kind.version !== kind.version ||
      decoded.kind.kind !== kind.kind
    ) {
      series.errors.inc();
      const message = `webhook ${registration.name} serves ${kind.apiVersion} ${kind.kind}, not ${
        decoded.kind.group === '' ? '' : `${decoded.kind.group}/`
      }${decoded.kind.version} ${decoded.kind.kind}`;
      logger.error('admission request for another kind', { error: message });
      return admissionReviewResponse({
        uid: decoded.uid,
        allowed: false,
        status: { code: 400, message },
      });
    }
    const warnings: string[] = [];
    const timeout = timeoutSignal(
      this.#clock,
      timeoutMs,
      `webhook ${registration.name} timed out after ${timeoutMs} ms`,
    );
    const combined = anySignal([...signals, timeout.signal]);
    // A mutating handler changes its own copy; the request's object stays as sent, to diff against.
    const object =
      registration.type === 'mutating' && decoded.object !== undefined
        ? structuredClone(decoded.object)
        : decoded.object;
    const request = makeRequest(decoded, object, combined.signal, warnings);
    try {
      const result = await raceSignal(
        Promise.resolve().then(() =>
          (registration.handler as (r: AdmissionRequest<KubeObjectLike>) => unknown)(request),
        ),
        combined.signal,
      );
      return admissionReviewResponse(
        this.#answer(registration, decoded, result, warnings, series, logger),
      );
    } catch (error) {
      series.errors.inc();
      const message = errorMessage(error);
      logger.error('admission handler failed', { operation: decoded.operation, error: message });
      return admissionReviewResponse({
        uid: decoded.uid,
        allowed: false,
        status: { code: 500, message },
        ...(warnings.length > 0 ? { warnings } : {}),
      });
    } finally {
      timeout.clear();
      combined.dispose();
    }
  }

  #answer(
    registration: AdmissionRegistration,
    decoded: DecodedAdmissionRequest,
    result: unknown,
    warnings: string[],
    series: WebhookSeries,
    logger: Logger,
  ): AdmissionResponseBody {
    const uid = decoded.uid;
    if (isAdmissionVerdict(result)) {
      const allWarnings = [...warnings, ...result.warnings];
      const withWarnings = allWarnings.length > 0 ? { warnings: allWarnings } : {};
      if (!result.allowed) {
        series.denials.inc();
        logger.debug('admission denied', { operation: decoded.operation, message: result.message });
        const status: { code: number; message?: string; reason?: string } = {
          code: result.code ?? 403,
        };
        if (result.message !== undefined) status.message = result.message;
        if (result.reason !== undefined) status.reason = result.reason;
        return { uid, allowed: false, status, ...withWarnings };
      }
      return { uid, allowed: true, ...withWarnings };
    }
    const withWarnings = warnings.length > 0 ? { warnings } : {};
    if (result === undefined || registration.type === 'validating') {
      if (result !== undefined) {
        throw new TypeError('a validating handler must return nothing, allow() or deny(...)');
      }
      return { uid, allowed: true, ...withWarnings };
    }
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      throw new TypeError(
        'a mutating handler must return the object, nothing, allow() or deny(...)',
      );
    }
    if (decoded.object === undefined) {
      throw new TypeError(
        `a mutating handler returned an object for a ${decoded.operation} without one`,
      );
    }
    // JSON's view of the result: undefined members dropped, Dates as strings, as the API server would store it.
    const changed = JSON.parse(JSON.stringify(result)) as JsonValue;
    const patch = createJsonPatch(decoded.object, changed);
    if (patch.length === 0) return { uid, allowed: true, ...withWarnings };
    return {
      uid,
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
      ...withWarnings,
    };
  }

  async #convert(
    body: unknown,
    series: WebhookSeries,
    signals: AbortSignal[],
    timeoutMs: number,
  ): Promise<object> {
    const decoded = decodeConversionReview(body);
    const timeout = timeoutSignal(
      this.#clock,
      timeoutMs,
      `conversion timed out after ${timeoutMs} ms`,
    );
    const combined = anySignal([...signals, timeout.signal]);
    try {
      const converted = await raceSignal(
        Promise.all(
          decoded.objects.map((object) => {
            const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
            const group = apiVersion.includes('/')
              ? apiVersion.slice(0, apiVersion.lastIndexOf('/'))
              : '';
            const conversion = this.#conversions.get(`${group}/${String(object.kind)}`);
            if (conversion === undefined) {
              throw new TypeError(
                `no conversion is registered for ${String(object.kind)} ${apiVersion}`,
              );
            }
            return conversion.convert(object as KubeObject, decoded.desiredAPIVersion);
          }),
        ),
        combined.signal,
      );
      return conversionReviewResponse({
        uid: decoded.uid,
        convertedObjects: converted as unknown as JsonValue[],
        result: { status: 'Success' },
      });
    } catch (error) {
      series.errors.inc();
      const message = errorMessage(error);
      this.#logger.error('conversion failed', {
        uid: decoded.uid,
        desiredAPIVersion: decoded.desiredAPIVersion,
        error: message,
      });
      return conversionReviewResponse({
        uid: decoded.uid,
        convertedObjects: [],
        result: { status: 'Failure', message },
      });
    } finally {
      timeout.clear();
      combined.dispose();
    }
  }
}

function makeRequest(
  decoded: DecodedAdmissionRequest,
  object: DecodedAdmissionRequest['object'],
  signal: AbortSignal,
  warnings: string[],
): AdmissionRequest<KubeObjectLike> {
  return {
    uid: decoded.uid,
    kind: decoded.kind,
    resource: decoded.resource,
    subResource: decoded.subResource,
    requestKind: decoded.requestKind,
    requestResource: decoded.requestResource,
    requestSubResource: decoded.requestSubResource,
    name: decoded.name,
    namespace: decoded.namespace,
    operation: decoded.operation,
    userInfo: decoded.userInfo,
    object: object as KubeObjectLike | undefined,
    oldObject: decoded.oldObject as KubeObjectLike | undefined,
    dryRun: decoded.dryRun,
    options: decoded.options,
    signal,
    warn(message: string): void {
      if (typeof message !== 'string' || message === '') {
        throw new TypeError('AdmissionRequest.warn: message must be a non-empty string');
      }
      warnings.push(message);
    },
  };
}
