// Shared pieces of the example operator's integration tests: an environment with the Icecream CRD and admin
// clients, informer-driven observers whose waits re-check a condition on every event (with a real-time
// deadline), a logger that can be awaited, and a running operator plus simulated workload per test.
import { fileURLToPath } from 'node:url';
import { createCache, type SharedIndexInformer } from '@lasso/cache';
import {
  Client,
  clientFor,
  type KubeObjectLike,
  loadKubeConfig,
  type RestConfig,
} from '@lasso/client';
import {
  type LogAttributes,
  type Logger,
  type MetricsProvider,
  noopLogger,
  type StopResult,
} from '@lasso/core';
import { type LogEntry, Waiter } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import {
  createOperator,
  type LeaderElectionSettings,
  type Operator,
  type OperatorOptions,
  prometheusContentType,
} from '@lasso/operator';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Event } from 'kubernetes-types/events/v1.js';
import type { Icecream, IcecreamSpec } from '../src/generated/index.ts';
import { icecreamResource } from '../src/icecream.ts';
import { icecreamCacheOptions, registerIcecreamController } from '../src/operator.ts';
import { startSimulatedWorkload } from '../src/simulated-workload.ts';

export const crdPath = fileURLToPath(new URL('../manifests/crd.yaml', import.meta.url));

// The waiter of every integration suite (`@lasso/core/testing`), re-exported for this suite's tests.
export { Waiter };

/** A logger that records entries (children share them) and lets a test await one. */
export interface WaitableLogger extends Logger {
  readonly entries: LogEntry[];
  find(text: string): LogEntry[];
  /** Resolves once an entry whose message contains `text` was logged. */
  untilLogged(text: string, timeoutMs?: number): Promise<void>;
}

export function createWaitableLogger(): WaitableLogger {
  const entries: LogEntry[] = [];
  const waiter = new Waiter();
  const make = (base: LogAttributes): Logger => {
    const log =
      (level: LogEntry['level']) =>
      (message: string, attributes?: LogAttributes): void => {
        entries.push({ level, message, attributes: { ...base, ...attributes } });
        waiter.notify();
      };
    return {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
      child: (attributes) => make({ ...base, ...attributes }),
    };
  };
  const find = (text: string): LogEntry[] =>
    entries.filter((entry) => entry.message.includes(text));
  return Object.assign(make({}), {
    entries,
    find,
    untilLogged: (text: string, timeoutMs?: number) =>
      waiter.until(() => find(text).length > 0, `a log entry "${text}"`, timeoutMs),
  });
}

/** One kind in one namespace, seen through an informer; waits re-check after every event it delivers. */
export interface Observer<T extends KubeObjectLike> {
  /** The latest state of `name`, or undefined when it does not exist (as far as the informer knows). */
  get(name: string): T | undefined;
  list(): T[];
  /** Resolve once `predicate()` holds (checked now and after every event); rejects after `timeoutMs`. */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Resolve with `name` once it exists and `predicate` holds for it. */
  untilObject(
    name: string,
    predicate: (object: T) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<T>;
  /** Resolve once `name` is gone. */
  untilGone(name: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function observe<T extends KubeObjectLike>(
  client: Client<T>,
  namespace: string,
): Promise<Observer<T>> {
  const stop = new AbortController();
  const informer: SharedIndexInformer<T> = createCache(client, {
    namespace,
    resyncMs: 0,
    logger: noopLogger,
  });
  const waiter = new Waiter();
  informer.addEventHandler({
    onAdd: () => waiter.notify(),
    onUpdate: () => waiter.notify(),
    onDelete: () => waiter.notify(),
  });
  await informer.start(stop.signal);
  await informer.whenSynced({ signal: AbortSignal.timeout(20_000) });
  const store = informer.getStore();
  const get = (name: string): T | undefined => store.getByKey(`${namespace}/${name}`);
  return {
    get,
    list: () => store.list(),
    until: (predicate, what, timeoutMs) => waiter.until(predicate, what, timeoutMs),
    async untilObject(name, predicate, what, timeoutMs) {
      await waiter.until(
        () => {
          const object = get(name);
          return object !== undefined && predicate(object);
        },
        `${client.kind} ${namespace}/${name}: ${what}`,
        timeoutMs,
      );
      return get(name) as T;
    },
    untilGone: (name, timeoutMs) =>
      waiter.until(
        () => get(name) === undefined,
        `${client.kind} ${namespace}/${name} to be gone`,
        timeoutMs,
      ),
    async stop() {
      stop.abort();
      await informer.close();
    },
  };
}

export interface TestCluster {
  readonly env: Environment;
  /** Admin config (system:masters). */
  readonly rest: RestConfig;
  readonly icecreams: Client<Icecream>;
  readonly deployments: Client<Deployment>;
  readonly events: Client<Event>;
  /** Create a fresh namespace and return its name. */
  namespace(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

/** Start an API server with the Icecream CRD (`crds` replaces it, e.g. with one that has no schema). */
export async function startCluster(
  options: { crds?: Array<string | Record<string, unknown>> } = {},
): Promise<TestCluster> {
  const env = await startEnvironment({ crds: options.crds ?? [crdPath] });
  const rest = await loadKubeConfig({ path: env.kubeconfigPath });
  const namespaces = clientFor(rest, { apiVersion: 'v1', kind: 'Namespace' });
  let counter = 0;
  return {
    env,
    rest,
    icecreams: new Client<Icecream>({
      gvr: icecreamResource,
      kind: 'Icecream',
      namespaced: true,
      rest,
    }),
    deployments: clientFor(rest, { apiVersion: 'apps/v1', kind: 'Deployment' }),
    events: clientFor(rest, { apiVersion: 'events.k8s.io/v1', kind: 'Event' }),
    async namespace(prefix) {
      const name = `${prefix}-${process.pid}-${++counter}`;
      await namespaces.create(undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      return name;
    },
    async stop() {
      await env.stop();
    },
  };
}

/** An Icecream to create. */
export function icecream(
  namespace: string,
  name: string,
  spec: Partial<IcecreamSpec> = {},
): Icecream {
  return {
    apiVersion: 'example.lasso.dev/v1',
    kind: 'Icecream',
    metadata: { name, namespace },
    spec: { flavor: name, deploymentName: `${name}-scoops`, replicas: 2, ...spec },
  };
}

/** The Ready condition of an Icecream. */
export function readyCondition(object: Icecream | undefined) {
  return object?.status?.conditions?.find((condition) => condition.type === 'Ready');
}

/** True when the Icecream's status describes its current generation as Ready with every replica available. */
export function isReadyAt(object: Icecream, replicas: number): boolean {
  return (
    object.status?.observedGeneration === object.metadata?.generation &&
    object.status?.availableReplicas === replicas &&
    readyCondition(object)?.status === 'True'
  );
}

/** A running operator (of @lasso/operator, with the Icecream controller) with its own stop switch. */
export interface RunningOperator {
  readonly operator: Operator;
  readonly logger: WaitableLogger;
  /** Abort the operator's signal, await `stopped()` and close it; resolves with the stop's result. */
  stop(): Promise<StopResult>;
}

export async function runOperator(options: {
  rest: RestConfig;
  namespace: string;
  workers?: number;
  leaderElection?: LeaderElectionSettings;
  sharding?: OperatorOptions['sharding'];
  metrics?: MetricsProvider;
}): Promise<RunningOperator> {
  const stop = new AbortController();
  const logger = createWaitableLogger();
  const operator = await createOperator({
    config: options.rest,
    namespace: options.namespace,
    workers: options.workers ?? 2,
    leaderElection: options.leaderElection,
    ...(options.sharding === undefined ? {} : { sharding: options.sharding }),
    cache: icecreamCacheOptions,
    logger,
    // A test's own probe of what the operator records (nothing served: no endpoints).
    ...(options.metrics === undefined
      ? {}
      : {
          registry: {
            metrics: options.metrics,
            expose: () => '',
            contentType: prometheusContentType,
          },
        }),
  });
  await registerIcecreamController(operator);
  await operator.start(stop.signal);
  let stopping: Promise<StopResult> | undefined;
  return {
    operator,
    logger,
    stop() {
      stopping ??= (async () => {
        stop.abort();
        const result = await operator.stopped();
        await operator.close();
        return result;
      })();
      return stopping;
    },
  };
}

/**
 * The simulated kube-controller-manager and kubelet (Pods of Deployments, available replicas): needed by the
 * built-in server and a bare kube-apiserver alike, since neither runs controllers. Not against an existing
 * cluster, whose own controllers do that work.
 */
export async function runSimulatedWorkload(
  env: Environment,
  rest: RestConfig,
): Promise<{ stop(): Promise<void> }> {
  if (env.mode === 'existing') return { stop: async () => {} };
  const stop = new AbortController();
  const simulated = await startSimulatedWorkload({
    rest,
    signal: stop.signal,
    logger: noopLogger,
    startupMs: 50,
  });
  return {
    async stop() {
      stop.abort();
      await simulated.stopped();
      await simulated.close();
    },
  };
}
