// Conformance: merge, JSON and strategic merge patches, and server-side apply with field managers,
// conflicts and force.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, deployment } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: Environment;
let ns: string;
let cms: string;
let deployments: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
});

afterAll(async () => {
  await env?.stop();
});

describe('patch', () => {
  it('merges a JSON merge patch, deleting keys set to null', async () => {
    await call(env, 'POST', cms, { body: configMap('merge', { a: '1', b: '2' }) });
    const reply = await call(env, 'PATCH', `${cms}/merge`, {
      body: { data: { b: null, c: '3' } },
      contentType: 'application/merge-patch+json',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ a: '1', c: '3' });
  });

  it('applies a JSON patch', async () => {
    await call(env, 'POST', cms, { body: configMap('jsonpatch', { a: '1' }) });
    const reply = await call(env, 'PATCH', `${cms}/jsonpatch`, {
      body: [
        { op: 'add', path: '/data/b', value: '2' },
        { op: 'replace', path: '/data/a', value: 'one' },
        { op: 'add', path: '/metadata/labels', value: { 'example.com/x': 'y' } },
        { op: 'add', path: '/metadata/labels/example.com~1z', value: 'w' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ a: 'one', b: '2' });
    expect(reply.body.metadata.labels).toEqual({ 'example.com/x': 'y', 'example.com/z': 'w' });
  });

  it('rejects a JSON patch whose test operation fails and leaves the object alone', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('jsontest', { a: '1' }) });
    const reply = await call(env, 'PATCH', `${cms}/jsontest`, {
      body: [
        { op: 'test', path: '/data/a', value: '2' },
        { op: 'replace', path: '/data/a', value: '3' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    const live = await call(env, 'GET', `${cms}/jsontest`);
    expect(live.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('merges containers by name with a strategic merge patch on a built-in kind', async () => {
    await call(env, 'POST', deployments, { body: deployment('strategic') });
    const sidecar = { name: 'sidecar', image: 'registry.k8s.io/pause:3.9' };
    const reply = await call(env, 'PATCH', `${deployments}/strategic`, {
      body: { spec: { template: { spec: { containers: [sidecar] } } } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(reply.status).toBe(200);
    expect(
      reply.body.spec.template.spec.containers.map((container: any) => container.name).sort(),
    ).toEqual(['main', 'sidecar']);
    expect(reply.body.metadata.generation).toBe(2);
  });

  it('replaces lists with a merge patch', async () => {
    await call(env, 'POST', deployments, { body: deployment('replaced') });
    const reply = await call(env, 'PATCH', `${deployments}/replaced`, {
      body: {
        spec: {
          template: {
            spec: { containers: [{ name: 'only', image: 'registry.k8s.io/pause:3.9' }] },
          },
        },
      },
      contentType: 'application/merge-patch+json',
    });
    expect(reply.status).toBe(200);
    expect(
      reply.body.spec.template.spec.containers.map((container: any) => container.name),
    ).toEqual(['only']);
  });

  it('answers 409 Conflict when the patch carries a stale resourceVersion', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('patch-rv', { a: '1' }) });
    await call(env, 'PATCH', `${cms}/patch-rv`, {
      body: { data: { a: '2' } },
      contentType: 'application/merge-patch+json',
    });
    const reply = await call(env, 'PATCH', `${cms}/patch-rv`, {
      body: {
        metadata: { resourceVersion: created.body.metadata.resourceVersion },
        data: { a: '3' },
      },
      contentType: 'application/merge-patch+json',
    });
    expect(reply.status).toBe(409);
    expect(reply.body.reason).toBe('Conflict');
  });

  it('answers 404 for a missing object', async () => {
    const reply = await call(env, 'PATCH', `${cms}/absent`, {
      body: { data: { a: '1' } },
      contentType: 'application/merge-patch+json',
    });
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe('configmaps "absent" not found');
  });

  it('patches status through the status subresource only', async () => {
    await call(env, 'POST', deployments, { body: deployment('status-patch') });
    const reply = await call(env, 'PATCH', `${deployments}/status-patch/status`, {
      body: { spec: { replicas: 5 }, status: { replicas: 1 } },
      contentType: 'application/merge-patch+json',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.status.replicas).toBe(1);
    expect(reply.body.spec.replicas).toBe(1);
  });
});

describe('server-side apply', () => {
  const apply = (name: string, manager: string, data: Record<string, string>, force = false) =>
    call(env, 'PATCH', `${cms}/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
      contentType: 'application/apply-patch+yaml',
    });

  it('creates the object and records the field manager', async () => {
    const reply = await apply('ssa-create', 'alpha', { key: 'one' });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toEqual({ key: 'one' });
    const managers = reply.body.metadata.managedFields.map((entry: any) => entry.manager);
    expect(managers).toContain('alpha');
    expect(
      reply.body.metadata.managedFields.find((entry: any) => entry.manager === 'alpha'),
    ).toMatchObject({
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
    });
  });

  it('answers 409 Conflict naming the other manager and the field, and takes over with force', async () => {
    await apply('ssa-conflict', 'alpha', { key: 'one' });
    const conflict = await apply('ssa-conflict', 'beta', { key: 'two' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.reason).toBe('Conflict');
    expect(conflict.body.message).toContain('conflict with "alpha"');
    expect(conflict.body.details.causes[0]).toMatchObject({
      reason: 'FieldManagerConflict',
      field: '.data.key',
    });
    const forced = await apply('ssa-conflict', 'beta', { key: 'two' }, true);
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ key: 'two' });
  });

  it('lets a manager apply fields nobody else owns and removes fields it stops applying', async () => {
    await apply('ssa-shared', 'alpha', { a: '1' });
    const second = await apply('ssa-shared', 'beta', { b: '2' });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ a: '1', b: '2' });
    const shrink = await apply('ssa-shared', 'alpha', {});
    expect(shrink.status).toBe(200);
    expect(shrink.body.data).toEqual({ b: '2' });
  });

  it('words the conflict as kube-apiserver does and moves ownership on force', async () => {
    await apply('ssa-force', 'alpha', { key: 'one', other: 'x' });
    const conflict = await apply('ssa-force', 'beta', { key: 'two' });
    expect(conflict.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "alpha": .data.key',
    );
    expect(conflict.body.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.data.key' },
    ]);
    const forced = await apply('ssa-force', 'beta', { key: 'two' }, true);
    const entries = forced.body.metadata.managedFields;
    const beta = entries.find((entry: any) => entry.manager === 'beta');
    const alpha = entries.find((entry: any) => entry.manager === 'alpha');
    expect(beta.fieldsV1).toEqual({ 'f:data': { 'f:key': {} } });
    expect(alpha.fieldsV1['f:data']).toEqual({ 'f:other': {} });
  });

  it('shares ownership without a conflict when two managers apply the same value', async () => {
    await apply('ssa-same', 'alpha', { key: 'one' });
    const same = await apply('ssa-same', 'beta', { key: 'one' });
    expect(same.status).toBe(200);
    const owners = same.body.metadata.managedFields
      .filter((entry: any) => entry.fieldsV1?.['f:data']?.['f:key'] !== undefined)
      .map((entry: any) => entry.manager)
      .sort();
    expect(owners).toEqual(['alpha', 'beta']);
    // Applying the same configuration again changes nothing, not even managedFields times.
    const again = await apply('ssa-same', 'beta', { key: 'one' });
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(same.body.metadata.resourceVersion);
    expect(again.body.metadata.managedFields).toEqual(same.body.metadata.managedFields);
  });

  it('records an Update manager that takes fields from the applier, who then conflicts', async () => {
    const applied = await apply('ssa-update', 'alpha', { key: 'one' });
    const body = structuredClone(applied.body);
    body.data.key = 'edited';
    const updated = await call(env, 'PUT', `${cms}/ssa-update?fieldManager=editor`, { body });
    expect(updated.status).toBe(200);
    const editor = updated.body.metadata.managedFields.find(
      (entry: any) => entry.manager === 'editor',
    );
    expect(editor).toMatchObject({ operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' });
    expect(editor.fieldsV1).toEqual({ 'f:data': { 'f:key': {} } });
    expect(
      updated.body.metadata.managedFields.some(
        (entry: any) => entry.manager === 'alpha' && entry.fieldsV1?.['f:data']?.['f:key'],
      ),
    ).toBe(false);
    const again = await apply('ssa-update', 'alpha', { key: 'one' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('conflict with "editor" using v1');
  });

  it('answers 404 for an apply to the status of an object that does not exist', async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/ssa-missing/status`;
    const reply = await call(env, 'PATCH', `${path}?fieldManager=ctrl&force=true`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'ssa-missing' },
        status: { replicas: 1 },
      },
      contentType: 'application/apply-patch+yaml',
    });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      reason: 'NotFound',
      message: 'deployments.apps "ssa-missing" not found',
    });
    expect((await call(env, 'GET', `${deployments}/ssa-missing`)).status).toBe(404);
  });

  it('answers 422 Invalid without a fieldManager', async () => {
    const reply = await call(env, 'PATCH', `${cms}/ssa-nomanager`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-nomanager' } },
      contentType: 'application/apply-patch+yaml',
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      reason: 'Invalid',
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
  });

  it('accepts YAML bodies', async () => {
    const reply = await call(env, 'PATCH', `${cms}/ssa-yaml?fieldManager=yaml`, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-yaml\ndata:\n  greeting: hello\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toEqual({ greeting: 'hello' });
  });
});
