// Unit tests of the dynamic controller's health wait: first ping at once, retries after 800 ms doubling to 3.2 s
// (+0..25 % jitter) on the injected clock, each ping bounded by 15 s, one warning per outage.

import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { healthCheckIntervalMs } from '@lasso/factory';
import { describe, expect, it } from 'vitest';
import { healthWaiter } from './health-waiter.ts';

function waiter(answers: Array<boolean | 'hang' | 'throw'>, random: () => number = () => 0) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const pings: AbortSignal[] = [];
  const pingedAt: number[] = [];
  const wait = healthWaiter({
    clock,
    logger,
    random,
    clients: {
      isHealthy: (options = {}) => {
        const signal = options.signal as AbortSignal;
        pings.push(signal);
        pingedAt.push(clock.monotonic());
        const answer = answers.shift() ?? true;
        if (answer === 'throw') return Promise.reject(new Error('broken isHealthy'));
        if (answer !== 'hang') return Promise.resolve(answer);
        // A ping that only ends when its signal does: the waiter's timeout must end it.
        return new Promise<boolean>((resolve) =>
          signal.addEventListener('abort', () => resolve(false), { once: true }),
        );
      },
    },
  });
  return { clock, logger, pings, pingedAt, wait };
}

describe('healthWaiter', () => {
  it('resolves after one ping when the API answers, logging nothing', async () => {
    const { wait, pings, logger } = waiter([true]);
    await wait({});
    expect(pings).toHaveLength(1);
    expect(logger.entries).toHaveLength(0);
  });

  it('retries after 800 ms, 1.6 s, 3.2 s, then every 3.2 s, warning once per outage', async () => {
    const { clock, wait, pings, pingedAt, logger } = waiter([false, false, false, false, true]);
    let resolved = false;
    const waiting = wait({}).then(() => {
      resolved = true;
    });
    await clock.advance(0);
    expect(pings).toHaveLength(1);
    await clock.advance(799);
    expect(pings).toHaveLength(1);
    await clock.advance(1);
    expect(pings).toHaveLength(2);
    expect(resolved).toBe(false);
    await clock.advance(1_600 + 3_200 + 3_200);
    await waiting;
    expect(pingedAt).toEqual([0, 800, 2_400, 5_600, 8_800]);
    expect(logger.find('API server is not healthy, retrying')).toHaveLength(1);
    expect(logger.find('API server is not healthy, retrying')[0]).toMatchObject({
      level: 'warn',
      attributes: { attempt: 1, delayMs: 800 },
    });
    expect(logger.find('API server still not healthy, retrying')).toHaveLength(3);
    expect(logger.find('API server is healthy again')).toHaveLength(1);
    expect(logger.find('API server is healthy again')[0]?.attributes).toMatchObject({ attempt: 5 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('jitters each delay by at most 25 %', async () => {
    const { clock, wait, pingedAt } = waiter([false, false, false, true], () => 0.999);
    const waiting = wait({});
    await clock.advance(4_000 + 2_000 + 1_000);
    await waiting;
    expect(pingedAt).toEqual([0, 1_000, 3_000, 6_999]);
  });

  it('starts again from 800 ms for a new outage and warns again', async () => {
    const { clock, wait, pingedAt, logger } = waiter([false, false, true, false, true]);
    const first = wait({});
    await clock.advance(800 + 1_600);
    await first;
    const second = wait({});
    await clock.advance(800);
    await second;
    expect(pingedAt).toEqual([0, 800, 2_400, 2_400, 3_200]);
    expect(logger.find('API server is not healthy, retrying')).toHaveLength(2);
    expect(logger.find('API server is healthy again')).toHaveLength(2);
  });

  it('warns once when consecutive waits find the server still down', async () => {
    const { clock, wait, logger } = waiter([false, false, false, true]);
    const stop = new AbortController();
    const first = wait({ signal: stop.signal });
    await clock.advance(800);
    stop.abort(new Error('relisting'));
    await expect(first).rejects.toThrow('relisting');
    const second = wait({});
    await clock.advance(800);
    await second;
    expect(logger.find('API server is not healthy, retrying')).toHaveLength(1);
    expect(logger.find('API server is healthy again')).toHaveLength(1);
  });

  it('bounds each ping by 15 s and counts a throwing isHealthy as unhealthy', async () => {
    const { clock, wait, pings } = waiter(['hang', 'throw', true]);
    const waiting = wait({});
    await clock.advance(healthCheckIntervalMs - 1);
    expect(pings[0]?.aborted).toBe(false);
    await clock.advance(1);
    expect(pings[0]?.aborted).toBe(true);
    await clock.advance(800 + 1_600);
    await waiting;
    expect(pings).toHaveLength(3);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops on its signal, leaving no timer, and rejects at once for an aborted one', async () => {
    const { clock, wait, pings } = waiter([false, false, false]);
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
});
