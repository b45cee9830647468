import { FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { call, watch } from '../../test/conformance/helpers.ts';
import type { Environment } from '../index.ts';
import { type RunningLocalApiServer, startLocalApiServer } from './server.ts';

const servers: RunningLocalApiServer[] = [];

async function start(clock: FakeClock, bookmarkIntervalMs = 1_000) {
  const server = await startLocalApiServer({ clock, insecureHttp: true, bookmarkIntervalMs });
  servers.push(server);
  // The wire helpers only need the credentials of an environment.
  return { server, env: { credentials: server.credentials } as Environment };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

describe('startLocalApiServer', () => {
  it('stamps creationTimestamp from the injected clock', async () => {
    const clock = new FakeClock(Date.UTC(2030, 4, 6, 7, 8, 9));
    const { env } = await start(clock);
    const reply = await call(env, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stamped' } },
    });
    expect(reply.body.metadata.creationTimestamp).toBe('2030-05-06T07:08:09Z');
  });

  it('sends a periodic BOOKMARK each bookmarkIntervalMs on the clock', async () => {
    const clock = new FakeClock();
    const { env, server } = await start(clock, 1_000);
    const rv = server.currentResourceVersion();
    const stream = await watch(
      env,
      `/api/v1/namespaces?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`,
    );
    await clock.advance(999);
    await call(env, 'GET', '/version');
    expect(stream.events).toEqual([]);
    await clock.advance(1);
    const first = await stream.next();
    expect(first).toMatchObject({
      type: 'BOOKMARK',
      object: { kind: 'Namespace', metadata: { resourceVersion: server.currentResourceVersion() } },
    });
    await clock.advance(1_000);
    expect((await stream.next()).type).toBe('BOOKMARK');
    stream.close();
  });

  it('ends a watch cleanly when timeoutSeconds pass on the clock', async () => {
    const clock = new FakeClock();
    const { env } = await start(clock);
    const stream = await watch(env, '/api/v1/namespaces?watch=1&timeoutSeconds=30');
    await clock.advance(29_999);
    await call(env, 'GET', '/version');
    let ended = false;
    void stream.ended.then(() => {
      ended = true;
    });
    await call(env, 'GET', '/version');
    expect(ended).toBe(false);
    await clock.advance(1);
    expect(await stream.ended).toBe(true);
  });

  it('holds matching responses for the injected latency on the clock', async () => {
    const clock = new FakeClock();
    const { env, server } = await start(clock);
    const path = '/api/v1/namespaces/default/configmaps';
    server.faults.setLatency(150, { path });
    let answered = false;
    const reply = call(env, 'GET', path).then((result) => {
      answered = true;
      return result;
    });
    // /version goes out on a second connection after the held request reached the server.
    await call(env, 'GET', '/version');
    await clock.advance(149);
    expect(answered).toBe(false);
    await clock.advance(1);
    expect((await reply).status).toBe(200);
  });

  it('refuses dryRun writes instead of persisting them', async () => {
    const { env } = await start(new FakeClock());
    const path = '/api/v1/namespaces/default/configmaps';
    const reply = await call(env, 'POST', `${path}?dryRun=All`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } },
    });
    expect(reply.status).toBe(400);
    expect((await call(env, 'GET', `${path}/dry`)).status).toBe(404);
  });

  it('rejects a non-positive bookmark interval with RangeError', async () => {
    await expect(startLocalApiServer({ bookmarkIntervalMs: 0 })).rejects.toThrow(RangeError);
  });

  it('stops idempotently and refuses requests afterwards', async () => {
    const { env, server } = await start(new FakeClock());
    await server.stop();
    await server.stop();
    await expect(call(env, 'GET', '/version')).rejects.toThrow(/ECONNREFUSED/);
  });
});
