import { describe, expect, it } from 'vitest';
import type { WatchStreams } from '../endpoints/watch-stream.ts';
import type { ApiRequest, ApiResult } from '../registry/server-context.ts';
import type { RequestInfo } from '../request/request-info.ts';
import { requestInfo } from '../request/request-info.ts';
import type { WatchPlan } from '../storage/watch-fanout.ts';
import { fakeExchange } from './__fixtures__/exchange.ts';
import { dispatch } from './dispatch.ts';

/** An API that answers `result` and records what it was handed. */
function api(result: ApiResult) {
  const calls: Array<{ info: RequestInfo; request: ApiRequest }> = [];
  return {
    calls,
    handleAdmitted: async (info: RequestInfo, request: ApiRequest) => {
      calls.push({ info, request });
      return result;
    },
  };
}

const noWatches = {
  serve: () => {
    throw new Error('no watch expected');
  },
} as unknown as WatchStreams;

function classified(method: string, target: string, body = '') {
  const made = fakeExchange({ method, target, headers: { 'Content-Type': 'application/json' } });
  made.exchange.body = Buffer.from(body);
  made.exchange.user = { name: 'bob', groups: ['system:authenticated'] };
  made.exchange.info = requestInfo(made.exchange.method, made.exchange.url);
  return made;
}

describe('dispatch', () => {
  it('hands the API the RequestInfo and, beside it, the request with its user and body', async () => {
    const core = api({ type: 'json', code: 201, body: { kind: 'ConfigMap' } });
    const { exchange } = classified('POST', '/api/v1/namespaces/ns/configmaps', '{}');
    await dispatch(core, noWatches)(exchange);
    expect(core.calls).toHaveLength(1);
    const [{ info, request }] = core.calls as [{ info: RequestInfo; request: ApiRequest }];
    expect(info).toBe(exchange.info);
    expect(request).toMatchObject({ method: 'POST', user: exchange.user, body: exchange.body });
  });

  it('writes a JSON answer with one Warning header per warning', async () => {
    const core = api({
      type: 'json',
      code: 200,
      body: { a: 1 },
      warnings: ['299 - "w1"', '299 - "w2"'],
    });
    const { exchange, response } = classified('GET', '/api/v1/namespaces');
    await dispatch(core, noWatches)(exchange);
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/json',
      Warning: ['299 - "w1"', '299 - "w2"'],
    });
    expect(JSON.parse(response.body.toString())).toEqual({ a: 1 });
  });

  it('writes text as text/plain and a raw answer with its own type and headers', async () => {
    const text = classified('GET', '/healthz');
    await dispatch(api({ type: 'text', code: 200, body: 'ok' }), noWatches)(text.exchange);
    expect(text.response.headers).toMatchObject({ 'Content-Type': 'text/plain; charset=utf-8' });
    expect(text.response.body.toString()).toBe('ok');
    const raw = classified('GET', '/openapi/v2');
    const answer: ApiResult = {
      type: 'raw',
      code: 200,
      contentType: 'application/octet-stream',
      headers: { ETag: '"x"' },
      body: new Uint8Array([1, 2]),
    };
    await dispatch(api(answer), noWatches)(raw.exchange);
    expect(raw.response.headers).toMatchObject({
      'Content-Type': 'application/octet-stream',
      ETag: '"x"',
    });
    expect([...raw.response.body]).toEqual([1, 2]);
  });

  it('hands a watch plan to the watch streams with the response and the injected cut', async () => {
    const plan = { key: 'k' } as unknown as WatchPlan;
    const served: unknown[][] = [];
    const watches = { serve: (...args: unknown[]) => served.push(args) } as unknown as WatchStreams;
    const { exchange, response } = classified('GET', '/api/v1/pods?watch=1');
    exchange.cutAfter = 5;
    await dispatch(api({ type: 'watch', plan }), watches)(exchange);
    expect(served).toEqual([[plan, exchange.response, 5]]);
    expect(response.status).toBeUndefined();
  });

  it('refuses to run before authorization classified the request', async () => {
    const { exchange } = fakeExchange();
    await expect(
      dispatch(api({ type: 'text', code: 200, body: '' }), noWatches)(exchange),
    ).rejects.toThrow('dispatch before authorization classified the request');
  });
});
