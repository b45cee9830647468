// Unit tests of the dynamic controller's health wait: a waitHealthy on a HealthGate of its own (@lasso/factory,
// whose own tests cover the gate) that pings through the client factory, on the injected clock and logger.
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { healthCheckIntervalMs } from '@lasso/factory';
import { describe, expect, it } from 'vitest';
import { type HealthWaiterOptions, healthWaiter } from './health-waiter.ts';

/** A waiter whose pings answer `answers` in turn (then true), recording each ping's time and signal. */
function waiter(answers: boolean[], random?: () => number) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const pings: Array<{ atMs: number; signal: AbortSignal | undefined }> = [];
  const isHealthy = async (options: { signal?: AbortSignal | undefined } = {}) => {
    pings.push({ atMs: clock.monotonic(), signal: options.signal });
    return answers.shift() ?? true;
  };
  const wait = healthWaiter({ clients: { isHealthy }, clock, logger, random: random ?? (() => 0) });
  return { clock, logger, pings, wait };
}

describe('healthWaiter', () => {
  it('pings through clients.isHealthy with backoff on the clock and logs the outage once', async () => {
    const { clock, logger, pings, wait } = waiter([false, false, true]);
    const waiting = wait({});
    await clock.advance(800 + 1_600);
    await waiting;
    expect(pings.map((ping) => ping.atMs)).toEqual([0, 800, 2_400]);
    // Each ping has a signal: the waiter bounds it by healthCheckIntervalMs.
    expect(pings.every((ping) => ping.signal instanceof AbortSignal)).toBe(true);
    expect(logger.find('API server is not reachable, retrying')).toMatchObject([
      { level: 'warn', attributes: { attempt: 1, delayMs: 800 } },
    ]);
    expect(logger.find('API server still not reachable, retrying')).toHaveLength(1);
    expect(logger.find('API server is healthy again')).toMatchObject([
      { level: 'info', attributes: { attempt: 3 } },
    ]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('jitters with the given randomness', async () => {
    const { clock, pings, wait } = waiter([false, true], () => 0.999);
    const waiting = wait({});
    await clock.advance(1_000);
    await waiting;
    expect(pings.map((ping) => ping.atMs)).toEqual([0, 1_000]);
  });

  it('stops on its signal, leaving no timer, and rejects at once for an aborted one', async () => {
    const { clock, pings, wait } = waiter([false, false, false]);
    const stop = new AbortController();
    const waiting = wait({ signal: stop.signal });
    await clock.advance(800);
    expect(pings).toHaveLength(2);
    stop.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(10 * healthCheckIntervalMs);
    expect(pings).toHaveLength(2);
    const reason = new Error('already');
    await expect(wait({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(pings).toHaveLength(2);
  });

  it('serves consecutive waits of its informer, warning again only for a new outage', async () => {
    const { clock, logger, wait } = waiter([false, true, false, true]);
    const first = wait({});
    await clock.advance(800);
    await first;
    const second = wait({});
    await clock.advance(800);
    await second;
    expect(logger.find('API server is not reachable, retrying')).toHaveLength(2);
    expect(logger.find('API server is healthy again')).toHaveLength(2);
  });

  it('shares one ping loop per transport between the informers of many kinds', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const pings: number[] = [];
    let up = false;
    // A client factory with a transport: every waiter over it waits on the same gate.
    const clients = {
      transport: {},
      config: { server: 'https://127.0.0.1:6443' },
      isHealthy: async () => {
        pings.push(clock.monotonic());
        return up;
      },
    };
    const waits = Array.from({ length: 50 }, () =>
      healthWaiter({
        clients: clients as unknown as HealthWaiterOptions['clients'],
        clock,
        logger,
      }),
    );
    const waiting = Promise.all(waits.map((wait) => wait({})));
    await clock.advance(800 + 1_600);
    up = true;
    await clock.advance(3_200 * 1.25);
    await waiting;
    // One ping at a time for the 50 informers, not 50 (each informer waiting on a gate of its own).
    expect(pings.length).toBeLessThanOrEqual(4);
    expect(clock.pendingTimers()).toBe(0);
  });
});
