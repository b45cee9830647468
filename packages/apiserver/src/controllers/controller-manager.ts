// The built-in server's kube-controller-manager: the controllers tests need (garbage collector, namespace
// lifecycle), optional and off by default as in controller-runtime's envtest. They follow the store's
// commits (the server's own watch events, synchronously, in order), queue work, and act later, after the
// request that caused it has been answered, through the server's request handling.
import { errorMessage, type Logger } from '@lasso/core';
import type { Registry } from '../resources/served-resources.ts';
import type { HistoryEvent, Store } from '../storage/store.ts';
import { GarbageCollector } from './garbage-collector.ts';
import type { RequestHandler } from './in-process-client.ts';
import { NamespaceLifecycle } from './namespace-lifecycle.ts';

/** Which kube-controller-manager controllers a built-in server runs. Both default to off. */
export interface ControllerSelection {
  /** Follow ownerReferences: background, foreground and orphan deletion of dependents. */
  garbageCollector?: boolean;
  /** Empty a deleted namespace, then remove its `kubernetes` finalizer so it goes. */
  namespaceLifecycle?: boolean;
}

/** Queue work by key; the same key queued twice before it runs runs once. */
export type Enqueue = (key: string, work: () => void) => void;

/** One controller: it sees every commit and may queue work. */
export interface InProcessController {
  /** Learn the stored objects (at start) and queue what is already due. */
  resync(enqueue: Enqueue): void;
  /** A committed change (synchronously, inside the commit: never write here, queue instead). */
  observe(event: HistoryEvent, enqueue: Enqueue): void;
}

/** Work items run per turn of the event loop before requests get their turn again. */
const batchSize = 64;

/** Runs the selected controllers against one server's storage while the server runs. */
export class ControllerManager {
  readonly #controllers: InProcessController[] = [];
  readonly #store: Store;
  readonly #logger: Logger;
  readonly #queue = new Map<string, () => void>();
  #unsubscribe: (() => void) | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #idleWaiters: Array<() => void> = [];

  constructor(options: {
    selection: ControllerSelection;
    store: Store;
    registry: Registry;
    handle: RequestHandler;
    logger: Logger;
    /** Now, as metav1.Time (the server's clock). */
    now: () => string;
  }) {
    const { selection, store, registry, handle, logger, now } = options;
    this.#store = store;
    this.#logger = logger;
    if (selection.garbageCollector === true) {
      this.#controllers.push(new GarbageCollector({ store, registry, handle, logger }));
    }
    if (selection.namespaceLifecycle === true) {
      this.#controllers.push(new NamespaceLifecycle({ store, registry, handle, logger, now }));
    }
  }

  /** True when at least one controller is selected. */
  get enabled(): boolean {
    return this.#controllers.length > 0;
  }

  /** Start following the store (idempotent). */
  start(): void {
    if (this.#unsubscribe !== undefined || !this.enabled) return;
    const enqueue = this.#enqueue;
    this.#unsubscribe = this.#store.subscribe((event) => {
      for (const controller of this.#controllers) controller.observe(event, enqueue);
    });
    for (const controller of this.#controllers) controller.resync(enqueue);
  }

  /** Stop following the store and drop queued work; nothing stays scheduled. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#immediate = undefined;
    this.#queue.clear();
    this.#wakeIdle();
  }

  /** Settles once no work is queued (at once when stopped). */
  idle(): Promise<void> {
    if (this.#queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  readonly #enqueue: Enqueue = (key, work) => {
    if (this.#unsubscribe === undefined) return;
    // A key queued again runs after what is queued now, with the newest work.
    this.#queue.delete(key);
    this.#queue.set(key, work);
    this.#immediate ??= setImmediate(this.#drain);
  };

  readonly #drain = (): void => {
    this.#immediate = undefined;
    let ran = 0;
    for (const [key, work] of this.#queue) {
      if (ran++ >= batchSize) break;
      this.#queue.delete(key);
      try {
        work();
      } catch (error) {
        this.#logger.error('built-in controller failed', { key, error: errorMessage(error) });
      }
    }
    if (this.#queue.size > 0) this.#immediate ??= setImmediate(this.#drain);
    else this.#wakeIdle();
  };

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const waiter of waiters) waiter();
  }
}
