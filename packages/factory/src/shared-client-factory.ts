// SharedClientFactory: one Client per GVR, GVK <-> GVR through a RESTMapper, and the /version health ping.
// Ports rancher/lasso pkg/client/sharedclientfactory.go.
import {
  Client,
  createRestConfig,
  createRestMapper,
  type GroupVersionKind,
  type GroupVersionResource,
  type KubeObject,
  type KubeObjectLike,
  type RestConfig,
  type RestMapper,
  type RestMapping,
  RestTransport,
} from '@lasso/client';
import {
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Logger,
  type MetricsProvider,
  raceSignal,
} from '@lasso/core';
import { checkGvr, checkOptionsObject } from './checks.ts';
import { type KindRef, resolveKindRef } from './kind.ts';
import {
  checkResourceKind,
  type KindLookups,
  KindLookupsBase,
  type LookupOptions,
  ProductRegistry,
  type ResolvedKind,
} from './kind-lookups.ts';
import { gvkKey, gvrString } from './names.ts';

/** Options of {@link createSharedClientFactory}. */
export interface SharedClientFactoryOptions {
  /** GVK <-> GVR lookups. Default `createRestMapper(transport)`: discovery, refreshed once on a miss. */
  mapper?: RestMapper | undefined;
  /** Per-request timeout of every client (not of watches). Default: the config's `timeoutMs`. */
  defaultTimeoutMs?: number | undefined;
  /**
   * Time source of the transport the factory creates (timeouts, retries). Default: the config's, else
   * `systemClock`. With a transport handed in, only its own (or none) is accepted: a TypeError otherwise.
   */
  clock?: Clock | undefined;
  /** Where the factory and the transport it creates log. Default: the config's, else `defaultLogger`. */
  logger?: Logger | undefined;
  /**
   * Where the transport the factory creates counts requests (`rest_client_*`). Default: the config's. With a
   * transport handed in, only its own (or none) is accepted: a TypeError otherwise.
   */
  metrics?: MetricsProvider | undefined;
}

/**
 * One {@link Client} per resource for one cluster and user (lasso `SharedClientFactory`), plus the GVK <->
 * GVR lookups of its RESTMapper and the API server's health.
 */
export interface SharedClientFactory extends KindLookups<'client'> {
  /** The config every client uses (the given one, or a copy carrying the factory's clock/logger/metrics). */
  readonly config: RestConfig;
  /**
   * The transport every client of this factory shares: the one handed in, or the one this factory created
   * from a config (its own, closed by {@link close}).
   */
  readonly transport: RestTransport;
  /** The RESTMapper of the lookups. */
  restMapper(): RestMapper;
  /** Whether a kind is namespaced, from the RESTMapper. */
  isNamespaced(kind: KindRef, options?: LookupOptions): Promise<boolean>;
  /** The resource serving a kind and its scope (`{ gvr, gvk, namespaced }`), from the RESTMapper. */
  resourceForGVK(kind: KindRef, options?: LookupOptions): Promise<RestMapping>;
  /** The kind served at a resource, from the RESTMapper. */
  gvkForResource(gvr: GroupVersionResource, options?: LookupOptions): Promise<GroupVersionKind>;
  /**
   * True when `GET /version` answers within `timeoutMs` (default: the transport's per-request timeout);
   * false on any failure or abort. Never throws. `/version` is readable by every authenticated user (lasso
   * switched to it from a kube-system lookup for that reason).
   */
  isHealthy(options?: {
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
  }): Promise<boolean>;
  /**
   * `GET /version`, as {@link isHealthy}, but rejects with the failure (a `LASSO_CONNECTION_FAILED` error for a
   * refused connection, a DNS or TLS failure; an `ApiError` for 401/403; the abort reason): the health gate
   * names the cause from it.
   */
  ping(options?: {
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
  }): Promise<void>;
  /**
   * Close the transport when this factory created it (it was created from a config): its keep-alive sockets
   * end and `transport.closed` is true. A transport handed in is left open: it is its creator's. Idempotent.
   */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

class SharedClientFactoryImpl extends KindLookupsBase<'client'> implements SharedClientFactory {
  readonly config: RestConfig;
  readonly transport: RestTransport;
  readonly #ownsTransport: boolean;
  readonly #mapper: RestMapper;
  readonly #defaultTimeoutMs: number | undefined;
  readonly #logger: Logger;
  #closed = false;
  readonly #clients = new ProductRegistry<'client'>();
  // Lookups in flight, shared by concurrent callers so a burst of forKind calls asks the mapper once.
  readonly #lookups = new Map<string, Promise<unknown>>();

  constructor(rest: RestConfig | RestTransport, options: SharedClientFactoryOptions) {
    super();
    if (rest instanceof RestTransport) {
      this.#ownsTransport = false;
      this.config = rest.config;
      this.transport = rest;
    } else {
      const overrides: Partial<RestConfig> = {};
      if (options.clock !== undefined && options.clock !== rest.clock)
        overrides.clock = options.clock;
      if (options.logger !== undefined && options.logger !== rest.logger)
        overrides.logger = options.logger;
      if (options.metrics !== undefined && options.metrics !== rest.metrics)
        overrides.metrics = options.metrics;
      this.config =
        Object.keys(overrides).length > 0 ? createRestConfig({ ...rest, ...overrides }) : rest;
      // Its own transport, not the config's shared one: what this factory creates, its close() releases.
      this.#ownsTransport = true;
      this.transport = new RestTransport(this.config);
    }
    const config = this.config;
    this.#mapper = options.mapper ?? createRestMapper(this.transport);
    this.#defaultTimeoutMs = options.defaultTimeoutMs;
    this.#logger = guardLogger(options.logger ?? config.logger ?? defaultLogger);
  }

  restMapper(): RestMapper {
    return this.#mapper;
  }

  protected async resolveKind(
    gvk: GroupVersionKind,
    options: LookupOptions,
  ): Promise<ResolvedKind> {
    const mapping = await this.resourceForGVK(gvk, options);
    return { gvr: mapping.gvr, kind: mapping.gvk.kind, namespaced: mapping.namespaced };
  }

  protected async resolveResource(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions,
  ): Promise<ResolvedKind> {
    const mapping = await this.#shared(`resource ${gvrString(gvr)}`, options, (signal) =>
      this.#mapper.mappingFor(gvr, { signal }),
    );
    if (mapping.namespaced !== namespaced) {
      throw new TypeError(
        `forResource(${gvrString(mapping.gvr)}): the server says namespaced: ${mapping.namespaced}, the caller namespaced: ${namespaced}`,
      );
    }
    return { gvr: mapping.gvr, kind: mapping.gvk.kind, namespaced };
  }

  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): Client<T> {
    const checked = checkResourceKind(gvr, kind, namespaced, 'forResourceKind');
    const key = gvrString(checked.gvr);
    const existing = this.#clients.get<T>(key);
    if (existing !== undefined) {
      if (existing.kind !== kind || existing.namespaced !== namespaced) {
        throw new TypeError(
          `forResourceKind(${key}): this factory serves it as kind ${existing.kind} (namespaced: ${existing.namespaced}), not ${kind} (namespaced: ${namespaced})`,
        );
      }
      return existing;
    }
    const client = new Client<KubeObjectLike>({
      gvr: checked.gvr,
      kind,
      namespaced,
      rest: this.transport,
      ...(this.#defaultTimeoutMs !== undefined ? { defaultTimeoutMs: this.#defaultTimeoutMs } : {}),
    });
    this.#clients.set(key, client);
    return this.#clients.get<T>(key) as Client<T>;
  }

  async isNamespaced(kind: KindRef, options: LookupOptions = {}): Promise<boolean> {
    return (await this.resourceForGVK(kind, options)).namespaced;
  }

  async resourceForGVK(kind: KindRef, options: LookupOptions = {}): Promise<RestMapping> {
    const { gvk } = resolveKindRef(kind, 'resourceForGVK');
    return this.#shared(`kind ${gvkKey(gvk)}`, options, (signal) =>
      this.#mapper.resourceFor(gvk, { signal }),
    );
  }

  async gvkForResource(
    gvr: GroupVersionResource,
    options: LookupOptions = {},
  ): Promise<GroupVersionKind> {
    const checked = checkGvr(gvr, 'gvkForResource');
    const mapping = await this.#shared(`resource ${gvrString(checked)}`, options, (signal) =>
      this.#mapper.mappingFor(checked, { signal }),
    );
    return mapping.gvk;
  }

  async ping(
    options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined } = {},
  ): Promise<void> {
    await this.transport.requestJson<unknown>({
      method: 'GET',
      path: '/version',
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  async isHealthy(
    options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined } = {},
  ): Promise<boolean> {
    try {
      await this.ping(options);
      return true;
    } catch (error) {
      if (!options.signal?.aborted) {
        this.#logger.debug('health check failed', { error: errorMessage(error) });
      }
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsTransport) await this.transport.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // One lookup per key at a time, run without any caller's signal so one caller giving up does not fail
  // the others; each caller stops waiting on its own signal. Failures are not kept: the next call asks again
  // (the kind may have been installed since).
  #shared<R>(
    key: string,
    options: LookupOptions,
    lookup: (signal: AbortSignal | undefined) => Promise<R>,
  ): Promise<R> {
    let pending = this.#lookups.get(key) as Promise<R> | undefined;
    if (pending === undefined) {
      pending = lookup(undefined).finally(() => {
        this.#lookups.delete(key);
      });
      this.#lookups.set(key, pending);
    }
    return raceSignal(pending, options.signal);
  }
}

/**
 * Create a {@link SharedClientFactory} (lasso `NewSharedClientFactory`): one client per GVR (never two under
 * concurrent calls), GVK <-> GVR and scope through a RESTMapper that refreshes discovery once on a miss, so a
 * CRD installed after start resolves. Nothing is requested until a lookup or a client call needs it.
 *
 * @example
 * ```ts
 * const clients = createSharedClientFactory(await loadDefaultConfig());
 * const deployments = await clients.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' }); // Client<Deployment>
 * const list = await deployments.list('default');
 * await clients.close(); // closes the transport it created
 * ```
 *
 * Ownership: created from a config, the factory creates its own transport (on a copy of the config when
 * `options` give a clock, logger or metrics the config lacks) and `close()` closes it: call it at shutdown.
 * Two factories from one config have a transport each and never close each other's. Created from a
 * `RestTransport`, the factory uses it and never closes it: the transport is its creator's.
 *
 * @throws TypeError when `rest` is neither a RestConfig nor a RestTransport, when an option is malformed,
 * or when a transport is handed in with a `clock` or `metrics` other than its config's.
 */
export function createSharedClientFactory(
  rest: RestConfig | RestTransport,
  options: SharedClientFactoryOptions = {},
): SharedClientFactory {
  if (!(rest instanceof RestTransport) && !isRestConfigLike(rest)) {
    throw new TypeError(
      'createSharedClientFactory: config must be a RestConfig or a RestTransport',
    );
  }
  checkOptionsObject(options, 'createSharedClientFactory');
  if (rest instanceof RestTransport) {
    for (const name of ['clock', 'metrics'] as const) {
      if (options[name] !== undefined && options[name] !== rest.config[name]) {
        throw new TypeError(
          `createSharedClientFactory: ${name} configures a transport the factory creates; the transport handed in has its config's`,
        );
      }
    }
  }
  const { defaultTimeoutMs, mapper } = options;
  if (
    defaultTimeoutMs !== undefined &&
    !(Number.isFinite(defaultTimeoutMs) && defaultTimeoutMs >= 0)
  ) {
    throw new RangeError(
      `createSharedClientFactory: defaultTimeoutMs must be a finite number >= 0, got ${String(defaultTimeoutMs)}`,
    );
  }
  if (mapper !== undefined && typeof mapper?.resourceFor !== 'function') {
    throw new TypeError('createSharedClientFactory: mapper must be a RestMapper');
  }
  return new SharedClientFactoryImpl(rest, options);
}

function isRestConfigLike(value: unknown): value is RestConfig {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { server?: unknown }).server === 'string'
  );
}
