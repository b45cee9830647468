// The informer's listener: one handler's unbounded buffer and delivery loop (client-go processorListener), and the
// handler types it delivers to.
import type { Counter, Logger } from '@lasso/core';
import { errorMessage } from '@lasso/core';
import type { DeletedFinalStateUnknown } from './delta-fifo.ts';
import { ChunkedQueue } from './internal/chunked-queue.ts';

/**
 * Callbacks of one event handler. Each may return a promise: the next notification for this handler waits
 * for it, other handlers do not. A thrown error or rejection is logged and counted, never propagated.
 */
export interface ResourceEventHandler<T> {
  /** A new object; `isInInitialList` is true for objects of the first list (or synthetic adds of a late handler). */
  onAdd?(object: T, isInInitialList: boolean): void | Promise<void>;
  /** A changed object; also called on resync (same resourceVersion) when this handler's period is due. */
  onUpdate?(oldObject: T, newObject: T): void | Promise<void>;
  /** A deleted object, or a tombstone when the deletion was inferred by a relist. */
  onDelete?(object: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/** Options of {@link SharedIndexInformer.addEventHandler}. */
export interface EventHandlerOptions {
  /** Re-deliver every stored object as an update this often; 0 = never. Default: the informer's `resyncPeriodMs`. */
  resyncPeriodMs?: number | undefined;
  /** Name in logs and metrics. Default `handler-<n>`. */
  name?: string | undefined;
}

/** The handle of one added handler. */
export interface EventHandlerRegistration {
  /** True once the informer has synced and this handler has been given every object of the initial list. */
  hasSynced(): boolean;
  /** Stop delivering to this handler (notifications still buffered are dropped). */
  remove(): void;
}

/** @internal What the informer hands a handler's listener. */
export type Notification<T> =
  | { type: 'add'; object: T; initial: boolean }
  | { type: 'update'; oldObject: T; newObject: T }
  | { type: 'delete'; object: T | DeletedFinalStateUnknown<T> };

/** @internal One handler's buffer and delivery loop (client-go processorListener). */
export class ProcessorListener<T> {
  readonly handler: ResourceEventHandler<T>;
  readonly name: string;
  readonly resyncPeriodMs: number;
  nextResyncAt = 0;
  /** Notifications of the initial list not yet delivered: the registration is synced when it reaches 0. */
  pendingInitial = 0;
  readonly #logger: Logger;
  readonly #errors: Counter;
  // Unbounded, as client-go's: a slow handler must never block the informer or the other handlers.
  readonly #buffer = new ChunkedQueue<Notification<T>>();
  // Removed: never delivers again.
  #stopped = false;
  // The informer's run ended: the loop ends, the buffer is kept for the next run.
  #paused = false;
  #wake: (() => void) | undefined;
  // Built once: the loop parks on `new Promise(this.#park)` after each drained buffer (once per event when events
  // arrive one at a time), without a closure per wait.
  readonly #park = (resolve: () => void): void => {
    this.#wake = resolve;
  };
  #loop: Promise<void> | undefined;

  constructor(
    handler: ResourceEventHandler<T>,
    name: string,
    resyncPeriodMs: number,
    logger: Logger,
    errors: Counter,
  ) {
    this.handler = handler;
    this.name = name;
    this.resyncPeriodMs = resyncPeriodMs;
    this.#logger = logger;
    this.#errors = errors;
  }

  add(notification: Notification<T>): void {
    if (this.#stopped) return;
    if (notification.type === 'add' && notification.initial) this.pendingInitial++;
    this.#buffer.push(notification);
    // Once per wake-up: the rest of a chunk's notifications find the loop already woken.
    const wake = this.#wake;
    if (wake === undefined) return;
    this.#wake = undefined;
    wake();
  }

  start(): void {
    if (this.#stopped) return;
    this.#paused = false;
    // Never call handlers synchronously from addEventHandler or run.
    this.#loop ??= Promise.resolve().then(() => this.#run());
  }

  /** End the delivery loop after the call in progress; undelivered notifications stay buffered. */
  pause(): void {
    this.#paused = true;
    this.#wake?.();
  }

  stop(): void {
    this.#stopped = true;
    this.#wake?.();
  }

  done(): Promise<void> {
    return this.#loop ?? Promise.resolve();
  }

  async #run(): Promise<void> {
    try {
      await this.#deliverAll();
    } finally {
      // Synchronously with the decision to end: a start after this creates a new loop.
      this.#loop = undefined;
    }
  }

  async #deliverAll(): Promise<void> {
    for (;;) {
      while (this.#buffer.size > 0) {
        if (this.#stopped || this.#paused) return;
        const notification = this.#buffer.shift() as Notification<T>;
        try {
          const result: unknown = this.#deliver(notification);
          if (typeof (result as PromiseLike<void> | undefined)?.then === 'function') await result;
        } catch (error) {
          this.#errors.inc();
          this.#logger.error('event handler failed', {
            event: notification.type,
            error: errorMessage(error),
          });
        } finally {
          if (notification.type === 'add' && notification.initial) this.pendingInitial--;
        }
      }
      if (this.#stopped || this.#paused) return;
      await new Promise<void>(this.#park);
      this.#wake = undefined;
    }
  }

  #deliver(notification: Notification<T>): void | Promise<void> {
    switch (notification.type) {
      case 'add':
        return this.handler.onAdd?.(notification.object, notification.initial);
      case 'update':
        return this.handler.onUpdate?.(notification.oldObject, notification.newObject);
      case 'delete':
        return this.handler.onDelete?.(notification.object);
    }
  }
}
