// The health wait of the dynamic controller's own informers (the factory's informers wait on the factory's gate):
// after a failed list, ping /version until it answers, on a health gate of their own (@lasso/factory's HealthGate:
// the reflector's backoff, each ping bounded by 15 s, one warning per outage).
import type { WaitHealthyFunc } from '@lasso/cache';
import type { Clock, Logger } from '@lasso/core';
import { HealthGate, type SharedClientFactory } from '@lasso/factory';

/** @internal What {@link healthWaiter} needs. */
export interface HealthWaiterOptions {
  readonly clients: Pick<SharedClientFactory, 'isHealthy'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Randomness of the retry jitter, in [0, 1). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

/**
 * @internal A `waitHealthy` for one informer, on a {@link HealthGate} of its own that pings through
 * `clients.isHealthy`: the first ping at once, after a failure the next in 800 ms, 1.6 s, 3.2 s, then every 3.2 s
 * (+0..25 % jitter, on the clock), each bounded by `healthCheckIntervalMs`; one warning when the API server turns
 * unhealthy and one info when it answers again (debug in between). Rejects with the signal's reason when it aborts.
 */
export function healthWaiter(options: HealthWaiterOptions): WaitHealthyFunc {
  const { clients, clock, logger, random } = options;
  const gate = new HealthGate({
    isHealthy: (ping) => clients.isHealthy(ping),
    clock,
    logger,
    random,
  });
  return (wait) => gate.wait(wait);
}
