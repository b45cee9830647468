// createDispatcher loads undici's classes by file, not its index (4.8 MiB of heap against 1.9 MiB), and falls back
// to the index when a release moved the files. Requests then need what the index would have added to every
// Dispatcher: request() for the transport, connect() for a ProxyAgent's CONNECT.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { json, type Loopback, startLoopback } from '../../test/helpers/loopback.ts';
import { type LoopbackProxy, startProxy } from '../../test/helpers/proxy.ts';
import { createDispatcher, loadUndiciParts } from './dispatcher.ts';

const nodeRequire = createRequire(import.meta.url);

describe('loadUndiciParts', () => {
  it('loads undici by file, never its index', () => {
    const asked: string[] = [];
    const parts = loadUndiciParts((id) => {
      asked.push(id);
      return nodeRequire(id);
    });
    expect(parts.via).toBe('file');
    expect(asked).not.toContain('undici');
    expect(typeof parts.Agent).toBe('function');
    expect(typeof new parts.Agent().request).toBe('function');
  });

  it('falls back to the index when a release moved the files', () => {
    const parts = loadUndiciParts((id) => {
      if (id !== 'undici') {
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      }
      return nodeRequire(id);
    });
    expect(parts.via).toBe('index');
    expect(parts.Agent).toBe((nodeRequire('undici') as { Agent: unknown }).Agent);
  });
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
