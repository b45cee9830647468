// Conformance of the fault API (built-in server only; skipped against real API servers).
import * as net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Environment, startEnvironment } from '../../src/index.ts';
import { call, configMap, watch } from './helpers.ts';

let env: Environment;
let cms: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  cms = `/api/v1/namespaces/${env.namespace}/configmaps`;
});

beforeEach(({ skip }) => {
  if (env.server === undefined) skip('fault API needs the built-in server');
  env.server?.faults.reset();
});

afterAll(async () => {
  await env?.stop();
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
    env.server!.faults.failNext(2, {
      method: 'GET',
      path: cms,
      status: 429,
      retryAfterSeconds: 3,
    });
    const other = await call(env, 'GET', '/version');
    expect(other.status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await call(env, 'GET', cms);
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
    expect((await call(env, 'GET', cms)).status).toBe(200);
  });

  it('uses the given reason and message and matches paths by RegExp', async () => {
    env.server!.faults.failNext(1, {
      path: /\/configmaps$/,
      status: 503,
      reason: 'ServiceUnavailable',
      message: 'try later',
    });
    const reply = await call(env, 'GET', cms);
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ reason: 'ServiceUnavailable', message: 'try later' });
  });

  it('matches only watch requests when asked to', async () => {
    env.server!.faults.failNext(1, { watch: true, status: 500 });
    expect((await call(env, 'GET', cms)).status).toBe(200);
    const stream = await watch(env, `${cms}?watch=1`);
    expect(stream.status).toBe(500);
    stream.close();
  });

  // The delay itself is measured on a FakeClock in src/server/server.test.ts.
  it('lets requests through again once the latency is removed', async () => {
    // A latency far beyond the test timeout: removing it must let the request through.
    env.server!.faults.setLatency(600_000, { path: cms });
    env.server!.faults.setLatency(0, { path: cms });
    expect((await call(env, 'GET', cms)).status).toBe(200);
  });

  it('cuts the next response after the given number of body bytes', async () => {
    await call(env, 'POST', cms, { body: configMap('cut-me', { a: 'x'.repeat(200) }) });
    env.server!.faults.cutNext(1, { path: `${cms}/cut-me`, afterBytes: 10 });
    await expect(call(env, 'GET', `${cms}/cut-me`)).rejects.toThrow();
    expect((await call(env, 'GET', `${cms}/cut-me`)).status).toBe(200);
  });

  it('cuts a watch stream mid-event', async () => {
    env.server!.faults.cutNext(1, { watch: true, afterBytes: 5 });
    const stream = await watch(env, `${cms}?watch=1&resourceVersion=0`);
    expect(await stream.ended).toBe(false);
  });

  it('restarts on the same port with the same state, refusing connections while down', async () => {
    await call(env, 'POST', cms, { body: configMap('survives-restart') });
    const rv = env.server!.currentResourceVersion();
    const stream = await watch(env, `${cms}?watch=1`);
    const restarting = env.server!.faults.restart({ downMs: 200 });
    expect(await stream.ended).toBe(false);
    expect(await connectRefused(env.server!.url)).toBe(true);
    await restarting;
    const reply = await call(env, 'GET', `${cms}/survives-restart`);
    expect(reply.status).toBe(200);
    expect(env.server!.currentResourceVersion()).toBe(rv);
  });

  it('removes pending faults on reset()', async () => {
    env.server!.faults.failNext(5, { status: 500 });
    env.server!.faults.setLatency(1_000);
    env.server!.faults.reset();
    expect((await call(env, 'GET', cms)).status).toBe(200);
  });

  it('rejects bad arguments with RangeError', () => {
    expect(() => env.server!.faults.failNext(-1, { status: 500 })).toThrow(RangeError);
    expect(() => env.server!.faults.failNext(1, { status: 42 })).toThrow(RangeError);
    expect(() => env.server!.faults.setLatency(-5)).toThrow(RangeError);
    expect(() => env.server!.faults.cutNext(1, { afterBytes: -1 })).toThrow(RangeError);
  });
});
