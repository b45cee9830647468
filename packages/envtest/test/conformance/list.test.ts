// Conformance: list with label selectors (every operator), field selectors, limit/continue on a consistent
// snapshot, and 410 Expired for a continue token past the retained history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Environment, startEnvironment } from '../../src/index.ts';
import { call, configMap, unique } from './helpers.ts';

let env: Environment;
let ns: string;
let cms: string;
const group = unique('sel');

function names(reply: { body: any }): string[] {
  return reply.body.items.map((item: any) => item.metadata.name).sort();
}

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  const fixtures: Array<[string, Record<string, string>]> = [
    ['sel-a', { group, env: 'prod', tier: 'web', num: '5' }],
    ['sel-b', { group, env: 'dev', tier: 'web', num: '1' }],
    ['sel-c', { group, env: 'prod' }],
    ['sel-d', { group }],
  ];
  for (const [name, labels] of fixtures) {
    await call(env, 'POST', cms, { body: configMap(name, {}, labels) });
  }
});

afterAll(async () => {
  await env?.stop();
});

describe('list', () => {
  it('returns a typed list with a resourceVersion', async () => {
    const reply = await call(env, 'GET', `${cms}?labelSelector=group%3D${group}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(reply.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(names(reply)).toEqual(['sel-a', 'sel-b', 'sel-c', 'sel-d']);
  });

  it.for([
    { name: 'equality', selector: 'env=prod', expected: ['sel-a', 'sel-c'] },
    { name: 'double equality', selector: 'env==dev', expected: ['sel-b'] },
    {
      name: 'inequality matches missing labels',
      selector: 'env!=prod',
      expected: ['sel-b', 'sel-d'],
    },
    { name: 'in', selector: 'env in (prod,dev)', expected: ['sel-a', 'sel-b', 'sel-c'] },
    { name: 'notin', selector: 'env notin (prod)', expected: ['sel-b', 'sel-d'] },
    { name: 'exists', selector: 'tier', expected: ['sel-a', 'sel-b'] },
    { name: 'does not exist', selector: '!tier', expected: ['sel-c', 'sel-d'] },
    { name: 'greater than', selector: 'num>2', expected: ['sel-a'] },
    { name: 'less than', selector: 'num<2', expected: ['sel-b'] },
    { name: 'conjunction', selector: 'env=prod,tier=web', expected: ['sel-a'] },
  ])('selects by label $name', async ({ selector, expected }) => {
    const query = encodeURIComponent(`group=${group},${selector}`);
    const reply = await call(env, 'GET', `${cms}?labelSelector=${query}`);
    expect(reply.status).toBe(200);
    expect(names(reply)).toEqual(expected);
  });

  it('answers 400 BadRequest for a malformed label selector', async () => {
    const reply = await call(
      env,
      'GET',
      `${cms}?labelSelector=${encodeURIComponent('env in prod')}`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  it('selects by metadata.name and metadata.namespace fields', async () => {
    const byName = await call(env, 'GET', `${cms}?fieldSelector=metadata.name%3Dsel-b`);
    expect(names(byName)).toEqual(['sel-b']);
    const notName = await call(
      env,
      'GET',
      `${cms}?fieldSelector=metadata.name!%3Dsel-b&labelSelector=group%3D${group}`,
    );
    expect(names(notName)).toEqual(['sel-a', 'sel-c', 'sel-d']);
    const byNamespace = await call(
      env,
      'GET',
      `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}&labelSelector=group%3D${group}`,
    );
    expect(names(byNamespace)).toEqual(['sel-a', 'sel-b', 'sel-c', 'sel-d']);
  });

  it('answers 400 BadRequest for an unsupported field label', async () => {
    const reply = await call(env, 'GET', `${cms}?fieldSelector=spec.nothing%3Dx`);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
    expect(reply.body.message).toContain('field label not supported: spec.nothing');
  });

  it('ignores unknown query parameters', async () => {
    const reply = await call(env, 'GET', `${cms}?labelSelector=group%3D${group}&somethingElse=1`);
    expect(reply.status).toBe(200);
    expect(names(reply)).toHaveLength(4);
  });
});

describe('list pagination', () => {
  it('pages with limit/continue over a consistent snapshot', async () => {
    const pageNs = unique('pages');
    await call(env, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: pageNs } },
    });
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${pageNs}/leases`;
    for (const name of ['l1', 'l2', 'l3', 'l4', 'l5']) {
      const created = await call(env, 'POST', leases, {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: {} },
      });
      expect(created.status).toBe(201);
    }
    const first = await call(env, 'GET', `${leases}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((item: any) => item.metadata.name)).toEqual(['l1', 'l2']);
    expect(first.body.metadata.continue).toEqual(expect.any(String));
    expect(first.body.metadata.remainingItemCount).toBe(3);

    // Written after the first page: the snapshot must not show it.
    await call(env, 'POST', leases, {
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l35' },
        spec: {},
      },
    });
    await call(env, 'DELETE', `${leases}/l4`);

    const second = await call(
      env,
      'GET',
      `${leases}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`,
    );
    expect(second.status).toBe(200);
    expect(second.body.items.map((item: any) => item.metadata.name)).toEqual(['l3', 'l4']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const third = await call(
      env,
      'GET',
      `${leases}?limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`,
    );
    expect(third.body.items.map((item: any) => item.metadata.name)).toEqual(['l5']);
    expect(third.body.metadata.continue ?? '').toBe('');

    const fresh = await call(env, 'GET', leases);
    expect(fresh.body.items.map((item: any) => item.metadata.name)).toEqual([
      'l1',
      'l2',
      'l3',
      'l35',
      'l5',
    ]);
  });

  it('answers 400 BadRequest for a garbled continue token', async () => {
    const reply = await call(env, 'GET', `${cms}?limit=1&continue=not-a-token`);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
  });

  it('answers 410 Expired for a continue token older than the retained history', async ({
    skip,
  }) => {
    if (env.server === undefined) skip('needs the built-in server to expire history');
    const first = await call(env, 'GET', `${cms}?limit=1`);
    expect(first.body.metadata.continue).toEqual(expect.any(String));
    await call(env, 'POST', cms, { body: configMap(unique('bump')) });
    env.server!.faults.expireHistory();
    const reply = await call(
      env,
      'GET',
      `${cms}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`,
    );
    expect(reply.status).toBe(410);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(reply.body.message).toMatch(
      /^The provided continue parameter is too old to display a consistent list result\./,
    );
  });
});
