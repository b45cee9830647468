// The fault API of the built-in server, on the wire.
import * as net from 'node:net';
import { FakeClock } from '@lasso/core/testing';
import { call, configMap, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApiServer, createApiServer } from '../src/index.ts';

let server: ApiServer;
const cms = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = createApiServer();
  await server.start(new AbortController().signal);
});

beforeEach(() => {
  server.faults.reset();
});

afterAll(async () => {
  await server?.close();
});

function connectRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('FaultInjector', () => {
  it('fails the next N matching requests with a Status and Retry-After', async () => {
    server.faults.failNext(2, {
      method: 'GET',
      path: cms,
      status: 429,
      retryAfterSeconds: 3,
    });
    const other = await call(server, 'GET', '/version');
    expect(other.status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await call(server, 'GET', cms);
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toBe('3');
      expect(reply.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'TooManyRequests',
        code: 429,
        details: { retryAfterSeconds: 3 },
      });
    }
    expect((await call(server, 'GET', cms)).status).toBe(200);
  });

  it('uses the given reason and message and matches paths by RegExp', async () => {
    server.faults.failNext(1, {
      path: /\/configmaps$/,
      status: 503,
      reason: 'ServiceUnavailable',
      message: 'try later',
    });
    const reply = await call(server, 'GET', cms);
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ reason: 'ServiceUnavailable', message: 'try later' });
  });

  it('matches only watch requests when asked to', async () => {
    server.faults.failNext(1, { watch: true, status: 500 });
    expect((await call(server, 'GET', cms)).status).toBe(200);
    const stream = await watch(server, `${cms}?watch=1`);
    expect(stream.status).toBe(500);
    stream.close();
  });

  // The delay itself is measured on a FakeClock in src/server/server.test.ts.
  it('lets requests through again once the latency is removed', async () => {
    // A latency far beyond the test timeout: removing it must let the request through.
    server.faults.setLatency(600_000, { path: cms });
    server.faults.setLatency(0, { path: cms });
    expect((await call(server, 'GET', cms)).status).toBe(200);
  });

  it('cuts the next response after the given number of body bytes', async () => {
    await call(server, 'POST', cms, { body: configMap('cut-me', { a: 'x'.repeat(200) }) });
    server.faults.cutNext(1, { path: `${cms}/cut-me`, afterBytes: 10 });
    await expect(call(server, 'GET', `${cms}/cut-me`)).rejects.toThrow();
    expect((await call(server, 'GET', `${cms}/cut-me`)).status).toBe(200);
  });

  it('cuts a watch stream mid-event', async () => {
    server.faults.cutNext(1, { watch: true, afterBytes: 5 });
    const stream = await watch(server, `${cms}?watch=1&resourceVersion=0`);
    expect(await stream.ended).toBe(false);
  });

  it('restarts on the same port with the same state, refusing connections while down', async () => {
    // Its own server on a FakeClock: the downtime ends when the test says so. On real time, a 200 ms downtime
    // could pass before the connection attempt on a loaded machine, and the refusal went unseen.
    const downMs = 4_321;
    const clock = new FakeClock();
    const restartable = createApiServer({ clock, insecureHttp: true });
    await restartable.start(new AbortController().signal);
    try {
      await call(restartable, 'POST', cms, { body: configMap('survives-restart') });
      const rv = restartable.currentResourceVersion();
      const stream = await watch(restartable, `${cms}?watch=1`);
      // The downtime's timer is scheduled once the listener and every connection are closed.
      const down = clock.scheduled(downMs);
      const restarting = restartable.faults.restart({ downMs });
      expect(await stream.ended).toBe(false);
      await down;
      expect(await connectRefused(restartable.url)).toBe(true);
      await clock.advance(downMs - 1);
      expect(await connectRefused(restartable.url)).toBe(true);
      await clock.advance(1);
      await restarting;
      const reply = await call(restartable, 'GET', `${cms}/survives-restart`);
      expect(reply.status).toBe(200);
      expect(restartable.currentResourceVersion()).toBe(rv);
    } finally {
      await restartable.close();
    }
  });

  it('removes pending faults on reset()', async () => {
    server.faults.failNext(5, { status: 500 });
    server.faults.setLatency(1_000);
    server.faults.reset();
    expect((await call(server, 'GET', cms)).status).toBe(200);
  });

  it('rejects bad arguments with RangeError', () => {
    expect(() => server.faults.failNext(-1, { status: 500 })).toThrow(RangeError);
    expect(() => server.faults.failNext(1, { status: 42 })).toThrow(RangeError);
    expect(() => server.faults.setLatency(-5)).toThrow(RangeError);
    expect(() => server.faults.cutNext(1, { afterBytes: -1 })).toThrow(RangeError);
  });
});
