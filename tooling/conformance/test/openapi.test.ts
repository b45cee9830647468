// Conformance: the OpenAPI documents kubectl reads (apply's patch computation and field-validation check,
// explain, edit): the v2 document, the v3 root and per-group-version documents with their caching, and a
// CRD's kinds appearing in them once it is established. OpenAPI v3 is served from kube-apiserver 1.24
// (beta, on by default; GA in 1.27); v2 from every version.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, crd, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, skipBefore } from './gates.ts';

let env: Environment;
const group = `${unique('openapi')}.lasso.example.com`;
const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const widgetName = [...group.split('.').reverse(), 'v1', 'Widget'].join('.');

beforeAll(async () => {
  env = await startEnvironment();
});

afterAll(async () => {
  await call(env, 'DELETE', `${crdsPath}/widgets.${group}`);
  await call(env, 'DELETE', `${crdsPath}/gadgets.${group}`);
  await env?.stop();
});

function patchOperation(document: any, kind: string): any {
  return Object.values(document.paths)
    .map((item: any) => item.patch)
    .find((operation: any) => {
      const gvk = operation?.['x-kubernetes-group-version-kind'];
      return gvk?.kind === kind;
    });
}

async function createWidgetCrd(plural = 'widgets', kind = 'Widget'): Promise<void> {
  const existing = await call(env, 'GET', `${crdsPath}/${plural}.${group}`);
  if (existing.status === 200) return;
  const created = await call(env, 'POST', crdsPath, { body: crd({ group, plural, kind }) });
  expect(created.status).toBe(201);
}

describe('OpenAPI v2', () => {
  it('publishes built-in kinds with their GVK and the patch metadata of strategic merge', async () => {
    const reply = await call(env, 'GET', '/openapi/v2');
    expect(reply.status).toBe(200);
    expect(reply.headers.etag).toMatch(/^"[0-9A-Fa-f]+"$/);
    expect(reply.body.swagger).toBe('2.0');
    const configMap = reply.body.definitions['io.k8s.api.core.v1.ConfigMap'];
    expect(configMap['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'ConfigMap' },
    ]);
    expect(configMap.properties.metadata.$ref).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    expect(
      reply.body.definitions['io.k8s.api.core.v1.PodSpec'].properties.containers,
    ).toMatchObject({
      type: 'array',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
  });

  it('answers in protobuf when asked as client-go asks (gnostic Document, swagger first)', async () => {
    const reply = await call(env, 'GET', '/openapi/v2', {
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(reply.status).toBe(200);
    // Field 1 (swagger), length-delimited, 3 bytes: "2.0".
    expect(reply.text.startsWith('\n\u00032.0')).toBe(true);
    expect(reply.text).toContain('io.k8s.api.core.v1.ConfigMap');
  });

  it('publishes an established CRD kind with its schema', async () => {
    await createWidgetCrd();
    let widget: any;
    await eventually(async () => {
      const reply = await call(env, 'GET', '/openapi/v2');
      widget = reply.body?.definitions?.[widgetName];
      return widget !== undefined;
    }, 30_000);
    expect(widget['x-kubernetes-group-version-kind']).toEqual([
      { group, version: 'v1', kind: 'Widget' },
    ]);
    expect(widget.properties.spec.properties.replicas.type).toBe('integer');
    expect(widget.properties.metadata.$ref).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
  });
});

describe('OpenAPI v3', () => {
  it('lists each served group-version with a hash URL (1.24+)', async ({ skip }) => {
    await skipBefore(env, skip, 24);
    const reply = await call(env, 'GET', '/openapi/v3');
    expect(reply.status).toBe(200);
    expect(reply.headers.etag).toBeDefined();
    for (const key of ['api/v1', 'apis/apps/v1', 'apis/apiextensions.k8s.io/v1']) {
      expect(reply.body.paths[key].serverRelativeURL).toMatch(
        new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]+$`),
      );
    }
  });

  it('answers the hash URL with immutable caching and the hash as ETag (1.24+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 24);
    const root = await call(env, 'GET', '/openapi/v3');
    const url: string = root.body.paths['api/v1'].serverRelativeURL;
    const reply = await call(env, 'GET', url);
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('public, immutable');
    expect(reply.headers.etag).toBe(`"${url.slice(url.indexOf('hash=') + 5)}"`);
    expect(reply.headers.expires).toBeDefined();
    const again = await call(env, 'GET', '/openapi/v3/api/v1', {
      headers: { 'If-None-Match': String(reply.headers.etag) },
    });
    expect(again.status).toBe(304);
  });

  it('publishes built-in kinds with GVK, patch metadata and fieldValidation on PATCH (1.27+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 27);
    const reply = await call(env, 'GET', '/openapi/v3/api/v1');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toMatch(/^3\./);
    const schemas = reply.body.components.schemas;
    expect(schemas['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'ConfigMap' },
    ]);
    expect(schemas['io.k8s.api.core.v1.PodSpec'].properties.containers).toMatchObject({
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    const patch = patchOperation(reply.body, 'ConfigMap');
    const parameters = patch.parameters.map((parameter: any) => parameter.name);
    expect(parameters).toEqual(
      expect.arrayContaining(['dryRun', 'fieldManager', 'fieldValidation', 'force']),
    );
    expect(Object.keys(patch.requestBody.content)).toContain(
      'application/strategic-merge-patch+json',
    );
  });

  it('adds an established CRD to the root and publishes its kind (1.27+)', async ({ skip }) => {
    await skipBefore(env, skip, 27);
    await createWidgetCrd();
    const key = `apis/${group}/v1`;
    await eventually(async () => {
      const root = await call(env, 'GET', '/openapi/v3');
      return root.body.paths[key] !== undefined;
    }, 30_000);
    const root = await call(env, 'GET', '/openapi/v3');
    const reply = await call(env, 'GET', root.body.paths[key].serverRelativeURL);
    expect(reply.status).toBe(200);
    const widget = reply.body.components.schemas[widgetName];
    expect(widget['x-kubernetes-group-version-kind']).toEqual([
      { group, version: 'v1', kind: 'Widget' },
    ]);
    expect(widget.properties.spec.properties.replicas.type).toBe('integer');
    const patch = patchOperation(reply.body, 'Widget');
    expect(patch.parameters.map((parameter: any) => parameter.name)).toContain('fieldValidation');
    expect(Object.keys(patch.requestBody.content)).not.toContain(
      'application/strategic-merge-patch+json',
    );
  });

  it('drops a deleted CRD from the root (1.27+)', async ({ skip }) => {
    await skipBefore(env, skip, 27);
    await createWidgetCrd();
    const key = `apis/${group}/v1`;
    await eventually(
      async () => (await call(env, 'GET', '/openapi/v3')).body.paths[key] !== undefined,
      30_000,
    );
    const deleted = await call(env, 'DELETE', `${crdsPath}/widgets.${group}`);
    expect(deleted.status).toBe(200);
    await eventually(
      async () => (await call(env, 'GET', '/openapi/v3')).body.paths[key] === undefined,
      30_000,
    );
  });
});

describe('fieldValidation, which the documents advertise', () => {
  it('refuses unknown fields of a built-in kind under Strict (1.27+)', async ({ skip }) => {
    await skipBefore(env, skip, 27);
    const name = unique('strict');
    const reply = await call(
      env,
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldValidation=Strict',
      {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name },
          data: { a: 'b' },
          bogus: 1,
        },
      },
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    });
    const missing = await call(env, 'GET', `/api/v1/namespaces/default/configmaps/${name}`);
    expect(missing.status).toBe(404);
  });

  it('refuses unknown fields on replace under Strict and lets them through under Ignore (1.27+)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 27);
    const name = unique('strict');
    const path = '/api/v1/namespaces/default/configmaps';
    const created = await call(env, 'POST', path, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } },
    });
    expect(created.status).toBe(201);
    const body = { ...created.body, data: { a: 'c' }, spec: { bogus: true } };
    const strict = await call(env, 'PUT', `${path}/${name}?fieldValidation=Strict`, { body });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
    const ignored = await call(env, 'PUT', `${path}/${name}?fieldValidation=Ignore`, { body });
    expect(ignored.status).toBe(200);
    expect(ignored.body.data).toEqual({ a: 'c' });
    expect(ignored.body.spec).toBeUndefined();
  });

  it('refuses unknown fields of a custom resource under Strict (1.27+)', async ({ skip }) => {
    await skipBefore(env, skip, 27);
    // Its own CRD: the v3 tests delete the widgets one, which a real server removes asynchronously.
    await createWidgetCrd('gadgets', 'Gadget');
    const path = `/apis/${group}/v1/namespaces/default/gadgets`;
    await eventually(async () => (await call(env, 'GET', path)).status === 200, 30_000);
    const reply = await call(env, 'POST', `${path}?fieldValidation=Strict`, {
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        metadata: { name: unique('strict') },
        spec: { replicas: 1, bogus: true },
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe(
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.bogus"',
    );
  });
});
