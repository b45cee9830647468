// client-node's informer interface (on/off, list, get, start/stop) over a lasso SharedIndexInformer. Its types are
// written here structurally, not imported: the bridge needs nothing of @kubernetes/client-node at run time, and its
// declarations do not depend on client-node's (which do not compile under `skipLibCheck: false` in a pnpm
// project: they import `ws` without its types). A type test pins them to client-node's `Informer` and `ObjectCache`.
import {
  createCache,
  isDeletedFinalStateUnknown,
  namespaceIndex,
  type SharedIndexInformer,
  type WatchError,
} from '@lasso/cache';
import {
  Client,
  createRestMapper,
  type KubeObjectLike,
  loadKubeConfigFromString,
  type RestConfig,
  RestTransport,
} from '@lasso/client';
import {
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  type Logger,
  type MetricsProvider,
  type TracerProvider,
} from '@lasso/core';
import { parseWatchPath, type WatchPath } from './watch-path.ts';

/**
 * The object shape client-node's informers hold (its `KubernetesObject`): every client-node model (`V1Pod`,
 * `V1ConfigMap`, ...) and every lasso object is one.
 *
 * @example
 * ```ts
 * const object: KubernetesObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } };
 * ```
 */
export interface KubernetesObject {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?:
    | {
        name?: string | undefined;
        namespace?: string | undefined;
        resourceVersion?: string | undefined;
      }
    | undefined;
}

/**
 * A callback of `add`, `update`, `delete` or `change` (client-node's `ObjectCallback`).
 *
 * @example
 * ```ts
 * const log: ObjectCallback<KubernetesObject> = (object) => console.log(object.metadata?.name);
 * ```
 */
export type ObjectCallback<T> = (object: T) => void;

/**
 * A callback of `error` (the error) or `connect` (no argument): client-node's `ErrorCallback`.
 *
 * @example
 * ```ts
 * const report: ErrorCallback = (error) => console.error(error);
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: client-node's ErrorCallback takes `any`; `unknown` would not accept its callbacks
export type ErrorCallback = (error?: any) => void;

/**
 * What {@link makeInformer} returns: client-node's `Informer` and `ObjectCache` (what its own `makeInformer`
 * returns; assignable to both), its `latestResourceVersion()`, and `close()` to release the lasso informer.
 *
 * @example
 * ```ts
 * import type { V1Pod } from '@kubernetes/client-node';
 * declare const informer: ClientNodeInformer<V1Pod>;
 * informer.on('add', (pod) => console.log(pod.metadata?.name));
 * await informer.start();
 * ```
 */
export interface ClientNodeInformer<T extends KubernetesObject> {
  on(verb: 'add' | 'update' | 'delete' | 'change', cb: ObjectCallback<T>): void;
  on(verb: 'error' | 'connect', cb: ErrorCallback): void;
  off(verb: 'add' | 'update' | 'delete' | 'change', cb: ObjectCallback<T>): void;
  off(verb: 'error' | 'connect', cb: ErrorCallback): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The cached object `name` of `namespace` (none for a cluster-scoped object). */
  get(name: string, namespace?: string): T | undefined;
  /** Every cached object, or those of `namespace`. */
  list(namespace?: string): ReadonlyArray<T>;
  /** The resourceVersion of the last list or watch event (`''` before the first list). */
  latestResourceVersion(): string;
  /** Stop, and close the lasso informer this bridge made (one given to {@link fromLassoInformer} is left open). */
  close(): Promise<void>;
}

/**
 * What {@link makeInformer} reads of client-node's `KubeConfig`: its `exportConfig()` (a kubeconfig as JSON).
 *
 * @example
 * ```ts
 * import * as k8s from '@kubernetes/client-node';
 * const kc: KubeConfigLike = new k8s.KubeConfig();
 * ```
 */
export interface KubeConfigLike {
  exportConfig(): string;
}

/**
 * Options of {@link makeInformer}.
 *
 * @example
 * ```ts
 * const options: BridgeOptions = { fieldSelector: 'status.phase=Running' };
 * ```
 */
export interface BridgeOptions {
  /**
   * The lasso config to use instead of the `KubeConfig` (which is otherwise read through
   * `kubeConfig.exportConfig()` and `loadKubeConfigFromString`, once, at the first `start()`).
   */
  rest?: RestConfig | undefined;
  /** A field selector applied to every list and watch (client-node's `ListWatch` takes one too). */
  fieldSelector?: string | undefined;
  /** Where the lasso informer logs its failures and retries. Default core's `defaultLogger`. */
  logger?: Logger | undefined;
  /** The lasso informer's reflector, store and handler metrics. */
  metrics?: MetricsProvider | undefined;
  /** Time source of the lasso informer. */
  clock?: Clock | undefined;
  /** OpenTelemetry spans of the informer's requests (see `RestConfig.tracerProvider`). */
  tracerProvider?: TracerProvider | undefined;
}

type ObjectVerb = 'add' | 'update' | 'delete';
type Verb = ObjectVerb | 'change' | 'error' | 'connect';

/** Where the bridge's lasso informer comes from. */
type Source<T extends KubernetesObject> =
  | {
      readonly own: true;
      readonly build: () => Promise<SharedIndexInformer<T & KubeObjectLike>>;
      /** Closes the transport the bridge made for the KubeConfig (none for a given `rest`). */
      readonly release: () => Promise<void>;
    }
  | { readonly own: false; readonly informer: SharedIndexInformer<T & KubeObjectLike> };

/**
 * client-node's informer over a lasso shared informer. Callbacks are kept across `stop()`/`start()` as
 * client-node keeps them; events reach them in order, one at a time per informer.
 */
class LassoBackedInformer<T extends KubernetesObject> implements ClientNodeInformer<T> {
  readonly #source: Source<T>;
  readonly #logger: Logger;
  readonly #callbacks = {
    add: [] as ObjectCallback<T>[],
    update: [] as ObjectCallback<T>[],
    delete: [] as ObjectCallback<T>[],
    error: [] as ErrorCallback[],
    connect: [] as ErrorCallback[],
  };
  #informer: SharedIndexInformer<T & KubeObjectLike> | undefined;
  #building: Promise<SharedIndexInformer<T & KubeObjectLike>> | undefined;
  // The run this bridge started (undefined while stopped, or when a shared informer ran already).
  #run: AbortController | undefined;
  #started = false;
  #closed = false;
  // Resolves a start() waiting for the sync when an error is reported first (client-node's start resolves then).
  #errorWaiters: Array<() => void> = [];

  constructor(source: Source<T>, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
  }

  on(verb: ObjectVerb | 'change', cb: ObjectCallback<T>): void;
  on(verb: 'error' | 'connect', cb: ErrorCallback): void;
  on(verb: Verb, cb: ObjectCallback<T> | ErrorCallback): void {
    if (typeof cb !== 'function') throw new TypeError(`on('${verb}'): callback must be a function`);
    for (const list of this.#listsOf(verb)) list.push(cb as never);
  }

  off(verb: ObjectVerb | 'change', cb: ObjectCallback<T>): void;
  off(verb: 'error' | 'connect', cb: ErrorCallback): void;
  off(verb: Verb, cb: ObjectCallback<T> | ErrorCallback): void {
    for (const list of this.#listsOf(verb)) {
      const at = (list as unknown[]).indexOf(cb);
      if (at >= 0) list.splice(at, 1);
    }
  }

  get(name: string, namespace?: string): T | undefined {
    const key = namespace ? `${namespace}/${name}` : name;
    return this.#informer?.getStore().getByKey(key) as T | undefined;
  }

  list(namespace?: string): ReadonlyArray<T> {
    const informer = this.#informer;
    if (informer === undefined) return [];
    const indexer = informer.getIndexer();
    if (!namespace) return indexer.list() as T[];
    if (indexer.getIndexers()[namespaceIndex] !== undefined) {
      return indexer.byIndex(namespaceIndex, namespace) as T[];
    }
    return indexer.list().filter((object) => object.metadata?.namespace === namespace) as T[];
  }

  latestResourceVersion(): string {
    return this.#informer?.lastSyncResourceVersion() ?? '';
  }

  /**
   * Emit `connect`, then run the lasso informer (unless it runs already) and resolve once its list is in the
   * cache, or once an error was reported first (the informer goes on retrying: client-node's would stop).
   */
  async start(): Promise<void> {
    if (this.#closed) throw new Error('start(): this informer was closed');
    this.#started = true;
    this.#emit('connect', undefined);
    let informer: SharedIndexInformer<T & KubeObjectLike>;
    try {
      informer = await this.#informerFor();
    } catch (error) {
      this.#emit('error', error);
      return;
    }
    if (!this.#started) return; // stop() while the informer was being built
    if (this.#run === undefined && !informer.isRunning()) {
      const run = new AbortController();
      this.#run = run;
      await informer.start(run.signal);
    }
    if (informer.hasSynced()) return;
    await new Promise<void>((resolve) => {
      this.#errorWaiters.push(resolve);
      informer.whenSynced().then(resolve, resolve);
    });
  }

  /** Stop the run this bridge started and stop calling back; callbacks stay registered for a later start. */
  async stop(): Promise<void> {
    this.#started = false;
    const run = this.#run;
    this.#run = undefined;
    if (run === undefined) return;
    run.abort();
    await this.#informer?.stopped();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.stop();
    if (this.#source.own) {
      await this.#informer?.close();
      await this.#source.release();
    }
  }

  #listsOf(verb: Verb): unknown[][] {
    switch (verb) {
      case 'change':
        return [this.#callbacks.add, this.#callbacks.update, this.#callbacks.delete];
      case 'add':
      case 'update':
      case 'delete':
      case 'error':
      case 'connect':
        return [this.#callbacks[verb]];
      default:
        throw new TypeError(`Unknown verb: ${String(verb)}`);
    }
  }

  async #informerFor(): Promise<SharedIndexInformer<T & KubeObjectLike>> {
    if (this.#informer !== undefined) return this.#informer;
    const source = this.#source;
    if (!source.own) {
      // Attached at the first start: the informer hands a new handler every cached object as an add, as
      // client-node's first list does.
      this.#attach(source.informer);
      return source.informer;
    }
    this.#building ??= source.build();
    try {
      const informer = await this.#building;
      if (this.#informer === undefined) {
        this.#attach(informer);
        informer.setWatchErrorHandler((error) => this.#watchFailed(error));
      }
      return informer;
    } catch (error) {
      // Built again at the next start (a CRD installed later, a server back up).
      this.#building = undefined;
      throw error;
    }
  }

  #attach(informer: SharedIndexInformer<T & KubeObjectLike>): void {
    this.#informer = informer;
    informer.addEventHandler(
      {
        onAdd: (object) => this.#emit('add', object),
        onUpdate: (oldObject, newObject) => {
          // client-node calls `update` only for a new resourceVersion (a relist's unchanged object is no event).
          const before = oldObject.metadata?.resourceVersion;
          if (before !== undefined && before === newObject.metadata?.resourceVersion) return;
          this.#emit('update', newObject);
        },
        onDelete: (object) =>
          this.#emit('delete', isDeletedFinalStateUnknown(object) ? object.object : object),
      },
      { name: 'client-node-bridge', resyncPeriodMs: 0 },
    );
  }

  #watchFailed(error: WatchError): void {
    // client-node relists on a 410 without telling its error callbacks; so does the reflector.
    if ((error.cause as { status?: unknown } | undefined)?.status === 410) return;
    this.#emit('error', error);
  }

  #emit(verb: ObjectVerb | 'error' | 'connect', value: unknown): void {
    if (verb !== 'connect' && verb !== 'error' && !this.#started) return;
    // A copy: a callback may call off() (client-node iterates a copy too).
    for (const callback of [...this.#callbacks[verb]] as Array<(value: unknown) => void>) {
      try {
        callback(value);
      } catch (thrown) {
        // The lasso informer would count it as a handler failure; say which callback broke and go on.
        this.#logger.error(`client-node-bridge: an '${verb}' callback threw`, {
          error: errorMessage(thrown),
        });
      }
    }
    if (verb === 'error') {
      const waiters = this.#errorWaiters;
      this.#errorWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}

/**
 * client-node's `makeInformer(kubeConfig, path, listFn, labelSelector)` backed by a lasso shared informer: the
 * same arguments and the same interface, so an operator moves its watch to lasso by changing this one call.
 * `path` is the collection client-node would watch (`/api/v1/namespaces/default/pods`, `/apis/apps/v1/deployments`);
 * its kind and scope come from discovery at the first `start()`. The lasso informer lists and watches by
 * itself: `listFn` is accepted for the signature and never called.
 *
 * @example
 * ```ts
 * import * as k8s from '@kubernetes/client-node';
 *
 * const kc = new k8s.KubeConfig();
 * kc.loadFromDefault();
 * const informer = makeInformer<k8s.V1Pod>(kc, '/api/v1/namespaces/default/pods', undefined, 'app=web');
 * informer.on('add', (pod) => console.log(`added ${pod.metadata?.name}`));
 * informer.on('error', (err) => console.error(err));
 * await informer.start();
 * console.log(informer.list('default').length);
 * await informer.stop();
 * ```
 */
export function makeInformer<T extends KubernetesObject>(
  kubeConfig: KubeConfigLike | undefined,
  path: string,
  listFn?: () => Promise<{ items: T[] }>,
  labelSelector?: string,
  options: BridgeOptions = {},
): ClientNodeInformer<T> {
  const target = parseWatchPath(path);
  if (listFn !== undefined && typeof listFn !== 'function') {
    throw new TypeError('makeInformer: listFn must be a function or undefined');
  }
  if (labelSelector !== undefined && typeof labelSelector !== 'string') {
    throw new TypeError('makeInformer: labelSelector must be a string or undefined');
  }
  if (options.fieldSelector !== undefined && typeof options.fieldSelector !== 'string') {
    throw new TypeError('makeInformer: options.fieldSelector must be a string or undefined');
  }
  if (options.rest === undefined && typeof kubeConfig?.exportConfig !== 'function') {
    throw new TypeError(
      'makeInformer: kubeConfig must be a KubeConfig (or options.rest a RestConfig)',
    );
  }
  const logger = guardLogger(options.logger ?? defaultLogger);
  // The transport of a config read from the KubeConfig is the bridge's: close() closes its sockets. A given
  // `rest` goes through its shared transport, which belongs to the caller.
  let transport: RestTransport | undefined;
  const build = async (): Promise<SharedIndexInformer<T & KubeObjectLike>> => {
    if (options.rest !== undefined)
      return informerFor<T>(options.rest, target, labelSelector, options);
    transport ??= new RestTransport(await restConfigOf(kubeConfig as KubeConfigLike, options));
    return informerFor<T>(transport, target, labelSelector, options);
  };
  const release = async (): Promise<void> => {
    await transport?.close();
  };
  return new LassoBackedInformer<T>({ own: true, build, release }, logger);
}

/**
 * client-node's informer interface over a lasso informer that already exists (one of a shared cache factory,
 * so client-node-style code and lasso controllers share one watch). `start()` runs it when nobody does yet
 * (and `stop()` then stops that run); `stop()` of an informer run by others only stops the callbacks.
 *
 * @example
 * ```ts
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * const informer = fromLassoInformer(createCache(configMaps, { namespace: 'default' }));
 * informer.on('update', (cm) => console.log(cm.metadata?.name));
 * await informer.start();
 * ```
 */
export function fromLassoInformer<T extends KubeObjectLike>(
  informer: SharedIndexInformer<T>,
  options: { logger?: Logger | undefined } = {},
): ClientNodeInformer<T> {
  if (typeof informer?.addEventHandler !== 'function') {
    throw new TypeError('fromLassoInformer: informer must be a lasso SharedIndexInformer');
  }
  return new LassoBackedInformer<T>(
    { own: false, informer: informer as SharedIndexInformer<T & KubeObjectLike> },
    guardLogger(options.logger ?? defaultLogger),
  );
}

async function restConfigOf(
  kubeConfig: KubeConfigLike,
  options: BridgeOptions,
): Promise<RestConfig> {
  let text: string;
  try {
    text = kubeConfig.exportConfig();
  } catch (error) {
    throw new TypeError(`makeInformer: kubeConfig.exportConfig() failed: ${errorMessage(error)}`);
  }
  const rest = await loadKubeConfigFromString(text, {
    source: 'KubeConfig.exportConfig()',
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
  return options.tracerProvider === undefined
    ? rest
    : { ...rest, tracerProvider: options.tracerProvider };
}

async function informerFor<T extends KubernetesObject>(
  rest: RestConfig | RestTransport,
  target: WatchPath,
  labelSelector: string | undefined,
  options: BridgeOptions,
): Promise<SharedIndexInformer<T & KubeObjectLike>> {
  const mapping = await createRestMapper(rest).mappingFor({
    group: target.group,
    version: target.version,
    resource: target.resource,
  });
  const client = new Client<T & KubeObjectLike>({
    gvr: mapping.gvr,
    kind: mapping.gvk.kind,
    namespaced: mapping.namespaced,
    rest,
  });
  const fieldSelector = options.fieldSelector;
  return createCache(client, {
    ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
    resyncMs: 0,
    ...(labelSelector !== undefined || fieldSelector !== undefined
      ? {
          tweakList: (list) => {
            if (labelSelector !== undefined) list.labelSelector = labelSelector;
            if (fieldSelector !== undefined) list.fieldSelector = fieldSelector;
          },
        }
      : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
}
