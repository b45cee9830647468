// The handlers registered on a dynamic controller: which kinds they want (full or metadata-only watches) and the
// shared handler that calls every matching one, in registration order (lasso's shared dynamic handler).
import type { GroupVersionKind, KubeObject } from '@lasso/client';
import { HandlerError, type HandlerFailure, type ReconcileContext } from '@lasso/controller';
import { errorMessage, type Logger } from '@lasso/core';
import { gvkString } from '@lasso/factory';
import type { DynamicHandler, DynamicMatcher } from './dynamic-controller-api.ts';
import { type DynamicMatcherInput, toMatcher } from './options.ts';

interface Registration {
  readonly name: string;
  readonly matcher: DynamicMatcher;
  readonly handler: DynamicHandler;
}

/** @internal How a kind is wanted: a full watch, a metadata-only one, or none (undefined). */
export type WatchMode = 'full' | 'metadata' | undefined;

/** @internal The registered handlers of a dynamic controller. */
export class HandlerRegistry {
  readonly #logger: Logger;
  readonly #registrations = new Set<Registration>();

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
    const registration: Registration = { name, matcher: toMatcher(matcher), handler };
    this.#registrations.add(registration);
    signal.addEventListener(
      'abort',
      () => {
        this.#registrations.delete(registration);
        changed();
      },
      { once: true },
    );
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
   * Call every registration whose matcher accepts the kind, in registration order; one failure is rethrown
   * as is, several as a {@link HandlerError}.
   */
  async dispatch(
    gvk: GroupVersionKind,
    key: string,
    object: KubeObject | undefined,
    context: ReconcileContext,
  ): Promise<void> {
    const failures: HandlerFailure[] = [];
    for (const registration of [...this.#registrations]) {
      if (!this.#matches(registration, gvk)) continue;
      try {
        await registration.handler(gvk, key, object, context);
      } catch (error) {
        failures.push({ handler: registration.name, error });
      }
    }
    if (failures.length === 1) throw failures[0]?.error;
    if (failures.length > 1) throw new HandlerError(gvkString(gvk), failures);
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
