// Conformance: dryRun=All on every write. Each stage of a real write runs (decoding, defaulting,
// validation, admission, the storage checks) and the answer is what the write would have returned,
// but nothing is stored, no watch event is sent and no resourceVersion moves.

import { type Environment, startEnvironment } from '@lasso/envtest';
import {
  call,
  configMap,
  crd,
  deployment,
  unique,
  type WatchStream,
  watch,
} from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: Environment;
let ns: string;
let cms: string;

const merge = 'application/merge-patch+json';
const applyYaml = 'application/apply-patch+yaml';

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  // Pods need their service account to exist (ServiceAccount admission); no token is mounted, so
  // kube-apiserver before 1.21 does not wait for a token Secret either.
  const account = await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } },
  });
  expect(account.status).toBe(201);
});

afterAll(async () => {
  await env?.stop();
});

async function live(name: string): Promise<any> {
  const reply = await call(env, 'GET', `${cms}/${name}`);
  expect(reply.status).toBe(200);
  return reply.body;
}

function pod(name: string, extra: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      serviceAccountName: 'runner',
      automountServiceAccountToken: false,
      containers: [{ name: 'main', image: 'example.com/app:1' }],
      ...extra,
    },
  };
}

describe('dry-run create', () => {
  it('answers the object it would create (uid, creationTimestamp, defaults, no resourceVersion) and stores nothing', async () => {
    const secrets = `/api/v1/namespaces/${ns}/secrets`;
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dry-secret' },
      stringData: { user: 'admin' },
    };
    const reply = await call(env, 'POST', `${secrets}?dryRun=All`, { body });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      kind: 'Secret',
      type: 'Opaque',
      data: { user: Buffer.from('admin').toString('base64') },
    });
    expect(reply.body.stringData).toBeUndefined();
    expect(reply.body.metadata).toMatchObject({ name: 'dry-secret', namespace: ns });
    expect(reply.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(reply.body.metadata.resourceVersion).toBeUndefined();
    expect(reply.body.metadata.managedFields?.[0]).toMatchObject({ operation: 'Update' });
    expect((await call(env, 'GET', `${secrets}/dry-secret`)).status).toBe(404);
  });

  it('generates a name from generateName without taking it', async () => {
    const reply = await call(env, 'POST', `${cms}?dryRun=All`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect((await call(env, 'GET', `${cms}/${reply.body.metadata.name}`)).status).toBe(404);
  });

  it('validates, admits and checks storage as a real create does', async () => {
    const badName = await call(env, 'POST', `${cms}?dryRun=All`, { body: configMap('Not_Valid') });
    expect(badName.status).toBe(422);
    expect(badName.body).toMatchObject({ reason: 'Invalid', details: { name: 'Not_Valid' } });
    expect((await call(env, 'POST', cms, { body: configMap('taken') })).status).toBe(201);
    const taken = await call(env, 'POST', `${cms}?dryRun=All`, { body: configMap('taken') });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ reason: 'AlreadyExists' });
    const noAccount = pod('lost', { serviceAccountName: 'missing' });
    const admitted = await call(env, 'POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, {
      body: noAccount,
    });
    expect(admitted.status).toBe(403);
    expect(admitted.body.message).toContain('serviceaccount "missing" not found');
  });

  it('creates a Pod with its defaults and status, then forgets it', async () => {
    const reply = await call(env, 'POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, {
      body: pod('dry-pod'),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.status).toMatchObject({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(reply.body.metadata.resourceVersion).toBeUndefined();
    expect((await call(env, 'GET', `/api/v1/namespaces/${ns}/pods/dry-pod`)).status).toBe(404);
  });

  it('does not serve the resources of a dry-run CRD', async () => {
    const group = `${unique('dry')}.example.com`;
    const definition = crd({ group, plural: 'gadgets', kind: 'Gadget' });
    const reply = await call(
      env,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All',
      { body: definition },
    );
    expect(reply.status).toBe(201);
    expect(reply.body.metadata.name).toBe(`gadgets.${group}`);
    expect(reply.body.metadata.resourceVersion).toBeUndefined();
    const stored = await call(
      env,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`,
    );
    expect(stored.status).toBe(404);
    expect((await call(env, 'GET', `/apis/${group}/v1`)).status).toBe(404);
  });
});

describe('unsupported dryRun values', () => {
  const cases: Array<[string, string, string, any, string | undefined, string]> = [
    ['create', 'POST', '', configMap('never'), undefined, 'CreateOptions'],
    ['update', 'PUT', '/taken', configMap('taken'), undefined, 'UpdateOptions'],
    ['patch', 'PATCH', '/taken', {}, merge, 'PatchOptions'],
    ['delete', 'DELETE', '/taken', undefined, undefined, 'DeleteOptions'],
    ['deletecollection', 'DELETE', '', undefined, undefined, 'DeleteOptions'],
  ];
  it.each(cases)(
    'a %s answers 422 naming its options',
    async (_verb, method, suffix, body, type, kind) => {
      const reply = await call(env, method, `${cms}${suffix}?dryRun=foo`, {
        ...(body === undefined ? {} : { body }),
        ...(type === undefined ? {} : { contentType: type }),
      });
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        message: `${kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"foo"}: supported values: "All"`,
        details: {
          group: 'meta.k8s.io',
          kind,
          causes: [
            {
              reason: 'FieldValueNotSupported',
              message: 'Unsupported value: []string{"foo"}: supported values: "All"',
              field: 'dryRun',
            },
          ],
        },
      });
    },
  );

  it('refuses an empty value and a bad DeleteOptions.dryRun in the body; reads ignore dryRun', async () => {
    const empty = await call(env, 'POST', `${cms}?dryRun=`, { body: configMap('never') });
    expect(empty.status).toBe(422);
    expect(empty.body.details.causes[0].message).toBe(
      'Unsupported value: []string{""}: supported values: "All"',
    );
    const inBody = await call(env, 'DELETE', `${cms}/taken`, { body: { dryRun: ['x'] } });
    expect(inBody.status).toBe(422);
    expect(inBody.body.message).toContain('[]string{"x"}');
    expect((await call(env, 'GET', `${cms}/taken?dryRun=foo`)).status).toBe(200);
    expect((await call(env, 'GET', `${cms}?dryRun=foo`)).status).toBe(200);
  });
});

describe('dry-run update and patch', () => {
  it('answers the updated object at the live resourceVersion and stores nothing', async () => {
    const created = await call(env, 'POST', cms, { body: configMap('upd', { k: 'v' }) });
    const before = created.body;
    const put = await call(env, 'PUT', `${cms}/upd?dryRun=All`, {
      body: { ...before, data: { k: 'put' } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ k: 'put' });
    expect(put.body.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    const patched = await call(env, 'PATCH', `${cms}/upd?dryRun=All`, {
      body: { data: { k: 'patched' } },
      contentType: merge,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ k: 'patched' });
    expect(patched.body.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    const after = await live('upd');
    expect(after.data).toEqual({ k: 'v' });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('checks resourceVersion preconditions and existence', async () => {
    const before = await live('taken');
    const stale = await call(env, 'PUT', `${cms}/taken?dryRun=All`, {
      body: { ...before, metadata: { ...before.metadata, resourceVersion: '1' } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ reason: 'Conflict' });
    const missing = await call(env, 'PUT', `${cms}/absent?dryRun=All`, {
      body: configMap('absent'),
    });
    expect(missing.status).toBe(404);
  });

  it('applies server-side: creates (201) or reports conflicts, and stores nothing', async () => {
    const created = await call(env, 'PATCH', `${cms}/applied?dryRun=All&fieldManager=tool`, {
      body: configMap('applied', { k: 'v' }),
      contentType: applyYaml,
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata.resourceVersion).toBeUndefined();
    expect(created.body.metadata.managedFields[0]).toMatchObject({
      manager: 'tool',
      operation: 'Apply',
    });
    expect((await call(env, 'GET', `${cms}/applied`)).status).toBe(404);
    const conflict = await call(env, 'PATCH', `${cms}/upd?dryRun=All&fieldManager=tool`, {
      body: configMap('upd', { k: 'mine' }),
      contentType: applyYaml,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.details.causes[0]).toMatchObject({
      reason: 'FieldManagerConflict',
      field: '.data.k',
    });
  });

  it('writes status and scale subresources without storing them', async () => {
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await call(env, 'POST', deployments, { body: deployment('web', 1) });
    expect(created.status).toBe(201);
    const rv = created.body.metadata.resourceVersion;
    const scale = await call(env, 'PUT', `${deployments}/web/scale?dryRun=All`, {
      body: {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'web', namespace: ns },
        spec: { replicas: 3 },
      },
    });
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
    expect(scale.body.metadata.resourceVersion).toBe(rv);
    const scalePatch = await call(env, 'PATCH', `${deployments}/web/scale?dryRun=All`, {
      body: { spec: { replicas: 4 } },
      contentType: merge,
    });
    expect(scalePatch.body.spec.replicas).toBe(4);
    const status = await call(env, 'PATCH', `${deployments}/web/status?dryRun=All`, {
      body: { status: { replicas: 9 } },
      contentType: merge,
    });
    expect(status.status).toBe(200);
    expect(status.body.status.replicas).toBe(9);
    const after = await call(env, 'GET', `${deployments}/web`);
    expect(after.body.spec.replicas).toBe(1);
    expect(after.body.status.replicas).toBeUndefined();
    expect(after.body.metadata.resourceVersion).toBe(rv);
  });
});

describe('dry-run delete', () => {
  it('answers Success for an object without finalizers and keeps it', async () => {
    const before = await live('taken');
    const reply = await call(env, 'DELETE', `${cms}/taken?dryRun=All`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'taken', kind: 'configmaps', uid: before.metadata.uid },
    });
    const viaBody = await call(env, 'DELETE', `${cms}/taken`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', dryRun: ['All'] },
    });
    expect(viaBody.status).toBe(200);
    expect((await live('taken')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('answers the object marked deleted when finalizers hold it, and leaves it untouched', async () => {
    const body = configMap('held', { k: 'v' });
    body.metadata.finalizers = ['example.com/hold'];
    const created = await call(env, 'POST', cms, { body });
    const rv = created.body.metadata.resourceVersion;
    const reply = await call(env, 'DELETE', `${cms}/held?dryRun=All`);
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('ConfigMap');
    expect(reply.body.metadata).toMatchObject({
      finalizers: ['example.com/hold'],
      deletionGracePeriodSeconds: 0,
      resourceVersion: rv,
    });
    expect(reply.body.metadata.deletionTimestamp).toBeDefined();
    const foreground = await call(
      env,
      'DELETE',
      `${cms}/taken?dryRun=All&propagationPolicy=Foreground`,
    );
    expect(foreground.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    const after = await live('held');
    expect(after.metadata.deletionTimestamp).toBeUndefined();
    expect(after.metadata.resourceVersion).toBe(rv);
    expect((await live('taken')).metadata.finalizers).toBeUndefined();
  });

  it('checks preconditions', async () => {
    const reply = await call(env, 'DELETE', `${cms}/held?dryRun=All`, {
      body: { preconditions: { uid: 'not-the-uid' } },
    });
    expect(reply.status).toBe(409);
    expect(reply.body.message).toContain('the UID in the precondition (not-the-uid)');
  });

  it('lists what a deletecollection would delete, and deletes none of it', async () => {
    const before = await call(env, 'GET', cms);
    const reply = await call(env, 'DELETE', `${cms}?dryRun=All`);
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('ConfigMapList');
    const names = (list: any): string[] => list.items.map((item: any) => item.metadata.name);
    expect(names(reply.body)).toEqual(names(before.body));
    const after = await call(env, 'GET', cms);
    expect(names(after.body)).toEqual(names(before.body));
    expect(
      after.body.items.every((item: any) => item.metadata.deletionTimestamp === undefined),
    ).toBe(true);
  });

  it('shows a scheduled Pod terminating gracefully, evicts nothing, and keeps it', async () => {
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const created = await call(env, 'POST', pods, { body: pod('busy', { nodeName: 'node-1' }) });
    expect(created.status).toBe(201);
    const graceful = await call(env, 'DELETE', `${pods}/busy?dryRun=All`);
    expect(graceful.status).toBe(200);
    expect(graceful.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(graceful.body.metadata.deletionTimestamp).toBeDefined();
    const now = await call(env, 'DELETE', `${pods}/busy?dryRun=All&gracePeriodSeconds=0`);
    expect(now.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const eviction = {
      apiVersion: 'policy/v1beta1',
      kind: 'Eviction',
      metadata: { name: 'busy', namespace: ns },
    };
    const evicted = await call(env, 'POST', `${pods}/busy/eviction?dryRun=All`, { body: eviction });
    expect(evicted.status).toBe(201);
    expect(evicted.body).toMatchObject({ kind: 'Status', status: 'Success' });
    const viaOptions = await call(env, 'POST', `${pods}/busy/eviction`, {
      body: { ...eviction, deleteOptions: { dryRun: ['All'] } },
    });
    expect(viaOptions.status).toBe(201);
    const after = await call(env, 'GET', `${pods}/busy`);
    expect(after.status).toBe(200);
    expect(after.body.metadata.deletionTimestamp).toBeUndefined();
    expect(after.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('shows a Namespace Terminating and leaves it Active', async () => {
    const reply = await call(env, 'DELETE', `/api/v1/namespaces/${ns}?dryRun=All`);
    expect(reply.status).toBe(200);
    expect(reply.body.status.phase).toBe('Terminating');
    expect(reply.body.metadata.deletionTimestamp).toBeDefined();
    const after = await call(env, 'GET', `/api/v1/namespaces/${ns}`);
    expect(after.body.status.phase).toBe('Active');
    expect(after.body.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('dry-run and watches', () => {
  it('sends no event for dry-run writes', async () => {
    const start = (await call(env, 'GET', cms)).body.metadata.resourceVersion;
    const stream: WatchStream = await watch(env, `${cms}?watch=1&resourceVersion=${start}`);
    try {
      await call(env, 'POST', `${cms}?dryRun=All`, { body: configMap('ghost') });
      await call(env, 'PATCH', `${cms}/upd?dryRun=All`, {
        body: { data: { k: 'ghost' } },
        contentType: merge,
      });
      await call(env, 'DELETE', `${cms}/taken?dryRun=All`);
      // A real write after the dry runs: its event must be the first one the watch sees.
      await call(env, 'POST', cms, { body: configMap('marker') });
      const first = await stream.next(10_000);
      expect(first.type).toBe('ADDED');
      expect(first.object.metadata.name).toBe('marker');
    } finally {
      stream.close();
    }
  });
});
