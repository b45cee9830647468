// When the dynamic controller reads discovery: once at start, 500 ms after the first of a burst of CRD/APIService
// events (lasso's debounce), again after a refresh that was asked for while one ran, and after a failed refresh
// with backoff (lasso waits for the next event). Partial failures (an aggregated API down) are reported, not fatal.
import { type Backoff, createBackoff } from '@lasso/cache';
import type { DiscoveryResult, GroupVersionKind, GroupVersionResource } from '@lasso/client';
import { type Clock, errorMessage, type Logger, type TimerHandle } from '@lasso/core';

/** Where served kinds come from: `@lasso/client`'s `DiscoveryClient` fits. */
export interface DiscoverySource {
  /** Every group version's resources; failing group versions in `failed`, the rest still answered. */
  discover(options: { signal?: AbortSignal | undefined }): Promise<DiscoveryResult>;
  /** Forget what was cached, so that the next `discover` asks the server for everything. */
  invalidate(): void;
  /** Optional: only `group` changed (a CRD or APIService of that group), reread it at the next `discover`. */
  changed?(group: string): void;
}

/** One kind the server serves (a listable and watchable resource, no subresource). */
export interface ServedKind {
  readonly gvk: GroupVersionKind;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
}

/** @internal What a refresh found. */
export interface DiscoverySnapshot {
  readonly kinds: readonly ServedKind[];
  /** `group/version` (`v1` for the core group) whose discovery failed: their kinds are unknown, not gone. */
  readonly failed: ReadonlySet<string>;
}

/** @internal Options of a {@link DiscoveryRefresher}. */
export interface DiscoveryRefresherOptions {
  readonly source: DiscoverySource;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly debounceMs: number;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  readonly onSnapshot: (snapshot: DiscoverySnapshot) => void;
}

/** @internal Runs discovery refreshes within one run of the dynamic controller (see the file comment). */
export class DiscoveryRefresher {
  readonly #options: DiscoveryRefresherOptions;
  readonly #signal: AbortSignal;
  readonly #backoff: Backoff;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #dirty = false;
  // Read everything at the next refresh (the first one, after a failure, or a change of unknown group).
  #full = true;
  /** Settles after each refresh (successful or not); tests and `refresh()` wait on it. */
  #refreshes = 0;

  constructor(options: DiscoveryRefresherOptions, signal: AbortSignal) {
    this.#options = options;
    this.#signal = signal;
    this.#backoff = createBackoff({
      initialMs: options.retryInitialMs,
      maxMs: options.retryMaxMs,
      jitter: 0,
      clock: options.clock,
    });
    signal.addEventListener('abort', () => this.#cancelTimer(), { once: true });
  }

  /** How many refreshes have ended. */
  get refreshes(): number {
    return this.#refreshes;
  }

  /**
   * Something changed (in `group` when known): refresh once, `debounceMs` after the first call of a burst.
   * Without a group, or with a source that cannot reread one group, everything is read again.
   */
  markDirty(group?: string): void {
    if (this.#signal.aborted) return;
    if (group !== undefined && typeof this.#options.source.changed === 'function') {
      this.#options.source.changed(group);
    } else {
      this.#full = true;
    }
    if (this.#running !== undefined) {
      this.#dirty = true;
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = this.#options.clock.schedule(this.#options.debounceMs, () => {
      this.#timer = undefined;
      void this.refresh();
    });
  }

  /** Refresh now (joining a refresh in flight, then running once more if asked meanwhile). */
  refresh(): Promise<void> {
    if (this.#signal.aborted) return Promise.resolve();
    if (this.#running !== undefined) {
      this.#dirty = true;
      return this.#running;
    }
    this.#cancelTimer();
    const running = this.#refreshOnce().finally(() => {
      this.#running = undefined;
      this.#refreshes++;
      if (this.#dirty && !this.#signal.aborted) {
        this.#dirty = false;
        this.markDirty();
      }
    });
    this.#running = running;
    return running;
  }

  async #refreshOnce(): Promise<void> {
    const { source, logger } = this.#options;
    let result: DiscoveryResult;
    try {
      if (this.#full || typeof source.changed !== 'function') source.invalidate();
      this.#full = false;
      result = await source.discover({ signal: this.#signal });
    } catch (error) {
      if (this.#signal.aborted) return;
      this.#full = true;
      const delayMs = this.#backoff.next();
      logger.warn('discovery refresh failed, retrying', { error: errorMessage(error), delayMs });
      this.#cancelTimer();
      this.#timer = this.#options.clock.schedule(delayMs, () => {
        this.#timer = undefined;
        void this.refresh();
      });
      return;
    }
    if (this.#signal.aborted) return;
    this.#backoff.reset();
    for (const [groupVersion, error] of result.failed) {
      // lasso PR #159: an aggregated API down must not stop the other kinds' refresh.
      logger.warn('discovery of a group version failed, skipping it', {
        groupVersion,
        error: errorMessage(error),
      });
    }
    this.#options.onSnapshot({ kinds: servedKinds(result), failed: new Set(result.failed.keys()) });
  }

  #cancelTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}

/** The listable and watchable kinds of a discovery result (subresources left out), each once. */
export function servedKinds(result: DiscoveryResult): ServedKind[] {
  const kinds = new Map<string, ServedKind>();
  for (const resource of result.resources) {
    if (resource.name.includes('/')) continue;
    if (!resource.verbs.includes('list') || !resource.verbs.includes('watch')) continue;
    const gvk = { group: resource.group, version: resource.version, kind: resource.kind };
    const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    if (kinds.has(key)) continue;
    kinds.set(key, {
      gvk,
      gvr: { group: resource.group, version: resource.version, resource: resource.name },
      namespaced: resource.namespaced,
    });
  }
  return [...kinds.values()];
}

/** `group/version`, or `version` for the core group (the keys of `DiscoveryResult.failed`). */
export function groupVersionOf(gvk: GroupVersionKind): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}
