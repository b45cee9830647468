// Conformance: create, get, update (optimistic concurrency, generation, status), delete (finalizers,
// preconditions), deletecollection and namespace termination.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, deployment, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast, eventually } from './gates.ts';

let env: Environment;
let ns: string;
let cms: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
});

afterAll(async () => {
  await env?.stop();
});

describe('create', () => {
  it('assigns uid, creationTimestamp and resourceVersion', async () => {
    const reply = await call(env, 'POST', cms, { body: configMap('created', { a: '1' }) });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
    expect(reply.body.metadata).toMatchObject({ name: 'created', namespace: ns });
    expect(reply.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(reply.body.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('generates a name from generateName', async () => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('accepts a YAML body and refuses an unknown media type with 415', async () => {
    const yaml = await call(env, 'POST', cms, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n',
      contentType: 'application/yaml',
    });
    expect(yaml.status).toBe(201);
    expect(yaml.body.data).toEqual({ k: 'v' });
    const text = await call(env, 'POST', cms, { body: 'name=x', contentType: 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
  });

  it('drops fields the built-in type does not have, on create and on update', async () => {
    const body = configMap('unknown-fields', { a: 'b' });
    body.spec = { replicas: 3 };
    body.metadata.colour = 'blue';
    const created = await call(env, 'POST', cms, { body });
    expect(created.status).toBe(201);
    expect(created.body.spec).toBeUndefined();
    expect(created.body.metadata.colour).toBeUndefined();
    expect(created.body.data).toEqual({ a: 'b' });
    const update = structuredClone(created.body);
    update.extra = true;
    update.data = { a: 'c' };
    const updated = await call(env, 'PUT', `${cms}/unknown-fields`, { body: update });
    expect(updated.status).toBe(200);
    expect(updated.body.extra).toBeUndefined();
    const stored = await call(env, 'GET', `${cms}/unknown-fields`);
    expect(stored.body).not.toHaveProperty('spec');
    expect(stored.body).not.toHaveProperty('extra');
    expect(stored.body.data).toEqual({ a: 'c' });
    const fields = JSON.stringify(stored.body.metadata.managedFields ?? []);
    expect(fields).not.toContain('f:spec');
    expect(fields).not.toContain('f:extra');
  });

  it('folds Secret stringData into base64 data and never stores stringData', async () => {
    const secrets = `/api/v1/namespaces/${ns}/secrets`;
    const created = await call(env, 'POST', secrets, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'folded' },
        data: { kept: 'eQ==', user: 'b2xk' },
        stringData: { user: 'admin' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.stringData).toBeUndefined();
    expect(created.body.data).toEqual({ kept: 'eQ==', user: 'YWRtaW4=' });
    const update = structuredClone(created.body);
    update.stringData = { token: 'secret value' };
    const updated = await call(env, 'PUT', `${secrets}/folded`, { body: update });
    expect(updated.status).toBe(200);
    const stored = await call(env, 'GET', `${secrets}/folded`);
    expect(stored.body.stringData).toBeUndefined();
    expect(stored.body.data).toEqual({
      kept: 'eQ==',
      user: 'YWRtaW4=',
      token: Buffer.from('secret value').toString('base64'),
    });
  });

  it('answers 422 Invalid for a deployment whose selector does not match its template', async () => {
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const body = deployment('mismatch');
    body.spec.template.metadata.labels = { app: 'other' };
    const reply = await call(env, 'POST', deployments, { body });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      reason: 'Invalid',
      details: { name: 'mismatch', group: 'apps', kind: 'Deployment' },
    });
    expect(reply.body.message).toMatch(/^Deployment\.apps "mismatch" is invalid: /);
    expect(reply.body.message).toContain('`selector` does not match template `labels`');
    expect(reply.body.details.causes).toContainEqual(
      expect.objectContaining({
        reason: 'FieldValueInvalid',
        field: 'spec.template.metadata.labels',
      }),
    );
    const noSelector = deployment('no-selector');
    delete noSelector.spec.selector;
    const missing = await call(env, 'POST', deployments, { body: noSelector });
    expect(missing.status).toBe(422);
    expect(missing.body.details.causes).toContainEqual(
      expect.objectContaining({ reason: 'FieldValueRequired', field: 'spec.selector' }),
    );
    expect((await call(env, 'GET', `${deployments}/mismatch`)).status).toBe(404);
  });

  it('answers 409 AlreadyExists when the name is taken', async () => {
    await call(env, 'POST', cms, { body: configMap('twice') });
    const reply = await call(env, 'POST', cms, { body: configMap('twice') });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'AlreadyExists',
      code: 409,
      message: 'configmaps "twice" already exists',
      details: { name: 'twice', kind: 'configmaps' },
    });
  });

  it('answers 404 when the namespace does not exist', async () => {
    const reply = await call(env, 'POST', '/api/v1/namespaces/no-such-namespace-x/configmaps', {
      body: configMap('orphan'),
    });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      reason: 'NotFound',
      message: 'namespaces "no-such-namespace-x" not found',
    });
  });

  it('drops the status sent with a create of a kind that has a status subresource', async () => {
    const replicaSets = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    const body = deployment('rs-status');
    body.kind = 'ReplicaSet';
    body.status = { replicas: 3, readyReplicas: 3, observedGeneration: 7 };
    const reply = await call(env, 'POST', replicaSets, { body });
    expect(reply.status).toBe(201);
    expect(reply.body.status ?? {}).not.toHaveProperty('readyReplicas');
    expect(reply.body.status ?? {}).not.toHaveProperty('observedGeneration');
    expect(reply.body.status?.replicas ?? 0).toBe(0);
  });

  it('sets generation 1 on a deployment', async () => {
    const reply = await call(env, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: deployment('gen-one'),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.metadata.generation).toBe(1);
  });
});

describe('get', () => {
  it('answers 404 NotFound with the kube message', async () => {
    const reply = await call(env, 'GET', `${cms}/missing`);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message: 'configmaps "missing" not found',
      details: { name: 'missing', kind: 'configmaps' },
    });
  });

  it('returns the stored object', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('fetched', { k: 'v' }) });
    const reply = await call(env, 'GET', `${cms}/fetched`);
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.uid).toBe(created.body.metadata.uid);
    expect(reply.body.data).toEqual({ k: 'v' });
  });
});

describe('update', () => {
  it('answers 409 Conflict for a stale resourceVersion', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('contended', { n: '0' }) });
    const first = { ...created.body, data: { n: '1' } };
    expect((await call(env, 'PUT', `${cms}/contended`, { body: first })).status).toBe(200);
    const stale = { ...created.body, data: { n: '2' } };
    const reply = await call(env, 'PUT', `${cms}/contended`, { body: stale });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on configmaps "contended": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'contended', kind: 'configmaps' },
    });
  });

  it('answers 409 Conflict (UID precondition), not 404, to a PUT carrying the uid of a deleted object', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('recreated', { n: '0' }) });
    const uid = created.body.metadata.uid;
    expect((await call(env, 'DELETE', `${cms}/recreated`)).status).toBe(200);
    const gone = await call(env, 'PUT', `${cms}/recreated`, {
      body: { ...created.body, data: { n: '1' } },
    });
    expect(gone.status).toBe(409);
    expect(gone.body).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      code: 409,
      details: { name: 'recreated', kind: 'configmaps' },
    });
    expect(gone.body.message).toMatch(/^Operation cannot be fulfilled on configmaps "recreated": /);
    expect(gone.body.message).toContain(
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: `,
    );
    // Recreated under the same name: the old uid still fails, even with the live resourceVersion.
    const again = await call(env, 'POST', cms, { body: configMap('recreated') });
    const body = structuredClone(created.body);
    body.metadata.resourceVersion = again.body.metadata.resourceVersion;
    const stale = await call(env, 'PUT', `${cms}/recreated`, { body });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain(
      `UID in precondition: ${uid}, UID in object meta: ${again.body.metadata.uid}`,
    );
    // The status subresource checks the same precondition.
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployed = await call(env, 'POST', path, { body: deployment('status-gone') });
    await call(env, 'DELETE', `${path}/status-gone`);
    const status = structuredClone(deployed.body);
    status.status = { replicas: 1 };
    const statusReply = await call(env, 'PUT', `${path}/status-gone/status`, { body: status });
    expect(statusReply.status).toBe(409);
    expect(statusReply.body.message).toContain('Precondition failed: UID in precondition');
  });

  it('answers 422 Invalid to a patch that changes metadata.uid', async () => {
    await call(env, 'POST', cms, { body: configMap('fixed-uid') });
    const reply = await call(env, 'PATCH', `${cms}/fixed-uid`, {
      body: { metadata: { uid: '00000000-0000-0000-0000-000000000000' } },
      contentType: 'application/merge-patch+json',
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ reason: 'Invalid', details: { name: 'fixed-uid' } });
    expect(reply.body.details.causes).toContainEqual(
      expect.objectContaining({ field: 'metadata.uid' }),
    );
  });

  it('refuses to change the data of an immutable ConfigMap or Secret and the type of a Secret', async () => {
    const body = configMap('frozen', { a: '1' });
    body.immutable = true;
    const created = await call(env, 'POST', cms, { body });
    expect(created.status).toBe(201);
    const changed = structuredClone(created.body);
    changed.data = { a: '2' };
    const reply = await call(env, 'PUT', `${cms}/frozen`, { body: changed });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ reason: 'Invalid', details: { name: 'frozen' } });
    expect(reply.body.details.causes).toContainEqual(
      expect.objectContaining({ reason: 'FieldValueForbidden', field: 'data' }),
    );
    expect(reply.body.message).toContain('field is immutable when `immutable` is set');
    const thawed = await call(env, 'PATCH', `${cms}/frozen`, {
      body: { immutable: false },
      contentType: 'application/merge-patch+json',
    });
    expect(thawed.status).toBe(422);
    // Metadata stays writable.
    const labelled = await call(env, 'PATCH', `${cms}/frozen`, {
      body: { metadata: { labels: { still: 'writable' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(labelled.status).toBe(200);
    expect((await call(env, 'GET', `${cms}/frozen`)).body.data).toEqual({ a: '1' });

    const secrets = `/api/v1/namespaces/${ns}/secrets`;
    await call(env, 'POST', secrets, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'typed' }, data: { k: 'dg==' } },
    });
    const retyped = await call(env, 'PATCH', `${secrets}/typed`, {
      body: { type: 'example.com/other' },
      contentType: 'application/merge-patch+json',
    });
    expect(retyped.status).toBe(422);
    expect(retyped.body.details.causes).toContainEqual(
      expect.objectContaining({ reason: 'FieldValueInvalid', field: 'type' }),
    );
  });

  it('bumps resourceVersion on change and keeps uid and creationTimestamp', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('changing', { n: '0' }) });
    const reply = await call(env, 'PUT', `${cms}/changing`, {
      body: { ...created.body, data: { n: '1' } },
    });
    expect(reply.status).toBe(200);
    expect(Number(reply.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.body.metadata.resourceVersion),
    );
    expect(reply.body.metadata.uid).toBe(created.body.metadata.uid);
    expect(reply.body.metadata.creationTimestamp).toBe(created.body.metadata.creationTimestamp);
  });

  it('keeps resourceVersion when nothing changes', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('same', { n: '0' }) });
    const reply = await call(env, 'PUT', `${cms}/same`, { body: created.body });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('answers 400 when the body names another object', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('named') });
    const body = { ...created.body, metadata: { ...created.body.metadata, name: 'other' } };
    const reply = await call(env, 'PUT', `${cms}/named`, { body });
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
  });

  it('answers 404 for an object that does not exist', async () => {
    const reply = await call(env, 'PUT', `${cms}/never`, { body: configMap('never') });
    expect(reply.status).toBe(404);
    expect(reply.body.reason).toBe('NotFound');
  });

  it('bumps generation on spec change only, ignores status on the main resource and spec on /status', async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await call(env, 'POST', path, { body: deployment('generations', 1) });
    expect(created.body.metadata.generation).toBe(1);

    const labelled = structuredClone(created.body);
    labelled.metadata.labels = { touched: 'yes' };
    const afterLabels = await call(env, 'PUT', `${path}/generations`, { body: labelled });
    expect(afterLabels.status).toBe(200);
    expect(afterLabels.body.metadata.generation).toBe(1);

    const scaled = structuredClone(afterLabels.body);
    scaled.spec.replicas = 3;
    scaled.status = { replicas: 99 };
    const afterSpec = await call(env, 'PUT', `${path}/generations`, { body: scaled });
    expect(afterSpec.body.metadata.generation).toBe(2);
    expect(afterSpec.body.status?.replicas).toBeUndefined();

    const status = structuredClone(afterSpec.body);
    status.status = { replicas: 3, observedGeneration: 2 };
    status.spec.replicas = 7;
    const afterStatus = await call(env, 'PUT', `${path}/generations/status`, { body: status });
    expect(afterStatus.status).toBe(200);
    expect(afterStatus.body.status).toMatchObject({ replicas: 3, observedGeneration: 2 });
    expect(afterStatus.body.spec.replicas).toBe(3);
    expect(afterStatus.body.metadata.generation).toBe(2);
  });

  it('bumps a deployment generation on annotation change', async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await call(env, 'POST', path, { body: deployment('annotated') });
    const annotated = structuredClone(created.body);
    annotated.metadata.annotations = { 'example.com/note': 'x' };
    const reply = await call(env, 'PUT', `${path}/annotated`, { body: annotated });
    expect(reply.body.metadata.generation).toBe(2);
  });

  it('reads and writes replicas through the scale subresource', async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    await call(env, 'POST', path, { body: deployment('scaled', 2) });
    const scale = await call(env, 'GET', `${path}/scaled/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
    });
    const updated = await call(env, 'PUT', `${path}/scaled/scale`, {
      body: { ...scale.body, spec: { replicas: 4 } },
    });
    expect(updated.status).toBe(200);
    const after = await call(env, 'GET', `${path}/scaled`);
    expect(after.body.spec.replicas).toBe(4);
    expect(after.body.metadata.generation).toBe(2);
  });
});

describe('delete', () => {
  it('removes the object and answers a Success Status', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('doomed') });
    const reply = await call(env, 'DELETE', `${cms}/doomed`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'doomed' },
    });
    // StatusDetails as kube-apiserver serializes it: kind is the resource, an empty group is omitted.
    expect(reply.body.details).toEqual({
      name: 'doomed',
      kind: 'configmaps',
      uid: created.body.metadata.uid,
    });
    expect((await call(env, 'GET', `${cms}/doomed`)).status).toBe(404);
  });

  it('answers 404 for an object that does not exist', async () => {
    const reply = await call(env, 'DELETE', `${cms}/never-there`);
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe('configmaps "never-there" not found');
  });

  it('keeps an object with finalizers until the last finalizer is removed', async () => {
    const body = configMap('held');
    body.metadata.finalizers = ['example.com/hold'];
    await call(env, 'POST', cms, { body });
    const reply = await call(env, 'DELETE', `${cms}/held`);
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.deletionTimestamp).toEqual(expect.any(String));

    const live = await call(env, 'GET', `${cms}/held`);
    expect(live.status).toBe(200);
    expect(live.body.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(live.body.metadata.finalizers).toEqual(['example.com/hold']);

    const again = await call(env, 'DELETE', `${cms}/held`);
    expect(again.status).toBe(200);
    expect((await call(env, 'GET', `${cms}/held`)).status).toBe(200);

    const released = structuredClone(live.body);
    released.metadata.finalizers = [];
    const update = await call(env, 'PUT', `${cms}/held`, { body: released });
    expect(update.status).toBe(200);
    expect((await call(env, 'GET', `${cms}/held`)).status).toBe(404);
  });

  it('refuses new finalizers on an object being deleted', async () => {
    const body = configMap('closing');
    body.metadata.finalizers = ['example.com/a'];
    await call(env, 'POST', cms, { body });
    await call(env, 'DELETE', `${cms}/closing`);
    const live = (await call(env, 'GET', `${cms}/closing`)).body;
    live.metadata.finalizers = ['example.com/a', 'example.com/b'];
    const reply = await call(env, 'PUT', `${cms}/closing`, { body: live });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    const cleanup = (await call(env, 'GET', `${cms}/closing`)).body;
    cleanup.metadata.finalizers = [];
    expect((await call(env, 'PUT', `${cms}/closing`, { body: cleanup })).status).toBe(200);
  });

  it('answers 409 Conflict when a precondition fails', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('guarded') });
    const uid = created.body.metadata.uid;
    const wrongUid = await call(env, 'DELETE', `${cms}/guarded`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } },
    });
    // rest.BeforeDelete checks preconditions first, naming the kind (kube-apiserver 1.20 to today).
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body).toMatchObject({
      reason: 'Conflict',
      details: { name: 'guarded', kind: 'ConfigMap' },
      message: `Operation cannot be fulfilled on ConfigMap "guarded": the UID in the precondition (not-the-uid) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    });
    const wrongVersion = await call(env, 'DELETE', `${cms}/guarded`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
    });
    expect(wrongVersion.status).toBe(409);
    expect(wrongVersion.body).toMatchObject({
      reason: 'Conflict',
      details: { name: 'guarded', kind: 'ConfigMap' },
      message: `Operation cannot be fulfilled on ConfigMap "guarded": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.body.metadata.resourceVersion}). The object might have been modified`,
    });
    const right = await call(env, 'DELETE', `${cms}/guarded`, {
      body: {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        preconditions: { uid, resourceVersion: created.body.metadata.resourceVersion },
      },
    });
    expect(right.status).toBe(200);
  });

  it('reads DeleteOptions from the body when there is one, from the query otherwise', async () => {
    await call(env, 'POST', cms, { body: configMap('opts-query') });
    const fromQuery = await call(env, 'DELETE', `${cms}/opts-query?propagationPolicy=Sideways`);
    expect(fromQuery.status).toBe(422);
    expect(fromQuery.body).toMatchObject({
      reason: 'Invalid',
      details: { group: 'meta.k8s.io', kind: 'DeleteOptions' },
    });
    expect(fromQuery.body.message).toContain('Unsupported value: "Sideways"');
    const fromBody = await call(env, 'DELETE', `${cms}/opts-query?propagationPolicy=Sideways`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
    });
    expect(fromBody.status).toBe(200);
    expect((await call(env, 'GET', `${cms}/opts-query`)).status).toBe(404);
  });

  it('deletes every matching object with deletecollection', async () => {
    const label = unique('sweep');
    for (const name of ['sweep-a', 'sweep-b']) {
      await call(env, 'POST', cms, { body: configMap(name, {}, { sweep: label }) });
    }
    await call(env, 'POST', cms, { body: configMap('sweep-keep', {}, { sweep: 'other' }) });
    const held = configMap('sweep-held', {}, { sweep: label });
    held.metadata.finalizers = ['example.com/hold'];
    await call(env, 'POST', cms, { body: held });
    const reply = await call(env, 'DELETE', `${cms}?labelSelector=sweep%3D${label}`);
    expect(reply.status).toBe(200);
    // The answer is the list of what was deleted (or marked for deletion).
    expect(reply.body.kind).toBe('ConfigMapList');
    expect(reply.body.items.map((item: any) => item.metadata.name).sort()).toEqual([
      'sweep-a',
      'sweep-b',
      'sweep-held',
    ]);
    const left = await call(env, 'GET', `${cms}?labelSelector=sweep`);
    expect(left.body.items.map((item: any) => item.metadata.name)).toEqual([
      'sweep-held',
      'sweep-keep',
    ]);
    const marked = left.body.items.find((item: any) => item.metadata.name === 'sweep-held');
    expect(marked.metadata.deletionTimestamp).toEqual(expect.any(String));
    const release = structuredClone(marked);
    release.metadata.finalizers = [];
    expect((await call(env, 'PUT', `${cms}/sweep-held`, { body: release })).status).toBe(200);
    expect((await call(env, 'GET', `${cms}/sweep-held`)).status).toBe(404);
  });
});

describe('pods', () => {
  it('refuses a pod until its service account exists, then stores it Pending (a token Secret first before kube-apiserver 1.21)', async () => {
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'needs-sa' },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }] },
    };
    // A cluster with a controller-manager creates the default ServiceAccount (and before 1.21 its token
    // Secret) by itself.
    if (env.mode !== 'existing') {
      const refused = await call(env, 'POST', pods, { body: pod });
      expect(refused.status).toBe(403);
      expect(refused.body.reason).toBe('Forbidden');
      expect(refused.body.message).toBe(
        `pods "needs-sa" is forbidden: error looking up service account ${ns}/default: serviceaccount "default" not found`,
      );
    }
    const account = await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
    });
    expect([201, 409]).toContain(account.status);
    // Before 1.21 the ServiceAccount admission plugin mounts the account's token Secret, which only a
    // controller-manager creates, and answers 500 ServerTimeout until there is one. kubernetes#95667 turned
    // BoundServiceAccountTokenVolume on by default in 1.21: a projected token needs no Secret.
    if (!(await atLeast(env, 21)) && env.mode !== 'existing') {
      const waiting = await call(env, 'POST', pods, { body: pod });
      expect(waiting.status).toBe(500);
      expect(waiting.body).toMatchObject({
        kind: 'Status',
        reason: 'ServerTimeout',
        code: 500,
        message:
          'No API token found for service account "default", retry after the token is automatically created and added to the service account',
        details: { name: 'create pod', kind: 'serviceaccounts', retryAfterSeconds: 1 },
      });
      pod.spec = { ...pod.spec, automountServiceAccountToken: false } as typeof pod.spec;
    }
    const created = await call(env, 'POST', pods, { body: pod });
    expect(created.status).toBe(201);
    expect(created.body.spec.serviceAccountName).toBe('default');
    expect(created.body.status.phase).toBe('Pending');
  });
});

describe('pod deletion', () => {
  it('keeps a scheduled pod terminating for its grace period until a delete with a shorter one', async () => {
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const account = await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
    });
    expect([201, 409]).toContain(account.status);
    const name = unique('scheduled');
    const created = await call(env, 'POST', pods, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        // Bound to a node no kubelet runs: nothing ever confirms the termination. No token volume, so
        // servers before 1.21 need no token Secret either.
        spec: {
          nodeName: 'lasso-no-such-node',
          automountServiceAccountToken: false,
          containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }],
        },
      },
    });
    expect(created.status).toBe(201);
    const deleted = await call(env, 'DELETE', `${pods}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.kind).toBe('Pod');
    expect(deleted.body.metadata.deletionGracePeriodSeconds).toBe(30);
    const first = Date.parse(deleted.body.metadata.deletionTimestamp);
    const live = await call(env, 'GET', `${pods}/${name}`);
    expect(live.status).toBe(200);
    expect(live.body.metadata.deletionTimestamp).toBe(deleted.body.metadata.deletionTimestamp);
    // Writes to a terminating pod (a kubelet's, a controller's) do not complete the deletion.
    const labelled = await call(env, 'PATCH', `${pods}/${name}`, {
      body: { metadata: { labels: { touched: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(labelled.status).toBe(200);
    expect((await call(env, 'GET', `${pods}/${name}`)).status).toBe(200);

    // A longer grace period changes nothing; a shorter one moves the deadline back.
    const longer = await call(env, 'DELETE', `${pods}/${name}?gracePeriodSeconds=60`);
    expect(longer.body.metadata.deletionGracePeriodSeconds).toBe(30);
    const shorter = await call(env, 'DELETE', `${pods}/${name}`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 10 },
    });
    expect(shorter.status).toBe(200);
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(10);
    expect(first - Date.parse(shorter.body.metadata.deletionTimestamp)).toBe(20_000);

    const now = await call(env, 'DELETE', `${pods}/${name}?gracePeriodSeconds=0`);
    expect(now.status).toBe(200);
    expect((await call(env, 'GET', `${pods}/${name}`)).status).toBe(404);
  });

  it('deletes an unscheduled pod at once', async ({ skip }) => {
    if (env.mode === 'existing') skip('a cluster with a scheduler binds the pod first');
    const pods = `/api/v1/namespaces/${ns}/pods`;
    await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
    });
    const name = unique('unscheduled');
    await call(env, 'POST', pods, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }],
        },
      },
    });
    expect((await call(env, 'DELETE', `${pods}/${name}`)).status).toBe(200);
    expect((await call(env, 'GET', `${pods}/${name}`)).status).toBe(404);
  });
});

describe('pod eviction', () => {
  it('evicts a pod through the eviction subresource (no disruption budget blocks it) (policy/v1 from kube-apiserver 1.22, policy/v1beta1 before)', async ({
    skip,
  }) => {
    if (env.mode === 'existing') skip('a cluster with a scheduler binds the pod first');
    // kubernetes#100724 (1.22) added the policy/v1 Eviction and kept accepting policy/v1beta1; older
    // releases take policy/v1beta1 only (1.20.2 answers a policy/v1 body 400: no kind "Eviction" is
    // registered for version "policy/v1").
    const apiVersion = (await atLeast(env, 22)) ? 'policy/v1' : 'policy/v1beta1';
    const pods = `/api/v1/namespaces/${ns}/pods`;
    await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
    });
    const name = unique('evicted');
    await call(env, 'POST', pods, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        // No token volume: servers before 1.21 would wait for a token Secret (see 'pods' above).
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }],
        },
      },
    });
    const eviction = (podName: string) => ({
      apiVersion,
      kind: 'Eviction',
      metadata: { name: podName, namespace: ns },
    });
    const mismatch = await call(env, 'POST', `${pods}/${name}/eviction`, {
      body: eviction('someone-else'),
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({
      reason: 'BadRequest',
      message: 'name in URL does not match name in Eviction object',
    });
    const evicted = await call(env, 'POST', `${pods}/${name}/eviction`, { body: eviction(name) });
    expect(evicted.status).toBe(201);
    expect(evicted.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await call(env, 'GET', `${pods}/${name}`)).status).toBe(404);
    const missing = await call(env, 'POST', `${pods}/${name}/eviction`, { body: eviction(name) });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(`pods "${name}" not found`);
  });
});

describe('events', () => {
  it('serves one storage through v1 and events.k8s.io/v1, converting the field names', async () => {
    const core = `/api/v1/namespaces/${ns}/events`;
    const grouped = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
    const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: unique('target') };
    const legacy = await call(env, 'POST', core, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: unique('legacy') },
        involvedObject: target,
        reason: 'Created',
        message: 'made by the v1 API',
        type: 'Normal',
        count: 2,
        source: { component: 'legacy-controller' },
      },
    });
    expect(legacy.status).toBe(201);
    const asGrouped = await call(env, 'GET', `${grouped}/${legacy.body.metadata.name}`);
    expect(asGrouped.status).toBe(200);
    expect(asGrouped.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding: target,
      reason: 'Created',
      note: 'made by the v1 API',
      deprecatedCount: 2,
    });
    expect(asGrouped.body).not.toHaveProperty('message');
    expect(asGrouped.body).not.toHaveProperty('involvedObject');

    const modern = await call(env, 'POST', grouped, {
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: unique('modern') },
        eventTime: '2026-01-02T03:04:05.000000Z',
        reportingController: 'example.com/controller',
        reportingInstance: 'controller-0',
        action: 'Reconcile',
        reason: 'Synced',
        regarding: target,
        note: 'made by the events.k8s.io API',
        type: 'Normal',
      },
    });
    expect(modern.status).toBe(201);
    expect(modern.body.note).toBe('made by the events.k8s.io API');
    const asCore = await call(env, 'GET', `${core}/${modern.body.metadata.name}`);
    expect(asCore.status).toBe(200);
    expect(asCore.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: target,
      message: 'made by the events.k8s.io API',
      reportingComponent: 'example.com/controller',
      reportingInstance: 'controller-0',
      action: 'Reconcile',
    });
    expect(asCore.body.metadata.resourceVersion).toBe(modern.body.metadata.resourceVersion);

    // Field selectors use each version's names.
    const byGroupedField = await call(
      env,
      'GET',
      `${grouped}?fieldSelector=${encodeURIComponent(`regarding.name=${target.name}`)}`,
    );
    expect(byGroupedField.status).toBe(200);
    expect(byGroupedField.body.items.map((item: any) => item.metadata.name).sort()).toEqual(
      [legacy.body.metadata.name, modern.body.metadata.name].sort(),
    );
    expect(byGroupedField.body.items[0]).toHaveProperty('regarding');
    const byCoreField = await call(
      env,
      'GET',
      `${core}?fieldSelector=${encodeURIComponent(`involvedObject.name=${target.name},reportingComponent=example.com/controller`)}`,
    );
    expect(byCoreField.body.items.map((item: any) => item.metadata.name)).toEqual([
      modern.body.metadata.name,
    ]);
    const bySource = await call(env, 'GET', `${core}?fieldSelector=source%3Dlegacy-controller`);
    expect(bySource.body.items.map((item: any) => item.metadata.name)).toEqual([
      legacy.body.metadata.name,
    ]);
    expect((await call(env, 'DELETE', `${grouped}/${legacy.body.metadata.name}`)).status).toBe(200);
    expect((await call(env, 'GET', `${core}/${legacy.body.metadata.name}`)).status).toBe(404);
  });
});

describe('namespaces', () => {
  it('disappears once its spec.finalizers are emptied through /finalize', async () => {
    const name = unique('finalized');
    await call(env, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    expect((await call(env, 'DELETE', `/api/v1/namespaces/${name}`)).status).toBe(200);
    const live = await call(env, 'GET', `/api/v1/namespaces/${name}`);
    if (live.status === 200) {
      expect(live.body.spec.finalizers).toEqual(['kubernetes']);
      const body = structuredClone(live.body);
      body.spec.finalizers = [];
      const finalized = await call(env, 'PUT', `/api/v1/namespaces/${name}/finalize`, { body });
      // On a cluster with a namespace controller it may have finalized the namespace first.
      if (env.mode !== 'existing') expect(finalized.status).toBe(200);
    }
    await eventually(
      async () => (await call(env, 'GET', `/api/v1/namespaces/${name}`)).status === 404,
      30_000,
    );
  });

  it('terminates instead of disappearing and refuses new content', async () => {
    const name = unique('terminating');
    const created = await call(env, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    expect(created.status).toBe(201);
    expect(created.body.status.phase).toBe('Active');
    await call(env, 'POST', `/api/v1/namespaces/${name}/configmaps`, { body: configMap('early') });
    const deleted = await call(env, 'DELETE', `/api/v1/namespaces/${name}`);
    expect(deleted.status).toBe(200);
    const live = await call(env, 'GET', `/api/v1/namespaces/${name}`);
    expect(live.status).toBe(200);
    expect(live.body.status.phase).toBe('Terminating');
    expect(live.body.metadata.deletionTimestamp).toEqual(expect.any(String));
    const refused = await call(env, 'POST', `/api/v1/namespaces/${name}/configmaps`, {
      body: configMap('late'),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe('Forbidden');
    expect(refused.body.message).toContain(
      `unable to create new content in namespace ${name} because it is being terminated`,
    );
  });
});
