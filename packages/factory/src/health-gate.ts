// The health gate of a cache factory: one /version ping loop shared by every informer whose list failed and by
// the first start. Ports rancher/lasso pkg/cache/healthcheck.go, except that the loop stops once nobody waits.
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

/** lasso's health ping timeout and the wait between failed pings. */
export const healthCheckIntervalMs = 15_000;

/** @internal Options of {@link HealthGate}. */
export interface HealthGateOptions {
  isHealthy(options: { signal: AbortSignal }): Promise<boolean>;
  clock: Clock;
  logger: Logger;
  /** Told the outcome of every ping (lasso's `HealthCallback`); a throwing callback is logged. */
  onHealth?: ((healthy: boolean) => void) | undefined;
}

/** @internal Resolves waiters once the API server answers `/version`; one loop however many wait. */
export class HealthGate {
  readonly #options: HealthGateOptions;
  #loop: { done: Promise<void>; stop: AbortController } | undefined;
  #waiters = 0;

  constructor(options: HealthGateOptions) {
    this.#options = options;
  }

  /**
   * Resolve once a ping succeeds: the first ping is sent at once, then one every 15 s, each bounded by 15 s.
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
    const { clock, logger } = this.#options;
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
      if (healthy) {
        if (attempt > 1) logger.info('API server is healthy again', { attempt });
        return;
      }
      logger.warn('API server is not healthy, retrying', {
        attempt,
        delayMs: healthCheckIntervalMs,
      });
      await sleep(clock, healthCheckIntervalMs, { signal });
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
