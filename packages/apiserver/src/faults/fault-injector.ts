// The fault API of the local API server: scripted failures, latency, cut responses, forced 410s, restarts.

/** Which requests a fault applies to; every given field must match. */
export interface RequestMatch {
  /** HTTP method, e.g. `'GET'`. */
  method?: string;
  /** Matched against the URL pathname: a string must be equal, a RegExp must match. */
  path?: string | RegExp;
  /** Only watch requests (`true`) or only non-watch requests (`false`). */
  watch?: boolean;
}

/** A scripted failure for {@link FaultInjector.failNext}. */
export type FailureFault = RequestMatch & {
  /** HTTP status of the metav1.Status sent. */
  status: number;
  /** Status `reason` (default: kube-apiserver's reason for the status code). */
  reason?: string;
  /** Status `message` (default: a generic message naming the fault). */
  message?: string;
  /** Sent as the `Retry-After` header and `details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
};

/**
 * Faults a test injects into the built-in API server. Real kube-apiservers have none: tests that
 * need faults skip when `environment.server` is undefined.
 */
export interface FaultInjector {
  /** End every open watch response now (clean end of the chunked body, as a server timeout would). */
  closeWatches(): void;
  /** Fail the next `count` matching requests with a metav1.Status of this code (and Retry-After when given). */
  failNext(count: number, fault: FailureFault): void;
  /** Delay every matching request's response by `ms` on the server's clock (0 removes it). */
  setLatency(ms: number, match?: RequestMatch): void;
  /** Forget all history: any resourceVersion older than the current one now yields 410 (watch ERROR event / list 410 Expired). */
  expireHistory(): void;
  /** Destroy the socket of the next `count` matching responses after `afterBytes` of body have been written. */
  cutNext(count: number, options: RequestMatch & { afterBytes: number }): void;
  /** Close all connections, refuse new connections (ECONNREFUSED) for `downMs` real ms, then serve again on the same port with the same state. */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Send a BOOKMARK (current resourceVersion) now on every open watch that asked for bookmarks. */
  sendBookmarks(): void;
  /** Remove every pending fault and latency. */
  reset(): void;
}

/** The request facts faults match on. */
export interface RequestFacts {
  method: string;
  path: string;
  watch: boolean;
}

/** True when `facts` satisfies every field of `match`. */
export function matchesRequest(match: RequestMatch, facts: RequestFacts): boolean {
  if (match.method !== undefined && match.method.toUpperCase() !== facts.method) return false;
  if (match.path !== undefined) {
    if (typeof match.path === 'string') {
      if (match.path !== facts.path) return false;
    } else {
      match.path.lastIndex = 0;
      if (!match.path.test(facts.path)) return false;
    }
  }
  if (match.watch !== undefined && match.watch !== facts.watch) return false;
  return true;
}

function sameMatch(a: RequestMatch, b: RequestMatch): boolean {
  const path = (value: RequestMatch['path']): string | undefined =>
    value === undefined
      ? undefined
      : typeof value === 'string'
        ? `s:${value}`
        : `r:${String(value)}`;
  return (
    a.method?.toUpperCase() === b.method?.toUpperCase() &&
    path(a.path) === path(b.path) &&
    a.watch === b.watch
  );
}

/** Hooks the server gives the fault state for the actions that touch live connections. */
export interface FaultHooks {
  closeWatches(): void;
  sendBookmarks(): void;
  expireHistory(): void;
  restart(downMs: number): Promise<void>;
}

/** Pending fault state, consulted by the server for every request. */
export class FaultState implements FaultInjector {
  readonly #hooks: FaultHooks;
  #failures: Array<{ remaining: number; fault: FailureFault }> = [];
  #latencies: Array<{ ms: number; match: RequestMatch }> = [];
  #cuts: Array<{ remaining: number; match: RequestMatch; afterBytes: number }> = [];

  constructor(hooks: FaultHooks) {
    this.#hooks = hooks;
  }

  closeWatches(): void {
    this.#hooks.closeWatches();
  }

  failNext(count: number, fault: FailureFault): void {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError('count must be an integer >= 0');
    if (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599) {
      throw new RangeError('status must be an HTTP status code');
    }
    if (count > 0) this.#failures.push({ remaining: count, fault });
  }

  setLatency(ms: number, match: RequestMatch = {}): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ms must be a finite number >= 0');
    this.#latencies = this.#latencies.filter((entry) => !sameMatch(entry.match, match));
    if (ms > 0) this.#latencies.push({ ms, match });
  }

  expireHistory(): void {
    this.#hooks.expireHistory();
  }

  cutNext(count: number, options: RequestMatch & { afterBytes: number }): void {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError('count must be an integer >= 0');
    if (!Number.isInteger(options.afterBytes) || options.afterBytes < 0) {
      throw new RangeError('afterBytes must be an integer >= 0');
    }
    const { afterBytes, ...match } = options;
    if (count > 0) this.#cuts.push({ remaining: count, match, afterBytes });
  }

  restart(options: { downMs?: number } = {}): Promise<void> {
    const downMs = options.downMs ?? 100;
    if (!Number.isFinite(downMs) || downMs < 0) {
      return Promise.reject(new RangeError('downMs must be a finite number >= 0'));
    }
    return this.#hooks.restart(downMs);
  }

  sendBookmarks(): void {
    this.#hooks.sendBookmarks();
  }

  reset(): void {
    this.#failures = [];
    this.#latencies = [];
    this.#cuts = [];
  }

  /** The failure to send for this request, consuming one use of it. */
  takeFailure(facts: RequestFacts): FailureFault | undefined {
    const entry = this.#failures.find((candidate) => matchesRequest(candidate.fault, facts));
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#failures = this.#failures.filter((item) => item !== entry);
    return entry.fault;
  }

  /** Total latency in ms for this request. */
  latencyFor(facts: RequestFacts): number {
    return this.#latencies
      .filter((entry) => matchesRequest(entry.match, facts))
      .reduce((total, entry) => total + entry.ms, 0);
  }

  /** Bytes of body after which this response's socket is destroyed, consuming one use. */
  takeCut(facts: RequestFacts): number | undefined {
    const entry = this.#cuts.find((candidate) => matchesRequest(candidate.match, facts));
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#cuts = this.#cuts.filter((item) => item !== entry);
    return entry.afterBytes;
  }
}
