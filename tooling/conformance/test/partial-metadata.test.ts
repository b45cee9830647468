// Conformance: metadata-only answers (`Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`
// and `as=PartialObjectMetadataList`), as client-go's metadata client and metadata-only informers ask for
// them: get, list and watch, built-in kinds and custom resources. meta.k8s.io/v1 has served them since
// kube-apiserver 1.15 (v1beta1 since 1.14), so every version this suite runs against answers them.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, crd, unique, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gates.ts';

const metadataV1 = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const listV1 = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** What client-go's metadata client sends, without its first clause (protobuf, which kube-apiserver answers in). */
const metadataClient = `${listV1},application/json`;

let env: Environment;
let ns: string;
let group: string;

beforeAll(async () => {
  env = await startEnvironment();
  ns = unique('meta');
  await call(env, 'POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  for (const name of ['a', 'b']) {
    const created = await call(env, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: configMap(name, { secret: 'value' }, { app: 'meta' }),
    });
    expect(created.status).toBe(201);
  }
  group = `${unique('meta')}.example.com`;
  await call(env, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: crd({ group, plural: 'widgets', kind: 'Widget' }),
  });
  await eventually(async () => {
    const reply = await call(env, 'POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, {
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { replicas: 1 },
      },
    });
    return reply.status === 201;
  }, 20_000);
});

afterAll(async () => {
  if (env !== undefined && group !== undefined) {
    await call(
      env,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
    );
    await call(env, 'DELETE', `/api/v1/namespaces/${ns}`);
  }
  await env?.stop();
});

describe('PartialObjectMetadata', () => {
  it('answers a get with the object metadata alone, kind PartialObjectMetadata of meta.k8s.io/v1', async () => {
    const full = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`);
    const reply = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: { Accept: metadataV1 },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(Object.keys(reply.body)).toEqual(['kind', 'apiVersion', 'metadata']);
    expect(reply.body).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: full.body.metadata,
    });
  });

  it('answers v1beta1 too', async () => {
    const reply = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1beta1',
    });
  });

  it('answers a list with PartialObjectMetadataList: the list metadata, each item kind and apiVersion', async () => {
    const reply = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`, {
      headers: { Accept: metadataClient },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('PartialObjectMetadataList');
    expect(reply.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(reply.body.metadata).toMatchObject({
      resourceVersion: expect.any(String),
      continue: expect.any(String),
    });
    expect(reply.body.items).toHaveLength(1);
    expect(Object.keys(reply.body.items[0])).toEqual(['kind', 'apiVersion', 'metadata']);
    expect(reply.body.items[0]).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'a', namespace: ns, labels: { app: 'meta' } },
    });
    expect(reply.body.items[0].data).toBeUndefined();
  });

  it('refuses the list form for one object and the object form for a list with 406', async () => {
    const get = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: { Accept: listV1 },
    });
    expect(get.status).toBe(406);
    expect(get.body).toMatchObject({
      reason: 'NotAcceptable',
      message:
        'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
    });
    const list = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps`, {
      headers: { Accept: metadataV1 },
    });
    expect(list.status).toBe(406);
    expect(list.body.message).toBe(
      'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
    );
  });

  it('negotiates a clause list in order: an unknown version is skipped, a plain type after it wins', async () => {
    const fallback = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: {
        Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2, application/json',
      },
    });
    expect(fallback.status).toBe(200);
    expect(fallback.body.kind).toBe('ConfigMap');
    const only = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2' },
    });
    expect(only.status).toBe(406);
    expect(only.body.message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    const table = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: { Accept: `application/json;as=Table;g=meta.k8s.io;v=v1,${metadataV1}` },
    });
    expect(table.body.kind).toBe('Table');
  });

  it('answers a custom resource get and list the same way', async () => {
    const get = await call(env, 'GET', `/apis/${group}/v1/namespaces/${ns}/widgets/w`, {
      headers: { Accept: metadataV1 },
    });
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'w', namespace: ns, generation: 1 },
    });
    expect(get.body.spec).toBeUndefined();
    const list = await call(env, 'GET', `/apis/${group}/v1/namespaces/${ns}/widgets`, {
      headers: { Accept: listV1 },
    });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      items: [
        { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'w' } },
      ],
    });
  });

  it('streams watch events whose objects are PartialObjectMetadata', async () => {
    const list = await call(env, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    const stream = await watch(
      env,
      `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
      { headers: { Accept: metadataV1 } },
    );
    try {
      expect(stream.status).toBe(200);
      await call(env, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: configMap('c', { k: 'v' }),
      });
      const event = await stream.next(10_000);
      expect(event.type).toBe('ADDED');
      expect(Object.keys(event.object)).toEqual(['kind', 'apiVersion', 'metadata']);
      expect(event.object).toMatchObject({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { name: 'c', namespace: ns },
      });
    } finally {
      stream.close();
    }
  });

  it('streams a custom resource watch from resourceVersion 0 as PartialObjectMetadata', async () => {
    const stream = await watch(
      env,
      `/apis/${group}/v1/namespaces/${ns}/widgets?watch=1&resourceVersion=0`,
      {
        headers: { Accept: metadataV1 },
      },
    );
    try {
      const event = await stream.next(10_000);
      expect(event).toMatchObject({
        type: 'ADDED',
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { name: 'w' },
        },
      });
    } finally {
      stream.close();
    }
  });
});
