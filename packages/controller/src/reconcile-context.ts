// ReconcileContext: what a handler gets besides its key and object, in place of the context.Context that
// controller-runtime and lasso pass to a reconcile.
import type { Logger } from '@lasso/core';

/**
 * The third argument of every handler: the reconcile's cancellation, its key and a logger for it.
 *
 * `signal` aborts when the controller's start signal aborts (a stop, or leadership lost when the controller was
 * started with a leading signal), when the controller is closed, and when the controller's `reconcileTimeoutMs`
 * passes (its reason is then a `TimeoutError`). Pass it to every client call the handler makes: an aborted call
 * rejects at once and sends nothing more, which is what keeps a leader that lost its lease from writing after
 * it wakes. A request already on the wire when the signal aborts may still reach the server.
 *
 * @example
 * ```ts
 * const handler: Handler<ConfigMap> = async (key, configMap, { signal, logger }) => {
 *   if (configMap === undefined) return;
 *   logger.debug('reconciling');
 *   await configMaps.update(configMap.metadata?.namespace, configMap, { signal });
 * };
 * ```
 */
export interface ReconcileContext {
  /** Aborts on stop, leadership loss, close, and when `reconcileTimeoutMs` passes. */
  readonly signal: AbortSignal;
  /** The key being reconciled (`namespace/name`, or `name` for a cluster-scoped object). */
  readonly key: string;
  /** The controller's logger with `key` added (it already carries `controller`). */
  readonly logger: Logger;
}

/**
 * A context whose logger is made on first use: most reconciles never log, and a child logger per key would be
 * built for nothing.
 */
export class LazyReconcileContext implements ReconcileContext {
  readonly signal: AbortSignal;
  readonly key: string;
  readonly #parent: Logger;
  #logger: Logger | undefined;

  constructor(key: string, signal: AbortSignal, parent: Logger) {
    this.key = key;
    this.signal = signal;
    this.#parent = parent;
  }

  get logger(): Logger {
    this.#logger ??= this.#parent.child({ key: this.key });
    return this.#logger;
  }
}
