import { FakeClock } from '@lasso/core/testing';
import { call, watch } from '@lasso-internal/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiServer, createApiServer, startLocalApiServer } from './server.ts';

const servers: ApiServer[] = [];

async function start(clock: FakeClock, bookmarkIntervalMs = 1_000) {
  const server = createApiServer({ clock, insecureHttp: true, bookmarkIntervalMs });
  servers.push(server);
  await server.start(new AbortController().signal);
  return { server, env: server };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('the built-in server', () => {
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

  it('answers dryRun writes without persisting them, and refuses an unknown dryRun value', async () => {
    const { env } = await start(new FakeClock());
    const path = '/api/v1/namespaces/default/configmaps';
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } };
    const reply = await call(env, 'POST', `${path}?dryRun=All`, { body });
    expect(reply.status).toBe(201);
    expect(reply.body.metadata.resourceVersion).toBeUndefined();
    expect((await call(env, 'GET', `${path}/dry`)).status).toBe(404);
    expect((await call(env, 'POST', `${path}?dryRun=yes`, { body })).status).toBe(422);
  });

  it('expires TokenRequest tokens on the clock and revokes those bound to a deleted pod', async () => {
    const clock = new FakeClock(Date.UTC(2030, 0, 1));
    const { env } = await start(clock);
    const base = '/api/v1/namespaces/default';
    await call(env, 'POST', `${base}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
    });
    const request = (spec: Record<string, unknown>) =>
      call(env, 'POST', `${base}/serviceaccounts/default/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
      });
    const timed = await request({ expirationSeconds: 600 });
    expect(timed.body.status.expirationTimestamp).toBe('2030-01-01T00:10:00Z');
    const claims = JSON.parse(
      Buffer.from(timed.body.status.token.split('.')[1], 'base64url').toString('utf8'),
    );
    expect(claims).toMatchObject({
      sub: 'system:serviceaccount:default:default',
      exp: Date.UTC(2030, 0, 1, 0, 10) / 1000,
    });
    const token: string = timed.body.status.token;
    expect((await call(env, 'GET', '/api', { token })).status).toBe(200);
    await clock.advance(599_999);
    expect((await call(env, 'GET', '/api', { token })).status).toBe(200);
    await clock.advance(1);
    expect((await call(env, 'GET', '/api', { token })).status).toBe(401);

    const pod = await call(env, 'POST', `${base}/pods`, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'holder' },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }] },
      },
    });
    const wrongUid = await request({
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'holder', uid: 'not-the-uid' },
    });
    expect(wrongUid.status).toBe(409);
    const bound = await request({
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'holder', uid: pod.body.metadata.uid },
    });
    expect(bound.status).toBe(201);
    const boundToken: string = bound.body.status.token;
    expect((await call(env, 'GET', '/api', { token: boundToken })).status).toBe(200);
    await call(env, 'DELETE', `${base}/pods/holder`);
    expect((await call(env, 'GET', '/api', { token: boundToken })).status).toBe(401);
    const unbindable = await request({
      boundObjectRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' },
    });
    expect(unbindable.status).toBe(400);
  });

  it('rejects a non-positive bookmark interval with RangeError', async () => {
    expect(() => createApiServer({ bookmarkIntervalMs: 0 })).toThrow(RangeError);
  });

  it('closes idempotently and refuses requests afterwards', async () => {
    const { env, server } = await start(new FakeClock());
    await server.close();
    await server.close();
    await expect(call(env, 'GET', '/version')).rejects.toThrow(/ECONNREFUSED/);
  });

  // Pins the deprecated dialect: it still starts a listening server, and its stop() still closes it.
  it('still starts with the deprecated startLocalApiServer and stops idempotently', async () => {
    const server = await startLocalApiServer({ clock: new FakeClock(), insecureHttp: true });
    expect((await call(server, 'GET', '/version')).status).toBe(200);
    await server.stop();
    await server.stop();
    await expect(call(server, 'GET', '/version')).rejects.toThrow(/ECONNREFUSED/);
    await expect(startLocalApiServer({ bookmarkIntervalMs: 0 })).rejects.toThrow(RangeError);
  });

  it('follows the lasso lifecycle: start(signal), abort stops, a new start serves the same objects, close ends it', async () => {
    const clock = new FakeClock();
    const server = createApiServer({ clock, insecureHttp: true });
    expect(server.isRunning()).toBe(false);
    expect(await server.stopped()).toEqual({ drained: true, pending: [] });
    const first = new AbortController();
    await server.start(first.signal);
    expect(server.isRunning()).toBe(true);
    const path = '/api/v1/namespaces/default/configmaps';
    const created = await call(server, 'POST', path, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' } },
    });
    expect(created.status).toBe(201);
    const stream = await watch(server, `${path}?watch=1&resourceVersion=0`);
    first.abort();
    expect(await server.stopped()).toEqual({ drained: true, pending: [] });
    expect(server.isRunning()).toBe(false);
    expect(await stream.ended).toBe(true);
    await expect(call(server, 'GET', '/version')).rejects.toThrow(/ECONNREFUSED/);
    const second = new AbortController();
    await server.start(second.signal);
    expect((await call(server, 'GET', `${path}/kept`)).status).toBe(200);
    await server[Symbol.asyncDispose]();
    expect(server.isRunning()).toBe(false);
    await expect(server.start(new AbortController().signal)).rejects.toThrow(/closed/);
    await expect(call(server, 'GET', '/version')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('refuses to start on an aborted signal', async () => {
    const server = createApiServer({ insecureHttp: true });
    await expect(server.start(AbortSignal.abort())).rejects.toThrow();
    expect(server.isRunning()).toBe(false);
    await server.close();
  });
});
