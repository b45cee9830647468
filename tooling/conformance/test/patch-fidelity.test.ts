// Conformance: what a patch leaves behind, as kube-apiserver writes it. Fields Go's omitempty drops are
// gone after any write (the last label or annotation removed, an empty env list), strategic merge orders a
// merged list as strategicpatch's mergeSortedSlice does, and fieldValidation applies to patches.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, crd, deployment, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, skipBefore } from './gates.ts';

let env: Environment;
let ns: string;
let cms: string;
let deployments: string;

const merge = 'application/merge-patch+json';
const strategic = 'application/strategic-merge-patch+json';
const jsonPatch = 'application/json-patch+json';

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
});

afterAll(async () => {
  await env?.stop();
});

function withEnv(name: string, env: Array<{ name: string; value: string }>): any {
  const body = deployment(name);
  body.spec.template.spec.containers[0].env = env;
  return body;
}

describe('omitempty after a write', () => {
  it('drops labels and annotations once the last one is removed, by every patch type', async () => {
    const name = unique('omit');
    const created = await call(env, 'POST', cms, {
      body: {
        ...configMap(name, { a: '1' }, { tier: 'web' }),
        metadata: { name, labels: { tier: 'web' }, annotations: { note: 'x' } },
      },
    });
    expect(created.status).toBe(201);
    const unlabeled = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { metadata: { labels: { tier: null } } },
      contentType: merge,
    });
    expect(unlabeled.status).toBe(200);
    expect(unlabeled.body.metadata).not.toHaveProperty('labels');
    const unannotated = await call(env, 'PATCH', `${cms}/${name}`, {
      body: [{ op: 'remove', path: '/metadata/annotations/note' }],
      contentType: jsonPatch,
    });
    expect(unannotated.status).toBe(200);
    expect(unannotated.body.metadata).not.toHaveProperty('annotations');
    const emptied = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { data: { a: null } },
      contentType: strategic,
    });
    expect(emptied.status).toBe(200);
    expect(emptied.body).not.toHaveProperty('data');
    const read = await call(env, 'GET', `${cms}/${name}`);
    expect(read.body.metadata).not.toHaveProperty('labels');
    expect(read.body.metadata).not.toHaveProperty('annotations');
    expect(read.body).not.toHaveProperty('data');
  });

  it('drops empty maps, lists and zero scalars a create sends, and keeps a zero pointer', async () => {
    const name = unique('omit');
    const body = withEnv(name, []);
    body.metadata.annotations = {};
    body.spec.paused = false;
    body.spec.minReadySeconds = 0;
    const created = await call(env, 'POST', deployments, { body });
    expect(created.status).toBe(201);
    expect(created.body.metadata).not.toHaveProperty('annotations');
    expect(created.body.spec).not.toHaveProperty('paused');
    expect(created.body.spec).not.toHaveProperty('minReadySeconds');
    expect(created.body.spec.template.spec.containers[0]).not.toHaveProperty('env');
    // A pointer field keeps its zero value.
    const scaled = await call(env, 'PATCH', `${deployments}/${name}`, {
      body: { spec: { replicas: 0 } },
      contentType: merge,
    });
    expect(scaled.body.spec.replicas).toBe(0);
    const cm = await call(env, 'POST', cms, { body: configMap(unique('empty'), {}) });
    expect(cm.status).toBe(201);
    expect(cm.body).not.toHaveProperty('data');
  });

  it('does not count a write that only adds an empty map as a change', async () => {
    const name = unique('noop');
    const created = await call(env, 'POST', cms, { body: configMap(name, { a: '1' }) });
    const patched = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { metadata: { labels: {} } },
      contentType: merge,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('drops an emptied annotations map of a custom resource (its metadata is ObjectMeta)', async () => {
    const group = `${unique('omit')}.lasso.example.com`;
    const definition = crd({ group, plural: 'notes', kind: 'Note' });
    const made = await call(
      env,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      {
        body: definition,
      },
    );
    expect(made.status).toBe(201);
    const path = `/apis/${group}/v1/namespaces/${ns}/notes`;
    await eventually(async () => (await call(env, 'GET', path)).status === 200, 30_000);
    const created = await call(env, 'POST', path, {
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Note',
        metadata: { name: 'n', annotations: { a: 'b' } },
        spec: { tags: [] },
      },
    });
    expect(created.status).toBe(201);
    const patched = await call(env, 'PATCH', `${path}/n`, {
      body: { metadata: { annotations: { a: null } } },
      contentType: merge,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).not.toHaveProperty('annotations');
    // Custom fields are unstructured: an empty list stays.
    expect(patched.body.spec).toEqual({ tags: [] });
    await call(
      env,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/notes.${group}`,
    );
  });
});

describe('strategic merge order (strategicpatch mergeSortedSlice)', () => {
  it('puts a new list item before the live items that follow it', async () => {
    const name = unique('order');
    await call(env, 'POST', deployments, { body: withEnv(name, [{ name: 'A', value: '1' }]) });
    const patched = await call(env, 'PATCH', `${deployments}/${name}`, {
      body: {
        spec: {
          template: {
            spec: { containers: [{ name: 'main', env: [{ name: 'B', value: '2' }] }] },
          },
        },
      },
      contentType: strategic,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.spec.template.spec.containers[0].env).toEqual([
      { name: 'B', value: '2' },
      { name: 'A', value: '1' },
    ]);
  });

  it('keeps the patch order for named items and the live order for the rest', async () => {
    const name = unique('order');
    const body = deployment(name);
    body.spec.template.spec.containers = ['app', 'sidecar'].map((container) => ({
      name: container,
      image: 'registry.k8s.io/pause:3.9',
    }));
    await call(env, 'POST', deployments, { body });
    const patched = await call(env, 'PATCH', `${deployments}/${name}`, {
      body: {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'app', image: 'registry.k8s.io/pause:3.10' },
                { name: 'new', image: 'registry.k8s.io/pause:3.9' },
              ],
            },
          },
        },
      },
      contentType: strategic,
    });
    expect(patched.status).toBe(200);
    expect(
      patched.body.spec.template.spec.containers.map((container: any) => container.name),
    ).toEqual(['app', 'new', 'sidecar']);
  });

  it('merges a finalizer list as a set, the patch items first', async () => {
    const name = unique('fin');
    const body = configMap(name);
    body.metadata.finalizers = ['example.com/one'];
    await call(env, 'POST', cms, { body });
    const patched = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { metadata: { finalizers: ['example.com/two'] } },
      contentType: strategic,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.finalizers).toEqual(['example.com/two', 'example.com/one']);
    const cleared = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { metadata: { finalizers: null } },
      contentType: merge,
    });
    expect(cleared.body.metadata).not.toHaveProperty('finalizers');
  });
});

describe('fieldValidation on patches', () => {
  it('refuses an unknown field of a strategic merge patch under Strict with 422 (1.25+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 25);
    const name = unique('strict');
    await call(env, 'POST', deployments, { body: deployment(name) });
    const reply = await call(env, 'PATCH', `${deployments}/${name}?fieldValidation=Strict`, {
      body: { spec: { bogus: 1 } },
      contentType: strategic,
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(reply.body.message).toBe(
      ' "" is invalid: patch: Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"',
    );
    expect(reply.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"',
        field: 'patch',
      },
    ]);
  });

  it('refuses an unknown field of a merge patch under Strict and names duplicate fields (1.25+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 25);
    const name = unique('strict');
    await call(env, 'POST', cms, { body: configMap(name, { a: '1' }) });
    const reply = await call(env, 'PATCH', `${cms}/${name}?fieldValidation=Strict`, {
      body: '{"data":{"b":"1","b":"2"},"bogus":true}',
      contentType: merge,
    });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(reply.body.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: duplicate field "data.b", unknown field "bogus"$/,
    );
    const unchanged = await call(env, 'GET', `${cms}/${name}`);
    expect(unchanged.body.data).toEqual({ a: '1' });
  });

  it('warns about an unknown field by default and drops it (1.25+)', async ({ skip }) => {
    await skipBefore(env, skip, 25);
    const name = unique('warn');
    await call(env, 'POST', cms, { body: configMap(name, { a: '1' }) });
    const reply = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { bogus: true, data: { b: '2' } },
      contentType: merge,
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
    expect(reply.body).not.toHaveProperty('bogus');
    expect(reply.body.data).toEqual({ a: '1', b: '2' });
    const ignored = await call(env, 'PATCH', `${cms}/${name}?fieldValidation=Ignore`, {
      body: { bogus: true },
      contentType: merge,
    });
    expect(ignored.headers.warning).toBeUndefined();
  });

  it('drops an unknown field of a patch silently before fieldValidation existed (1.20)', async () => {
    const name = unique('old');
    await call(env, 'POST', cms, { body: configMap(name, { a: '1' }) });
    const reply = await call(env, 'PATCH', `${cms}/${name}?fieldValidation=Ignore`, {
      body: { bogus: true },
      contentType: strategic,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty('bogus');
  });

  it('refuses an apply configuration with an undeclared field whatever fieldValidation says (500)', async () => {
    const name = unique('apply');
    for (const query of ['', '&fieldValidation=Ignore']) {
      const reply = await call(env, 'PATCH', `${cms}/${name}?fieldManager=m${query}`, {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name },
          data: { a: '1' },
          bogus: { x: 1 },
        },
        contentType: 'application/apply-patch+yaml',
      });
      expect(reply.status).toBe(500);
      expect(reply.body).not.toHaveProperty('reason');
      // From 1.22 or so the message names the object: "(namespace/name; /v1, Kind=ConfigMap)".
      expect(reply.body.message).toMatch(
        /^failed to create typed patch object( \([^)]*\))?: \.bogus: field not declared in schema$/,
      );
    }
    expect((await call(env, 'GET', `${cms}/${name}`)).status).toBe(404);
  });

  it('keeps the last of duplicate keys in an apply body', async () => {
    const name = unique('dupapply');
    const reply = await call(env, 'PATCH', `${cms}/${name}?fieldManager=m`, {
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n`,
      contentType: 'application/apply-patch+yaml',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toEqual({ a: '2' });
  });

  it('refuses duplicate keys in an apply body under Strict and warns under Warn (1.25+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 25);
    const name = unique('dupapply');
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n`;
    const path = `${cms}/${name}?fieldManager=m`;
    const contentType = 'application/apply-patch+yaml';
    const strict = await call(env, 'PATCH', `${path}&fieldValidation=Strict`, {
      body,
      contentType,
    });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
    );
    const warned = await call(env, 'PATCH', `${path}&fieldValidation=Warn`, { body, contentType });
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe('299 - "line 7: key \\"a\\" already set in map"');
  });

  it('names unknown members of JSON patch operations and the fields they add under Strict (1.25+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 25);
    const name = unique('jp');
    await call(env, 'POST', cms, { body: configMap(name, { a: '1' }) });
    const reply = await call(env, 'PATCH', `${cms}/${name}?fieldValidation=Strict`, {
      body: [{ op: 'add', path: '/bogus', value: 1, extra: true }],
      contentType: jsonPatch,
    });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes[0].message).toMatch(
      /^Invalid value: "\{.*\\"bogus\\":1.*\}": strict decoding error: json patch unknown field "\[0\]\.extra", unknown field "bogus"$/,
    );
  });

  it('warns about unknown and duplicate fields of a create body by default (1.25+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 25);
    const name = unique('warn');
    const reply = await call(env, 'POST', cms, {
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","bogus":1},"data":{"a":"1","a":"2"}}`,
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.warning).toBe(
      '299 - "unknown field \\"metadata.bogus\\"", 299 - "duplicate field \\"data.a\\""',
    );
    expect(reply.body.data).toEqual({ a: '2' });
  });

  it('refuses a create body with a duplicate field under Strict (1.25+)', async ({ skip }) => {
    await skipBefore(env, skip, 25);
    const name = unique('dup');
    const reply = await call(env, 'POST', `${cms}?fieldValidation=Strict`, {
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1","a":"2"}}`,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"',
    );
  });
});

describe('RBAC escalation checks on patch', () => {
  it('refuses a patch that makes a Role grant more than the patcher holds', async () => {
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
    const judy = unique('judy');
    const as = (method: string, path: string, body: unknown, contentType = merge) =>
      call(env, method, path, { body, contentType, headers: { 'Impersonate-User': judy } });
    const role = (name: string, rules: unknown[]) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name },
      rules,
    });
    const held = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
    for (const body of [
      role(`writer-${judy}`, [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['get', 'patch'] },
        held,
      ]),
      role(`target-${judy}`, [held]),
    ]) {
      expect((await call(env, 'POST', `${rbac}/roles`, { body })).status).toBe(201);
    }
    const binding = await call(env, 'POST', `${rbac}/rolebindings`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `writer-${judy}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `writer-${judy}` },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: judy }],
      },
    });
    expect(binding.status).toBe(201);
    const target = `${rbac}/roles/target-${judy}`;
    await eventually(
      async () =>
        (await call(env, 'GET', target, { headers: { 'Impersonate-User': judy } })).status === 200,
    );
    const more = await as('PATCH', target, {
      rules: [held, { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }],
    });
    expect(more.status).toBe(403);
    expect(more.body).toMatchObject({
      reason: 'Forbidden',
      details: { name: `target-${judy}`, group: 'rbac.authorization.k8s.io', kind: 'roles' },
      message: `roles.rbac.authorization.k8s.io "target-${judy}" is forbidden: user "${judy}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}`,
    });
    const same = await as('PATCH', target, { metadata: { labels: { touched: 'yes' } } });
    expect(same.status).toBe(200);
    expect(same.body.rules).toEqual([held]);
  });
});
