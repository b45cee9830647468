// The health wait of the dynamic controller's own informers: after a failed list or a watch that could not connect,
// wait on the one health gate of their transport (@lasso/factory's sharedHealthGate, shared with every cache factory
// of that API server), so an outage costs one ping loop however many kinds the dynamic controller watches.
import type { WaitHealthyFunc } from '@lasso/cache';
import type { Clock, Logger } from '@lasso/core';
import { HealthGate, type SharedClientFactory, sharedHealthGate } from '@lasso/factory';

/** @internal What {@link healthWaiter} needs. */
export interface HealthWaiterOptions {
  readonly clients: Pick<SharedClientFactory, 'isHealthy'> &
    Partial<Pick<SharedClientFactory, 'transport' | 'config' | 'ping'>>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Randomness of the retry jitter, in [0, 1). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

/**
 * @internal A `waitHealthy` for one informer. With a real client factory (one with a transport) it waits on
 * {@link sharedHealthGate}: one gate, and so one ping loop, per API server, shared with the cache factories of that
 * transport. Otherwise (a test fake, or an injected `random`) on a {@link HealthGate} of its own that pings through
 * `clients.isHealthy`: the first ping at once, after a failure the next in 800 ms, 1.6 s, 3.2 s, then every 3.2 s
 * (+0..25 % jitter, on the clock), each bounded by `healthCheckIntervalMs`; one warning when the API server turns
 * unhealthy and one info when it answers again (debug in between). Rejects with the signal's reason when it aborts.
 */
export function healthWaiter(options: HealthWaiterOptions): WaitHealthyFunc {
  const { clients, clock, logger, random } = options;
  const gate =
    random === undefined && typeof clients.transport === 'object' && clients.transport !== null
      ? sharedHealthGate(clients as Parameters<typeof sharedHealthGate>[0], { clock, logger })
      : new HealthGate({
          isHealthy: (ping) => clients.isHealthy(ping),
          clock,
          logger,
          random,
        });
  return (wait) => gate.wait(wait);
}
