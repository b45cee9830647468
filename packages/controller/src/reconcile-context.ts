// ReconcileContext: what a handler gets besides its key and object, in place of the context.Context that
// controller-runtime and lasso pass to a reconcile.
import { setMaxListeners } from 'node:events';
import type { Logger } from '@lasso/core';

// The run's stop signal and the shard fence get one listener per reconcile in flight (one per worker, removed
// when the reconcile ends): more than Node's default of 10 is the normal case with 10 or more workers, not a
// leak, so the warning is turned off for these signals (once per signal).
const unlimited = new WeakSet<AbortSignal>();
function allowOneListenerPerWorker(signal: AbortSignal): void {
  if (unlimited.has(signal)) return;
  unlimited.add(signal);
  setMaxListeners(0, signal);
}

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
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 *
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * const handler: Handler<ConfigMap> = async (_key, configMap, { signal, logger }) => {
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

// A signal nothing aborts: the context of a shared handler run without one.
const neverAborted = new AbortController().signal;

/**
 * @internal The context a controller hands its handler. Its signal and logger are made on first use: an
 * `AbortSignal` costs about 17 µs to create on Node 20 (more than the rest of a reconcile's bookkeeping), and most
 * reconciles never log. Until then, a stop or a timeout is only remembered.
 */
export class LazyReconcileContext implements ReconcileContext {
  readonly key: string;
  readonly #stop: AbortSignal;
  readonly #fence: AbortSignal | undefined;
  readonly #parent: Logger;
  #logger: Logger | undefined;
  #controller: AbortController | undefined;
  #onStop: (() => void) | undefined;
  #onFence: (() => void) | undefined;
  #aborted: { reason: unknown } | undefined;
  #finished = false;

  /**
   * `stop` is the run's signal (never aborting when omitted), `fence` an extra one the signal follows too (a
   * sharded replica's renew deadline); `finish()` unlinks from both.
   */
  constructor(
    key: string,
    parent: Logger,
    stop: AbortSignal = neverAborted,
    fence: AbortSignal | undefined = undefined,
  ) {
    this.key = key;
    this.#parent = parent;
    this.#stop = stop;
    this.#fence = fence;
  }

  get signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    const stop = this.#stop;
    const fence = this.#fence;
    if (this.#aborted !== undefined) controller.abort(this.#aborted.reason);
    else if (stop.aborted) controller.abort(stop.reason);
    else if (fence?.aborted === true) controller.abort(fence.reason);
    else if (!this.#finished) {
      this.#onStop = () => controller.abort(stop.reason);
      allowOneListenerPerWorker(stop);
      stop.addEventListener('abort', this.#onStop, { once: true });
      if (fence !== undefined) {
        this.#onFence = () => controller.abort(fence.reason);
        allowOneListenerPerWorker(fence);
        fence.addEventListener('abort', this.#onFence, { once: true });
      }
    }
    return controller.signal;
  }

  get logger(): Logger {
    this.#logger ??= this.#parent.child({ key: this.key });
    return this.#logger;
  }

  /** Abort the signal with `reason` (the reconcile timed out, or its key moved to another replica). */
  abort(reason: unknown): void {
    this.#aborted ??= { reason };
    this.#controller?.abort(reason);
  }

  /** The reconcile ended: stop listening to the run's signal and the fence. */
  finish(): void {
    this.#finished = true;
    if (this.#onStop !== undefined) this.#stop.removeEventListener('abort', this.#onStop);
    if (this.#onFence !== undefined) this.#fence?.removeEventListener('abort', this.#onFence);
    this.#onStop = undefined;
    this.#onFence = undefined;
  }
}
