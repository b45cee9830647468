// The health gate of a cache factory (and of the dynamic controller's own informers): one /version ping loop
// shared by every informer whose list failed and by the first start. Ports rancher/lasso pkg/cache/healthcheck.go,
// except that the loop stops once nobody waits and failed pings are retried with the reflector's backoff (800 ms
// doubling to 3.2 s, +0..25 %) instead of every 15 s.
import { createBackoff } from '@lasso/cache';
import {
  abortReason,
  anySignal,
  type Clock,
  errorMessage,
  type Logger,
  raceSignal,
  sleep,
  timeoutSignal,
} from '@lasso/core';

/**
 * The timeout of one health ping (lasso's 15 s). lasso also waited this long between failed pings; the gate now
 * retries with the reflector's backoff instead (800 ms, doubling, capped at 3.2 s, jitter +0..25 %).
 */
export const healthCheckIntervalMs = 15_000;

/** Options of {@link HealthGate}. */
export interface HealthGateOptions {
  /**
   * One ping: true when the API server answers (e.g. `SharedClientFactory.isHealthy`). Meant never to throw; a
   * rejection counts as unhealthy. Each ping is aborted through `signal` after {@link healthCheckIntervalMs}.
   */
  isHealthy(options: { signal: AbortSignal }): Promise<boolean>;
  /** Times the retries and the ping timeout. */
  clock: Clock;
  /** Where the outage is logged: one warning when it starts, one info when it ends, retries at debug. */
  logger: Logger;
  /** Told the outcome of every ping (lasso's `HealthCallback`); a throwing callback is logged. */
  onHealth?: ((healthy: boolean) => void) | undefined;
  /** Randomness of the retry jitter, in [0, 1). Default `Math.random`. */
  random?: (() => number) | undefined;
}

/**
 * Resolves waiters once the API server answers a ping, with one ping loop however many wait: the health gate of
 * the cache factory's informers (lasso's `healthcheck.go`), for informers of your own that should wait the same way
 * after a failed list (`waitHealthy` of `createCache`). The loop stops when its last waiter leaves.
 *
 * @example
 * ```ts
 * const clients = createSharedClientFactory(rest);
 * const gate = new HealthGate({ isHealthy: (ping) => clients.isHealthy(ping), clock, logger });
 * // resolves once GET /version answers; rejects with the signal's reason if it aborts first
 * await gate.wait({ signal });
 * ```
 */
export class HealthGate {
  readonly #options: HealthGateOptions;
  #loop: { done: Promise<void>; stop: AbortController } | undefined;
  #waiters = 0;
  // The last ping's outcome, so that a change is logged once however many pings repeat it.
  #healthy: boolean | undefined;

  constructor(options: HealthGateOptions) {
    if (typeof options?.isHealthy !== 'function') {
      throw new TypeError('HealthGate: isHealthy must be a function');
    }
    if (typeof options.clock?.schedule !== 'function') {
      throw new TypeError('HealthGate: clock must be a Clock');
    }
    if (typeof options.logger?.warn !== 'function') {
      throw new TypeError('HealthGate: logger must be a Logger');
    }
    for (const name of ['onHealth', 'random'] as const) {
      if (options[name] !== undefined && typeof options[name] !== 'function') {
        throw new TypeError(`HealthGate: ${name} must be a function`);
      }
    }
    this.#options = options;
  }

  /**
   * Resolve once a ping succeeds: the first ping is sent at once; after a failure the next follows in 800 ms,
   * 1.6 s, 3.2 s, then every 3.2 s (each +0..25 % jitter, on the clock), each ping bounded by 15 s.
   * Rejects with the signal's reason when `signal` aborts first; the loop ends when its last waiter leaves.
   */
  async wait(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    let loop = this.#loop;
    if (loop === undefined) {
      const stop = new AbortController();
      const started = { done: this.#run(stop.signal), stop };
      // Each waiter handles the outcome through its own race; an abandoned loop's rejection is expected.
      started.done.catch(() => {});
      void started.done
        .finally(() => {
          if (this.#loop === started) this.#loop = undefined;
        })
        .catch(() => {});
      this.#loop = started;
      loop = started;
    }
    this.#waiters++;
    try {
      await raceSignal(loop.done, signal);
    } finally {
      this.#waiters--;
      // Unlike lasso's loop, which pings forever once every caller has gone. A later waiter starts afresh.
      if (this.#waiters === 0) {
        if (this.#loop === loop) this.#loop = undefined;
        loop.stop.abort();
      }
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { clock, logger, random } = this.#options;
    // A fresh backoff per loop: a new outage starts again from 800 ms.
    const backoff = createBackoff({ clock, random: random ?? Math.random });
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw abortReason(signal);
      const timeout = timeoutSignal(clock, healthCheckIntervalMs, 'health check timed out');
      const both = anySignal([signal, timeout.signal]);
      let healthy = false;
      try {
        healthy = await this.#options.isHealthy({ signal: both.signal });
      } catch {
        // isHealthy is documented never to throw; a custom one that does counts as unhealthy.
      } finally {
        timeout.clear();
        both.dispose();
      }
      if (signal.aborted) throw abortReason(signal);
      this.#report(healthy);
      const previous = this.#healthy;
      this.#healthy = healthy;
      if (healthy) {
        if (previous === false) logger.info('API server is healthy again', { attempt });
        return;
      }
      const changed = previous !== false;
      const delayMs = Math.round(backoff.next());
      if (changed) logger.warn('API server is not healthy, retrying', { attempt, delayMs });
      else logger.debug('API server still not healthy, retrying', { attempt, delayMs });
      await sleep(clock, delayMs, { signal });
    }
  }

  #report(healthy: boolean): void {
    try {
      this.#options.onHealth?.(healthy);
    } catch (error) {
      this.#options.logger.warn('health callback failed', { error: errorMessage(error) });
    }
  }
}
