// The options of createOperator, and their checks: bad options throw TypeError/RangeError naming the option.
import type { RestConfig } from '@lasso/client';
import type { Clock, Logger, ShutdownSignalTarget } from '@lasso/core';
import type {
  ShardingOptions,
  SharedCacheFactoryOptions,
  SharedControllerFactoryOptions,
} from '@lasso/factory';
import type { EndpointAddress } from './endpoints.ts';
import type { PrometheusRegistry } from './prometheus-registry.ts';

/**
 * Leader election of an operator: workers run only while this candidate holds the Lease; the caches run
 * meanwhile (warm standby).
 *
 * @example
 * ```ts
 * const leaderElection: LeaderElectionSettings = {
 *   namespace: 'my-system',
 *   name: 'my-operator',
 *   identity: process.env.POD_NAME, // default: hostname + random suffix
 * };
 * const operator = await createOperator({ leaderElection });
 * ```
 */
export interface LeaderElectionSettings {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease: one per operator (every replica uses the same). */
  name: string;
  /** This candidate's identity (default `<hostname>-<8 random hex>`); at most 128 characters in Events. */
  identity?: string | undefined;
  /** client-go's defaults: 15 000. */
  leaseDurationMs?: number | undefined;
  /** client-go's defaults: 10 000. */
  renewDeadlineMs?: number | undefined;
  /** client-go's defaults: 2 000. */
  retryPeriodMs?: number | undefined;
}

/**
 * Options of `createOperator`: every field is optional.
 *
 * @example
 * ```ts
 * const options: OperatorOptions = {
 *   kubeconfig: '/etc/my-operator/kubeconfig', // default: KUBECONFIG, ~/.kube/config, in-cluster
 *   namespace: 'team-a',
 *   workers: 2,
 *   health: { port: 8081 },
 *   metrics: { port: 8080 },
 *   gracefulShutdownTimeoutMs: 20_000,
 * };
 * const operator = await createOperator(options);
 * ```
 */
export interface OperatorOptions {
  /** The cluster to run against. Default: `kubeconfig` when given, else `loadDefaultConfig()` (KUBECONFIG, ~/.kube/config, in-cluster). */
  config?: RestConfig | undefined;
  /** Path of a kubeconfig file to load instead of the default search. */
  kubeconfig?: string | undefined;
  /** Context of the kubeconfig (default: its current context). */
  context?: string | undefined;
  /** The one namespace every informer watches; `''` (default) = all. */
  namespace?: string | undefined;
  /** Workers per controller (default 5, the factory's). */
  workers?: number | undefined;
  /** Reconcile only while holding this Lease; caches stay synced meanwhile (warm standby). Default: always. */
  leaderElection?: LeaderElectionSettings | undefined;
  /**
   * Run as one replica of a sharded operator: the controller factory's `sharding` option (a ring of replicas
   * holding one Lease each in `leaseNamespace`, every object reconciled by the one replica owning its hash
   * range). Every replica works; not combined with `leaderElection`, which lets only one work. Default: unsharded.
   */
  sharding?: ShardingOptions | undefined;
  /** Serve `/healthz` and `/readyz` here (e.g. `{ port: 8081 }`). Default: not served. */
  health?: EndpointAddress | undefined;
  /** Serve Prometheus `/metrics` here (e.g. `{ port: 8080 }`); may be the health endpoint's address. Default: not served. */
  metrics?: EndpointAddress | undefined;
  /**
   * How long a stop waits for the reconciles in flight (whose signals abort at once) before `stopped()` settles
   * with `drained: false` naming them; also `run()`'s drain bound. Default 30 000.
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /** How much longer `run()` lets `close()` take before the process exits anyway. Default 5 000. */
  closeTimeoutMs?: number | undefined;
  /** Abort each reconcile's signal after this long. Default none. */
  reconcileTimeoutMs?: number | undefined;
  /** Options of the cache factory, except `clock`, `logger`, `metrics` (the operator's) and `defaultNamespace` (`namespace`). */
  cache?:
    | Omit<SharedCacheFactoryOptions, 'clock' | 'logger' | 'metrics' | 'defaultNamespace'>
    | undefined;
  /** Options of the controller factory, except those the operator sets (`clock`, `logger`, `metrics`, bounds, workers). */
  controller?:
    | Omit<
        SharedControllerFactoryOptions,
        | 'clock'
        | 'logger'
        | 'metrics'
        | 'gracefulShutdownTimeoutMs'
        | 'reconcileTimeoutMs'
        | 'defaultWorkers'
      >
    | undefined;
  /** Where every metric is recorded and `/metrics` reads from. Default: a new `createPrometheusRegistry()`. */
  registry?: PrometheusRegistry | undefined;
  /** Default `defaultLogger` of `@lasso/core`. */
  logger?: Logger | undefined;
  /** Default `systemClock`. */
  clock?: Clock | undefined;
}

/**
 * Options of `operator.run()`.
 *
 * @example
 * ```ts
 * declare const operator: Operator;
 * declare const webhooks: { close(): Promise<void> };
 * const options: OperatorRunOptions = { cleanup: () => webhooks.close() };
 * await operator.run(options);
 * ```
 */
export interface OperatorRunOptions {
  /** Where the OS signals arrive and what exits (default `process`). */
  process?: ShutdownSignalTarget | undefined;
  /** Runs after the operator closed, within the close bound: flush logs, close your own servers. */
  cleanup?: (() => void | Promise<void>) | undefined;
}

function checkBound(name: string, value: unknown, { positive = false } = {}): void {
  if (value === undefined) return;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (positive && value === 0)
  ) {
    throw new RangeError(
      `createOperator: ${name} must be a finite number ${positive ? '> 0' : '>= 0'}, got ${String(value)}`,
    );
  }
}

function checkAddress(name: string, value: EndpointAddress | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`createOperator: ${name} must be an object { port, host? }`);
  }
  if (!Number.isInteger(value.port) || value.port < 0 || value.port > 65_535) {
    throw new RangeError(
      `createOperator: ${name}.port must be an integer from 0 to 65535, got ${String(value.port)}`,
    );
  }
  if (value.host !== undefined && (typeof value.host !== 'string' || value.host === '')) {
    throw new TypeError(`createOperator: ${name}.host must be a non-empty string`);
  }
}

/** @internal Throw a TypeError or RangeError naming the first bad option. */
export function checkOperatorOptions(options: OperatorOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createOperator: options must be an object');
  }
  if (options.config !== undefined && options.kubeconfig !== undefined) {
    throw new TypeError('createOperator: give config or kubeconfig, not both');
  }
  if (
    options.config !== undefined &&
    (typeof options.config !== 'object' || typeof options.config?.server !== 'string')
  ) {
    throw new TypeError('createOperator: config must be a RestConfig');
  }
  for (const name of ['kubeconfig', 'context', 'namespace'] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'string') {
      throw new TypeError(`createOperator: ${name} must be a string`);
    }
  }
  if (
    options.workers !== undefined &&
    (!Number.isInteger(options.workers) || options.workers < 1)
  ) {
    throw new RangeError(
      `createOperator: workers must be an integer >= 1, got ${String(options.workers)}`,
    );
  }
  checkBound('gracefulShutdownTimeoutMs', options.gracefulShutdownTimeoutMs);
  checkBound('closeTimeoutMs', options.closeTimeoutMs);
  checkBound('reconcileTimeoutMs', options.reconcileTimeoutMs, { positive: true });
  checkAddress('health', options.health);
  checkAddress('metrics', options.metrics);
  const election = options.leaderElection;
  if (election !== undefined) {
    if (typeof election !== 'object' || election === null) {
      throw new TypeError('createOperator: leaderElection must be an object');
    }
    for (const name of ['namespace', 'name'] as const) {
      if (typeof election[name] !== 'string' || election[name] === '') {
        throw new TypeError(`createOperator: leaderElection.${name} must be a non-empty string`);
      }
    }
    if (
      election.identity !== undefined &&
      (typeof election.identity !== 'string' || election.identity === '')
    ) {
      throw new TypeError('createOperator: leaderElection.identity must be a non-empty string');
    }
    for (const name of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
      checkBound(`leaderElection.${name}`, election[name], { positive: true });
    }
  }
  // The rest of `sharding` is checked by the controller factory, naming each option.
  if (options.sharding !== undefined && election !== undefined) {
    throw new RangeError(
      'createOperator: sharding and leaderElection exclude each other (sharded replicas all work, each on its share)',
    );
  }
  if (
    options.registry !== undefined &&
    (typeof options.registry?.expose !== 'function' || typeof options.registry.metrics !== 'object')
  ) {
    throw new TypeError('createOperator: registry must be a PrometheusRegistry');
  }
}
