// Injected faults (the server's FaultInjector): a matching request waits its latency, fails with the
// injected Status, or has its answer cut after some bytes. Runs before anything reads the request.
import { failure, reasonForCode, StatusError } from '../apimachinery/status.ts';
import type { FaultState, RequestFacts } from '../faults/fault-injector.ts';
import type { Filter } from './chain.ts';

function truthy(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/** What the fault filter needs of the server. */
export interface FaultFilterOptions {
  readonly faults: FaultState;
  /** Resolves after `ms` on the server's clock (early when the server stops). */
  delay(ms: number): Promise<void>;
  /** True once the server is stopping or stopped. */
  isStopped(): boolean;
}

/** Applies the injected latency, failure and cut that match the request. */
export function withFaults(options: FaultFilterOptions): Filter {
  const { faults } = options;
  return (next) => async (exchange) => {
    const { url, method, request, response } = exchange;
    const facts: RequestFacts = {
      method,
      path: url.pathname,
      watch: truthy(url.searchParams.get('watch')) || /^\/apis?\/.*\/watch\//.test(url.pathname),
    };
    exchange.cutAfter = faults.takeCut(facts);
    const latency = faults.latencyFor(facts);
    if (latency > 0) await options.delay(latency);
    // A stop or restart during the delay dropped the connection: the request dies with it.
    if (options.isStopped() || request.socket.destroyed) {
      response.destroy();
      return;
    }
    const fault = faults.takeFailure(facts);
    if (fault !== undefined) {
      request.resume();
      const details: NonNullable<ReturnType<typeof failure>['details']> = {};
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) {
        details.retryAfterSeconds = fault.retryAfterSeconds;
        headers['Retry-After'] = String(fault.retryAfterSeconds);
      }
      const reason = fault.reason ?? reasonForCode(fault.status);
      const message = fault.message ?? `injected fault: ${reason}`;
      throw new StatusError(failure(fault.status, reason, message, details), headers);
    }
    await next(exchange);
  };
}
