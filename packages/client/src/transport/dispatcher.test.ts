// createDispatcher loads undici's classes by file, never its index (4.8 MiB of heap against 1.9 MiB): an import of
// 'undici' from here fails this file. Requests then need what the index would have added to every Dispatcher:
// request() for the transport, connect() for a ProxyAgent's CONNECT.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, type Loopback, startLoopback } from '../../test/helpers/loopback.ts';
import { type LoopbackProxy, startProxy } from '../../test/helpers/proxy.ts';
import { createDispatcher } from './dispatcher.ts';

vi.mock('undici', () => {
  throw new Error("undici's index was loaded: import its files by path (dispatcher.ts says why)");
});

describe('createDispatcher without undici index', () => {
  const opened: Array<Loopback | LoopbackProxy> = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((server) => server.close()));
  });

  async function requestThrough(proxyUrl?: string): Promise<{ loopback: Loopback; body: unknown }> {
    const loopback = await startLoopback((_request, response) => json(response, 200, { ok: true }));
    opened.push(loopback);
    const dispatcher = createDispatcher(
      { server: loopback.url, ...(proxyUrl !== undefined ? { proxyUrl } : {}) },
      undefined,
    );
    try {
      const response = await dispatcher.request({
        origin: loopback.url,
        path: '/api',
        method: 'GET',
      });
      return { loopback, body: await response.body.json() };
    } finally {
      await dispatcher.close();
    }
  }

  it('sends a request through its Agent', async () => {
    const { loopback, body } = await requestThrough();
    expect(body).toEqual({ ok: true });
    expect(loopback.requests.map((request) => request.url)).toEqual(['/api']);
  });

  it('tunnels a request through its ProxyAgent with CONNECT', async () => {
    const proxy = await startProxy();
    opened.push(proxy);
    const { loopback, body } = await requestThrough(proxy.url);
    expect(body).toEqual({ ok: true });
    expect(proxy.connects).toEqual([new URL(loopback.url).host]);
  });
});
