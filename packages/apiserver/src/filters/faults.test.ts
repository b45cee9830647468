import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import { FaultState } from '../faults/fault-injector.ts';
import { fakeExchange, recordingNext } from './__fixtures__/exchange.ts';
import { type FaultFilterOptions, withFaults } from './faults.ts';

function setup(overrides: Partial<FaultFilterOptions> = {}) {
  const faults = new FaultState({
    closeWatches: () => {},
    sendBookmarks: () => {},
    expireHistory: () => {},
    restart: async () => {},
  });
  const delays: number[] = [];
  const options: FaultFilterOptions = {
    faults,
    delay: async (ms) => {
      delays.push(ms);
    },
    isStopped: () => false,
    ...overrides,
  };
  return { faults, delays, filter: withFaults(options) };
}

describe('withFaults', () => {
  it('passes a request no fault matches straight on', async () => {
    const { filter, delays } = setup();
    const next = recordingNext();
    const { exchange } = fakeExchange({ target: '/api/v1/pods' });
    await filter(next)(exchange);
    expect(next.calls).toEqual([exchange]);
    expect(delays).toEqual([]);
    expect(exchange.cutAfter).toBeUndefined();
  });

  it('fails a matching request with the injected Status and Retry-After, once per count', async () => {
    const { filter, faults } = setup();
    faults.failNext(1, { method: 'GET', path: '/api/v1/pods', status: 429, retryAfterSeconds: 3 });
    const next = recordingNext();
    const first = fakeExchange({ target: '/api/v1/pods' });
    const error = await filter(next)(first.exchange).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      message: 'injected fault: TooManyRequests',
      details: { retryAfterSeconds: 3 },
    });
    expect((error as StatusError).headers).toEqual({ 'Retry-After': '3' });
    expect(first.resumed()).toBe(true);
    await filter(next)(fakeExchange({ target: '/api/v1/pods' }).exchange);
    expect(next.calls).toHaveLength(1);
  });

  it('waits the matching latency on the injected delay, and tells a watch from a list', async () => {
    const { filter, faults, delays } = setup();
    faults.setLatency(250, { watch: true });
    const next = recordingNext();
    await filter(next)(fakeExchange({ target: '/api/v1/pods' }).exchange);
    await filter(next)(fakeExchange({ target: '/api/v1/pods?watch=1' }).exchange);
    await filter(next)(fakeExchange({ target: '/api/v1/watch/pods' }).exchange);
    expect(delays).toEqual([250, 250]);
    expect(next.calls).toHaveLength(3);
  });

  it('drops the request when the server stops during the delay', async () => {
    let stopped = false;
    const { filter, faults } = setup({
      delay: async () => {
        stopped = true;
      },
      isStopped: () => stopped,
    });
    faults.setLatency(100);
    const next = recordingNext();
    const { exchange, response } = fakeExchange();
    await filter(next)(exchange);
    expect(next.calls).toEqual([]);
    expect(response.destroyed).toBe(true);
  });

  it('marks the answer of a matching request to be cut after the injected bytes', async () => {
    const { filter, faults } = setup();
    faults.cutNext(1, { afterBytes: 7 });
    const next = recordingNext();
    const { exchange } = fakeExchange();
    await filter(next)(exchange);
    expect(exchange.cutAfter).toBe(7);
  });
});
