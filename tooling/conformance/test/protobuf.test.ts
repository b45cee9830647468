// Conformance: create bodies sent as application/vnd.kubernetes.protobuf (what kubectl 1.32 sends for
// `kubectl create`): recorded kubectl bodies and table-encoded objects are stored as their JSON twins would be;
// malformed bodies, other kinds and custom resources are refused with kube-apiserver's Status.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  encodeProtobufEnvelope,
  encodeProtobufMessage,
  encodeProtobufObject,
} from '@lasso/apiserver/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, crd, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, skipBefore } from './gates.ts';

const protobuf = 'application/vnd.kubernetes.protobuf';
// kubectl's recorded bodies, kept beside the built-in server's decoder (its unit test reads them too).
const fixtures = new URL(
  'src/protobuf/__fixtures__/',
  pathToFileURL(createRequire(import.meta.url).resolve('@lasso/apiserver/package.json')),
);

let env: Environment;
let ns: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  // Pods need their service account; a real kube-apiserver without controllers has none yet (409 if it has).
  await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
  });
});

afterAll(async () => {
  await env?.stop();
});

function post(path: string, body: Uint8Array) {
  return call(env, 'POST', path, { body: Buffer.from(body), contentType: protobuf });
}

function recorded(name: string): { body: Uint8Array; json: any } {
  return {
    body: new Uint8Array(readFileSync(new URL(`${name}.pb`, fixtures))),
    json: JSON.parse(readFileSync(new URL(`${name}.json`, fixtures), 'utf8')),
  };
}

/** kubectl's dry-run JSON without what the server replaces (the null creationTimestamp). */
function sent(json: any): any {
  const { creationTimestamp: _ignored, ...metadata } = json.metadata;
  return { ...json, metadata };
}

describe('protobuf request bodies', () => {
  it.for([
    { name: 'configmap', path: () => `/api/v1/namespaces/${ns}/configmaps` },
    { name: 'secret-tls', path: () => `/api/v1/namespaces/${ns}/secrets` },
    { name: 'secret-docker-registry', path: () => `/api/v1/namespaces/${ns}/secrets` },
    { name: 'deployment', path: () => `/apis/apps/v1/namespaces/${ns}/deployments` },
    { name: 'job', path: () => `/apis/batch/v1/namespaces/${ns}/jobs` },
    { name: 'service-nodeport', path: () => `/api/v1/namespaces/${ns}/services` },
    { name: 'serviceaccount', path: () => `/api/v1/namespaces/${ns}/serviceaccounts` },
    { name: 'role', path: () => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles` },
    {
      name: 'rolebinding',
      path: () => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
    },
    { name: 'ingress', path: () => `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses` },
  ])(
    'stores the body `kubectl create` sent for a $name as its JSON twin',
    async ({ name, path }) => {
      const { body, json } = recorded(name);
      const created = await post(path(), body);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject(sent(json));
      const read = await call(env, 'GET', `${path()}/${json.metadata.name}`);
      expect(read.body).toMatchObject(sent(json));
    },
  );

  it('stores a CronJob and a PodDisruptionBudget sent by kubectl (batch/v1 and policy/v1 since 1.21)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 21);
    for (const [name, path] of [
      ['cronjob', `/apis/batch/v1/namespaces/${ns}/cronjobs`],
      ['poddisruptionbudget', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`],
    ] as const) {
      const { body, json } = recorded(name);
      const created = await post(path, body);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject(sent(json));
    }
  });

  it('keeps zero values of pointers, drops omitempty zeros, and decodes bytes, quantities and int-or-strings', async () => {
    const name = unique('pod');
    const body = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { b: '2', a: '1' } },
      spec: {
        // false, a pointer's zero: kept. Without a token controller the real server needs it to be false.
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 0,
        containers: [
          {
            name: 'app',
            image: 'busybox',
            command: ['sleep', '3600'],
            ports: [{ containerPort: 8080, name: 'http' }],
            resources: { limits: { cpu: '500m', memory: '64Mi' } },
            readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 8080 } },
            securityContext: { runAsNonRoot: false, privileged: false },
          },
        ],
      },
    });
    const created = await post(`/api/v1/namespaces/${ns}/pods`, body);
    expect(created.status).toBe(201);
    const container = created.body.spec.containers[0];
    expect(created.body.spec.terminationGracePeriodSeconds).toBe(0);
    expect(created.body.spec.automountServiceAccountToken).toBe(false);
    expect(container.resources.limits).toEqual({ cpu: '500m', memory: '64Mi' });
    expect(container.readinessProbe.httpGet.port).toBe('http');
    expect(container.livenessProbe.tcpSocket.port).toBe(8080);
    expect(container.securityContext).toEqual({ runAsNonRoot: false, privileged: false });
    expect(Object.keys(created.body.metadata.labels)).toEqual(['a', 'b']);
  });

  it('stores a ResourceQuota, PriorityClass and IngressClass sent as protobuf', async () => {
    const quota = await post(
      `/api/v1/namespaces/${ns}/resourcequotas`,
      encodeProtobufObject({
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'q' },
        spec: { hard: { pods: '2', 'requests.cpu': '1500m' }, scopes: ['NotTerminating'] },
      }),
    );
    expect(quota.status).toBe(201);
    expect(quota.body.spec).toEqual({
      hard: { pods: '2', 'requests.cpu': '1500m' },
      scopes: ['NotTerminating'],
    });
    const priority = unique('pc');
    const created = await post(
      '/apis/scheduling.k8s.io/v1/priorityclasses',
      encodeProtobufObject({
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: priority },
        value: 0,
        globalDefault: false,
        description: 'protobuf',
        preemptionPolicy: 'Never',
      }),
    );
    expect(created.status).toBe(201);
    // value has no omitempty: its zero is kept, globalDefault's (omitempty) is dropped.
    expect(created.body).toMatchObject({
      value: 0,
      description: 'protobuf',
      preemptionPolicy: 'Never',
    });
    expect(created.body.globalDefault).toBeUndefined();
    await call(env, 'DELETE', `/apis/scheduling.k8s.io/v1/priorityclasses/${priority}`);
    const ingressClass = unique('ic');
    const classReply = await post(
      '/apis/networking.k8s.io/v1/ingressclasses',
      encodeProtobufObject({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: ingressClass },
        spec: { controller: 'example.com/ingress' },
      }),
    );
    expect(classReply.status).toBe(201);
    expect(classReply.body.spec).toEqual({ controller: 'example.com/ingress' });
    await call(env, 'DELETE', `/apis/networking.k8s.io/v1/ingressclasses/${ingressClass}`);
  });

  it.for([
    { path: '/api/v1', name: 'resourcequotas', namespaced: true, shortNames: ['quota'], since: 0 },
    {
      path: '/apis/scheduling.k8s.io/v1',
      name: 'priorityclasses',
      namespaced: false,
      shortNames: ['pc'],
      since: 0,
    },
    {
      path: '/apis/networking.k8s.io/v1',
      name: 'ingresses',
      namespaced: true,
      shortNames: ['ing'],
      since: 0,
    },
    {
      path: '/apis/networking.k8s.io/v1',
      name: 'ingressclasses',
      namespaced: false,
      shortNames: undefined,
      since: 0,
    },
    { path: '/apis/batch/v1', name: 'cronjobs', namespaced: true, shortNames: ['cj'], since: 21 },
    {
      path: '/apis/policy/v1',
      name: 'poddisruptionbudgets',
      namespaced: true,
      shortNames: ['pdb'],
      since: 21,
    },
  ])(
    'discovery lists $name as kube does (batch/v1 cronjobs and policy/v1 since 1.21)',
    async ({ path, name, namespaced, shortNames, since }, { skip }) => {
      await skipBefore(env, skip, since);
      const list = await call(env, 'GET', path);
      const resource = list.body.resources.find((item: any) => item.name === name);
      expect(resource).toMatchObject({
        namespaced,
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      });
      expect(resource.shortNames).toEqual(shortNames);
      const status = list.body.resources.some((item: any) => item.name === `${name}/status`);
      expect(status).toBe(!['priorityclasses', 'ingressclasses'].includes(name));
    },
  );

  it('answers 400 for a truncated envelope', async () => {
    const { body } = recorded('configmap');
    const truncated = body.subarray(0, 20);
    const reply = await post(`/api/v1/namespaces/${ns}/configmaps`, truncated);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      code: 400,
      message: `the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (${Buffer.from(truncated).toString('hex')})`,
    });
  });

  it('answers 400 for an envelope whose object is truncated', async () => {
    const message = encodeProtobufMessage({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'truncated' },
      data: { a: 'b' },
    });
    const body = encodeProtobufEnvelope('v1', 'ConfigMap', message.subarray(0, message.length - 3));
    const reply = await post(`/api/v1/namespaces/${ns}/configmaps`, body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF',
    );
  });

  it('answers 400 for a body without the k8s magic', async () => {
    const reply = await post(
      `/api/v1/namespaces/${ns}/configmaps`,
      Buffer.from('{"kind":"ConfigMap"}'),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap"})',
    );
  });

  it('answers 400 for a protobuf Secret sent to configmaps', async () => {
    const body = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
    });
    const reply = await post(`/api/v1/namespaces/${ns}/configmaps`, body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(
      /^Secret in version "v1" cannot be handled as a ConfigMap: /,
    );
  });

  it('answers 400 for a custom resource sent as protobuf (its unstructured object has no kind to decode into)', async () => {
    const group = `${unique('pb')}.lasso.example.com`;
    const definition = crd({ group, plural: 'gadgets', kind: 'Gadget' });
    expect(
      (
        await call(env, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          body: definition,
        })
      ).status,
    ).toBe(201);
    const path = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
    await eventually(async () => (await call(env, 'GET', path)).status === 200);
    const body = encodeProtobufEnvelope(`${group}/v1`, 'Gadget', new Uint8Array());
    const reply = await post(path, body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      reason: 'BadRequest',
      message:
        "Gadget in version \"v1\" cannot be handled as a Gadget: Object 'Kind' is missing in 'object has no kind field '",
    });
    await call(
      env,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`,
    );
  });
});
