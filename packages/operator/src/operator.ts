// The operator runtime (controller-runtime's Manager in lasso's lifecycle shape): one object that loads the
// cluster config, owns the client, cache and controller factories and the transport under them, runs the
// controllers' workers always or only while leading (warm standby), hands out one event recorder per
// controller, answers /healthz, /readyz and /metrics, and ends the process through runUntilShutdown.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  builtinMappingFor,
  type Client,
  createRestConfig,
  type KindType,
  loadDefaultConfig,
  loadKubeConfig,
  type RestConfig,
} from '@lasso/client';
import {
  createEventRecorder,
  type EventRecorder,
  type LeadershipLostError,
  runUntilShutdown,
  type ShutdownOutcome,
} from '@lasso/controller';
import {
  type Clock,
  defaultLogger,
  drainedResult,
  errorMessage,
  guardLogger,
  type Lifecycle,
  type Logger,
  type StopResult,
  systemClock,
} from '@lasso/core';
import {
  type ControllerKindStatus,
  createSharedCacheFactory,
  createSharedClientFactory,
  createSharedControllerFactory,
  type KindLookups,
  type SharedClientFactory,
  type SharedControllerFactory,
} from '@lasso/factory';
import { type EndpointAddress, type Listening, listen, type Route } from './endpoints.ts';
import { OperatorClosedError } from './errors.ts';
import { checkOperatorOptions, type OperatorOptions, type OperatorRunOptions } from './options.ts';
import { createPrometheusRegistry, type PrometheusRegistry } from './prometheus-registry.ts';
import { alwaysActive, leaderElected, type WorkerGate } from './worker-gate.ts';

/**
 * Where an operator is: `idle` (built, or between runs), `starting` (caches syncing, no election),
 * `standingBy` (caches synced or syncing, campaigning for the Lease), `running` (workers reconcile),
 * `stopping` (its signal aborted, reconciles draining), `failed` (the last run ended without its signal:
 * leadership lost or a start failed), `closed`.
 *
 * @example
 * ```ts
 * declare const operator: Operator;
 * const phase: OperatorPhase = operator.status().phase;
 * if (phase === 'failed') console.error('lost leadership:', operator.leadershipLost()?.message);
 * ```
 */
export type OperatorPhase =
  | 'idle'
  | 'starting'
  | 'standingBy'
  | 'running'
  | 'stopping'
  | 'failed'
  | 'closed';

/**
 * What `/readyz` and `/healthz` answer from: {@link Operator.status}.
 *
 * @example
 * ```ts
 * declare const operator: Operator;
 * const status: OperatorStatus = operator.status();
 * for (const kind of status.kinds) if (kind.state !== 'running') console.warn(kind.key, kind.state);
 * ```
 */
export interface OperatorStatus {
  readonly phase: OperatorPhase;
  /** `/readyz`: see {@link Operator.status} for the rule. */
  readonly ready: boolean;
  /** `/healthz`: false once closed, or once a run ended without its signal (the process should restart). */
  readonly healthy: boolean;
  /** The Lease holder last observed, with leader election. */
  readonly leader: string | undefined;
  /** Every kind the controllers use (the factory's status, without its internal informers). */
  readonly kinds: readonly ControllerKindStatus[];
}

/**
 * The bound addresses of the operator's endpoints (`host:port`), once started; undefined when not served.
 *
 * @example
 * ```ts
 * declare const operator: Operator;
 * const { health }: OperatorAddresses = operator.addresses();
 * const ready = await fetch(`http://${health}/readyz`); // 200 once synced (and leading or standing by)
 * ```
 */
export interface OperatorAddresses {
  readonly health: string | undefined;
  readonly metrics: string | undefined;
}

/**
 * The operator runtime; see {@link createOperator}. It is a `Lifecycle`: `start(signal)` runs it until
 * `signal` aborts (or leadership is lost), `stopped()` settles once its reconciles and caches stopped (bounded by
 * `gracefulShutdownTimeoutMs`), `start` runs it again, `close()` releases everything it created.
 *
 * @example
 * ```ts
 * await using operator = await createOperator({ health: { port: 8081 } });
 * const stop = new AbortController();
 * await operator.start(stop.signal); // caches synced, workers running
 * stop.abort();
 * const { drained, pending } = await operator.stopped();
 * if (!drained) console.error('still reconciling at shutdown', pending);
 * ```
 */
export interface Operator extends Lifecycle {
  /**
   * The typed shared controller of a kind, from the operator's controller factory: `forKind(kindFor('v1',
   * 'ConfigMap'))` is a `SharedController<ConfigMap>`, a `Kind<Widget>` token gives `SharedController<Widget>`.
   */
  readonly forKind: KindLookups<'controller'>['forKind'];
  /** The controller factory (for `forObject`, `forResource`, `status()`, `sharedCacheFactory()`). */
  readonly factory: SharedControllerFactory;
  /**
   * Aborts when the operator closes: register handlers with it to have them live across restarts (a handler
   * registered with a run's signal is removed when that run stops).
   */
  readonly signal: AbortSignal;
  /**
   * The config the operator runs with (its own copy). Its transport is the client factory's
   * (`factory.sharedClientFactory().transport`), created by the operator and closed by `close()`.
   */
  readonly config: RestConfig;
  /** The leader-election identity, also every recorder's `reportingInstance`. */
  readonly identity: string;
  /** Where every metric is recorded; `/metrics` serves `registry.expose()`. */
  readonly registry: PrometheusRegistry;
  /**
   * The event recorder of one controller, `reportingController` = `name` (a qualified name such as
   * `example.com/derive`): one per name, stopped (its last series written) by `close()`.
   */
  recorder(name: string): EventRecorder;
  /**
   * Where the operator is. Ready (`/readyz` 200) when a run has started, every kind in use is `running` (its
   * cache synced) or `unserved` (its CRD not installed: listed, not counted), and the operator is `running`
   * or `standingBy` (a synced standby is ready: it can take over at once). Healthy (`/healthz` 200) unless
   * `failed` or `closed`.
   */
  status(): OperatorStatus;
  /** The bound addresses of `/healthz`+`/readyz` and `/metrics` (port 0 resolved), once started. */
  addresses(): OperatorAddresses;
  /** Why the last run ended without its signal (leadership lost), if it did. */
  leadershipLost(): LeadershipLostError | undefined;
  /**
   * Run the process: start, wait for SIGINT/SIGTERM, stop within `gracefulShutdownTimeoutMs`, close within
   * `closeTimeoutMs`, and exit (0 drained, 3 not drained, 1 a failed start or lost leadership, 130/143 on a
   * second signal), through `runUntilShutdown` of `@lasso/controller`. Resolves only when `process.exit` returns.
   */
  run(options?: OperatorRunOptions): Promise<ShutdownOutcome>;
}

interface Run {
  readonly stop: AbortController;
  readonly stopped: Promise<StopResult>;
}

const defaultCloseTimeoutMs = 5_000;

function combine(results: readonly StopResult[]): StopResult {
  return {
    drained: results.every((result) => result.drained),
    pending: results.flatMap((result) => result.pending),
  };
}

// A built-in kind's client from the factory: over the operator's transport, closed with it.
function builtinClient<const V extends string, const K extends string>(
  clients: SharedClientFactory,
  apiVersion: V,
  kind: K,
): Client<KindType<V, K>> {
  const mapping = builtinMappingFor(apiVersion, kind);
  if (mapping === undefined)
    throw new TypeError(`operator: ${apiVersion} ${kind} is not a built-in kind`);
  return clients.forResourceKind<KindType<V, K>>(mapping.gvr, kind, mapping.namespaced);
}

async function loadConfig(options: OperatorOptions): Promise<RestConfig> {
  const context = options.context === undefined ? {} : { context: options.context };
  if (options.config !== undefined) return options.config;
  if (options.kubeconfig !== undefined) {
    return loadKubeConfig({ path: options.kubeconfig, ...context });
  }
  return loadDefaultConfig(context);
}

/**
 * Create an operator: load the config (`config`, else `kubeconfig`, else `loadDefaultConfig()`: KUBECONFIG,
 * ~/.kube/config, in-cluster) and build its factories. Nothing is requested before `start` (or a `forKind` of a
 * kind without a token that names its resource, which asks discovery).
 *
 * @example
 * ```ts
 * const operator = await createOperator({
 *   leaderElection: { namespace: 'default', name: 'my-operator' },
 *   health: { port: 8081 },
 *   metrics: { port: 8080 },
 * });
 * const configMaps = await operator.forKind(kindFor('v1', 'ConfigMap')); // SharedController<ConfigMap>
 * configMaps.registerHandler(operator.signal, 'log', (key, cm) => {
 *   console.log(key, cm?.data);
 *   return cm;
 * });
 * await operator.run(); // until SIGTERM; then drains, closes and exits
 * ```
 *
 * @throws TypeError or RangeError naming a bad option (synchronously, before any config is read).
 */
export async function createOperator(options: OperatorOptions = {}): Promise<Operator> {
  checkOperatorOptions(options);
  const logger = guardLogger(options.logger ?? defaultLogger);
  const clock = options.clock ?? systemClock;
  const registry = options.registry ?? createPrometheusRegistry({ logger });
  const loaded = await loadConfig(options);
  // A copy of its own carrying the operator's clock, logger and metrics; the client factory built on it
  // creates the transport, and close() closes it.
  const config = createRestConfig({ ...loaded, clock, logger, metrics: registry.metrics });
  return new OperatorRuntime(options, config, logger, clock, registry);
}

class OperatorRuntime implements Operator {
  readonly config: RestConfig;
  readonly identity: string;
  readonly registry: PrometheusRegistry;
  readonly factory: SharedControllerFactory;
  readonly forKind: Operator['forKind'];
  readonly #options: OperatorOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #lifetime = new AbortController();
  readonly #recorders = new Map<string, EventRecorder>();
  readonly #gate: WorkerGate;
  #endpoints: Listening[] = [];
  #listening: Promise<void> | undefined;
  #addresses: OperatorAddresses = { health: undefined, metrics: undefined };
  #phase: OperatorPhase = 'idle';
  #run: Run | undefined;
  #closing: Promise<void> | undefined;

  constructor(
    options: OperatorOptions,
    config: RestConfig,
    logger: Logger,
    clock: Clock,
    registry: PrometheusRegistry,
  ) {
    this.#options = options;
    this.#logger = logger;
    this.#clock = clock;
    this.config = config;
    this.registry = registry;
    this.identity = options.leaderElection?.identity ?? `${hostname()}-${randomUUID().slice(0, 8)}`;
    const shared = { clock, logger, metrics: registry.metrics };
    const clients = createSharedClientFactory(config, shared);
    const caches = createSharedCacheFactory(clients, {
      ...options.cache,
      ...shared,
      ...(options.namespace === undefined ? {} : { defaultNamespace: options.namespace }),
      ...(options.gracefulShutdownTimeoutMs === undefined
        ? {}
        : { gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs }),
    });
    this.factory = createSharedControllerFactory(caches, {
      ...options.controller,
      ...(options.sharding === undefined ? {} : { sharding: options.sharding }),
      ...shared,
      ...(options.workers === undefined ? {} : { defaultWorkers: options.workers }),
      ...(options.gracefulShutdownTimeoutMs === undefined
        ? {}
        : { gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs }),
      ...(options.reconcileTimeoutMs === undefined
        ? {}
        : { reconcileTimeoutMs: options.reconcileTimeoutMs }),
    });
    const factory = this.factory;
    this.forKind = ((kind: Parameters<Operator['forKind']>[0], lookup?: object) => {
      if (this.#closing !== undefined) return Promise.reject(new OperatorClosedError());
      return factory.forKind(kind, lookup);
    }) as Operator['forKind'];
    const election = options.leaderElection;
    this.#gate =
      election === undefined
        ? alwaysActive()
        : leaderElected({
            client: builtinClient(clients, 'coordination.k8s.io/v1', 'Lease'),
            settings: election,
            identity: this.identity,
            gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
            clock,
            logger,
            metrics: registry.metrics,
          });
  }

  get signal(): AbortSignal {
    return this.#lifetime.signal;
  }

  recorder(name: string): EventRecorder {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError('operator.recorder: name must be a non-empty string');
    }
    if (this.#closing !== undefined) throw new OperatorClosedError();
    let recorder = this.#recorders.get(name);
    if (recorder === undefined) {
      recorder = createEventRecorder({
        client: builtinClient(this.factory.sharedClientFactory(), 'events.k8s.io/v1', 'Event'),
        reportingController: name,
        reportingInstance: this.identity.slice(0, 128),
        clock: this.#clock,
        logger: this.#logger,
      });
      this.#recorders.set(name, recorder);
    }
    return recorder;
  }

  status(): OperatorStatus {
    const kinds =
      this.#closing === undefined ? this.factory.status().filter((kind) => !kind.internal) : [];
    const phase = this.#phase;
    const ready =
      this.#run !== undefined &&
      (phase === 'running' || phase === 'standingBy') &&
      kinds.every((kind) => kind.state === 'running' || kind.state === 'unserved');
    return {
      phase,
      ready,
      healthy: phase !== 'failed' && phase !== 'closed',
      leader: this.#gate.leader(),
      kinds,
    };
  }

  addresses(): OperatorAddresses {
    return this.#addresses;
  }

  leadershipLost(): LeadershipLostError | undefined {
    return this.#gate.lost();
  }

  isRunning(): boolean {
    return this.#run !== undefined;
  }

  async stopped(): Promise<StopResult> {
    return this.#run === undefined ? drainedResult : this.#run.stopped;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError('operator.start: signal must be an AbortSignal');
    }
    if (this.#closing !== undefined) throw new OperatorClosedError();
    if (this.#run !== undefined) return;
    // The endpoints outlive runs: a probe between two runs still gets an answer.
    this.#listening ??= this.#listen();
    try {
      await this.#listening;
    } catch (error) {
      this.#listening = undefined;
      throw error;
    }
    if (this.#run !== undefined) return;
    if (this.#closing !== undefined) throw new OperatorClosedError();
    // The run stops when the caller's signal aborts, or by itself when leadership is lost.
    const stop = new AbortController();
    const follow = (): void => stop.abort(signal.reason);
    if (signal.aborted) follow();
    else signal.addEventListener('abort', follow, { once: true });
    this.#phase = 'starting';
    const workers = this.#options.workers;
    const results = this.#gate.run(stop, {
      caches: this.factory.sharedCacheFactory(),
      onStandby: () => {
        if (!stop.signal.aborted) this.#phase = 'standingBy';
      },
      onActive: async (active) => {
        this.#phase = 'running';
        await this.factory.start(active, workers);
      },
      onInactive: () => {
        if (!stop.signal.aborted) this.#phase = 'standingBy';
      },
      workersStopped: () => this.factory.stopped(),
    });
    const run: Run = {
      stop,
      stopped: results.stopped.then((list) => {
        signal.removeEventListener('abort', follow);
        const result = combine(list);
        this.#phase = signal.aborted || this.#closing !== undefined ? 'idle' : 'failed';
        if (this.#closing !== undefined) this.#phase = 'closed';
        this.#run = undefined;
        this.#logger.info('operator stopped', { drained: result.drained });
        return result;
      }),
    };
    this.#run = run;
    stop.signal.addEventListener(
      'abort',
      () => {
        if (this.#run === run) this.#phase = 'stopping';
      },
      { once: true },
    );
    try {
      await results.started;
    } catch (error) {
      run.stop.abort(error);
      await run.stopped;
      if (!signal.aborted) this.#phase = 'failed';
      throw error;
    }
  }

  async #listen(): Promise<void> {
    const { health, metrics } = this.#options;
    const healthRoutes: Array<[string, Route]> = [
      ['/healthz', () => this.#healthz()],
      ['/readyz', () => this.#readyz()],
    ];
    const metricsRoute: [string, Route] = [
      '/metrics',
      () => ({ status: 200, body: this.registry.expose(), contentType: this.registry.contentType }),
    ];
    // One server when both name the same host and port (port 0 means any free port: a server each).
    const shared =
      health !== undefined &&
      metrics !== undefined &&
      health.port !== 0 &&
      health.port === metrics.port &&
      (health.host ?? '') === (metrics.host ?? '');
    const servers: Array<['health' | 'metrics', EndpointAddress, Array<[string, Route]>]> = [];
    if (health !== undefined) {
      servers.push(['health', health, shared ? [...healthRoutes, metricsRoute] : healthRoutes]);
    }
    if (metrics !== undefined && !shared) servers.push(['metrics', metrics, [metricsRoute]]);
    try {
      for (const [endpoint, address, routes] of servers) {
        const listening = await listen(endpoint, address, new Map(routes), this.#logger);
        this.#endpoints.push(listening);
        this.#addresses = {
          health: endpoint === 'health' ? listening.address : this.#addresses.health,
          metrics: endpoint === 'metrics' || shared ? listening.address : this.#addresses.metrics,
        };
      }
    } catch (error) {
      await this.#closeEndpoints();
      throw error;
    }
  }

  #healthz(): { status: number; body: string } {
    const { healthy, phase } = this.status();
    return healthy ? { status: 200, body: 'ok\n' } : { status: 503, body: `unhealthy: ${phase}\n` };
  }

  #readyz(): { status: number; body: string } {
    const status = this.status();
    const lines = [
      `[${status.phase === 'running' || status.phase === 'standingBy' ? '+' : '-'}]phase ${status.phase}`,
      ...status.kinds.map(
        (kind) =>
          `[${kind.state === 'running' || kind.state === 'unserved' ? '+' : '-'}]kind ${kind.key} ${kind.state}`,
      ),
      status.ready ? 'readyz check passed' : 'readyz check failed',
    ];
    return { status: status.ready ? 200 : 503, body: `${lines.join('\n')}\n` };
  }

  async #closeEndpoints(): Promise<void> {
    const endpoints = this.#endpoints;
    this.#endpoints = [];
    await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  }

  run(options: OperatorRunOptions = {}): Promise<ShutdownOutcome> {
    const { cleanup } = options;
    return runUntilShutdown(this, {
      gracefulShutdownTimeoutMs: this.#options.gracefulShutdownTimeoutMs,
      closeTimeoutMs: this.#options.closeTimeoutMs ?? defaultCloseTimeoutMs,
      logger: this.#logger,
      clock: this.#clock,
      ...(options.process === undefined ? {} : { process: options.process }),
      ...(cleanup === undefined ? {} : { cleanup: () => cleanup() }),
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    const current = this.#run;
    current?.stop.abort(new OperatorClosedError());
    await current?.stopped;
    this.#lifetime.abort(new OperatorClosedError());
    const failures: unknown[] = [];
    const attempt = async (what: string, work: () => Promise<void>): Promise<void> => {
      try {
        await work();
      } catch (error) {
        failures.push(error);
        this.#logger.error(`operator close: ${what} failed`, { error: errorMessage(error) });
      }
    };
    await Promise.all(
      [...this.#recorders.values()].map((recorder) =>
        attempt('event recorder stop', () => recorder.stop()),
      ),
    );
    await attempt('election close', () => this.#gate.close());
    // Controllers, then informers, then clients and the transport the client factory created.
    await attempt('controller factory close', () => this.factory.close());
    await attempt('cache factory close', () => this.factory.sharedCacheFactory().close());
    await attempt('client factory close', () => this.factory.sharedClientFactory().close());
    await attempt('endpoints close', () => this.#closeEndpoints());
    this.#phase = 'closed';
    if (failures.length > 0) {
      throw new AggregateError(failures, 'operator close: some resources failed to close');
    }
  }
}
