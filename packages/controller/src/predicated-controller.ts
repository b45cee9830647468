// A view of a shared controller with predicates given once: every handler registered through it takes them,
// and `enqueueOwnerHandler` checks owners against them. controller-runtime's builder `WithEventFilter`, shaped
// for handlers that share one queue per kind.
import type { SharedIndexInformer } from '@lasso/cache';
import type { Client, KubeObjectLike } from '@lasso/client';
import type { StopResult } from '@lasso/core';
import type { HandlerTransaction } from './handler-transaction.ts';
import type { LabelSelectorInput } from './label-selector.ts';
import { checkPredicates, hostEventPredicatesOf, type Predicate } from './predicates.ts';
import type { SharedController } from './shared-controller.ts';
import type { RegisterHandlerOptions, SharedControllerHandler } from './shared-handler.ts';

/** @internal {@link SharedController.withPredicates}: a view sharing everything but the predicates. */
export class PredicatedSharedController<T extends KubeObjectLike> implements SharedController<T> {
  readonly #base: SharedController<T>;
  readonly predicates: readonly Predicate<T>[];

  constructor(base: SharedController<T>, predicates: readonly Predicate<T>[]) {
    this.#base = base;
    this.predicates = predicates;
  }

  get name(): string {
    return this.#base.name;
  }

  withPredicates(predicates: readonly Predicate<T>[]): SharedController<T> {
    const more = checkPredicates<T>(predicates, `controller ${this.name}: withPredicates`);
    return new PredicatedSharedController(this.#base, Object.freeze([...this.predicates, ...more]));
  }

  registerHandler(
    signal: AbortSignal | HandlerTransaction,
    name: string,
    handler: SharedControllerHandler<T>,
    options?: RegisterHandlerOptions<T>,
  ): void {
    // An owner-enqueue handler's events are the owned objects', which the view's predicates are not about.
    const own = hostEventPredicatesOf<T>(handler).length > 0;
    const given = checkPredicates<T>(options?.predicates, `registerHandler(${String(name)})`);
    this.#base.registerHandler(signal, name, handler, {
      ...options,
      predicates: own ? given : [...this.predicates, ...given],
    });
  }

  enqueue(namespace: string, name: string): void {
    this.#base.enqueue(namespace, name);
  }

  enqueueAfter(namespace: string, name: string, delayMs: number): void {
    this.#base.enqueueAfter(namespace, name, delayMs);
  }

  enqueueKey(key: string): void {
    this.#base.enqueueKey(key);
  }

  informer(): SharedIndexInformer<T> {
    return this.#base.informer();
  }

  client(): Client<T> {
    return this.#base.client();
  }

  startError(): unknown {
    return this.#base.startError();
  }

  start(signal: AbortSignal, workers: number): Promise<void> {
    return this.#base.start(signal, workers);
  }

  stopped(): Promise<StopResult> {
    return this.#base.stopped();
  }

  isRunning(): boolean {
    return this.#base.isRunning();
  }

  close(): Promise<void> {
    return this.#base.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.#base.close();
  }

  get(namespace: string, name: string): T | undefined {
    return this.#base.get(namespace, name);
  }

  list(namespace?: string, labelSelector?: LabelSelectorInput): T[] {
    return this.#base.list(namespace, labelSelector);
  }

  byIndex(indexName: string, value: string): T[] {
    return this.#base.byIndex(indexName, value);
  }
}
