import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { isLassoError, TimeoutError } from '@lasso/core';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { type Dispatcher, errors, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { json, type Loopback, startLoopback, status } from '../test/helpers/loopback.ts';
import { Client } from './client.ts';
import { createRestConfig, type RestConfig } from './config/rest-config.ts';
import { isApiError, isConflict, isNotFound, isTooManyRequests } from './errors.ts';
import { isConnectionLoss } from './transport/connection-loss.ts';
import { RestTransport } from './transport.ts';

let server: Loopback | undefined;
let transport: RestTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

/** Headers and the start of a body promising 1000 bytes, then a destroyed socket. */
function cutBody(response: ServerResponse, statusCode: number): void {
  response.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': '1000' });
  response.write('{"kind":"ConfigMapList","items":[');
  setImmediate(() => response.socket?.destroy());
}

function withCode(error: Error, code: string): Error {
  return Object.assign(error, { code });
}

function open(config: Omit<RestConfig, 'server'>, loopback: Loopback): RestTransport {
  transport = new RestTransport(createRestConfig({ server: loopback.url, ...config }));
  return transport;
}

describe('RestTransport', () => {
  it('sends User-Agent, Accept, bearer token and impersonation headers', async () => {
    server = await startLoopback((_request, response) => json(response, 200, { ok: true }));
    const t = open(
      {
        auth: { type: 'token', token: 'abc' },
        impersonation: { user: 'jane', groups: ['g1', 'g2'], extra: { 'scopes/x': ['a', 'b'] } },
      },
      server,
    );
    await expect(
      t.requestJson({ method: 'GET', path: '/api/v1/pods', query: { limit: 5, x: undefined } }),
    ).resolves.toEqual({ ok: true });
    const [request] = server.requests;
    expect(request?.url).toBe('/api/v1/pods?limit=5');
    expect(request?.headers.authorization).toBe('Bearer abc');
    expect(request?.headers['user-agent']).toMatch(/^lasso\/\S+ \(\w+\/\w+\) \S+$/);
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['impersonate-user']).toBe('jane');
    expect(request?.headers['impersonate-group']).toBe('g1, g2');
    expect(request?.headers['impersonate-extra-scopes%2fx']).toBe('a, b');
  });

  it('sends basic auth and keeps the server path prefix', async () => {
    server = await startLoopback((_request, response) => json(response, 200, {}));
    transport = new RestTransport(
      createRestConfig({
        server: `${server.url}/k8s/clusters/c-1/`,
        auth: { type: 'basic', username: 'u', password: 'p' },
      }),
    );
    await transport.requestJson({ method: 'GET', path: '/api' });
    expect(server.requests[0]?.url).toBe('/k8s/clusters/c-1/api');
    expect(server.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('u:p').toString('base64')}`,
    );
  });

  it('gives a plain config whose server has no scheme one, as createRestConfig does', async () => {
    server = await startLoopback((_request, response) => json(response, 200, { ok: true }));
    // No TLS settings: http, as client-go's DefaultServerURL.
    transport = new RestTransport({ server: new URL(server.url).host });
    await expect(transport.requestJson({ method: 'GET', path: '/api' })).resolves.toEqual({
      ok: true,
    });
  });

  it('reuses keep-alive connections for sequential requests', async () => {
    const sockets = new Set<unknown>();
    server = await startLoopback((_request, response, raw) => {
      sockets.add(raw.socket);
      json(response, 200, {});
    });
    const t = open({}, server);
    for (let i = 0; i < 10; i++) await t.requestJson({ method: 'GET', path: '/api' });
    // undici's pool may open a second socket while the first finishes its response; never more.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('keeps reusing connections through retried 429s and error answers (every body is read)', async () => {
    const sockets = new Set<unknown>();
    let throttled = 0;
    server = await startLoopback((request, response, raw) => {
      sockets.add(raw.socket);
      const padding = 'x'.repeat(64 * 1024);
      if (request.url === '/throttled' && ++throttled % 2 === 1) {
        json(response, 429, status(429, 'TooManyRequests', padding), { 'retry-after': '0' });
      } else if (request.url === '/missing') {
        json(response, 404, status(404, 'NotFound', padding));
      } else json(response, 200, { padding });
    });
    const t = open({}, server);
    for (let i = 0; i < 10; i++) {
      await t.requestJson({ method: 'GET', path: '/throttled' });
      await expect(t.requestJson({ method: 'GET', path: '/missing' })).rejects.toSatisfy(
        isNotFound,
      );
    }
    expect(server.requests).toHaveLength(30);
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('counts requests, retries and latency in client-go metrics', async () => {
    const clock = new FakeClock();
    const metrics = createTestMetricsProvider();
    let calls = 0;
    server = await startLoopback((_request, response) => {
      if (++calls === 1)
        json(response, 429, status(429, 'TooManyRequests', 'slow'), { 'retry-after': '1' });
      else json(response, 200, {});
    });
    const t = open({ clock, metrics, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    const host = new URL(server.url).host;
    const result = t.requestJson({ method: 'PUT', path: '/a', body: {} });
    await clock.untilPending();
    await clock.advance(1000);
    await result;
    expect(metrics.value('rest_client_requests_total', { code: '429', method: 'PUT', host })).toBe(
      1,
    );
    expect(metrics.value('rest_client_requests_total', { code: '200', method: 'PUT', host })).toBe(
      1,
    );
    expect(
      metrics.value('rest_client_request_retries_total', { code: '429', verb: 'PUT', host }),
    ).toBe(1);
    expect(
      metrics.observations('rest_client_request_duration_seconds', { verb: 'PUT', host }),
    ).toHaveLength(2);
    const url = server.url;
    await server.close();
    server = undefined;
    await t.close();
    transport = new RestTransport(createRestConfig({ server: url, metrics }));
    await expect(transport.requestJson({ method: 'GET', path: '/a' })).rejects.toSatisfy((e) =>
      isLassoError(e, 'LASSO_CONNECTION_FAILED'),
    );
    expect(
      metrics.value('rest_client_requests_total', { code: '<error>', method: 'GET', host }),
    ).toBe(1);
  });

  it('retries a 429 after its Retry-After on the injected clock', async () => {
    const clock = new FakeClock();
    let calls = 0;
    server = await startLoopback((_request, response) => {
      calls++;
      if (calls <= 2)
        json(response, 429, status(429, 'TooManyRequests', 'slow'), { 'retry-after': '2' });
      else json(response, 200, { done: true });
    });
    const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    const result = t.requestJson({
      method: 'POST',
      path: '/api/v1/namespaces/a/configmaps',
      body: { a: 1 },
    });
    await clock.untilPending();
    await clock.advance(1999);
    expect(calls).toBe(1);
    await clock.advance(1);
    await clock.untilPending();
    expect(calls).toBe(2);
    await clock.advance(2000);
    await expect(result).resolves.toEqual({ done: true });
    expect(server.requests.map((r) => r.body)).toEqual(['{"a":1}', '{"a":1}', '{"a":1}']);
  });

  it('reads a Retry-After HTTP date against the injected clock', async () => {
    const clock = new FakeClock(Date.UTC(2024, 0, 1));
    let calls = 0;
    server = await startLoopback((_request, response) => {
      calls++;
      if (calls === 1) {
        json(response, 429, status(429, 'TooManyRequests', 'slow'), {
          'retry-after': new Date(Date.UTC(2024, 0, 1, 0, 0, 5)).toUTCString(),
        });
      } else json(response, 200, { done: true });
    });
    const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    const result = t.requestJson({ method: 'GET', path: '/x' });
    await clock.untilPending();
    expect(clock.nextTimerAt()).toBe(clock.monotonic() + 5000);
    await clock.advance(5000);
    await expect(result).resolves.toEqual({ done: true });
  });

  it('retries a 503 only when it carries Retry-After', async () => {
    const clock = new FakeClock();
    let calls = 0;
    let withCalls = 0;
    server = await startLoopback((request, response) => {
      calls++;
      if (request.url === '/with' && ++withCalls === 1)
        json(response, 503, status(503, 'ServiceUnavailable', 'x'), { 'retry-after': '1' });
      else if (request.url === '/with') json(response, 200, {});
      else json(response, 503, status(503, 'ServiceUnavailable', 'down'));
    });
    const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    await expect(t.requestJson({ method: 'GET', path: '/without' })).rejects.toMatchObject({
      status: 503,
      reason: 'ServiceUnavailable',
    });
    expect(calls).toBe(1);
    const withHeader = t.requestJson({ method: 'GET', path: '/with' });
    await clock.untilPending();
    await clock.advance(1000);
    await expect(withHeader).resolves.toEqual({});
    expect(calls).toBe(3);
  });

  it('gives up after 10 retries and throws the last 429', async () => {
    const clock = new FakeClock();
    server = await startLoopback((_request, response) =>
      json(response, 429, status(429, 'TooManyRequests', 'still slow'), { 'retry-after': '1' }),
    );
    const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    const result = t.requestJson({ method: 'GET', path: '/api' });
    result.catch(() => {});
    for (let i = 0; i < 10; i++) {
      await clock.untilPending();
      await clock.advance(1000);
    }
    await expect(result).rejects.toSatisfy(
      (error) =>
        isTooManyRequests(error) && (error as { retryAfterMs: number }).retryAfterMs === 1000,
    );
    expect(server.requests).toHaveLength(11);
  });

  it('stops waiting for a retry when the signal aborts', async () => {
    const clock = new FakeClock();
    server = await startLoopback((_request, response) =>
      json(response, 429, status(429, 'TooManyRequests', 'slow'), { 'retry-after': '60' }),
    );
    const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    const controller = new AbortController();
    const result = t.requestJson({ method: 'GET', path: '/api', signal: controller.signal });
    await clock.untilPending();
    await clock.advance(10);
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(result).rejects.toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('times out a short request that gets no answer, on the injected clock', async () => {
    const clock = new FakeClock();
    server = await startLoopback(() => {});
    // A get: the config's timeoutMs is its total deadline (a list has a progress deadline instead).
    const t = open({ clock, timeoutMs: 5000 }, server);
    const result = t.requestJson({ method: 'GET', path: '/api/v1/namespaces/d/pods/p' });
    result.catch(() => {});
    await clock.untilPending();
    await clock.advance(4999);
    await clock.advance(1);
    await expect(result).rejects.toBeInstanceOf(TimeoutError);
    await expect(result).rejects.toThrow('/api/v1/namespaces/d/pods/p');
  });

  it('keeps a conflict as an ApiError and never retries it', async () => {
    server = await startLoopback((_request, response) =>
      json(response, 409, status(409, 'Conflict', 'the object has been modified')),
    );
    const t = open({}, server);
    await expect(t.requestJson({ method: 'PUT', path: '/x', body: {} })).rejects.toSatisfy(
      isConflict,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a 2xx body that is not JSON without quoting the body', async () => {
    server = await startLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data": s3cret-payload}');
    });
    const t = open({}, server);
    const error = await t.requestJson({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_RESPONSE_INVALID')).toBe(true);
    expect((error as Error).message).toBe(
      'get /x: the server answered 200 with a 24-byte body that is not JSON',
    );
    expect(inspect(error, { depth: Number.POSITIVE_INFINITY })).not.toContain('s3cret-payload');
  });

  it('reports a refused connection as LASSO_CONNECTION_FAILED with undici error as cause', async () => {
    server = await startLoopback(() => {});
    const url = server.url;
    await server.close();
    server = undefined;
    transport = new RestTransport(createRestConfig({ server: url }));
    const error = await transport
      .requestJson({ method: 'GET', path: '/api' })
      .catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it.for([
    { name: 'a success body', statusCode: 200 },
    { name: 'an error body', statusCode: 500 },
  ])(
    'reports $name of a POST cut mid-read as LASSO_CONNECTION_FAILED, never retried',
    async ({ statusCode }) => {
      server = await startLoopback((_request, response) => cutBody(response, statusCode));
      const t = open({}, server);
      const error = await t
        .requestJson({ method: 'POST', path: '/x', body: {} })
        .catch((e: unknown) => e);
      expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(server.requests).toHaveLength(1);
    },
  );

  describe('a lost connection', () => {
    it.for([
      { name: 'reset before the answer', fault: 'reset' },
      { name: 'closed before the answer', fault: 'close' },
      { name: 'cut mid-body', fault: 'cut' },
    ] as const)(
      'retries a GET $name after 1 s on the clock, counted and logged',
      async ({ fault }) => {
        const clock = new FakeClock();
        const metrics = createTestMetricsProvider();
        const logger = createTestLogger();
        let calls = 0;
        server = await startLoopback((_request, response, raw) => {
          if (++calls > 1) json(response, 200, { kind: 'ConfigMapList', items: [] });
          else if (fault === 'reset') raw.socket.resetAndDestroy();
          else if (fault === 'close') raw.socket.destroy();
          else cutBody(response, 200);
        });
        const t = open({ clock, metrics, logger, timeoutMs: 0, progressTimeoutMs: 0 }, server);
        const result = t.requestJson({ method: 'GET', path: '/api/v1/configmaps' });
        await clock.untilPending();
        expect(calls).toBe(1);
        expect(clock.nextTimerAt()).toBe(clock.monotonic() + 1000);
        await clock.advance(1000);
        await expect(result).resolves.toEqual({ kind: 'ConfigMapList', items: [] });
        expect(calls).toBe(2);
        const host = new URL(server.url).host;
        expect(
          metrics.value('rest_client_request_retries_total', {
            code: '<error>',
            verb: 'GET',
            host,
          }),
        ).toBe(1);
        const [entry] = logger.find('connection lost, retrying');
        expect(entry?.attributes).toMatchObject({ path: '/api/v1/configmaps', attempt: 1 });
        expect(clock.pendingTimers()).toBe(0);
      },
    );

    it.for(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
      'never retries a %s that may have reached the server',
      async (method) => {
        server = await startLoopback((_request, _response, raw) => {
          raw.socket.resetAndDestroy();
        });
        const clock = new FakeClock();
        const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
        const error = await t
          .requestJson({ method, path: '/x', body: {} })
          .catch((e: unknown) => e);
        expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
        expect(server.requests).toHaveLength(1);
        expect(clock.pendingTimers()).toBe(0);
      },
    );

    it('never retries a watch stream (the Reflector lists again)', async () => {
      server = await startLoopback((_request, _response, raw) => {
        raw.socket.resetAndDestroy();
      });
      const clock = new FakeClock();
      const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
      const error = await t
        .stream({ method: 'GET', path: '/api/v1/pods', query: { watch: 'true' } })
        .catch((e: unknown) => e);
      expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('gives up after 10 retries and throws the last connection failure', async () => {
      const clock = new FakeClock();
      server = await startLoopback((_request, _response, raw) => {
        raw.socket.destroy();
      });
      const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
      const result = t.requestJson({ method: 'GET', path: '/api' });
      result.catch(() => {});
      for (let i = 0; i < 10; i++) {
        await clock.untilPending();
        await clock.advance(1000);
      }
      await expect(result).rejects.toSatisfy((e) => isLassoError(e, 'LASSO_CONNECTION_FAILED'));
      expect(server.requests).toHaveLength(11);
    });

    it('stops waiting for the retry when the signal aborts', async () => {
      const clock = new FakeClock();
      server = await startLoopback((_request, _response, raw) => {
        raw.socket.destroy();
      });
      const t = open({ clock, timeoutMs: 0, progressTimeoutMs: 0 }, server);
      const controller = new AbortController();
      const result = t.requestJson({ method: 'GET', path: '/api', signal: controller.signal });
      await clock.untilPending();
      const reason = new Error('shutting down');
      controller.abort(reason);
      await expect(result).rejects.toBe(reason);
      expect(clock.pendingTimers()).toBe(0);
      expect(server.requests).toHaveLength(1);
    });

    it.for([
      {
        name: 'ECONNRESET',
        error: withCode(new Error('read ECONNRESET'), 'ECONNRESET'),
        retried: true,
      },
      { name: 'EPIPE', error: withCode(new Error('write EPIPE'), 'EPIPE'), retried: true },
      {
        name: 'other side closed',
        error: new errors.SocketError('other side closed'),
        retried: true,
      },
      { name: 'socket closed', error: new errors.SocketError('closed'), retried: true },
      { name: 'short body', error: new errors.ResponseContentLengthMismatchError(), retried: true },
      {
        name: 'a reset as cause',
        error: new Error('fetch failed', { cause: withCode(new Error('reset'), 'ECONNRESET') }),
        retried: true,
      },
      { name: 'a malformed answer', error: new errors.SocketError('bad response'), retried: false },
      {
        name: 'ECONNREFUSED',
        error: withCode(new Error('connect ECONNREFUSED'), 'ECONNREFUSED'),
        retried: false,
      },
      { name: 'a connect timeout', error: new errors.ConnectTimeoutError(), retried: false },
      {
        name: 'a TLS failure',
        error: withCode(new Error('bad cert'), 'CERT_HAS_EXPIRED'),
        retried: false,
      },
    ])('classifies $name from the dispatcher (retried: $retried)', async ({ error, retried }) => {
      const clock = new FakeClock();
      let calls = 0;
      const dispatcher = {
        request: async () => {
          calls++;
          if (calls === 1) throw error;
          return {
            statusCode: 200,
            headers: {},
            body: Object.assign(
              (async function* () {
                yield Buffer.from('{"ok":true}');
              })(),
              { destroy: () => {} },
            ),
          };
        },
        close: async () => {},
      } as unknown as Dispatcher;
      transport = new RestTransport(
        createRestConfig({
          server: 'https://cluster.invalid',
          clock,
          dispatcher,
          timeoutMs: 0,
          progressTimeoutMs: 0,
        }),
      );
      const result = transport.requestJson({ method: 'GET', path: '/x' });
      result.catch(() => {});
      if (retried) {
        await clock.untilPending();
        await clock.advance(1000);
        await expect(result).resolves.toEqual({ ok: true });
        expect(calls).toBe(2);
      } else {
        await expect(result).rejects.toSatisfy((e) => isLassoError(e, 'LASSO_CONNECTION_FAILED'));
        expect(calls).toBe(1);
        expect(isConnectionLoss(error)).toBe(false);
      }
    });
  });

  it('re-reads a token file after a 401 and retries once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lasso-token-'));
    try {
      const file = join(dir, 'token');
      await writeFile(file, 'old\n');
      server = await startLoopback((request, response) => {
        if (request.headers.authorization === 'Bearer new') json(response, 200, { ok: 1 });
        else json(response, 401, status(401, 'Unauthorized', 'Unauthorized'));
      });
      const t = open({ auth: { type: 'tokenFile', path: file } }, server);
      await expect(t.requestJson({ method: 'GET', path: '/a' })).rejects.toSatisfy(isApiError);
      expect(server.requests).toHaveLength(2);
      await writeFile(file, 'new\n');
      await expect(t.requestJson({ method: 'GET', path: '/a' })).resolves.toEqual({ ok: 1 });
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer old',
        'Bearer old',
        'Bearer old',
        'Bearer new',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs the exec plugin again after a 401 and retries with the new token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lasso-exec401-'));
    try {
      const script = join(dir, 'plugin.cjs');
      await writeFile(
        script,
        `const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(join(dir, 'runs'))}, 'x');
const n = fs.readFileSync(${JSON.stringify(join(dir, 'runs'))}, 'utf8').length;
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 'token-' + n } }));`,
      );
      server = await startLoopback((request, response) => {
        if (request.headers.authorization === 'Bearer token-2') json(response, 200, { ok: 1 });
        else json(response, 401, status(401, 'Unauthorized', 'Unauthorized'));
      });
      const t = open(
        {
          auth: {
            type: 'exec',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: process.execPath,
              args: [script],
            },
          },
        },
        server,
      );
      await expect(t.requestJson({ method: 'GET', path: '/a' })).resolves.toEqual({ ok: 1 });
      await expect(t.requestJson({ method: 'GET', path: '/a' })).resolves.toEqual({ ok: 1 });
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer token-1',
        'Bearer token-2',
        'Bearer token-2',
      ]);
      expect(t.execProvider?.runs).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('spawns the exec plugin once for concurrent first requests', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lasso-exec-once-'));
    try {
      const script = join(dir, 'plugin.cjs');
      await writeFile(
        script,
        `require('node:fs').appendFileSync(${JSON.stringify(join(dir, 'runs'))}, 'x');
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'only' } }));`,
      );
      server = await startLoopback((_request, response) => json(response, 200, { ok: 1 }));
      const t = open(
        {
          auth: {
            type: 'exec',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [script],
            },
          },
        },
        server,
      );
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.requestJson({ method: 'GET', path: `/${i}` })),
      );
      expect(await readFile(join(dir, 'runs'), 'utf8')).toBe('x');
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(
        Array.from({ length: 8 }, () => 'Bearer only'),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does not throw away a refreshed exec credential when a late 401 answers the old one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lasso-exec401-'));
    try {
      const script = join(dir, 'plugin.cjs');
      await writeFile(
        script,
        `const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(join(dir, 'runs'))}, 'x');
const n = fs.readFileSync(${JSON.stringify(join(dir, 'runs'))}, 'utf8').length;
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'token-' + n } }));`,
      );
      // Two requests go out with token-1. The first is refused at once; the second's 401 is held
      // back until the refreshed token-2 has been accepted, as a slow server would answer it.
      let heldBack: (() => void) | undefined;
      let refusedFirst = false;
      server = await startLoopback((request, response) => {
        if (request.headers.authorization === 'Bearer token-1') {
          const refuse = () => json(response, 401, status(401, 'Unauthorized', 'Unauthorized'));
          if (!refusedFirst) {
            refusedFirst = true;
            refuse();
          } else {
            heldBack = refuse;
          }
          return;
        }
        json(response, 200, { ok: 1 });
        heldBack?.();
        heldBack = undefined;
      });
      const t = open(
        {
          auth: {
            type: 'exec',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [script],
            },
          },
        },
        server,
      );
      await t.execProvider?.credential();
      const results = await Promise.all([
        t.requestJson({ method: 'GET', path: '/a' }),
        t.requestJson({ method: 'GET', path: '/b' }),
      ]);
      expect(results).toEqual([{ ok: 1 }, { ok: 1 }]);
      expect(t.execProvider?.runs).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('limits requests with the client-side token bucket when qps is set', async () => {
    const clock = new FakeClock();
    server = await startLoopback((_request, response) => json(response, 200, {}));
    const t = open({ clock, qps: 1, burst: 2, timeoutMs: 0, progressTimeoutMs: 0 }, server);
    const results = [0, 1, 2].map(() => t.requestJson({ method: 'GET', path: '/a' }));
    await Promise.all(results.slice(0, 2));
    await clock.untilPending();
    expect(server.requests).toHaveLength(2);
    await clock.advance(1000);
    await results[2];
    expect(server.requests).toHaveLength(3);
  });

  it('never shows the secrets of a plain-object config in util.inspect or JSON of a transport or client', async () => {
    // A spread copy of a loaded config (`{ ...rest, timeoutMs: 0, progressTimeoutMs: 0 }`) loses the redacting hooks.
    for (const auth of [
      { type: 'token', token: 's3cr3t-token' },
      { type: 'basic', username: 'u', password: 's3cr3t-password' },
    ] as const) {
      const config: RestConfig = {
        server: 'https://k8s.example:6443',
        auth,
        tls: { certPem: 'CERT', keyPem: 's3cr3t-key' },
      };
      transport = new RestTransport(config);
      const client = new Client({
        gvr: { group: '', version: 'v1', resource: 'configmaps' },
        kind: 'ConfigMap',
        namespaced: true,
        rest: transport,
      });
      for (const printed of [
        inspect(transport, { depth: Number.POSITIVE_INFINITY }),
        inspect(client, { depth: Number.POSITIVE_INFINITY }),
        inspect({ nested: { client } }, { depth: Number.POSITIVE_INFINITY }),
        JSON.stringify(client),
      ]) {
        expect(printed).not.toMatch(/s3cr3t/);
        expect(printed).toContain('k8s.example:6443');
      }
      await transport.close();
    }
    transport = undefined;
  });

  it('sends through an injected dispatcher (undici MockAgent)', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://k8s.example:6443')
      .intercept({
        path: '/apis/apps/v1/deployments',
        method: 'GET',
        headers: { authorization: 'Bearer t' },
      })
      .reply(200, { kind: 'DeploymentList', items: [] });
    transport = new RestTransport(
      createRestConfig({
        server: 'https://k8s.example:6443',
        auth: { type: 'token', token: 't' },
        dispatcher: agent,
      }),
    );
    await expect(
      transport.requestJson({ method: 'GET', path: '/apis/apps/v1/deployments' }),
    ).resolves.toEqual({
      kind: 'DeploymentList',
      items: [],
    });
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});
