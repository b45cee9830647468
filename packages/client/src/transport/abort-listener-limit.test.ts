import { defaultMaxListeners, getMaxListeners, setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { useClients } from '../../test/helpers/clients.ts';
import { allowConcurrentRequests, requestSignalMaxListeners } from './abort-listener-limit.ts';

const clients = useClients();

describe('allowConcurrentRequests', () => {
  it("raises a signal's listener limit from Node's default, keeps one its owner set, and ignores a look-alike", () => {
    const fresh = new AbortController().signal;
    // Node 20 gives an AbortSignal the limit of 10; Node 22 and later give it 0 (no limit, no warning): kept.
    const nodeDefault = getMaxListeners(fresh);
    allowConcurrentRequests(fresh);
    expect(getMaxListeners(fresh)).toBe(
      nodeDefault === defaultMaxListeners ? requestSignalMaxListeners : nodeDefault,
    );
    const owned = new AbortController().signal;
    setMaxListeners(3, owned);
    allowConcurrentRequests(owned);
    expect(getMaxListeners(owned)).toBe(3);
    expect(() => allowConcurrentRequests({ aborted: false } as AbortSignal)).not.toThrow();
    expect(() => allowConcurrentRequests(undefined)).not.toThrow();
  });

  it('lets a caller run more than ten requests at once on one signal without a listener-leak warning', async () => {
    const concurrent = 16;
    let release = (): void => {};
    const allArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = 0;
    const server = await clients.serve(async (_request, response) => {
      arrived++;
      if (arrived === concurrent) release();
      await allArrived;
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    });
    const transport = clients.transport(server, { timeoutMs: 30_000 });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      await Promise.all(
        Array.from({ length: concurrent }, () =>
          transport.requestJson({ method: 'GET', path: '/api', signal }),
        ),
      );
      // Node emits a process warning on a later tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(arrived).toBe(concurrent);
    expect(warnings.filter((name) => name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
