// The health gate of a cache factory (and of the dynamic controller's own informers): one /version ping loop
// shared by every informer of one API server whose list or watch could not connect, and by the first start. Ports
// rancher/lasso pkg/cache/healthcheck.go, except that the loop stops once nobody waits, failed pings are retried
// with the reflector's backoff (800 ms doubling to 3.2 s, +0..25 %) instead of every 15 s, and the outage is
// logged loudly: the server and the cause, repeated with backoff.
import { createBackoff } from '@lasso/cache';
import { isApiError } from '@lasso/client';
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
import { apiServerFailureCause, displayServer } from './api-server-failure.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/**
 * The timeout of one health ping (lasso's 15 s). lasso also waited this long between failed pings; the gate now
 * retries with the reflector's backoff instead (800 ms, doubling, capped at 3.2 s, jitter +0..25 %).
 */
export const healthCheckIntervalMs = 15_000;

/**
 * While the API server stays down, the gate's warning repeats after 5 s, then at intervals doubling to at most
 * this (a change of cause warns at once); the pings in between log at debug.
 */
export const healthWarningMaxIntervalMs = 60_000;
const healthWarningFirstIntervalMs = 5_000;

/** Options of {@link HealthGate}: `isHealthy` or `probe` (the latter tells why a ping failed). */
export interface HealthGateOptions {
  /**
   * One ping: true when the API server answers (e.g. `SharedClientFactory.isHealthy`). Meant never to throw; a
   * rejection counts as unhealthy. Each ping is aborted through `signal` after {@link healthCheckIntervalMs}.
   * Ignored when `probe` is given.
   */
  isHealthy?: ((options: { signal: AbortSignal }) => Promise<boolean>) | undefined;
  /**
   * One ping that resolves when the API server answers and rejects with the failure otherwise (e.g.
   * `SharedClientFactory.ping`): the warnings then name the cause (connection refused, DNS, TLS, 401/403). A
   * rejection with an `ApiError` other than 401/403 (the server answered, with an error) counts as up.
   */
  probe?: ((options: { signal: AbortSignal }) => Promise<void>) | undefined;
  /** The API server's URL, named in the warnings (a user or password in it is never logged). */
  server?: string | undefined;
  /** Times the retries and the ping timeout. */
  clock: Clock;
  /**
   * Where the outage is logged: a warning naming the server and the cause when it starts, repeated after 5 s,
   * 10 s, 20 s, 40 s, then every 60 s while it lasts (at once when the cause changes); one info when it ends;
   * the other retries at debug.
   */
  logger: Logger;
  /** Told the outcome of every ping (lasso's `HealthCallback`); a throwing callback is logged. */
  onHealth?: ((healthy: boolean) => void) | undefined;
  /** Randomness of the retry jitter, in [0, 1). Default `Math.random`. */
  random?: (() => number) | undefined;
}

/** The last failed ping of a {@link HealthGate}: why, and the error. */
export interface HealthFailure {
  /** `'connection refused'`, `'DNS lookup failed'`, `'TLS failure'`, `'unauthorized (401)'`, ... */
  readonly cause: string;
  /** The ping's error (undefined for an `isHealthy` that answered false). */
  readonly error: unknown;
}

/**
 * Resolves waiters once the API server answers a ping, with one ping loop however many wait: the health gate of
 * the cache factory's informers (lasso's `healthcheck.go`), for informers of your own that should wait the same way
 * after a failed list or a watch that could not connect (`waitHealthy` of `createCache`). The loop stops when its
 * last waiter leaves. {@link sharedHealthGate} gives every factory of one transport the same gate.
 *
 * @example
 * ```ts
 * const clients = createSharedClientFactory(rest);
 * const gate = new HealthGate({ probe: (ping) => clients.ping(ping), server: rest.server, clock, logger });
 * // resolves once GET /version answers; rejects with the signal's reason if it aborts first
 * await gate.wait({ signal });
 * ```
 */
export class HealthGate {
  readonly #options: HealthGateOptions;
  readonly #server: string | undefined;
  readonly #listeners = new Set<(healthy: boolean) => void>();
  #loop: { done: Promise<void>; stop: AbortController } | undefined;
  #waiters = 0;
  // The last ping's outcome, so that a change is logged once however many pings repeat it.
  #healthy: boolean | undefined;
  #lastFailure: HealthFailure | undefined;
  // The outage's start and its warnings' schedule (monotonic ms), kept across loops of one outage.
  #downSince = 0;
  #nextWarningAt = 0;
  #warningIntervalMs = healthWarningFirstIntervalMs;

  constructor(options: HealthGateOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('HealthGate: isHealthy must be a function');
    }
    if (options.probe !== undefined && typeof options.probe !== 'function') {
      throw new TypeError('HealthGate: probe must be a function');
    }
    if (options.probe === undefined && typeof options.isHealthy !== 'function') {
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
    if (options.server !== undefined && typeof options.server !== 'string') {
      throw new TypeError('HealthGate: server must be a string');
    }
    this.#options = options;
    this.#server = options.server === undefined ? undefined : displayServer(options.server);
  }

  /** The last ping's failure while the server is down; undefined once it answered (or before any ping). */
  lastFailure(): HealthFailure | undefined {
    return this.#healthy === false ? this.#lastFailure : undefined;
  }

  /**
   * Also tell `listener` the outcome of every ping (as `onHealth`), until the returned function is called: each
   * factory sharing the gate keeps its own `healthCallback`.
   */
  addHealthListener(listener: (healthy: boolean) => void): () => void {
    const own = (healthy: boolean): void => listener(healthy);
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }

  /**
   * Resolve once a ping succeeds: the first ping is sent at once; after a failure the next follows in 800 ms,
   * 1.6 s, 3.2 s, then every 3.2 s (each +0..25 % jitter, on the clock: never more than 4 s apart), each ping
   * bounded by 15 s. Rejects with the signal's reason when `signal` aborts first; the loop ends when its last
   * waiter leaves.
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

  async #ping(signal: AbortSignal): Promise<HealthFailure | undefined> {
    const { probe, isHealthy } = this.#options;
    try {
      if (probe !== undefined) {
        await probe({ signal });
        return undefined;
      }
      if ((await isHealthy?.({ signal })) === true) return undefined;
      return { cause: 'not healthy', error: undefined };
    } catch (error) {
      // An HTTP answer other than 401/403 (a 500, a 503 or a 429 past the transport's retries) comes from a server
      // that is up: the informers go on, each backing off its own failing requests as the reflector does. Waiting
      // for a 2xx instead stalled every informer of the server on one flaky /version. Refused credentials keep
      // everyone waiting, loudly. (isHealthy is documented never to throw; a custom one that does counts as down.)
      if (probe !== undefined && isApiError(error) && error.status !== 401 && error.status !== 403)
        return undefined;
      return { cause: apiServerFailureCause(error), error };
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { clock, logger, random } = this.#options;
    // A fresh backoff per loop: a new outage starts again from 800 ms.
    const backoff = createBackoff({ clock, random: random ?? Math.random });
    const server = this.#server === undefined ? {} : { server: this.#server };
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw abortReason(signal);
      const timeout = timeoutSignal(clock, healthCheckIntervalMs, 'health check timed out');
      const both = anySignal([signal, timeout.signal]);
      let failure: HealthFailure | undefined;
      try {
        failure = await this.#ping(both.signal);
      } finally {
        timeout.clear();
        both.dispose();
      }
      if (signal.aborted) throw abortReason(signal);
      const healthy = failure === undefined;
      this.#report(healthy);
      const previous = this.#healthy;
      const previousCause = this.#lastFailure?.cause;
      this.#healthy = healthy;
      const now = clock.monotonic();
      if (failure === undefined) {
        if (previous === false) {
          logger.info('API server is healthy again', {
            ...server,
            attempt,
            downForMs: Math.round(now - this.#downSince),
          });
        }
        this.#lastFailure = undefined;
        return;
      }
      this.#lastFailure = failure;
      const delayMs = Math.round(backoff.next());
      const attributes = {
        ...server,
        cause: failure.cause,
        ...(failure.error === undefined ? {} : { error: errorMessage(failure.error) }),
        attempt,
        delayMs,
      };
      if (previous !== false) {
        this.#downSince = now;
        this.#warningIntervalMs = healthWarningFirstIntervalMs;
        this.#nextWarningAt = now + this.#warningIntervalMs;
        logger.warn('API server is not reachable, retrying', attributes);
      } else if (failure.cause !== previousCause || now >= this.#nextWarningAt) {
        // Repeated with backoff: 5 s, 10 s, 20 s, 40 s, then every 60 s of one outage; a new cause at once.
        this.#warningIntervalMs = Math.min(this.#warningIntervalMs * 2, healthWarningMaxIntervalMs);
        this.#nextWarningAt = now + this.#warningIntervalMs;
        logger.warn('API server is still not reachable, retrying', {
          ...attributes,
          downForMs: Math.round(now - this.#downSince),
        });
      } else {
        logger.debug('API server still not reachable, retrying', attributes);
      }
      await sleep(clock, delayMs, { signal });
    }
  }

  #report(healthy: boolean): void {
    for (const listener of [this.#options.onHealth, ...this.#listeners]) {
      try {
        listener?.(healthy);
      } catch (error) {
        this.#options.logger.warn('health callback failed', { error: errorMessage(error) });
      }
    }
  }
}

// One gate per transport (one API server and user) and clock: every factory over one transport shares its pings.
const sharedGates = new WeakMap<object, WeakMap<Clock, HealthGate>>();

/**
 * The health gate every factory over `clients`' transport shares (one per transport and clock): while its API
 * server is down, one ping loop for all of their informers however many kinds they run. Pings with
 * `clients.ping` (`GET /version`); warnings name `clients.config.server`. The first caller's `logger` is the
 * gate's. A client factory without a transport (a test fake) gets a gate of its own.
 *
 * @example
 * ```ts
 * const clients = createSharedClientFactory(rest);
 * const gate = sharedHealthGate(clients, { clock: systemClock, logger });
 * await gate.wait({ signal }); // the same gate as the cache factories of `clients`
 * ```
 */
export function sharedHealthGate(
  clients: Pick<SharedClientFactory, 'transport' | 'config' | 'isHealthy'> &
    Partial<Pick<SharedClientFactory, 'ping'>>,
  options: { clock: Clock; logger: Logger },
): HealthGate {
  const create = (): HealthGate =>
    new HealthGate({
      ...(typeof clients.ping === 'function'
        ? {
            probe: (ping: { signal: AbortSignal }) =>
              (clients.ping as SharedClientFactory['ping'])(ping),
          }
        : { isHealthy: (ping: { signal: AbortSignal }) => clients.isHealthy(ping) }),
      server: typeof clients.config?.server === 'string' ? clients.config.server : undefined,
      clock: options.clock,
      logger: options.logger,
    });
  const transport = clients.transport as unknown;
  if (typeof transport !== 'object' || transport === null) return create();
  let byClock = sharedGates.get(transport);
  if (byClock === undefined) {
    byClock = new WeakMap();
    sharedGates.set(transport, byClock);
  }
  let gate = byClock.get(options.clock);
  if (gate === undefined) {
    gate = create();
    byClock.set(options.clock, gate);
  }
  return gate;
}
