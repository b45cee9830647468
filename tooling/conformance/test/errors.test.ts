// Conformance: authentication (401), authorization (403 via impersonation) and bad input, each answered
// with the metav1.Status kube-apiserver sends; the server keeps serving and keeps its objects.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast, eventually } from './gates.ts';

let env: Environment;
let ns: string;
let cms: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  await call(env, 'POST', cms, { body: configMap('survivor', { keep: 'me' }) });
});

afterAll(async () => {
  await env?.stop();
});

describe('authentication', () => {
  it('answers 401 Unauthorized for an unknown bearer token', async () => {
    const reply = await call(env, 'GET', cms, { token: 'not-a-real-token' });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Unauthorized',
      message: 'Unauthorized',
      code: 401,
    });
  });

  it('lets a request without credentials read only the public paths', async () => {
    // kube-apiserver refuses it as system:anonymous (403, the default) or, with --anonymous-auth=false, as
    // unauthenticated (401): assert what both share.
    expect([200, 401]).toContain((await call(env, 'GET', '/version', { anonymous: true })).status);
    for (const path of [cms, '/api', '/apis']) {
      const reply = await call(env, 'GET', path, { anonymous: true });
      expect([401, 403]).toContain(reply.status);
      expect(reply.body).toMatchObject({ kind: 'Status', status: 'Failure', code: reply.status });
      if (reply.status === 403) expect(reply.body.message).toContain('User "system:anonymous"');
    }
  });

  it('accepts the admin bearer token when there is one', async ({ skip }) => {
    if (env.credentials.token === undefined) skip('no admin token in this mode');
    const reply = await call(env, 'GET', cms, { token: env.credentials.token! });
    expect(reply.status).toBe(200);
  });
});

describe('authorization', () => {
  it('answers 403 Forbidden with the RBAC message for a namespaced resource', async () => {
    const reply = await call(env, 'GET', cms, { headers: { 'Impersonate-User': 'alice' } });
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
      details: { kind: 'configmaps' },
    });
  });

  it('answers 403 Forbidden with the cluster-scope message for a cluster resource', async () => {
    const reply = await call(env, 'GET', '/api/v1/namespaces', {
      headers: { 'Impersonate-User': 'alice' },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.message).toBe(
      'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });

  it('names the object and the API group of a denied get', async () => {
    const reply = await call(env, 'GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`, {
      headers: { 'Impersonate-User': 'bob' },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.message).toBe(
      `deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments" in API group "apps" in the namespace "${ns}"`,
    );
  });

  it('allows an impersonated member of system:masters', async () => {
    const reply = await call(env, 'GET', cms, {
      headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'system:masters' },
    });
    expect(reply.status).toBe(200);
  });
});

describe('service-account tokens (TokenRequest)', () => {
  const accounts = () => `/api/v1/namespaces/${ns}/serviceaccounts`;
  const tokenRequest = (spec: Record<string, unknown> = {}) => ({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec,
  });

  it('issues a token (a jti claim from kube-apiserver 1.30) that authenticates without rights (403) and stops working with its account (401)', async () => {
    const account = unique('robot');
    const created = await call(env, 'POST', accounts(), {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } },
    });
    expect(created.status).toBe(201);
    const issued = await call(env, 'POST', `${accounts()}/${account}/token`, {
      body: tokenRequest({ expirationSeconds: 600 }),
    });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      spec: { expirationSeconds: 600, audiences: expect.arrayContaining([expect.any(String)]) },
      status: { token: expect.any(String), expirationTimestamp: expect.any(String) },
    });
    const issuedAt = Date.parse(issued.body.metadata?.creationTimestamp ?? '');
    const expiresAt = Date.parse(issued.body.status.expirationTimestamp);
    if (!Number.isNaN(issuedAt)) expect(expiresAt - issuedAt).toBe(600_000);
    const token: string = issued.body.status.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims).toMatchObject({
      sub: `system:serviceaccount:${ns}:${account}`,
      aud: issued.body.spec.audiences,
      exp: expiresAt / 1000,
      'kubernetes.io': {
        namespace: ns,
        serviceaccount: { name: account, uid: created.body.metadata.uid },
      },
    });
    expect(claims.exp - claims.iat).toBe(600);
    // A token id (jti) from 1.30, where ServiceAccountTokenJTI went beta and on by default (alpha in 1.29).
    if (await atLeast(env, 30)) expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    else expect(claims).not.toHaveProperty('jti');

    // Discovery is open to every authenticated user; resources need an RBAC grant it does not have.
    expect((await call(env, 'GET', '/api', { token })).status).toBe(200);
    const denied = await call(env, 'GET', cms, { token });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `configmaps is forbidden: User "system:serviceaccount:${ns}:${account}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
      details: { kind: 'configmaps' },
    });
    const write = await call(env, 'POST', cms, { token, body: configMap(unique('denied')) });
    expect(write.status).toBe(403);
    expect(write.body.message).toContain(
      `User "system:serviceaccount:${ns}:${account}" cannot create resource "configmaps"`,
    );

    expect((await call(env, 'DELETE', `${accounts()}/${account}`)).status).toBe(200);
    // kube-apiserver caches a successful token authentication for up to 10 s.
    await eventually(async () => (await call(env, 'GET', cms, { token })).status === 401, 30_000);
  }, 45_000);

  it('answers 404 for a missing account, 422 for a too short duration and 405 for GET', async () => {
    const missing = await call(env, 'POST', `${accounts()}/no-such-account/token`, {
      body: tokenRequest(),
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      reason: 'NotFound',
      message: 'serviceaccounts "no-such-account" not found',
    });
    const account = unique('short');
    await call(env, 'POST', accounts(), {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } },
    });
    const short = await call(env, 'POST', `${accounts()}/${account}/token`, {
      body: tokenRequest({ expirationSeconds: 60 }),
    });
    expect(short.status).toBe(422);
    expect(short.body).toMatchObject({
      reason: 'Invalid',
      details: { group: 'authentication.k8s.io', kind: 'TokenRequest' },
    });
    expect(short.body.message).toContain(
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const get = await call(env, 'GET', `${accounts()}/${account}/token`);
    expect(get.status).toBe(405);
    expect(get.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });
});

describe('bad input', () => {
  it('answers 400 BadRequest for a malformed JSON body', async () => {
    const reply = await call(env, 'POST', cms, { body: '{"apiVersion": "v1", "kind": ' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  it('answers 400 BadRequest for a body of another kind', async () => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind' } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
  });

  it('answers 400 BadRequest for a body of another apiVersion', async () => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'wrong-version' } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
  });

  it('answers 422 Invalid with causes for a name that is not a DNS subdomain', async () => {
    const reply = await call(env, 'POST', cms, { body: configMap('Bad_Name') });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      code: 422,
      details: { name: 'Bad_Name', kind: 'ConfigMap' },
    });
    expect(reply.body.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/,
    );
    expect(reply.body.details.causes[0]).toMatchObject({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
    });
  });

  it('answers 422 Invalid when neither name nor generateName is given', async () => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes[0]).toMatchObject({
      reason: 'FieldValueRequired',
      field: 'metadata.name',
    });
  });

  it.for([
    { name: 'a number as metadata.name', body: { metadata: { name: 123 } } },
    { name: 'a number as data', body: { metadata: { name: 'typed' }, data: 5 } },
    { name: 'a number inside data', body: { metadata: { name: 'typed' }, data: { a: 1 } } },
    { name: 'a string as metadata', body: { metadata: 'typed' } },
  ])('answers 400 BadRequest for $name', async ({ body }) => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', ...body },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  it('answers 413 RequestEntityTooLarge for a body over 3 MiB', async () => {
    const big = configMap('too-big', { blob: 'x'.repeat(3 * 1024 * 1024 + 10) });
    const reply = await call(env, 'POST', cms, { body: big });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
  });

  it('answers 405 MethodNotAllowed for POST on an object path', async () => {
    const reply = await call(env, 'POST', `${cms}/survivor`, { body: configMap('survivor') });
    expect(reply.status).toBe(405);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });

  it('answers 415 UnsupportedMediaType for a patch of an unknown content type', async () => {
    const reply = await call(env, 'PATCH', `${cms}/survivor`, {
      body: '{"data":{"a":"b"}}',
      contentType: 'text/plain',
    });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
  });

  it('answers 404 NotFound for a resource that is not served', async () => {
    const reply = await call(env, 'GET', `/api/v1/namespaces/${ns}/widgets`);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('answers 404 for an unknown /apis path: a Status from kube-apiserver 1.38, plain text before', async () => {
    const reply = await call(env, 'GET', '/apis/no-such-group.example.com/v1/things');
    expect(reply.status).toBe(404);
    // kubernetes#138219 (CHANGELOG-1.38) made the final delegation's 404 a Status; before it was Go's
    // http.NotFound text (1.20.2 measured). The built-in server answers as 1.37, the newest released.
    if (await atLeast(env, 38)) {
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      expect(reply.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    } else {
      expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.text).toBe('404 page not found\n');
    }
    // Any method: nothing in the chain serves the path to refuse the method (405) first.
    const deleted = await call(env, 'DELETE', '/apis/no-such-group.example.com/v1');
    expect(deleted.status).toBe(404);
  });

  it('answers 404 for an unknown path outside the APIs: a Status from 1.38, plain text 1.23-1.37, the served paths before', async () => {
    const reply = await call(env, 'GET', '/no-such-path');
    expect(reply.status).toBe(404);
    if (await atLeast(env, 38)) {
      // kubernetes#138219: the final delegate's 404 is a Status.
      expect(reply.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    } else if (await atLeast(env, 23)) {
      // kubernetes#104748 ended the chain with a handler that answers Go's http.NotFound.
      expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(reply.text).toBe('404 page not found\n');
    } else {
      // The last server of the chain listed its paths with the 404 (1.20.2 measured).
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.body.paths).toContain('/healthz');
    }
  });

  it('answers 400 BadRequest for bodies nested deeper than the JSON decoder allows (merge patch: 400 on 1.20 and from 1.25)', async () => {
    const depth = 200_000;
    const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const create = await call(env, 'POST', cms, {
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","labels":${nested}}}`,
    });
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    const patch = await call(env, 'PATCH', `${cms}/survivor`, {
      contentType: 'application/merge-patch+json',
      body: `{"data":${nested}}`,
    });
    // Never a write. 1.20 pre-parses merge patches over 1 MiB (the CVE-2019-11253 guard) and answers 400
    // "error decoding patch"; from 1.25 the default fieldValidation=Warn (kubernetes#105916, on by default
    // once ServerSideFieldValidation went beta in 1.25) strictly decodes every merge patch first, 400 again.
    // Which of 1.21-1.24 kept the guard is not established: they may answer 500.
    expect(patch.status).toBeGreaterThanOrEqual(400);
    expect(patch.body).toMatchObject({ kind: 'Status', status: 'Failure' });
    if (!(await atLeast(env, 21)) || (await atLeast(env, 25))) {
      expect(patch.status).toBe(400);
      expect(patch.body).toMatchObject({ reason: 'BadRequest' });
      expect(patch.body.message).toMatch(/^error decoding patch: .*exceeded max depth/);
    }
    expect((await call(env, 'GET', `${cms}/deep`)).status).toBe(404);
    expect((await call(env, 'GET', `${cms}/survivor`)).body.data).toEqual({ keep: 'me' });
  });

  it('keeps every stored object after bad requests', async () => {
    const reply = await call(env, 'GET', `${cms}/survivor`);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ keep: 'me' });
  });
});
