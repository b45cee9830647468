// SharedController: a controller built on first use, whose handler is a SharedHandler that any number of
// named handlers join and leave. Ports rancher/lasso pkg/controller/sharedcontroller.go.
import type { SharedIndexInformer } from '@lasso/cache';
import type { Client, KubeObjectLike } from '@lasso/client';
import {
  type Clock,
  defaultLogger,
  drainedResult,
  errorMessage,
  guardLogger,
  isLassoError,
  LassoError,
  type Logger,
  type MetricsProvider,
  type StopResult,
} from '@lasso/core';
import {
  type Controller,
  type FilterableController,
  type Handler,
  setEventFilter,
} from './controller-types.ts';
import {
  type HandlerTransaction,
  isHandlerTransaction,
  registerInTransaction,
} from './handler-transaction.ts';
import type { LabelSelectorInput } from './label-selector.ts';
import { createLister, type Lister } from './lister.ts';
import { PredicatedSharedController } from './predicated-controller.ts';
import { checkPredicates, type Predicate } from './predicates.ts';
import {
  createSharedHandler,
  eventFilterOf,
  type RegisterHandlerOptions,
  runSharedHandler,
  type SharedControllerHandler,
  type SharedHandler,
} from './shared-handler.ts';

/**
 * A controller shared by named handlers (lasso `SharedController`), and a typed {@link Lister} of its cache
 * (`get`, `list`, `byIndex`; each builds the controller, like `informer()`, and throws its construction error).
 */
export interface SharedController<T extends KubeObjectLike> extends Controller<T>, Lister<T> {
  /**
   * Add a named handler until `signal` (or the transaction's signal) aborts. Handlers run in registration
   * order, each with the reconcile's context as third argument. Registering after the cache synced queues
   * every cached key (without rate limiting) so the new handler sees the existing objects. Under a
   * {@link HandlerTransaction} the registration waits for its commit. A name already registered is accepted
   * (both run) with one warning, as lasso does. `options.predicates` filter informer events before their key is
   * enqueued: an event is enqueued when at least one live handler's predicates all accept it (a handler without
   * predicates accepts every event), and then every handler runs. Throws a RangeError for an empty name, a
   * TypeError for a missing signal, a handler that is not a function or a predicate that is not one.
   *
   * @example
   * ```ts
   * import type { Deployment } from 'kubernetes-types/apps/v1.js';
   *
   * declare const shared: SharedController<Deployment>;
   * shared.registerHandler(signal, 'spec-only', async (_key, deployment, context) => {
   *   if (deployment === undefined) return;
   *   const namespace = deployment.metadata?.namespace;
   *   await shared.client().update(namespace, deployment, { signal: context.signal });
   * }, { predicates: [generationChangedPredicate] });
   * ```
   */
  registerHandler(
    signal: AbortSignal | HandlerTransaction,
    name: string,
    handler: SharedControllerHandler<T>,
    options?: RegisterHandlerOptions<T>,
  ): void;
  /**
   * The predicates given to this controller with {@link SharedController.withPredicates} (none for the shared
   * controller itself).
   */
  readonly predicates: readonly Predicate<T>[];
  /**
   * This controller with `predicates` given once (added to this view's own): every handler registered through
   * the returned view takes them (before its own `options.predicates`), and an `enqueueOwnerHandler` enqueuing
   * into the view enqueues only owners that pass them (read from the cache; change predicates pass). Everything
   * else (queue, cache, lifecycle, `enqueue*`) is the shared controller's: the view adds no informer and no
   * queue, and handlers registered elsewhere are not affected. An owner-enqueue handler registered through a
   * view does not take the view's predicates: the objects it maps are not the view's objects. Throws a
   * TypeError for a predicate that is not one.
   *
   * @example
   * ```ts
   * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
   * declare const configMaps: SharedController<ConfigMap>;
   * // Sources are labelled; their copies (same kind, owned by them) are not.
   * const sources = configMaps.withPredicates([labelSelectorPredicate('example.com/derive=true')]);
   * sources.registerHandler(signal, 'derive-owner', enqueueOwnerHandler(sources, { group: '', kind: 'ConfigMap' }));
   * sources.registerHandler(signal, 'derive', (_key, source) => {
   *   console.log(source?.metadata?.name);
   * });
   * ```
   */
  withPredicates(predicates: readonly Predicate<T>[]): SharedController<T>;
  /** The client of the controller's resource; does not build the controller (no informer, no API traffic). */
  client(): Client<T>;
  /** The error that building the controller failed with, once it was built; undefined otherwise. */
  startError(): unknown;
}

/** Options of {@link createSharedController}. */
export interface SharedControllerOptions<T extends KubeObjectLike> {
  /** Names the handler metrics' `controller_name` and log entries (lasso uses the GVR). */
  name: string;
  /** The client {@link SharedController.client} returns. */
  client: Client<T>;
  /**
   * Builds the controller around `handler` (the shared handler's `onChange`, which passes each reconcile's
   * context on), on the first `registerHandler`, `enqueue*` or `informer()` call. When it throws, `start`
   * rejects with that error and enqueues are no-ops: a kind that does not exist fails only the code that uses
   * it. Build it with this package's `createController`: the handlers' predicates then filter its
   * informer events (any other `Controller` enqueues every event, and registering predicates logs a warning).
   */
  createController(handler: Handler<T>): Controller<T>;
  /** Time source of the shared handler (reconcile time, recent-deletion guard). Default `systemClock`. */
  clock?: Clock | undefined;
  /** Where a failed construction is logged (child logger with `controller` = `name`). Default `defaultLogger`. */
  logger?: Logger | undefined;
  /** Records the handler metrics (`lasso_controller_total_handler_execution`, `..._reconcile_time_seconds`). */
  metrics?: MetricsProvider | undefined;
  /**
   * Told of every handler registration as it takes effect (after a transaction's commit), before the handler
   * sees any key: how a sharded controller factory learns that a kind is watched as an owned kind
   * ({@link isOwnerHandler}).
   */
  onRegister?: ((name: string, handler: SharedControllerHandler<T>) => void) | undefined;
}

/** Why a shared controller could not be built: `cause` is what its constructor threw. */
export class ControllerInitError extends LassoError {
  /** The shared controller's name. */
  readonly controller: string;
  constructor(controller: string, cause: unknown) {
    super('LASSO_CONTROLLER_FAILED', `controller ${controller}: ${errorMessage(cause)}`, { cause });
    this.controller = controller;
  }
}

type Built<T extends KubeObjectLike> = { controller: Controller<T> } | { error: unknown };

class SharedControllerImpl<T extends KubeObjectLike> implements SharedController<T> {
  readonly name: string;
  readonly predicates: readonly Predicate<T>[] = Object.freeze([]);
  readonly #client: Client<T>;
  readonly #create: (handler: Handler<T>) => Controller<T>;
  readonly #logger: Logger;
  readonly #handler: SharedHandler<T>;
  readonly #lister: Lister<T>;
  readonly #onRegister: SharedControllerOptions<T>['onRegister'];
  #built: Built<T> | undefined;

  constructor(options: SharedControllerOptions<T>) {
    this.name = options.name;
    this.#client = options.client;
    this.#create = options.createController;
    this.#logger = guardLogger(options.logger ?? defaultLogger).child({ controller: options.name });
    this.#handler = createSharedHandler<T>({
      controllerName: options.name,
      clock: options.clock,
      logger: this.#logger,
      metrics: options.metrics,
    });
    this.#lister = createLister<T>(() => this.informer().getIndexer(), `controller ${this.name}`);
    this.#onRegister = options.onRegister;
  }

  #build(): Built<T> {
    if (this.#built !== undefined) return this.#built;
    try {
      // Without a promise while the handlers return plain values: the controller awaits only what needs it.
      const handler = this.#handler;
      const controller = this.#create((key, object, context) =>
        runSharedHandler(handler, key, object, context),
      );
      if (setEventFilter in controller) {
        (controller as FilterableController<T>)[setEventFilter](eventFilterOf(handler));
      }
      this.#built = { controller };
    } catch (error) {
      const wrapped = isLassoError(error) ? error : new ControllerInitError(this.name, error);
      // Loud now, fatal at start: the user learns about a missing kind before nothing happens.
      this.#logger.warn('controller could not be built; start will fail', {
        error: errorMessage(wrapped),
      });
      this.#built = { error: wrapped };
    }
    return this.#built;
  }

  #controller(): Controller<T> | undefined {
    const built = this.#build();
    return 'controller' in built ? built.controller : undefined;
  }

  enqueue(namespace: string, name: string): void {
    this.#controller()?.enqueue(namespace, name);
  }

  enqueueAfter(namespace: string, name: string, delayMs: number): void {
    this.#controller()?.enqueueAfter(namespace, name, delayMs);
  }

  enqueueKey(key: string): void {
    this.#controller()?.enqueueKey(key);
  }

  informer(): SharedIndexInformer<T> {
    const built = this.#build();
    if ('error' in built) throw built.error;
    return built.controller.informer();
  }

  client(): Client<T> {
    return this.#client;
  }

  withPredicates(predicates: readonly Predicate<T>[]): SharedController<T> {
    const given = checkPredicates<T>(predicates, `controller ${this.name}: withPredicates`);
    return new PredicatedSharedController(this, given);
  }

  startError(): unknown {
    const built = this.#built;
    return built !== undefined && 'error' in built ? built.error : undefined;
  }

  registerHandler(
    signal: AbortSignal | HandlerTransaction,
    name: string,
    handler: SharedControllerHandler<T>,
    options?: RegisterHandlerOptions<T>,
  ): void {
    const transaction = isHandlerTransaction(signal) ? signal : undefined;
    const handlerSignal = transaction?.signal ?? signal;
    if (!(handlerSignal instanceof AbortSignal)) {
      throw new TypeError(
        `registerHandler(${String(name)}): the first argument must be an AbortSignal or a HandlerTransaction`,
      );
    }
    if (typeof name !== 'string') {
      throw new TypeError(
        `controller ${this.name}: registerHandler name must be a string, got ${typeof name}`,
      );
    }
    if (name === '') {
      throw new RangeError(`controller ${this.name}: registerHandler name must not be empty`);
    }
    if (typeof handler !== 'function') {
      throw new TypeError(
        `controller ${this.name}: registerHandler(${name}) handler must be a function`,
      );
    }
    // A handler whose signal already aborted can never run: it builds nothing, so its kind is never listed or
    // watched (lasso builds one anyway). Under a live transaction the controller is built now, as lasso does,
    // so a start between registration and commit already includes it.
    const controller = handlerSignal.aborted ? undefined : this.#controller();
    const register = (): void => {
      if (!handlerSignal.aborted) this.#onRegister?.(name, handler);
      this.#handler.register(handlerSignal, name, handler, options);
      if (controller === undefined || handlerSignal.aborted) return;
      if ((options?.predicates?.length ?? 0) > 0 && !(setEventFilter in controller)) {
        this.#logger.warn(
          'predicates ignored: the controller createController built does not take an event filter',
          { handler: name },
        );
      }
      const informer = controller.informer();
      // Keys the handler missed because they were processed before it joined; not rate-limited, since a
      // rate-limited replay of every key pushed backoffs to hours in lasso (its PR #5).
      if (informer.hasSynced()) {
        for (const key of informer.getStore().listKeys()) controller.enqueueKey(key);
      }
    };
    if (transaction !== undefined) registerInTransaction(transaction, register);
    else register();
  }

  async start(signal: AbortSignal, workers?: number | undefined): Promise<void> {
    const built = this.#built;
    // Nobody used this controller: nothing to list or watch.
    if (built === undefined) return;
    if ('error' in built) throw built.error;
    await built.controller.start(signal, workers);
  }

  stopped(): Promise<StopResult> {
    const controller = this.#built !== undefined ? this.#controller() : undefined;
    return controller?.stopped() ?? Promise.resolve(drainedResult);
  }

  isRunning(): boolean {
    const built = this.#built;
    return built !== undefined && 'controller' in built && built.controller.isRunning();
  }

  async close(): Promise<void> {
    // Built or not, nothing is built after this: a later registration or enqueue must not leave a queue open.
    this.#built ??= {
      error: new LassoError('LASSO_CONFIG_INVALID', `controller ${this.name} is closed`),
    };
    if ('controller' in this.#built) await this.#built.controller.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  get(namespace: string, name: string): T | undefined {
    return this.#lister.get(namespace, name);
  }

  list(namespace?: string, labelSelector?: LabelSelectorInput): T[] {
    return this.#lister.list(namespace, labelSelector);
  }

  byIndex(indexName: string, value: string): T[] {
    return this.#lister.byIndex(indexName, value);
  }
}

/**
 * Create a shared controller (lasso `SharedController`). Nothing is built until the first
 * `registerHandler`, `enqueue*` or `informer()` call (`client()` does not count), and `start` does
 * nothing for a controller nobody used, so unused kinds are never listed or watched.
 *
 * @example
 * ```ts
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * const informer = createCache(configMaps);
 * const shared = createSharedController({
 *   name: 'v1, Resource=configmaps',
 *   client: configMaps,
 *   createController: (handler) => createController('v1, Kind=ConfigMap', informer, undefined, handler),
 * });
 * shared.registerHandler(signal, 'log', (key, configMap) => console.log(key, configMap?.data));
 * await shared.start(signal, 2);
 * console.log(shared.list('default', 'app=web').length); // read through the lister
 * ```
 */
export function createSharedController<T extends KubeObjectLike>(
  options: SharedControllerOptions<T>,
): SharedController<T> {
  if (typeof options?.name !== 'string') {
    throw new TypeError('createSharedController: options.name must be a string');
  }
  if (options.name === '') {
    throw new RangeError('createSharedController: options.name must not be empty');
  }
  if (typeof options.createController !== 'function') {
    throw new TypeError(
      `createSharedController(${options.name}): createController must be a function`,
    );
  }
  return new SharedControllerImpl<T>(options);
}
