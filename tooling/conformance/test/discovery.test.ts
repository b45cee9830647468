// Conformance: discovery and health endpoints, as kube-apiserver serves them.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast } from './gates.ts';

let env: Environment;

beforeAll(async () => {
  env = await startEnvironment();
});

afterAll(async () => {
  await env?.stop();
});

describe('discovery', () => {
  it('serves /version with major and minor', async () => {
    const reply = await call(env, 'GET', '/version');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ major: expect.any(String), minor: expect.any(String) });
    expect(reply.body.gitVersion).toMatch(/^v1\./);
  });

  it.for(['/healthz', '/readyz', '/livez'])('answers ok on %s', async (path) => {
    const reply = await call(env, 'GET', path);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('ok');
  });

  it('lists v1 under /api', async () => {
    const reply = await call(env, 'GET', '/api');
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('APIVersions');
    expect(reply.body.versions).toContain('v1');
  });

  it('describes core resources under /api/v1 with scope, kind, verbs and short names', async () => {
    const reply = await call(env, 'GET', '/api/v1');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const byName = new Map<string, any>(
      reply.body.resources.map((resource: any) => [resource.name, resource]),
    );
    expect(byName.get('configmaps')).toMatchObject({
      namespaced: true,
      kind: 'ConfigMap',
      shortNames: ['cm'],
    });
    expect(byName.get('configmaps').verbs).toEqual(
      expect.arrayContaining([
        'create',
        'delete',
        'deletecollection',
        'get',
        'list',
        'patch',
        'update',
        'watch',
      ]),
    );
    expect(byName.get('namespaces')).toMatchObject({
      namespaced: false,
      kind: 'Namespace',
      shortNames: ['ns'],
    });
    expect(byName.get('namespaces').verbs).not.toContain('deletecollection');
    for (const name of ['secrets', 'services', 'serviceaccounts', 'pods', 'events']) {
      expect(byName.get(name)?.namespaced, name).toBe(true);
    }
    expect(byName.get('pods/status')).toMatchObject({ kind: 'Pod', namespaced: true });
    expect(byName.get('namespaces/status')).toMatchObject({ kind: 'Namespace', namespaced: false });
  });

  it('names the singular of core resources (kube-apiserver 1.27+; empty before)', async () => {
    // kubernetes#113542 gave built-in resources their singularName; it was opened after the 1.26 code
    // freeze and first shipped in 1.27. Older releases publish the field empty (1.20.2 measured).
    const reply = await call(env, 'GET', '/api/v1');
    const configMaps = reply.body.resources.find((resource: any) => resource.name === 'configmaps');
    expect(configMaps.singularName).toBe((await atLeast(env, 27)) ? 'configmap' : '');
  });

  it('lists the built-in groups under /apis with preferred versions', async () => {
    const reply = await call(env, 'GET', '/apis');
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('APIGroupList');
    const groups = new Map<string, any>(reply.body.groups.map((group: any) => [group.name, group]));
    for (const name of ['apps', 'coordination.k8s.io', 'apiextensions.k8s.io']) {
      expect(groups.get(name)?.preferredVersion?.version, name).toBe('v1');
    }
  });

  it('serves one group document under /apis/{group}', async () => {
    const reply = await call(env, 'GET', '/apis/apps');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      kind: 'APIGroup',
      name: 'apps',
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
  });

  it('describes deployments with their status and scale subresources', async () => {
    const reply = await call(env, 'GET', '/apis/apps/v1');
    expect(reply.status).toBe(200);
    const byName = new Map<string, any>(
      reply.body.resources.map((resource: any) => [resource.name, resource]),
    );
    expect(byName.get('deployments')).toMatchObject({
      namespaced: true,
      kind: 'Deployment',
      shortNames: ['deploy'],
    });
    expect(byName.get('deployments/status')).toMatchObject({ kind: 'Deployment' });
    expect(byName.get('deployments/status').verbs).toEqual(
      expect.arrayContaining(['get', 'patch', 'update']),
    );
    expect(byName.get('deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
  });

  it('describes leases and customresourcedefinitions', async () => {
    const leases = await call(env, 'GET', '/apis/coordination.k8s.io/v1');
    expect(leases.body.resources.find((resource: any) => resource.name === 'leases')).toMatchObject(
      {
        namespaced: true,
        kind: 'Lease',
      },
    );
    const crds = await call(env, 'GET', '/apis/apiextensions.k8s.io/v1');
    expect(
      crds.body.resources.find((resource: any) => resource.name === 'customresourcedefinitions'),
    ).toMatchObject({
      namespaced: false,
      kind: 'CustomResourceDefinition',
      shortNames: ['crd', 'crds'],
    });
  });

  it('answers 404 NotFound for a group or version that is not served', async () => {
    const group = await call(env, 'GET', '/apis/nothing.example.com');
    expect(group.status).toBe(404);
    const version = await call(env, 'GET', '/apis/apps/v9');
    expect(version.status).toBe(404);
    expect(version.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });
});
