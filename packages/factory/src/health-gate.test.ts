// Unit tests of the cache factory's health gate: one ping loop, 15 s timeout, retries after 800 ms doubling to
// 3.2 s (+0..25 % jitter), stops when nobody waits; loud warnings naming the server and the cause, repeated with
// backoff; one gate per transport.
import { ApiError } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  HealthGate,
  type HealthGateOptions,
  healthCheckIntervalMs,
  sharedHealthGate,
} from './health-gate.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

function gate(
  answers: Array<boolean | 'hang' | 'throw'>,
  onHealth?: (healthy: boolean) => void,
  random: () => number = () => 0,
) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const pings: AbortSignal[] = [];
  const pingedAt: number[] = [];
  const health = new HealthGate({
    clock,
    logger,
    onHealth,
    random,
    isHealthy: ({ signal }) => {
      pings.push(signal);
      pingedAt.push(clock.monotonic());
      const answer = answers.shift() ?? true;
      if (answer === 'throw') return Promise.reject(new Error('broken isHealthy'));
      if (answer !== 'hang') return Promise.resolve(answer);
      // A ping that only ends when its signal does: the gate's timeout must end it.
      return new Promise<boolean>((resolve) =>
        signal.addEventListener('abort', () => resolve(false), { once: true }),
      );
    },
  });
  return { clock, logger, pings, pingedAt, health };
}

describe('HealthGate', () => {
  it('resolves after one ping when the API answers', async () => {
    const { health, pings } = gate([true]);
    await health.wait();
    expect(pings).toHaveLength(1);
  });

  it('retries after 800 ms, 1.6 s, 3.2 s, then every 3.2 s, once for all waiters', async () => {
    const { clock, health, pings, pingedAt, logger } = gate([false, false, false, false, true]);
    let resolved = 0;
    const waiting = Array.from({ length: 5 }, () =>
      health.wait().then(() => {
        resolved++;
      }),
    );
    await clock.advance(0);
    expect(pings).toHaveLength(1);
    await clock.advance(799);
    expect(pings).toHaveLength(1);
    await clock.advance(1);
    expect(pings).toHaveLength(2);
    expect(resolved).toBe(0);
    await clock.advance(1_600 + 3_200 + 3_200);
    await Promise.all(waiting);
    expect(pingedAt).toEqual([0, 800, 2_400, 5_600, 8_800]);
    expect(resolved).toBe(5);
    // Logged once per change of state: one warning for the outage, one info when it ends.
    expect(logger.find('API server is not reachable, retrying')).toHaveLength(1);
    expect(logger.find('API server is not reachable, retrying')[0]?.attributes).toMatchObject({
      attempt: 1,
      delayMs: 800,
    });
    // The warning repeats once 5 s of the outage have passed (the ping at 5.6 s); the others are debug.
    expect(logger.find('API server is still not reachable, retrying')).toHaveLength(1);
    expect(logger.find('API server still not reachable, retrying')).toHaveLength(2);
    expect(logger.find('API server is healthy again')).toHaveLength(1);
    expect(logger.find('API server is healthy again')[0]?.attributes).toMatchObject({
      attempt: 5,
      downForMs: 8_800,
    });
  });

  it('jitters each delay by at most 25 %', async () => {
    const { clock, health, pingedAt } = gate([false, false, false, true], undefined, () => 0.999);
    const waiting = health.wait();
    await clock.advance(4_000 + 2_000 + 1_000);
    await waiting;
    // 800, 1600 and 3200 ms times 1.24975, rounded: never past 1.25 times the base delay.
    expect(pingedAt).toEqual([0, 1_000, 3_000, 6_999]);
  });

  it('starts again from 800 ms for a new outage', async () => {
    const { clock, health, pingedAt, logger } = gate([false, false, true, false, true]);
    const first = health.wait();
    await clock.advance(800 + 1_600);
    await first;
    const second = health.wait();
    await clock.advance(800);
    await second;
    expect(pingedAt).toEqual([0, 800, 2_400, 2_400, 3_200]);
    expect(logger.find('API server is not reachable, retrying')).toHaveLength(2);
    expect(logger.find('API server is healthy again')).toHaveLength(2);
  });

  it('bounds each ping by 15 s', async () => {
    const { clock, health, pings } = gate(['hang', true]);
    const waiting = health.wait();
    await clock.advance(healthCheckIntervalMs - 1);
    expect(pings[0]?.aborted).toBe(false);
    await clock.advance(1);
    expect(pings[0]?.aborted).toBe(true);
    await clock.advance(800);
    await waiting;
    expect(pings).toHaveLength(2);
  });

  it('counts a rejecting isHealthy as unhealthy and retries', async () => {
    const { clock, health, pings, logger } = gate(['throw', true]);
    const waiting = health.wait();
    await clock.advance(800);
    await waiting;
    expect(pings).toHaveLength(2);
    expect(logger.find('API server is not reachable, retrying')).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('warns once when a later loop finds the server still down', async () => {
    const { clock, health, logger } = gate([false, false, false, true]);
    const stop = new AbortController();
    const first = health.wait({ signal: stop.signal });
    await clock.advance(800);
    stop.abort(new Error('relisting'));
    await expect(first).rejects.toThrow('relisting');
    const second = health.wait();
    await clock.advance(800);
    await second;
    expect(logger.find('API server is not reachable, retrying')).toHaveLength(1);
    expect(logger.find('API server still not reachable, retrying')).toHaveLength(2);
    expect(logger.find('API server is healthy again')).toHaveLength(1);
  });

  it('keeps pinging while a waiter remains and stops when the last one leaves', async () => {
    const { clock, health, pings } = gate([false, false, false]);
    const first = new AbortController();
    const second = new AbortController();
    const one = health.wait({ signal: first.signal });
    const two = health.wait({ signal: second.signal });
    await clock.advance(0);
    first.abort(new Error('first gone'));
    await expect(one).rejects.toThrow('first gone');
    await clock.advance(800);
    expect(pings).toHaveLength(2);
    second.abort(new Error('second gone'));
    await expect(two).rejects.toThrow('second gone');
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(10 * healthCheckIntervalMs);
    expect(pings).toHaveLength(2);
    // A new waiter starts a new loop.
    const again = health.wait();
    await clock.advance(800);
    await again;
    expect(pings).toHaveLength(4);
  });

  it('rejects at once for an aborted signal', async () => {
    const { health, pings } = gate([]);
    const reason = new Error('already');
    await expect(health.wait({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(pings).toHaveLength(0);
  });

  it('reports each outcome and survives a throwing callback', async () => {
    const outcomes: boolean[] = [];
    const { clock, health, logger } = gate([false, true], (healthy) => {
      outcomes.push(healthy);
      throw new Error('callback broke');
    });
    const waiting = health.wait();
    await clock.advance(800);
    await waiting;
    expect(outcomes).toEqual([false, true]);
    expect(logger.find('health callback failed')).toHaveLength(2);
  });

  it('warns naming the server and the cause, again 5, 10, 20, 40 s later, then every 60 s', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:6443'), {
      code: 'ECONNREFUSED',
    });
    let up = false;
    const health = new HealthGate({
      clock,
      logger,
      random: () => 0,
      // A user and password in the URL are never logged.
      server: 'https://admin:s3cret@10.0.0.1:6443/?token=abc',
      probe: () => (up ? Promise.resolve() : Promise.reject(refused)),
    });
    const waiting = health.wait();
    await clock.advance(0);
    const first = logger.find('API server is not reachable, retrying');
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      level: 'warn',
      attributes: {
        server: 'https://10.0.0.1:6443',
        cause: 'connection refused',
        error: 'connect ECONNREFUSED 10.0.0.1:6443',
        attempt: 1,
        delayMs: 800,
      },
    });
    expect(health.lastFailure()).toEqual({ cause: 'connection refused', error: refused });
    // Pings at 0, 0.8, 2.4, 5.6, then every 3.2 s: each warning comes with the first ping at least 5, 10, 20, 40,
    // then 60 s after the one before.
    await clock.advance(300_000);
    const repeated = logger
      .find('API server is still not reachable, retrying')
      .map((entry) => entry.attributes.downForMs);
    expect(repeated.slice(0, 7)).toEqual([
      5_600, 18_400, 40_800, 82_400, 143_200, 204_000, 264_800,
    ]);
    expect(JSON.stringify(logger.entries)).not.toMatch(/s3cret|admin|token/);
    up = true;
    await clock.advance(4_000);
    await waiting;
    expect(logger.find('API server is healthy again')).toHaveLength(1);
    expect(health.lastFailure()).toBeUndefined();
  });

  it('warns at once when the cause changes', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const answers = [
      Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), { code: 'ENOTFOUND' }),
      Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), { code: 'ENOTFOUND' }),
      new ApiError({ status: 401, message: 'Unauthorized' }),
    ];
    const health = new HealthGate({
      clock,
      logger,
      random: () => 0,
      probe: () => {
        const answer = answers.shift();
        return answer === undefined ? Promise.resolve() : Promise.reject(answer);
      },
    });
    const waiting = health.wait();
    await clock.advance(800 + 1_600 + 3_200);
    await waiting;
    expect(logger.find('API server is not reachable, retrying')[0]?.attributes).toMatchObject({
      cause: 'DNS lookup failed',
    });
    expect(logger.find('API server still not reachable, retrying')).toHaveLength(1);
    expect(logger.find('API server is still not reachable, retrying')[0]?.attributes).toMatchObject(
      {
        cause: 'unauthorized (401)',
        downForMs: 2_400,
      },
    );
  });

  it('counts an HTTP answer other than 401/403 as up: only an unreachable server or refused credentials hold', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const answers: unknown[] = [
      new ApiError({ status: 403, message: 'forbidden' }),
      new ApiError({ status: 500, message: 'etcd unavailable' }),
    ];
    let pings = 0;
    const health = new HealthGate({
      clock,
      logger,
      random: () => 0,
      probe: () => {
        pings++;
        const answer = answers.shift();
        return answer === undefined ? Promise.resolve() : Promise.reject(answer);
      },
    });
    const waiting = health.wait();
    await clock.advance(800);
    await waiting;
    expect(pings).toBe(2);
    expect(logger.find('API server is not reachable, retrying')[0]?.attributes).toMatchObject({
      cause: 'forbidden (403)',
    });
    expect(logger.find('API server is healthy again')).toHaveLength(1);
  });

  it('tells every listener each outcome until it is removed', async () => {
    const { clock, health } = gate([false, true, false, true]);
    const seen: boolean[] = [];
    const remove = health.addHealthListener((healthy) => seen.push(healthy));
    const first = health.wait();
    await clock.advance(800);
    await first;
    remove();
    const second = health.wait();
    await clock.advance(800);
    await second;
    expect(seen).toEqual([false, true]);
  });

  it('is shared by every factory of one transport and clock (sharedHealthGate)', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    let pings = 0;
    const clients = (transport: object | undefined) =>
      ({
        transport,
        config: { server: 'https://10.0.0.1:6443' },
        isHealthy: async () => false,
        ping: async () => {
          pings++;
        },
      }) as unknown as SharedClientFactory;
    const transport = {};
    const one = sharedHealthGate(clients(transport), { clock, logger });
    expect(sharedHealthGate(clients(transport), { clock, logger })).toBe(one);
    expect(sharedHealthGate(clients({}), { clock, logger })).not.toBe(one);
    expect(sharedHealthGate(clients(transport), { clock: new FakeClock(), logger })).not.toBe(one);
    // A fake without a transport gets a gate of its own each time.
    const fake = clients(undefined);
    expect(sharedHealthGate(fake, { clock, logger })).not.toBe(
      sharedHealthGate(fake, { clock, logger }),
    );
    // It pings through `ping` (which tells the cause), not isHealthy.
    await one.wait();
    expect(pings).toBe(1);
  });

  it('throws a TypeError naming a bad option', () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const isHealthy = () => Promise.resolve(true);
    const bad = (options: unknown) => () => new HealthGate(options as HealthGateOptions);
    expect(bad(undefined)).toThrow(new TypeError('HealthGate: isHealthy must be a function'));
    expect(bad({ clock, logger })).toThrow(/isHealthy must be a function/);
    expect(bad({ isHealthy, logger })).toThrow(/clock must be a Clock/);
    expect(bad({ isHealthy, clock, logger: {} })).toThrow(/logger must be a Logger/);
    expect(bad({ isHealthy, clock, logger, onHealth: 1 })).toThrow(/onHealth must be a function/);
    expect(bad({ isHealthy, clock, logger, random: 'x' })).toThrow(/random must be a function/);
    expect(bad({ isHealthy, clock, logger, onHealth: undefined })).not.toThrow();
    expect(bad({ probe: 1, clock, logger })).toThrow(/probe must be a function/);
    expect(bad({ probe: isHealthy, clock, logger, server: 1 })).toThrow(/server must be a string/);
    expect(bad({ probe: isHealthy, clock, logger })).not.toThrow();
  });
});
