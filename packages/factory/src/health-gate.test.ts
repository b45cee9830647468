// Unit tests of the cache factory's health gate: one ping loop, 15 s timeout and retry, stops when nobody waits.
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { HealthGate, healthCheckIntervalMs } from './health-gate.ts';

function gate(answers: Array<boolean | 'hang'>, onHealth?: (healthy: boolean) => void) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const pings: AbortSignal[] = [];
  const health = new HealthGate({
    clock,
    logger,
    onHealth,
    isHealthy: ({ signal }) => {
      pings.push(signal);
      const answer = answers.shift() ?? true;
      if (answer !== 'hang') return Promise.resolve(answer);
      // A ping that only ends when its signal does: the gate's timeout must end it.
      return new Promise<boolean>((resolve) =>
        signal.addEventListener('abort', () => resolve(false), { once: true }),
      );
    },
  });
  return { clock, logger, pings, health };
}

describe('HealthGate', () => {
  it('resolves after one ping when the API answers', async () => {
    const { health, pings } = gate([true]);
    await health.wait();
    expect(pings).toHaveLength(1);
  });

  it('pings every 15 s until healthy, once for all waiters', async () => {
    const { clock, health, pings, logger } = gate([false, false, true]);
    let resolved = 0;
    const waiting = Array.from({ length: 5 }, () =>
      health.wait().then(() => {
        resolved++;
      }),
    );
    await clock.advance(0);
    expect(pings).toHaveLength(1);
    await clock.advance(healthCheckIntervalMs);
    expect(pings).toHaveLength(2);
    expect(resolved).toBe(0);
    await clock.advance(healthCheckIntervalMs);
    await Promise.all(waiting);
    expect(pings).toHaveLength(3);
    expect(resolved).toBe(5);
    expect(logger.find('API server is not healthy, retrying')).toHaveLength(2);
    expect(logger.find('API server is healthy again')[0]?.attributes).toMatchObject({ attempt: 3 });
  });

  it('bounds each ping by 15 s', async () => {
    const { clock, health, pings } = gate(['hang', true]);
    const waiting = health.wait();
    await clock.advance(healthCheckIntervalMs);
    expect(pings[0]?.aborted).toBe(true);
    await clock.advance(healthCheckIntervalMs);
    await waiting;
    expect(pings).toHaveLength(2);
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
    await clock.advance(healthCheckIntervalMs);
    expect(pings).toHaveLength(2);
    second.abort(new Error('second gone'));
    await expect(two).rejects.toThrow('second gone');
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(10 * healthCheckIntervalMs);
    expect(pings).toHaveLength(2);
    // A new waiter starts a new loop.
    const again = health.wait();
    await clock.advance(healthCheckIntervalMs);
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
    await clock.advance(healthCheckIntervalMs);
    await waiting;
    expect(outcomes).toEqual([false, true]);
    expect(logger.find('health callback failed')).toHaveLength(2);
  });
});
