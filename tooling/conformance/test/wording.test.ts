// Conformance: kube-apiserver's words for requests refused before any object is read: integer query
// options Go's strconv cannot parse, an Accept header naming nothing the server writes, and a pod's log
// without a kubelet (1.20.2 measured; the same code paths answer on newer releases).

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, crd, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gates.ts';

let env: Environment;
let ns: string;
const group = `${unique('wording')}.lasso.example.com`;
const crdName = `things.${group}`;
const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  const created = await call(env, 'POST', crdsPath, {
    body: crd({ group, kind: 'Thing', plural: 'things' }),
  });
  expect(created.status, created.text).toBe(201);
  await eventually(
    async () =>
      (await call(env, 'GET', `/apis/${group}/v1/namespaces/${ns}/things`)).status === 200,
    30_000,
  );
  // Pod admission needs the namespace's default ServiceAccount (no controller creates it here) and, on
  // 1.20, a token unless the pod mounts none.
  const account = await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
  });
  expect([201, 409]).toContain(account.status);
  for (const [name, spec] of [
    ['one', { containers: [{ name: 'c', image: 'busybox' }] }],
    [
      'two',
      {
        containers: [
          { name: 'c', image: 'busybox' },
          { name: 'd', image: 'busybox' },
        ],
      },
    ],
  ] as const) {
    const pod = await call(env, 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { automountServiceAccountToken: false, ...spec },
      },
    });
    expect(pod.status, pod.text).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await call(env, 'DELETE', `${crdsPath}/${crdName}`);
  await env?.stop();
});

function configMaps(query = ''): string {
  return `/api/v1/namespaces/${ns}/configmaps${query}`;
}

describe('integer query options', () => {
  it.for([
    { query: '?limit=abc', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
    { query: '?limit=', message: 'strconv.ParseInt: parsing "": invalid syntax' },
    { query: '?limit=1.5', message: 'strconv.ParseInt: parsing "1.5": invalid syntax' },
    {
      query: '?limit=99999999999999999999',
      message: 'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    },
    { query: '?timeoutSeconds=abc', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
    // timeoutSeconds decodes before limit.
    {
      query: '?limit=x&timeoutSeconds=y',
      message: 'strconv.ParseInt: parsing "y": invalid syntax',
    },
  ])('refuses a list with $query in Go’s words', async ({ query, message }) => {
    const reply = await call(env, 'GET', configMaps(query));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message });
  });

  it('refuses a watch with timeoutSeconds=abc or limit=abc in Go’s words', async () => {
    for (const [query, value] of [
      ['?watch=1&timeoutSeconds=abc', 'abc'],
      ['?watch=1&timeoutSeconds=1&limit=abc', 'abc'],
    ]) {
      const reply = await call(env, 'GET', configMaps(query));
      expect(reply.status, query).toBe(400);
      expect(reply.body.message).toBe(`strconv.ParseInt: parsing "${value}": invalid syntax`);
    }
  });

  it('takes a negative limit as no limit', async () => {
    const reply = await call(env, 'GET', configMaps('?limit=-1'));
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.continue ?? '').toBe('');
  });
});

describe('Accept headers the server cannot write', () => {
  const routed = {
    kind: 'Status',
    reason: 'NotAcceptable',
    code: 406,
    message: '406: Not Acceptable',
  };

  it.for([
    { name: 'a list', method: 'GET', path: () => configMaps() },
    { name: 'a missing object (before the 404)', method: 'GET', path: () => configMaps('/nope') },
    { name: 'a watch', method: 'GET', path: () => configMaps('?watch=1&timeoutSeconds=1') },
    { name: 'a delete', method: 'DELETE', path: () => configMaps('/nope') },
    { name: 'discovery', method: 'GET', path: () => '/api/v1' },
    { name: 'the version', method: 'GET', path: () => '/version' },
  ] as const)('answers the router’s 406 for $name of built-in kinds', async ({ method, path }) => {
    const reply = await call(env, method, path(), { headers: { accept: 'application/xml' } });
    expect(reply.status).toBe(406);
    expect(reply.body).toMatchObject(routed);
  });

  it('matches route types case-sensitively and without subtype wildcards', async () => {
    for (const accept of ['APPLICATION/JSON', 'application/*', 'text/plain']) {
      const reply = await call(env, 'GET', configMaps(), { headers: { accept } });
      expect(reply.status, accept).toBe(406);
    }
    for (const accept of ['*/*;q=0.8', 'application/xml, application/json;q=0.5', '']) {
      const reply = await call(env, 'GET', configMaps(), { headers: { accept } });
      expect(reply.status, accept).toBe(200);
    }
  });

  it('answers custom resources’ 406 listing the media types they are served in', async () => {
    for (const path of ['things', 'things/nope']) {
      const reply = await call(env, 'GET', `/apis/${group}/v1/namespaces/${ns}/${path}`, {
        headers: { accept: 'text/plain' },
      });
      expect(reply.status, path).toBe(406);
      expect(reply.body).toMatchObject({
        reason: 'NotAcceptable',
        message:
          'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      });
    }
    const wildcard = await call(env, 'GET', `/apis/${group}/v1/namespaces/${ns}/things`, {
      headers: { accept: 'application/*' },
    });
    expect(wildcard.status).toBe(200);
  });

  it('answers 404 for an unknown resource before judging Accept', async () => {
    const reply = await call(env, 'GET', `/api/v1/namespaces/${ns}/widgets`, {
      headers: { accept: 'application/xml' },
    });
    expect(reply.status).toBe(404);
  });
});

describe('pod logs without a kubelet', () => {
  function log(pod: string, query = ''): string {
    return `/api/v1/namespaces/${ns}/pods/${pod}/log${query}`;
  }

  it('answers 404 NotFound for a missing pod', async () => {
    const reply = await call(env, 'GET', log('missing'));
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      reason: 'NotFound',
      message: 'pods "missing" not found',
      details: { name: 'missing', kind: 'pods' },
    });
  });

  it('answers 204 No Content for a pod no node has taken', async () => {
    for (const query of ['', '?container=c', '?follow=true']) {
      const reply = await call(env, 'GET', log('one', query));
      expect(reply.status, query).toBe(204);
      expect(reply.text).toBe('');
    }
  });

  it('refuses an unknown container, and a pod of several without one named', async () => {
    const unknown = await call(env, 'GET', log('one', '?container=zz'));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      reason: 'BadRequest',
      message: 'container zz is not valid for pod one',
    });
    const unnamed = await call(env, 'GET', log('two'));
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.message).toBe(
      'a container name must be specified for pod two, choose one of: [c d]',
    );
  });

  it('checks the options before the pod: Go’s 400, then 422 PodLogOptions', async () => {
    const unparsable = await call(env, 'GET', log('missing', '?tailLines=abc'));
    expect(unparsable.status).toBe(400);
    expect(unparsable.body.message).toBe('strconv.ParseInt: parsing "abc": invalid syntax');
    const negative = await call(env, 'GET', log('missing', '?tailLines=-1&limitBytes=0'));
    expect(negative.status).toBe(422);
    expect(negative.body).toMatchObject({
      reason: 'Invalid',
      message:
        'PodLogOptions "missing" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]',
      details: { name: 'missing', kind: 'PodLogOptions' },
    });
  });

  it('reads logs by GET alone', async () => {
    const reply = await call(env, 'POST', log('one'), { body: {} });
    expect(reply.status).toBe(405);
  });
});
