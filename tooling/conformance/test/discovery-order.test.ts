// Conformance: the order of a group-version's resources in discovery, as kube-apiserver lists them. Its
// API installer registers the storage paths of a group-version in sort.Strings order, subresources included
// (`deployments`, `deployments/scale`, `deployments/status`). The CRD discovery controller does not sort:
// each CRD lists its resource, then `/status`, then `/scale`. Measured on kube-apiserver 1.20.2; the
// installer and the discovery controller build these lists the same way in later releases.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, crd, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gates.ts';

let env: Environment;

beforeAll(async () => {
  env = await startEnvironment();
});

afterAll(async () => {
  await env?.stop();
});

/** Go's sort.Strings order: byte order (the names are ASCII). */
function goSorted(names: readonly string[]): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function names(path: string): Promise<string[]> {
  const reply = await call(env, 'GET', path);
  expect(reply.status).toBe(200);
  return reply.body.resources.map((resource: { name: string }) => resource.name);
}

describe('discovery order', () => {
  it('lists apps/v1 with each resource before its subresources, scale before status', async () => {
    const listed = await names('/apis/apps/v1');
    expect(listed).toEqual(goSorted(listed));
    const deployments = listed.filter((name) => name.startsWith('deployments'));
    expect(deployments).toEqual(['deployments', 'deployments/scale', 'deployments/status']);
    const statefulSets = listed.filter((name) => name.startsWith('statefulsets'));
    expect(statefulSets).toEqual(['statefulsets', 'statefulsets/scale', 'statefulsets/status']);
  });

  it.for([
    '/api/v1',
    '/apis/batch/v1',
    '/apis/rbac.authorization.k8s.io/v1',
    '/apis/apiextensions.k8s.io/v1',
  ])('lists %s in sort.Strings order of the names', async (path) => {
    const listed = await names(path);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toEqual(goSorted(listed));
  });

  it('lists pods subresources after pods and before secrets, namespaces/finalize before namespaces/status', async () => {
    const listed = await names('/api/v1');
    const pods = listed.filter((name) => name === 'pods' || name.startsWith('pods/'));
    expect(pods[0]).toBe('pods');
    expect(pods.slice(1)).toEqual(goSorted(pods.slice(1)));
    expect(listed.indexOf('pods/status')).toBeLessThan(listed.indexOf('secrets'));
    expect(listed.indexOf('namespaces/finalize')).toBeLessThan(listed.indexOf('namespaces/status'));
  });

  it('lists a custom resource, then its status, then its scale subresource (unsorted)', async () => {
    const group = `${unique('order')}.example.com`;
    const body = crd({ group, plural: 'widgets', kind: 'Widget' });
    body.spec.versions[0].subresources = {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    };
    const created = await call(
      env,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      {
        body,
      },
    );
    expect(created.status).toBe(201);
    try {
      let listed: string[] = [];
      await eventually(async () => {
        const reply = await call(env, 'GET', `/apis/${group}/v1`);
        listed =
          reply.status === 200 ? reply.body.resources.map((r: { name: string }) => r.name) : [];
        return listed.length === 3;
      }, 20_000);
      expect(listed).toEqual(['widgets', 'widgets/status', 'widgets/scale']);
    } finally {
      await call(
        env,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
      );
    }
  });
});
