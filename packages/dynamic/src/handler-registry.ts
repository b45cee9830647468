// The handlers registered on a dynamic controller: which kinds they want (full or metadata-only watches), and for
// each watched kind a @lasso/controller SharedHandler holding the matching ones, so that dynamic handlers get the
// shared controller's semantics (lasso's dynamic controller runs its handlers through a SharedHandler too).
import type { GroupVersionKind, KubeObject, KubeObjectLike } from '@lasso/client';
import { createSharedHandler, type SharedHandler } from '@lasso/controller';
import {
  anySignal,
  type Clock,
  errorMessage,
  type Logger,
  type MetricsProvider,
} from '@lasso/core';
import { gvkString } from '@lasso/factory';
import type { DynamicHandler, DynamicMatcher } from './dynamic-controller-api.ts';
import { type DynamicMatcherInput, toMatcher } from './options.ts';

/**
 * The `controller_name` of the handler metrics of every dynamic handler (lasso names its dynamic SharedHandler
 * so): the same metric names as a shared controller's, told apart by this label. One series per handler, not per
 * kind: a matcher can take hundreds of kinds.
 */
export const dynamicControllerName = 'dynamic.Controller';

interface Registration {
  readonly name: string;
  readonly matcher: DynamicMatcher;
  readonly handler: DynamicHandler;
  readonly signal: AbortSignal;
}

// The shared handler of one watched kind, fed every registration that matches it until `signal` aborts.
interface KindHandler {
  readonly gvk: GroupVersionKind;
  readonly shared: SharedHandler<KubeObjectLike>;
  readonly signal: AbortSignal;
}

/** @internal How a kind is wanted: a full watch, a metadata-only one, or none (undefined). */
export type WatchMode = 'full' | 'metadata' | undefined;

/** @internal What the shared handler of a kind records with. */
export interface KindHandlerOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsProvider | undefined;
}

/** @internal The registered handlers of a dynamic controller. */
export class HandlerRegistry {
  readonly #logger: Logger;
  readonly #registrations = new Set<Registration>();
  readonly #kinds = new Set<KindHandler>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Register `handler` until `signal` aborts; `changed` runs after the registration is removed. */
  add(
    signal: AbortSignal,
    name: string,
    matcher: DynamicMatcherInput,
    handler: DynamicHandler,
    changed: () => void,
  ): void {
    const registration: Registration = { name, matcher: toMatcher(matcher), handler, signal };
    this.#registrations.add(registration);
    signal.addEventListener(
      'abort',
      () => {
        this.#registrations.delete(registration);
        changed();
      },
      { once: true },
    );
    // Kinds already watched get it at once, after the handlers registered before it.
    for (const kind of this.#kinds) {
      if (this.#matches(registration, kind.gvk)) this.#register(kind, registration);
    }
  }

  /** How the registrations want `gvk` watched: full when one matching handler wants full objects. */
  wanted(gvk: GroupVersionKind): WatchMode {
    let wanted: WatchMode;
    for (const registration of this.#registrations) {
      if (!this.#matches(registration, gvk)) continue;
      if (registration.matcher.metadataOnly !== true) return 'full';
      wanted = 'metadata';
    }
    return wanted;
  }

  /**
   * The shared handler of one watched kind, until `signal` (the watch's) aborts: every registration whose matcher
   * accepts `gvk`, now or registered later, in registration order. Each handler's `ErrIgnore` is its own, the
   * failures of one run are aggregated into one `HandlerError` (the key goes through the rate limiter when any
   * handler really failed), `retryAfter` is honoured, executions are counted per handler, and a stale copy of an
   * object the handlers finalized is retried 10 s later instead of being handled again.
   */
  forKind(
    gvk: GroupVersionKind,
    signal: AbortSignal,
    options: KindHandlerOptions,
  ): SharedHandler<KubeObjectLike> {
    const shared = createSharedHandler<KubeObjectLike>({
      controllerName: dynamicControllerName,
      clock: options.clock,
      logger: options.logger,
      ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    });
    const kind: KindHandler = { gvk: { ...gvk }, shared, signal };
    if (signal.aborted) return shared;
    this.#kinds.add(kind);
    signal.addEventListener('abort', () => this.#kinds.delete(kind), { once: true });
    for (const registration of this.#registrations) {
      if (this.#matches(registration, gvk)) this.#register(kind, registration);
    }
    return shared;
  }

  // Registers `registration` on the kind's shared handler until either the registration or the watch ends.
  #register(kind: KindHandler, registration: Registration): void {
    const both = anySignal([registration.signal, kind.signal]);
    if (both.signal.aborted) return;
    // Once one aborted, anySignal has already removed its listener from the other: nothing stays behind.
    const { gvk } = kind;
    const handler = registration.handler;
    kind.shared.register(both.signal, registration.name, async (key, object, context) => {
      // The object it returns goes to the next handler (lasso chains them); undefined passes its own on.
      const result = await handler(gvk, key, object as KubeObject | undefined, context);
      return result ?? undefined;
    });
  }

  #matches(registration: Registration, gvk: GroupVersionKind): boolean {
    try {
      return registration.matcher.gvk(gvk) === true;
    } catch (error) {
      this.#logger.error('matcher threw; treating the kind as not matched', {
        handler: registration.name,
        gvk: gvkString(gvk),
        error: errorMessage(error),
      });
      return false;
    }
  }
}
