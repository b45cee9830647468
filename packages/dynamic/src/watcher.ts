// One watched kind of the dynamic controller: its informer (the factory's when that one runs and has synced, else
// its own, full or metadata-only, behind a health check) and its controller (5 workers, default rate limiter).
import {
  CacheNotSyncedError,
  createCache,
  createMetadataCache,
  type SharedIndexInformer,
  waitForCacheSync,
} from '@lasso/cache';
import type { Client, KubeObject, KubeObjectLike } from '@lasso/client';
import { type Controller, createController, type Handler } from '@lasso/controller';
import {
  anySignal,
  type Clock,
  errorMessage,
  type Logger,
  type MetricsProvider,
  type TimerHandle,
} from '@lasso/core';
import { gvkString, type SharedClientFactory, type SharedControllerFactory } from '@lasso/factory';
import type { RateLimiter } from '@lasso/workqueue';
import type { ServedKind } from './discovery-refresher.ts';
import { DynamicSyncFailedError } from './errors.ts';
import { healthWaiter } from './health-waiter.ts';

/** @internal What a watcher is built with. */
export interface WatcherDeps {
  readonly factory: SharedControllerFactory;
  readonly clients: SharedClientFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsProvider | undefined;
  readonly workers: number;
  readonly rateLimiter: (() => RateLimiter<string>) | undefined;
  readonly gracefulShutdownTimeoutMs: number;
  /** How long an informer of its own may take to sync (Infinity: no bound). */
  readonly syncTimeoutMs: number;
  /** Called once when the informer did not sync within `syncTimeoutMs` (the watcher still runs). */
  readonly onSyncFailed: (watcher: Watcher, error: DynamicSyncFailedError) => void;
}

/** @internal One watched kind. */
export class Watcher {
  readonly key: string;
  readonly kind: ServedKind;
  readonly metadataOnly: boolean;
  /** True when the informer is the factory's (it runs with the factory, not with this watcher). */
  readonly reused: boolean;
  readonly informer: SharedIndexInformer<KubeObjectLike>;
  readonly controller: Controller<KubeObjectLike>;
  readonly client: Client<KubeObject>;
  readonly #stop = new AbortController();
  readonly #logger: Logger;
  #done: Promise<void> | undefined;
  #syncError: DynamicSyncFailedError | undefined;

  constructor(
    deps: WatcherDeps,
    kind: ServedKind,
    metadataOnly: boolean,
    handlerFor: (signal: AbortSignal) => Handler<KubeObjectLike>,
    runSignal: AbortSignal,
  ) {
    this.key = gvkString(kind.gvk);
    this.kind = kind;
    this.metadataOnly = metadataOnly;
    this.#logger = deps.logger.child({ gvk: this.key });
    this.client = deps.clients.forResourceKind<KubeObject>(
      kind.gvr,
      kind.gvk.kind,
      kind.namespaced,
    );
    const caches = deps.factory.sharedCacheFactory();
    const factoryKind = caches
      .status()
      .find((status) => status.key === this.key && status.state === 'running');
    let informer: SharedIndexInformer<KubeObjectLike> | undefined;
    if (!metadataOnly && factoryKind !== undefined) {
      // lasso reuses the factory's informer when it is started and synced: no second list and watch.
      informer = caches.forResourceKind<KubeObject>(
        kind.gvr,
        kind.gvk.kind,
        kind.namespaced,
      ) as unknown as SharedIndexInformer<KubeObjectLike>;
    }
    this.reused = informer !== undefined;
    if (informer === undefined) {
      const options = {
        clock: deps.clock,
        logger: deps.logger,
        ...(deps.metrics !== undefined ? { metrics: deps.metrics } : {}),
        // lasso's own informers skip the factory's health gate; these wait for /version after a failed list,
        // retrying with backoff as the gate does.
        waitHealthy: healthWaiter({
          clients: deps.clients,
          clock: deps.clock,
          logger: this.#logger,
        }),
      };
      informer = (metadataOnly
        ? createMetadataCache(this.client, options)
        : createCache<KubeObject>(
            this.client,
            options,
          )) as unknown as SharedIndexInformer<KubeObjectLike>;
    }
    this.informer = informer;
    this.controller = createController(
      this.key,
      informer,
      // The factory runs its informer; this controller only listens to it.
      this.reused ? () => {} : undefined,
      handlerFor(this.#stop.signal),
      {
        clock: deps.clock,
        logger: deps.logger,
        gracefulShutdownTimeoutMs: deps.gracefulShutdownTimeoutMs,
        ...(deps.rateLimiter !== undefined ? { rateLimiter: deps.rateLimiter() } : {}),
        ...(deps.metrics !== undefined ? { metrics: deps.metrics } : {}),
      },
    );
    const onAbort = (): void => this.#stop.abort(runSignal.reason);
    if (runSignal.aborted) onAbort();
    else runSignal.addEventListener('abort', onAbort, { once: true });
    this.#stop.signal.addEventListener(
      'abort',
      () => runSignal.removeEventListener('abort', onAbort),
      { once: true },
    );
    this.controller.start(this.#stop.signal, deps.workers).then(
      () =>
        this.#logger.info(metadataOnly ? 'watching metadata' : 'watching', { reused: this.reused }),
      (error: unknown) => {
        if (!this.#stop.signal.aborted) {
          this.#logger.error('could not start watching', { error: errorMessage(error) });
        }
      },
    );
    if (!this.reused && Number.isFinite(deps.syncTimeoutMs)) this.#boundSync(deps);
  }

  // lasso waits 15 minutes for a new kind's cache, then gives up on it: a kind that can never sync (its list
  // forbidden, its objects undecodable) must not keep readers waiting nor list forever.
  #boundSync(deps: WatcherDeps): void {
    const timeoutMs = deps.syncTimeoutMs;
    const timer: TimerHandle = deps.clock.schedule(timeoutMs, () => {
      if (this.#stop.signal.aborted || this.informer.hasSynced()) return;
      const expired = new AbortController();
      expired.abort(new Error(`not synced within ${timeoutMs} ms`));
      // An aborted wait on an informer that has not synced rejects at once with its last list or watch error.
      waitForCacheSync(expired.signal, this.informer).then(
        () => undefined,
        (error: unknown) => {
          if (this.#stop.signal.aborted || this.informer.hasSynced()) return;
          const last =
            error instanceof CacheNotSyncedError ? [...error.lastErrors.values()][0] : undefined;
          this.#syncError = new DynamicSyncFailedError(
            this.kind.gvk,
            this.key,
            timeoutMs,
            last === undefined ? undefined : (errorMessage(last).split('\n')[0] ?? ''),
            last === undefined ? {} : { cause: last },
          );
          deps.onSyncFailed(this, this.#syncError);
        },
      );
    });
    this.informer.whenSynced({ signal: this.#stop.signal }).then(
      () => timer.cancel(),
      () => timer.cancel(),
    );
  }

  /** Set when the informer did not sync in time: the reason the watcher was dropped. */
  syncError(): DynamicSyncFailedError | undefined {
    return this.#syncError;
  }

  /** True once the informer synced. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  /** Resolves once the informer synced; rejects when the watcher is cancelled first. */
  async whenSynced(signal?: AbortSignal): Promise<void> {
    const combined = anySignal([this.#stop.signal, signal]);
    try {
      await this.informer.whenSynced({ signal: combined.signal });
    } catch (error) {
      // Readers of a kind dropped for not syncing learn why, whichever rejection came first.
      throw this.#syncError ?? error;
    } finally {
      combined.dispose();
    }
  }

  /** True once cancelled (the kind left discovery, nobody matches it, or the run stopped). */
  cancelled(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Stop watching: the controller stops and closes; an informer of its own stops (no further list or watch). */
  cancel(reason: string): Promise<void> {
    if (this.#done !== undefined) return this.#done;
    if (!this.#stop.signal.aborted) this.#logger.info('stopped watching', { reason });
    this.#stop.abort(this.#syncError ?? new Error(reason));
    this.#done = (async () => {
      await this.controller.stopped();
      await this.controller.close();
      if (!this.reused) await this.informer.stopped();
    })();
    return this.#done;
  }
}
