// Conformance: list with label selectors (every operator), field selectors, limit/continue on a consistent
// snapshot, and 410 Expired for a continue token past the retained history.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast } from './gates.ts';

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
    // ConfigMaps have no field label conversion of their own: apimachinery's default words it.
    const reply = await call(env, 'GET', `${cms}?fieldSelector=spec.nothing%3Dx`);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
    expect(reply.body.message).toContain(
      '"spec.nothing" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    // Kinds with their own conversion (Pods, Secrets, ...) and custom resources say it shorter.
    const secrets = await call(
      env,
      'GET',
      `/api/v1/namespaces/${ns}/secrets?fieldSelector=spec.nothing%3Dx`,
    );
    expect(secrets.status).toBe(400);
    expect(secrets.body.message).toContain('field label not supported: spec.nothing');
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

  it('pages a selector list, namespaced and across namespaces, to what one list returns', async () => {
    const pageNs = unique('selpages');
    const run = unique('run');
    await call(env, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: pageNs } },
    });
    const scoped = `/api/v1/namespaces/${pageNs}/configmaps`;
    for (let index = 0; index < 7; index++) {
      const labels = { run, parity: index % 2 === 0 ? 'even' : 'odd' };
      const created = await call(env, 'POST', scoped, { body: configMap(`p${index}`, {}, labels) });
      expect(created.status).toBe(201);
    }
    const everything = await call(env, 'GET', `${scoped}?limit=3`);
    expect(everything.body.metadata.remainingItemCount).toBe(4);

    const selector = `labelSelector=${encodeURIComponent(`run=${run},parity=even`)}`;
    for (const [path, written] of [
      [scoped, 'pa'],
      ['/api/v1/configmaps', 'pb'],
    ] as const) {
      const whole = await call(env, 'GET', `${path}?${selector}`);
      const pages: any[] = [];
      let token = '';
      do {
        const suffix = token === '' ? '' : `&continue=${encodeURIComponent(token)}`;
        const reply = await call(env, 'GET', `${path}?${selector}&limit=2${suffix}`);
        expect(reply.status).toBe(200);
        expect(reply.body.items.length).toBeLessThanOrEqual(2);
        expect(reply.body.metadata.remainingItemCount).toBeUndefined();
        pages.push(reply.body);
        if (pages.length === 1) {
          // Written after the first page: later pages still show the first page's snapshot.
          await call(env, 'POST', scoped, {
            body: configMap(written, {}, { run, parity: 'even' }),
          });
        }
        token = reply.body.metadata.continue ?? '';
      } while (token !== '');
      const paged = pages.flatMap((body) => body.items.map((item: any) => item.metadata.name));
      expect(paged).toEqual(whole.body.items.map((item: any) => item.metadata.name));
      expect(paged.filter((name: string) => name.length === 2 && name < 'pa')).toEqual([
        'p0',
        'p2',
        'p4',
        'p6',
      ]);
      expect(paged).not.toContain(written);
      for (const body of pages) {
        expect(body.metadata.resourceVersion).toBe(pages[0].metadata.resourceVersion);
      }
    }
  });

  it('answers 400 BadRequest for a garbled continue token', async () => {
    const reply = await call(env, 'GET', `${cms}?limit=1&continue=not-a-token`);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
    expect(reply.body.message).toMatch(/^invalid continue token: continue key is not valid: /);
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
    // The Status carries an inconsistent continue token that resumes after the first page.
    expect(reply.body.metadata.continue).toEqual(expect.any(String));
    const resumed = await call(
      env,
      'GET',
      `${cms}?limit=500&continue=${encodeURIComponent(reply.body.metadata.continue)}`,
    );
    expect(resumed.status).toBe(200);
    const firstName = first.body.items[0].metadata.name;
    const all = await call(env, 'GET', cms);
    expect(names(resumed)).toEqual(names(all).filter((name: string) => name > firstName));
  });

  it('answers 400 BadRequest for a continue token with a resourceVersion', async () => {
    const first = await call(env, 'GET', `${cms}?limit=1`);
    const token = encodeURIComponent(first.body.metadata.continue);
    const reply = await call(env, 'GET', `${cms}?limit=1&continue=${token}&resourceVersion=1`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      reason: 'BadRequest',
      message: 'specifying resource version is not allowed when using continue',
    });
  });
});

describe('list resourceVersion semantics', () => {
  it('lists the state at exactly the given resourceVersion with resourceVersionMatch=Exact', async () => {
    const label = unique('exact');
    const before = await call(env, 'POST', cms, {
      body: configMap(`${label}-a`, {}, { w: label }),
    });
    await call(env, 'POST', cms, { body: configMap(`${label}-b`, {}, { w: label }) });
    const rv = before.body.metadata.resourceVersion;
    const reply = await call(
      env,
      'GET',
      `${cms}?labelSelector=w%3D${label}&resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.resourceVersion).toBe(rv);
    expect(names(reply)).toEqual([`${label}-a`]);
  });

  it('never answers an Exact list past the newest resourceVersion with data', async () => {
    const list = await call(env, 'GET', cms);
    const future = Number(list.body.metadata.resourceVersion) + 1_000_000;
    const reply = await call(
      env,
      'GET',
      `${cms}?resourceVersion=${future}&resourceVersionMatch=Exact`,
    );
    expect(reply.status).toBeGreaterThanOrEqual(500);
    expect(reply.body).toMatchObject({ kind: 'Status', status: 'Failure' });
  });

  it.for([
    [
      'resourceVersionMatch=Exact',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'resourceVersionMatch=Exact&resourceVersion=0',
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    ['resourceVersionMatch=Sometimes&resourceVersion=1', 'Unsupported value: "Sometimes"'],
  ])('answers 422 Invalid ListOptions for %s', async ([query, message]) => {
    const reply = await call(env, 'GET', `${cms}?${query}`);
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      code: 422,
      details: { group: 'meta.k8s.io', kind: 'ListOptions' },
    });
    expect(reply.body.message).toMatch(/^ListOptions\.meta\.k8s\.io "" is invalid: /);
    expect(reply.body.message).toContain(message);
    expect(reply.body.details.name).toBeUndefined();
  });

  it('answers 504 Timeout with a ResourceVersionTooLarge cause for a resourceVersion not reached yet', async () => {
    const list = await call(env, 'GET', cms);
    const future = Number(list.body.metadata.resourceVersion) + 1_000_000;
    for (const path of [
      `${cms}?resourceVersion=${future}`,
      `${cms}/sel-a?resourceVersion=${future}`,
    ]) {
      const reply = await call(env, 'GET', path);
      expect(reply.status).toBe(504);
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.body).toMatchObject({
        kind: 'Status',
        reason: 'Timeout',
        code: 504,
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        },
      });
      expect(reply.body.message).toMatch(
        new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`),
      );
    }
  });

  it('answers 422 Invalid ListOptions for a watch with resourceVersionMatch (sendInitialEvents wording from kube-apiserver 1.27)', async () => {
    const reply = await call(
      env,
      'GET',
      `${cms}?watch=1&resourceVersion=0&resourceVersionMatch=NotOlderThan`,
    );
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ reason: 'Invalid', details: { kind: 'ListOptions' } });
    // kubernetes#115402 (the WatchList API, 1.27) allows resourceVersionMatch on a watch that sets
    // sendInitialEvents; from 1.19, when resourceVersionMatch came, to 1.26 a watch refuses it outright.
    if (await atLeast(env, 27)) {
      expect(reply.body.message).toContain(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      );
    } else {
      expect(reply.body.message).toBe(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
      );
    }
  });
});
