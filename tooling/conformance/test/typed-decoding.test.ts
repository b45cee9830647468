// Conformance: a built-in kind's body is decoded into its Go type, so a field of the wrong JSON type is
// refused (400 on create and update, 422 on a patch result) before anything is stored. The wording is the
// decoder's: json-iterator up to 1.22 (1.20.2 measured: `v1.Deployment.Spec: v1.DeploymentSpec.Replicas:
// readUint32: ...`), the encoding/json fork sigs.k8s.io/json from 1.23 (kubernetes#105030), which the
// built-in server answers with.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, deployment, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast } from './gates.ts';

let env: Environment;
let ns: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const deployments = (): string => `/apis/apps/v1/namespaces/${ns}/deployments`;

/** A Deployment's JSON text with `replicas` written as `literal` (kept as written: `3.0`, `1e12`). */
function withReplicas(literal: string, name = unique('typed')): string {
  return JSON.stringify(deployment(name, 1)).replace('"replicas":1', `"replicas":${literal}`);
}

const prefix = 'Deployment in version "v1" cannot be handled as a Deployment: ';

describe('create', () => {
  it.for([
    { literal: '"three"', value: 'string', legacy: 'readUint32: unexpected character' },
    { literal: '2.5', value: 'number 2.5', legacy: 'can not decode float as int' },
    { literal: '3.0', value: 'number 3.0', legacy: 'can not decode float as int' },
    { literal: '1e12', value: 'number 1e12', legacy: 'unexpected char e' },
    { literal: '2147483648', value: 'number 2147483648', legacy: 'overflow: 2147483648' },
    { literal: 'true', value: 'bool', legacy: 'readUint32: unexpected character' },
    { literal: '{}', value: 'object', legacy: 'readUint32: unexpected character' },
  ])(
    'refuses spec.replicas $literal with 400 and stores nothing',
    async ({ literal, value, legacy }) => {
      const name = unique('typed');
      const reply = await call(env, 'POST', deployments(), { body: withReplicas(literal, name) });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.reason).toBe('BadRequest');
      if (await atLeast(env, 23)) {
        expect(reply.body.message).toBe(
          `${prefix}json: cannot unmarshal ${value} into Go struct field DeploymentSpec.spec.replicas of type int32`,
        );
      } else {
        expect(reply.body.message).toContain(`${prefix}v1.Deployment.Spec: v1.DeploymentSpec.`);
        expect(reply.body.message).toContain(legacy);
      }
      expect((await call(env, 'GET', `${deployments()}/${name}`)).status).toBe(404);
    },
  );

  it('accepts null, a negative number (left to validation) and a whole number', async () => {
    expect((await call(env, 'POST', deployments(), { body: withReplicas('null') })).status).toBe(
      201,
    );
    expect((await call(env, 'POST', deployments(), { body: withReplicas('2') })).status).toBe(201);
    const negative = await call(env, 'POST', deployments(), { body: withReplicas('-1') });
    expect(negative.status).toBe(422);
  });

  it('refuses an env value that is an object, deep in the pod template', async () => {
    const body = deployment(unique('typed'), 1);
    body.spec.template.spec.containers[0].env = [{ name: 'A', value: { x: 1 } }];
    const reply = await call(env, 'POST', deployments(), { body });
    expect(reply.status, reply.text).toBe(400);
    if (await atLeast(env, 23)) {
      expect(reply.body.message).toBe(
        `${prefix}json: cannot unmarshal object into Go struct field EnvVar.spec.template.spec.containers.env.value of type string`,
      );
    } else {
      expect(reply.body.message).toContain(
        `${prefix}v1.Deployment.Spec: v1.DeploymentSpec.Template: v1.PodTemplateSpec.Spec: v1.PodSpec.Containers: []v1.Container: v1.Container.Env: []v1.EnvVar: v1.EnvVar.Value: ReadString: expects " or n, but found {`,
      );
    }
  });

  it.for([
    {
      name: 'a label value that is a number',
      edit: (body: any) => {
        body.metadata.labels = { a: 1 };
      },
      message:
        'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    },
    {
      name: 'a bool field given a string',
      edit: (body: any) => {
        body.spec.paused = 'yes';
      },
      message:
        'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool',
    },
    {
      name: 'a struct given a string',
      edit: (body: any) => {
        body.spec.strategy = 'x';
      },
      message:
        'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.strategy of type v1.DeploymentStrategy',
    },
    {
      name: 'a list given an object',
      edit: (body: any) => {
        body.spec.template.spec.containers = { a: 1 };
      },
      message:
        'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    },
    {
      name: 'an int-or-string given a bool',
      edit: (body: any) => {
        body.spec.template.spec.containers[0].livenessProbe = { httpGet: { port: true } };
      },
      message:
        'json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
    },
    {
      name: 'a quantity given a bool',
      edit: (body: any) => {
        body.spec.template.spec.containers[0].resources = { limits: { cpu: true } };
      },
      message:
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
    {
      name: 'a timestamp that is no RFC 3339 time',
      edit: (body: any) => {
        body.metadata.creationTimestamp = 'abc';
      },
      message: 'parsing time "abc" as "2006-01-02T15:04:05Z07:00": cannot parse "abc" as "2006"',
    },
  ])('refuses $name (1.23+ wording)', async ({ edit, message }, { skip }) => {
    const body = deployment(unique('typed'), 1);
    edit(body);
    const reply = await call(env, 'POST', deployments(), { body });
    expect(reply.status, reply.text).toBe(400);
    if (!(await atLeast(env, 23))) skip('json-iterator words it differently before 1.23');
    expect(reply.body.message).toBe(`${prefix}${message}`);
  });

  it('accepts a quantity written as a number', async () => {
    const body = deployment(unique('typed'), 1);
    body.spec.template.spec.containers[0].resources = { limits: { cpu: 1.5 } };
    const reply = await call(env, 'POST', deployments(), { body });
    expect(reply.status, reply.text).toBe(201);
  });

  it('refuses a ConfigMap whose binaryData is not base64', async () => {
    const reply = await call(env, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b64' },
        binaryData: { a: '!!!' },
      },
    });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.message).toContain('illegal base64 data at input byte 0');
  });
});

describe('update and patch', () => {
  let name: string;
  beforeAll(async () => {
    name = unique('typed-base');
    const created = await call(env, 'POST', deployments(), { body: deployment(name, 1) });
    expect(created.status, created.text).toBe(201);
  });

  it('refuses a replace with spec.replicas "three" (400)', async () => {
    const current = (await call(env, 'GET', `${deployments()}/${name}`)).body;
    current.spec.replicas = 'three';
    const reply = await call(env, 'PUT', `${deployments()}/${name}`, { body: current });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.message).toContain(prefix);
  });

  it.for([
    { type: 'application/merge-patch+json', patch: { spec: { replicas: 'three' } } },
    {
      type: 'application/json-patch+json',
      patch: [{ op: 'replace', path: '/spec/replicas', value: 'three' }],
    },
  ])('refuses a $type result with 422 on the field patch', async ({ type, patch }) => {
    const reply = await call(env, 'PATCH', `${deployments()}/${name}`, {
      body: patch,
      contentType: type,
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.details.causes[0].field).toBe('patch');
    expect(reply.body.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{/);
    if (await atLeast(env, 23)) {
      expect(reply.body.message).toContain(
        '": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
    }
    const stored = await call(env, 'GET', `${deployments()}/${name}`);
    expect(stored.body.spec.replicas).toBe(1);
  });

  it.for([
    {
      patch: { spec: { replicas: 'three' } },
      map: 'map[spec:map[replicas:three]]',
      error: 'unrecognized type: int32',
    },
    {
      patch: { spec: { replicas: 2.5 } },
      map: 'map[spec:map[replicas:2.5]]',
      error: 'cannot convert float64 to int32',
    },
  ])(
    'refuses a strategic merge patch to $map as the unstructured converter words it',
    async ({ patch, map, error }) => {
      const reply = await call(env, 'PATCH', `${deployments()}/${name}`, {
        body: patch,
        contentType: 'application/strategic-merge-patch+json',
      });
      expect(reply.status, reply.text).toBe(422);
      expect(reply.body.message).toBe(` "" is invalid: patch: Invalid value: "${map}": ${error}`);
    },
  );

  it('refuses an apply configuration with a non-numeric replicas (500, structured-merge-diff)', async () => {
    const reply = await call(env, 'PATCH', `${deployments()}/${name}?fieldManager=typed`, {
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: { replicas: 'three' },
      }),
      contentType: 'application/apply-patch+yaml',
    });
    expect(reply.status, reply.text).toBe(500);
    expect(reply.body.message).toContain(
      '.spec.replicas: expected numeric (int or float), got *value.valueUnstructured',
    );
  });
});
