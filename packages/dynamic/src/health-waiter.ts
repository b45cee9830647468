// The health wait of the dynamic controller's own informers (the factory's health gate covers only the factory's):
// after a failed list, ping /version until it answers, retrying with the reflector's backoff (800 ms doubling to
// 3.2 s, +0..25 % jitter) instead of lasso's fixed 15 s, each ping bounded by 15 s, one warning per outage.
import { createBackoff, type WaitHealthyFunc } from '@lasso/cache';
import { abortReason, anySignal, type Clock, type Logger, sleep, timeoutSignal } from '@lasso/core';
import { healthCheckIntervalMs, type SharedClientFactory } from '@lasso/factory';

/** @internal What {@link healthWaiter} needs. */
export interface HealthWaiterOptions {
  readonly clients: Pick<SharedClientFactory, 'isHealthy'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Randomness of the retry jitter, in [0, 1). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

/**
 * @internal A `waitHealthy` for one informer: the first ping at once, after a failure the next in 800 ms, 1.6 s,
 * 3.2 s, then every 3.2 s (+0..25 % jitter, on the clock), each bounded by `healthCheckIntervalMs`. Logs a warning
 * when the API server turns unhealthy and an info when it answers again (debug in between), once per change
 * however many waits repeat it. Rejects with the signal's reason when it aborts.
 */
export function healthWaiter(options: HealthWaiterOptions): WaitHealthyFunc {
  const { clients, clock, logger } = options;
  const random = options.random ?? Math.random;
  // The last ping's outcome, so that a change of state is logged once.
  let lastHealthy: boolean | undefined;
  return async ({ signal }) => {
    // A fresh backoff per wait: a new outage starts again from 800 ms.
    const backoff = createBackoff({ clock, random });
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      const timeout = timeoutSignal(clock, healthCheckIntervalMs, 'health check timed out');
      const both = anySignal([signal, timeout.signal]);
      let healthy = false;
      try {
        healthy = await clients.isHealthy({ signal: both.signal });
      } catch {
        // isHealthy is documented never to throw; one that does counts as unhealthy.
      } finally {
        timeout.clear();
        both.dispose();
      }
      if (signal?.aborted) throw abortReason(signal);
      const previous = lastHealthy;
      lastHealthy = healthy;
      if (healthy) {
        if (previous === false) logger.info('API server is healthy again', { attempt });
        return;
      }
      const delayMs = Math.round(backoff.next());
      if (previous !== false)
        logger.warn('API server is not healthy, retrying', { attempt, delayMs });
      else logger.debug('API server still not healthy, retrying', { attempt, delayMs });
      await sleep(clock, delayMs, { signal });
    }
  };
}
