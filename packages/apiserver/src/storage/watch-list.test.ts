// Streaming lists (KEP-3157) as kube-apiserver 1.27+ serves them: the state as ADDED events, then a BOOKMARK
// annotated k8s.io/initial-events-end at the state's resourceVersion, then changes; the ListOptions rules of
// k8s.io/apimachinery's ValidateListOptions for watches; a not-older-than version the server has not reached.
import { FakeClock } from '@lasso/core/testing';
import { call, configMap, watch } from '@lasso-internal/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiServer, createApiServer } from '../server.ts';

const servers: ApiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start() {
  const server = createApiServer({ clock: new FakeClock(), insecureHttp: true });
  servers.push(server);
  await server.start(new AbortController().signal);
  for (const name of ['a', 'b']) {
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap(name) });
  }
  return server;
}

const path = (query: string) => `/api/v1/namespaces/default/configmaps?watch=1&${query}`;

describe('streaming lists (sendInitialEvents)', () => {
  it('sends the state, then the initial-events-end bookmark at its resourceVersion, then changes', async () => {
    const server = await start();
    const rv = server.currentResourceVersion();
    const stream = await watch(
      server,
      path('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
    );
    expect(stream.status).toBe(200);
    const initial = await stream.until((event) => event.type === 'BOOKMARK');
    expect(initial.map((event) => [event.type, event.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['BOOKMARK', undefined],
    ]);
    expect(initial[2]?.object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c') });
    expect(await stream.next()).toMatchObject({
      type: 'ADDED',
      object: { metadata: { name: 'c' } },
    });
    stream.close();
  });

  it('sends no end bookmark without allowWatchBookmarks, and the state from a resourceVersion it has reached', async () => {
    const server = await start();
    const stream = await watch(
      server,
      path('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=1'),
    );
    const first = [await stream.next(), await stream.next()];
    expect(first.map((event) => event.type)).toEqual(['ADDED', 'ADDED']);
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c') });
    expect((await stream.next()).object.metadata.name).toBe('c');
    stream.close();
  });

  it('starts at the current version with sendInitialEvents=false from ""', async () => {
    const server = await start();
    const stream = await watch(
      server,
      path('sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
    );
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c') });
    expect((await stream.next()).object.metadata.name).toBe('c');
    stream.close();
  });

  it.for([
    [
      'sendInitialEvents=true',
      'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
    [
      'resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ],
    ['sendInitialEvents=true&resourceVersionMatch=Exact', 'Unsupported value: "Exact"'],
  ])(
    'refuses %s with 422 Invalid ListOptions, as kube-apiserver 1.27+ does',
    async ([query, message]) => {
      const server = await start();
      const reply = await call(server, 'GET', path(query as string));
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({ reason: 'Invalid', details: { kind: 'ListOptions' } });
      expect(reply.body.message).toContain(message);
    },
  );

  it('refuses sendInitialEvents on a list', async () => {
    const server = await start();
    const reply = await call(
      server,
      'GET',
      '/api/v1/namespaces/default/configmaps?sendInitialEvents=true',
    );
    expect(reply.status).toBe(422);
    expect(reply.body.message).toContain('sendInitialEvents is forbidden for list');
  });

  it('answers 504 ResourceVersionTooLarge for a version it has not reached, instead of older state', async () => {
    const server = await start();
    const ahead = String(Number(server.currentResourceVersion()) + 10);
    const reply = await call(
      server,
      'GET',
      path(`sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${ahead}`),
    );
    expect(reply.status).toBe(504);
    expect(reply.body.details.causes[0]).toMatchObject({ reason: 'ResourceVersionTooLarge' });
  });
});
