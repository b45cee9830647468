// Conformance: CustomResourceDefinitions: create -> Established -> served and discovered; custom objects
// with status subresource, generation, pruning, validation, several versions, cluster scope; delete -> 404.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, crd, unique, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gates.ts';

let env: Environment;
let ns: string;
const group = `${unique('conf')}.lasso.example.com`;
const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function installAndAwait(body: any): Promise<void> {
  const created = await call(env, 'POST', crdsPath, { body });
  expect(created.status).toBe(201);
  const stream = await watch(
    env,
    `${crdsPath}?watch=1&fieldSelector=metadata.name%3D${body.metadata.name}&resourceVersion=0`,
  );
  try {
    await stream.until((event) =>
      (event.object.status?.conditions ?? []).some(
        (condition: any) => condition.type === 'Established' && condition.status === 'True',
      ),
    );
  } finally {
    stream.close();
  }
  // Discovery follows the Established condition closely on a real server; wait for it as clients do.
  for (const version of body.spec.versions) {
    await eventually(async () => {
      const reply = await call(env, 'GET', `/apis/${body.spec.group}/${version.name}`);
      return (
        reply.status === 200 &&
        reply.body.resources.some((resource: any) => resource.name === body.spec.names.plural)
      );
    });
  }
}

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  await installAndAwait(crd({ group, plural: 'widgets', kind: 'Widget', shortNames: ['wd'] }));
});

afterAll(async () => {
  await env?.stop();
});

function widget(name: string, spec: Record<string, unknown> = { replicas: 1 }): any {
  return { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec };
}

describe('CustomResourceDefinition', () => {
  it('reports Established and NamesAccepted and discovery shows the resource', async () => {
    const live = await call(env, 'GET', `${crdsPath}/widgets.${group}`);
    const conditions = new Map<string, any>(
      live.body.status.conditions.map((condition: any) => [condition.type, condition]),
    );
    expect(conditions.get('Established')?.status).toBe('True');
    expect(conditions.get('NamesAccepted')?.status).toBe('True');
    expect(live.body.status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget' });
    expect(live.body.status.storedVersions).toEqual(['v1']);

    const groups = await call(env, 'GET', '/apis');
    expect(groups.body.groups.map((item: any) => item.name)).toContain(group);
    const resources = await call(env, 'GET', `/apis/${group}/v1`);
    const byName = new Map<string, any>(
      resources.body.resources.map((item: any) => [item.name, item]),
    );
    expect(byName.get('widgets')).toMatchObject({
      namespaced: true,
      kind: 'Widget',
      singularName: 'widget',
      shortNames: ['wd'],
    });
    expect(byName.get('widgets/status')).toMatchObject({ kind: 'Widget' });
  });

  it('answers 422 Invalid for a CRD version without a schema', async () => {
    const body = crd({ group, plural: 'schemaless', kind: 'Schemaless' });
    delete body.spec.versions[0].schema;
    const reply = await call(env, 'POST', crdsPath, { body });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes.map((cause: any) => cause.field)).toContain(
      'spec.versions[0].schema.openAPIV3Schema',
    );
  });

  it('answers 422 Invalid for a CRD whose name is not plural.group', async () => {
    const body = crd({ group, plural: 'gadgets', kind: 'Gadget' });
    body.metadata.name = `wrong.${group}`;
    const reply = await call(env, 'POST', crdsPath, { body });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
  });
});

describe('custom resources', () => {
  it('creates with generation 1, drops status on create and answers 409 on a duplicate', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const body = widget('w-create');
    body.status = { ready: true };
    const reply = await call(env, 'POST', path, { body });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ apiVersion: `${group}/v1`, kind: 'Widget' });
    expect(reply.body.metadata.generation).toBe(1);
    expect(reply.body.status).toBeUndefined();
    const again = await call(env, 'POST', path, { body: widget('w-create') });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      reason: 'AlreadyExists',
      message: `widgets.${group} "w-create" already exists`,
      details: { name: 'w-create', group, kind: 'widgets' },
    });
  });

  it('lists custom objects with kind and apiVersion on every item', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await call(env, 'POST', path, { body: widget('w-list') });
    const reply = await call(env, 'GET', path);
    expect(reply.body).toMatchObject({ kind: 'WidgetList', apiVersion: `${group}/v1` });
    const item = reply.body.items.find((candidate: any) => candidate.metadata.name === 'w-list');
    expect(item).toMatchObject({ kind: 'Widget', apiVersion: `${group}/v1` });
  });

  it('bumps generation on spec change, ignores status on the main resource and spec on /status', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const created = await call(env, 'POST', path, { body: widget('w-gen') });
    const changed = structuredClone(created.body);
    changed.spec.replicas = 2;
    changed.status = { ready: true };
    const afterSpec = await call(env, 'PUT', `${path}/w-gen`, { body: changed });
    expect(afterSpec.status).toBe(200);
    expect(afterSpec.body.metadata.generation).toBe(2);
    expect(afterSpec.body.status).toBeUndefined();

    const status = structuredClone(afterSpec.body);
    status.status = { ready: true, observedGeneration: 2 };
    status.spec.replicas = 9;
    const afterStatus = await call(env, 'PUT', `${path}/w-gen/status`, { body: status });
    expect(afterStatus.status).toBe(200);
    expect(afterStatus.body.status).toEqual({ ready: true, observedGeneration: 2 });
    expect(afterStatus.body.spec.replicas).toBe(2);
    expect(afterStatus.body.metadata.generation).toBe(2);

    const metadataOnly = structuredClone(afterStatus.body);
    metadataOnly.metadata.labels = { a: 'b' };
    const afterLabels = await call(env, 'PUT', `${path}/w-gen`, { body: metadataOnly });
    expect(afterLabels.body.metadata.generation).toBe(2);
  });

  it('requires a resourceVersion on update', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const created = await call(env, 'POST', path, { body: widget('w-unconditional') });
    const body = structuredClone(created.body);
    delete body.metadata.resourceVersion;
    const reply = await call(env, 'PUT', `${path}/w-unconditional`, { body });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
  });

  it('prunes fields the schema does not know', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const reply = await call(env, 'POST', path, {
      body: widget('w-pruned', { replicas: 1, unknownField: 'gone' }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec).toEqual({ replicas: 1 });
  });

  it('answers 422 Invalid with a cause for a value of the wrong type', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const reply = await call(env, 'POST', path, {
      body: widget('w-invalid', { replicas: 'three' }),
    });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(reply.body.details.causes.map((cause: any) => cause.field)).toContain('spec.replicas');
  });

  it('answers 415 for a strategic merge patch', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await call(env, 'POST', path, { body: widget('w-strategic') });
    const reply = await call(env, 'PATCH', `${path}/w-strategic`, {
      body: { spec: { replicas: 2 } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(reply.status).toBe(415);
    expect(reply.body.reason).toBe('UnsupportedMediaType');
  });
});

describe('CRD variants', () => {
  it('serves several versions from one storage version by rewriting apiVersion', async () => {
    const body = crd({ group, plural: 'gizmos', kind: 'Gizmo', versions: ['v1', 'v1beta1'] });
    await installAndAwait(body);
    const created = await call(env, 'POST', `/apis/${group}/v1beta1/namespaces/${ns}/gizmos`, {
      body: {
        apiVersion: `${group}/v1beta1`,
        kind: 'Gizmo',
        metadata: { name: 'g1' },
        spec: { replicas: 1 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe(`${group}/v1beta1`);
    const asV1 = await call(env, 'GET', `/apis/${group}/v1/namespaces/${ns}/gizmos/g1`);
    expect(asV1.status).toBe(200);
    expect(asV1.body.apiVersion).toBe(`${group}/v1`);
    expect(asV1.body.metadata.uid).toBe(created.body.metadata.uid);
    const groupDocument = await call(env, 'GET', `/apis/${group}`);
    expect(groupDocument.body.versions.map((version: any) => version.version)).toEqual(
      expect.arrayContaining(['v1', 'v1beta1']),
    );
  });

  it('serves the scale subresource of a custom resource', async () => {
    const body = crd({ group, plural: 'scalables', kind: 'Scalable' });
    body.spec.versions[0].subresources = {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    };
    body.spec.versions[0].schema.openAPIV3Schema.properties.status.properties.replicas = {
      type: 'integer',
    };
    await installAndAwait(body);
    const path = `/apis/${group}/v1/namespaces/${ns}/scalables`;
    await call(env, 'POST', path, {
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Scalable',
        metadata: { name: 's1' },
        spec: { replicas: 2 },
      },
    });
    const scale = await call(env, 'GET', `${path}/s1/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
    });
    const updated = await call(env, 'PUT', `${path}/s1/scale`, {
      body: { ...scale.body, spec: { replicas: 5 } },
    });
    expect(updated.status).toBe(200);
    const live = await call(env, 'GET', `${path}/s1`);
    expect(live.body.spec.replicas).toBe(5);
    expect(live.body.metadata.generation).toBe(2);
  });

  it('keeps status and bumps generation for any non-metadata change without a status subresource', async () => {
    await installAndAwait(crd({ group, plural: 'plains', kind: 'Plain', status: false }));
    const path = `/apis/${group}/v1/namespaces/${ns}/plains`;
    const created = await call(env, 'POST', path, {
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Plain',
        metadata: { name: 'p1' },
        spec: { replicas: 1 },
        status: { ready: false },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toEqual({ ready: false });
    expect(created.body.metadata.generation).toBe(1);

    const statusChange = structuredClone(created.body);
    statusChange.status = { ready: true };
    const afterStatus = await call(env, 'PUT', `${path}/p1`, { body: statusChange });
    expect(afterStatus.status).toBe(200);
    expect(afterStatus.body.status).toEqual({ ready: true });
    expect(afterStatus.body.metadata.generation).toBe(2);

    const labelChange = structuredClone(afterStatus.body);
    labelChange.metadata.labels = { only: 'metadata' };
    const afterLabels = await call(env, 'PUT', `${path}/p1`, { body: labelChange });
    expect(afterLabels.status).toBe(200);
    expect(afterLabels.body.metadata.generation).toBe(2);

    const subresource = await call(env, 'PUT', `${path}/p1/status`, { body: afterLabels.body });
    expect(subresource.status).toBe(404);
    expect(subresource.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('ignores metadata changes other than managedFields on /status of a custom resource', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const created = await call(env, 'POST', path, { body: widget('w-status-meta') });
    const body = structuredClone(created.body);
    body.metadata.labels = { sneaky: 'label' };
    body.metadata.annotations = { sneaky: 'annotation' };
    body.status = { ready: true };
    const reply = await call(env, 'PUT', `${path}/w-status-meta/status`, { body });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toEqual({ ready: true });
    expect(reply.body.metadata.labels).toBeUndefined();
    expect(reply.body.metadata.annotations).toBeUndefined();
  });

  it('serves a cluster-scoped resource without a namespace', async () => {
    await installAndAwait(
      crd({ group, plural: 'clusterthings', kind: 'ClusterThing', scope: 'Cluster' }),
    );
    const discovery = await call(env, 'GET', `/apis/${group}/v1`);
    expect(
      discovery.body.resources.find((item: any) => item.name === 'clusterthings').namespaced,
    ).toBe(false);
    const created = await call(env, 'POST', `/apis/${group}/v1/clusterthings`, {
      body: { apiVersion: `${group}/v1`, kind: 'ClusterThing', metadata: { name: 'c1' }, spec: {} },
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata.namespace).toBeUndefined();
    expect((await call(env, 'GET', `/apis/${group}/v1/clusterthings/c1`)).status).toBe(200);
  });

  it('stops serving the resource once the CRD is deleted', async () => {
    const body = crd({ group, plural: 'ephemerals', kind: 'Ephemeral' });
    await installAndAwait(body);
    const path = `/apis/${group}/v1/namespaces/${ns}/ephemerals`;
    expect(
      (
        await call(env, 'POST', path, {
          body: {
            apiVersion: `${group}/v1`,
            kind: 'Ephemeral',
            metadata: { name: 'e1' },
            spec: {},
          },
        })
      ).status,
    ).toBe(201);
    const objects = await watch(env, `${path}?watch=1&resourceVersion=0`);
    await objects.next();
    const crdWatch = await watch(
      env,
      `${crdsPath}?watch=1&fieldSelector=metadata.name%3D${body.metadata.name}&resourceVersion=0`,
    );
    try {
      const deleted = await call(env, 'DELETE', `${crdsPath}/${body.metadata.name}`);
      expect(deleted.status).toBe(200);
      await crdWatch.until((event) => event.type === 'DELETED', 10_000);
      const gone = await objects.until((event) => event.type === 'DELETED', 10_000);
      expect(gone.at(-1)!.object.metadata.name).toBe('e1');
    } finally {
      crdWatch.close();
      objects.close();
    }
    await eventually(async () => (await call(env, 'GET', path)).status === 404);
  });
});
