// The webhook server: node:https serving admission.k8s.io/v1 AdmissionReview (validating and mutating handlers
// typed by kind) and apiextensions.k8s.io/v1 ConversionReview, in lasso's lifecycle shape; controller-runtime's
// pkg/webhook (server.go, admission/http.go, conversion/conversion.go) is the model.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  defaultLogger,
  drainedResult,
  drainWithin,
  errorMessage,
  type Lifecycle,
  type Logger,
  type MetricsProvider,
  noopMetricsProvider,
  type StopResult,
  systemClock,
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
import { WebhookClosedError, WebhookListenError } from './errors.ts';
import { conversionPath, type ExchangeDeps, serveExchange } from './exchange.ts';
import { WebhookMetrics } from './metrics.ts';
import {
  type AdmissionRegistration,
  createRegistration,
  type MutatingWebhookOptions,
  type ValidatingWebhookOptions,
} from './registrations.ts';
import {
  type LoadedCertificate,
  ServingCertificate,
  type WebhookTlsOptions,
} from './serving-certificate.ts';

export { conversionPath };

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
  host?: string | undefined;
  /** Port (default 9443, controller-runtime's; 0 for any free port). */
  port?: number | undefined;
  /** Bound on a request body in bytes (default {@link defaultMaxRequestBytes}); a larger body gets HTTP 413. */
  maxRequestBytes?: number | undefined;
  /** The handler's time bound when a request has no `?timeout=` (default 10 000, admissionregistration's default). */
  defaultTimeoutMs?: number | undefined;
  /** How long a stop waits for requests in flight before closing their connections (default 10 000). */
  gracefulShutdownTimeoutMs?: number | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsProvider | undefined;
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
  readonly #gracefulMs: number;
  readonly #exchange: ExchangeDeps;
  readonly #admission = new Map<string, AdmissionRegistration>();
  readonly #conversions = new Map<string, Conversion>();
  #run: Run | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;

  constructor(options: WebhookServerOptions, port: number) {
    this.#options = options;
    this.#port = port;
    this.#clock = options.clock ?? systemClock;
    this.#logger = (options.logger ?? defaultLogger).child({ component: 'webhook-server' });
    this.#metrics = new WebhookMetrics(options.metrics ?? noopMetricsProvider);
    let nextRequest = 0;
    this.#exchange = {
      clock: this.#clock,
      logger: this.#logger,
      metrics: this.#metrics,
      maxRequestBytes: positive(options.maxRequestBytes, defaultMaxRequestBytes, 'maxRequestBytes'),
      defaultTimeoutMs: positive(options.defaultTimeoutMs, 10_000, 'defaultTimeoutMs'),
      admission: this.#admission,
      conversions: this.#conversions,
      nextRequestId: () => nextRequest++,
    };
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
      serveExchange(this.#exchange, request, response, inFlight, hardStop.signal);
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
}
