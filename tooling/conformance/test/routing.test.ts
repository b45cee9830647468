// Conformance: what routing answers once a request is classified and authorized: the methods the
// deprecated /watch/ paths and the read routes take (405 otherwise, nothing changed), and which
// `?watch=` values make a GET of a collection a watch (any but 0 and false, as kube decodes booleans).

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: Environment;
let ns: string;
const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  const created = await call(env, 'POST', cms(), { body: configMap('a', { k: 'v' }) });
  expect(created.status, created.text).toBe(201);
});

afterAll(async () => {
  await env?.stop();
});

describe('routing after classification', () => {
  it('answers 405 for anything but GET on a /watch/ path, and changes nothing', async () => {
    const watchCms = `/api/v1/watch/namespaces/${ns}/configmaps`;
    const deleted = await call(env, 'DELETE', watchCms);
    expect(deleted.status).toBe(405);
    expect(deleted.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    const created = await call(env, 'POST', watchCms, { body: configMap('b') });
    expect(created.status).toBe(405);
    const replaced = await call(env, 'PUT', `${watchCms}/a`, { body: configMap('a') });
    expect(replaced.status).toBe(405);
    expect((await call(env, 'HEAD', `${watchCms}?timeoutSeconds=1`)).status).toBe(405);
    const list = await call(env, 'GET', cms());
    expect(list.body.items.map((item: any) => item.metadata.name)).toEqual(['a']);
    expect(list.body.items[0].data).toEqual({ k: 'v' });
  });

  it('answers 405 for HEAD on collections and objects (reads are installed for GET alone)', async () => {
    expect((await call(env, 'HEAD', cms())).status).toBe(405);
    expect((await call(env, 'HEAD', `${cms()}/a`)).status).toBe(405);
    expect((await call(env, 'HEAD', `${cms()}/missing`)).status).toBe(405);
    // A path nothing serves is still 404.
    expect((await call(env, 'HEAD', `/api/v1/namespaces/${ns}/nothings`)).status).toBe(404);
  });

  it.each(['yes', '', 'True', '2'])('watches a collection for ?watch=%j', async (value) => {
    const reply = await call(env, 'GET', `${cms()}?watch=${value}&timeoutSeconds=1`);
    expect(reply.status).toBe(200);
    const first = JSON.parse(reply.text.split('\n')[0] ?? '');
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
  });

  it.each(['0', 'false', 'FALSE'])('lists a collection for ?watch=%j', async (value) => {
    const reply = await call(env, 'GET', `${cms()}?watch=${value}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'ConfigMapList' });
  });

  it('answers a named GET with the object whatever ?watch= says', async () => {
    const reply = await call(env, 'GET', `${cms()}/a?watch=true`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a' } });
  });
});
