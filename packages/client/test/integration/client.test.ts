// @lasso/client against startEnvironment(): every verb, patch types, pagination, watch, errors, auth.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLassoError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { Deployment } from 'kubernetes-types/apps/v1.d.ts';
import type { ConfigMap } from 'kubernetes-types/core/v1.d.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  createRestConfig,
  createRestMapper,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isNotFound,
  isResourceExpired,
  isUnauthorized,
  loadKubeConfig,
  type RestConfig,
  RestTransport,
  type WatchEvent,
} from '../../src/index.ts';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };

let env: Environment;
let rest: RestConfig;
const transports: RestTransport[] = [];

function transport(config: RestConfig): RestTransport {
  const t = new RestTransport(config);
  transports.push(t);
  return t;
}

function configMaps(config: RestConfig | RestTransport = rest): Client<ConfigMap> {
  return new Client({
    gvr: CONFIGMAPS,
    kind: 'ConfigMap',
    namespaced: true,
    rest: config instanceof RestTransport ? config : transport(config),
  });
}

/** Token-authenticated config (no client certificate). */
function tokenConfig(token: string, extra: Partial<RestConfig> = {}): RestConfig {
  return createRestConfig({
    server: env.credentials.server,
    tls: { caPem: env.credentials.caPem },
    auth: { type: 'token', token },
    ...extra,
  });
}

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
});

afterAll(async () => {
  for (const t of transports) await t.close();
  await env?.stop();
});

let counter = 0;
const unique = (prefix: string): string => `${prefix}-${++counter}-${Date.now().toString(36)}`;

describe('Client (integration)', () => {
  it('creates, gets, lists, updates and deletes over TLS with a client certificate', async () => {
    const cms = configMaps();
    const name = unique('crud');
    const created = await cms.create(env.namespace, { metadata: { name }, data: { a: '1' } });
    expect(created).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: env.namespace },
    });
    const fetched = await cms.get(env.namespace, name);
    expect(fetched.data).toEqual({ a: '1' });
    const list = await cms.list(env.namespace);
    expect(list.items.find((i) => i.metadata?.name === name)).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
    });
    const updated = await cms.update(env.namespace, { ...fetched, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    expect(updated.metadata?.resourceVersion).not.toBe(fetched.metadata?.resourceVersion);
    await cms.delete(env.namespace, name, { preconditions: { uid: updated.metadata?.uid } });
    await expect(cms.get(env.namespace, name)).rejects.toSatisfy(isNotFound);
  });

  it('refuses a delete whose preconditions do not match, and patches the status subresource', async () => {
    const deployments = new Client<Deployment>({
      gvr: DEPLOYMENTS,
      kind: 'Deployment',
      namespaced: true,
      rest: transport(rest),
    });
    const name = unique('pre');
    const created = await deployments.create(env.namespace, {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });
    const patched = await deployments.patch(
      env.namespace,
      name,
      'merge',
      { status: { replicas: 1, observedGeneration: 1 } },
      {},
      'status',
    );
    expect(patched).toMatchObject({ kind: 'Deployment', status: { replicas: 1 } });
    expect(patched.spec?.replicas).toBe(1);
    const stale = await deployments
      .delete(env.namespace, name, { preconditions: { resourceVersion: '1' } })
      .catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    const wrongUid = await deployments
      .delete(env.namespace, name, { preconditions: { uid: 'not-the-uid' } })
      .catch((e: unknown) => e);
    expect(isConflict(wrongUid)).toBe(true);
    await deployments.delete(env.namespace, name, {
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
      preconditions: {
        uid: created.metadata?.uid,
        resourceVersion: patched.metadata?.resourceVersion,
      },
    });
    await expect(deployments.get(env.namespace, name)).rejects.toSatisfy(isNotFound);
  });

  it('answers 409 for a stale update and for a create of an existing name', async () => {
    const cms = configMaps();
    const name = unique('conflict');
    const created = await cms.create(env.namespace, { metadata: { name }, data: { a: '1' } });
    await cms.update(env.namespace, { ...created, data: { a: '2' } });
    await expect(cms.update(env.namespace, { ...created, data: { a: '3' } })).rejects.toSatisfy(
      isConflict,
    );
    await expect(cms.create(env.namespace, { metadata: { name } })).rejects.toSatisfy(
      isAlreadyExists,
    );
  });

  it('updates the status subresource of a Deployment', async () => {
    const deployments = new Client<Deployment>({
      gvr: DEPLOYMENTS,
      kind: 'Deployment',
      namespaced: true,
      rest: transport(rest),
    });
    const name = unique('web');
    const created = await deployments.create(env.namespace, {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });
    const withStatus = await deployments.updateStatus(env.namespace, {
      ...created,
      status: { observedGeneration: 1, replicas: 1 },
    });
    expect(withStatus.status?.replicas).toBe(1);
    expect(withStatus.kind).toBe('Deployment');
  });

  it.for([
    { patchType: 'json' as const, data: [{ op: 'add', path: '/data/b', value: 'json' }] },
    { patchType: 'merge' as const, data: { data: { b: 'merge' } } },
    { patchType: 'strategic-merge' as const, data: { data: { b: 'strategic-merge' } } },
  ])('applies a $patchType patch', async ({ patchType, data }) => {
    const cms = configMaps();
    const name = unique(patchType);
    await cms.create(env.namespace, { metadata: { name }, data: { a: '1' } });
    const patched = await cms.patch(env.namespace, name, patchType, data);
    expect(patched.data).toEqual({ a: '1', b: patchType });
  });

  it('applies server-side, reports a conflict with another manager, and forces it', async () => {
    const cms = configMaps();
    const name = unique('apply');
    const applied = await cms.apply(
      env.namespace,
      { metadata: { name }, data: { owner: 'one' } },
      { fieldManager: 'one' },
    );
    expect(applied.data).toEqual({ owner: 'one' });
    await expect(
      cms.apply(
        env.namespace,
        { metadata: { name }, data: { owner: 'two' } },
        { fieldManager: 'two' },
      ),
    ).rejects.toSatisfy(isConflict);
    const forced = await cms.apply(
      env.namespace,
      { metadata: { name }, data: { owner: 'two' } },
      { fieldManager: 'two', force: true },
    );
    expect(forced.data).toEqual({ owner: 'two' });
  });

  it('pages with limit/continue and listAll, and deletes a collection by label', async () => {
    const cms = configMaps();
    const label = unique('page');
    for (let i = 0; i < 5; i++) {
      await cms.create(env.namespace, {
        metadata: { name: `${label}-${i}`, labels: { batch: label } },
      });
    }
    const first = await cms.list(env.namespace, { labelSelector: `batch=${label}`, limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    const names: string[] = [];
    for await (const item of cms.listAll(env.namespace, {
      labelSelector: `batch=${label}`,
      limit: 2,
    })) {
      names.push(item.metadata?.name ?? '');
    }
    expect(names.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${label}-${i}`));
    // From a resourceVersion: later pages must not repeat it next to the continue token.
    const pinned: string[] = [];
    for await (const item of cms.listAll(env.namespace, {
      labelSelector: `batch=${label}`,
      limit: 2,
      resourceVersion: first.metadata.resourceVersion,
    })) {
      pinned.push(item.metadata?.name ?? '');
    }
    expect(pinned.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${label}-${i}`));
    await cms.deleteCollection(env.namespace, { labelSelector: `batch=${label}` });
    expect((await cms.list(env.namespace, { labelSelector: `batch=${label}` })).items).toHaveLength(
      0,
    );
  });

  it('watches from a resourceVersion and sees later changes only', async () => {
    const cms = configMaps();
    const name = unique('watch');
    const created = await cms.create(env.namespace, { metadata: { name }, data: { v: '0' } });
    const controller = new AbortController();
    const events: WatchEvent<ConfigMap>[] = [];
    const iterator = cms
      .watch(env.namespace, {
        resourceVersion: created.metadata?.resourceVersion,
        fieldSelector: `metadata.name=${name}`,
        signal: controller.signal,
      })
      [Symbol.asyncIterator]();
    const next = iterator.next();
    await cms.patch(env.namespace, name, 'merge', { data: { v: '1' } });
    await cms.delete(env.namespace, name);
    events.push((await next).value as WatchEvent<ConfigMap>);
    events.push((await iterator.next()).value as WatchEvent<ConfigMap>);
    expect(events.map((e) => [e.type, e.object.data?.v, e.object.kind])).toEqual([
      ['MODIFIED', '1', 'ConfigMap'],
      ['DELETED', '1', 'ConfigMap'],
    ]);
    await iterator.return?.();
    controller.abort();
  });

  it('receives bookmarks when it asks for them (built-in server)', async ({ skip }) => {
    if (env.server === undefined) skip('needs the fault API');
    const cms = configMaps();
    const list = await cms.list(env.namespace);
    const name = unique('bookmark');
    const iterator = cms
      .watch(env.namespace, {
        resourceVersion: list.metadata.resourceVersion,
        allowWatchBookmarks: true,
        fieldSelector: `metadata.name=${name}`,
      })
      [Symbol.asyncIterator]();
    const first = iterator.next();
    // The ADDED event proves the watch is registered before the bookmark is sent.
    await cms.create(env.namespace, { metadata: { name } });
    expect(((await first).value as WatchEvent<ConfigMap>).type).toBe('ADDED');
    env.server?.faults.sendBookmarks();
    const event = (await iterator.next()).value as WatchEvent<ConfigMap>;
    expect(event.type).toBe('BOOKMARK');
    expect(event.object.metadata?.resourceVersion).toBeTruthy();
    await iterator.return?.();
  });

  it('answers 410 for a watch from a resourceVersion older than the history', async ({ skip }) => {
    if (env.server === undefined) skip('needs the fault API');
    const cms = configMaps();
    const created = await cms.create(env.namespace, { metadata: { name: unique('gone') } });
    await cms.patch(env.namespace, created.metadata?.name ?? '', 'merge', { data: { x: '1' } });
    env.server?.faults.expireHistory();
    const error = await (async () => {
      for await (const _ of cms.watch(env.namespace, {
        resourceVersion: created.metadata?.resourceVersion,
      })) {
        // no event may arrive before the 410
      }
    })().catch((e: unknown) => e);
    expect(isGone(error)).toBe(true);
  });

  it('reports a watch cut mid-body as LASSO_CONNECTION_FAILED (built-in server)', async ({
    skip,
  }) => {
    if (env.server === undefined) skip('needs the fault API');
    const cms = configMaps();
    await cms.create(env.namespace, { metadata: { name: unique('cut') } });
    env.server?.faults.cutNext(1, { watch: true, afterBytes: 10 });
    const error = await (async () => {
      for await (const _ of cms.watch(env.namespace, { resourceVersion: '0' })) {
        // events until the cut
      }
    })().catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
  });

  it('retries a 429 after its Retry-After on the injected clock', async ({ skip }) => {
    if (env.server === undefined) skip('needs the fault API');
    const clock = new FakeClock();
    const cms = configMaps({ ...rest, clock, timeoutMs: 0 } as RestConfig);
    const name = unique('throttled');
    await cms.create(env.namespace, { metadata: { name } });
    env.server?.faults.failNext(1, {
      method: 'GET',
      path: new RegExp(`/configmaps/${name}$`),
      status: 429,
      retryAfterSeconds: 2,
    });
    const result = cms.get(env.namespace, name);
    await clock.untilPending();
    expect(clock.nextTimerAt()).toBe(clock.monotonic() + 2000);
    await clock.advance(2000);
    await expect(result).resolves.toMatchObject({ metadata: { name } });
  });

  it.for([
    { name: 'right after the headers', afterBytes: 0 },
    { name: 'mid-body', afterBytes: 10 },
  ])(
    'retries a GET whose answer is cut $name, after 1 s on the injected clock',
    async ({ afterBytes }, { skip }) => {
      if (env.server === undefined) skip('needs the fault API');
      const clock = new FakeClock();
      const cms = configMaps({ ...rest, clock, timeoutMs: 0 } as RestConfig);
      const name = unique('cut-get');
      await cms.create(env.namespace, { metadata: { name }, data: { a: '1' } });
      env.server?.faults.cutNext(1, {
        method: 'GET',
        path: new RegExp(`/configmaps/${name}$`),
        afterBytes,
      });
      const result = cms.get(env.namespace, name);
      await clock.untilPending();
      expect(clock.nextTimerAt()).toBe(clock.monotonic() + 1000);
      await clock.advance(1000);
      await expect(result).resolves.toMatchObject({ metadata: { name }, data: { a: '1' } });
    },
  );

  it('never retries a POST whose answer is cut: the object is created once', async ({ skip }) => {
    if (env.server === undefined) skip('needs the fault API');
    const clock = new FakeClock();
    const cms = configMaps({ ...rest, clock, timeoutMs: 0 } as RestConfig);
    const label = unique('cut-post');
    env.server?.faults.cutNext(1, {
      method: 'POST',
      path: `/api/v1/namespaces/${env.namespace}/configmaps`,
      afterBytes: 10,
    });
    const error = await cms
      .create(env.namespace, { metadata: { generateName: 'cut-', labels: { batch: label } } })
      .catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    // The server had created it before the answer was cut; a second POST would have made another.
    const list = await cms.list(env.namespace, { labelSelector: `batch=${label}` });
    expect(list.items).toHaveLength(1);
  });

  it.for([
    { name: 'lists in full and yields every object once', fullListIfExpired: true },
    { name: 'throws the 410 with fullListIfExpired: false', fullListIfExpired: false },
  ])(
    'listAll whose continue token expires mid-way $name',
    async ({ fullListIfExpired }, { skip }) => {
      if (env.server === undefined) skip('needs the fault API');
      const cms = configMaps();
      const label = unique('expire');
      const expected = [0, 1, 2, 3, 4].map((i) => `${label}-${i}`);
      for (const name of expected) {
        await cms.create(env.namespace, { metadata: { name, labels: { batch: label } } });
      }
      const names: string[] = [];
      const error = await (async () => {
        for await (const item of cms.listAll(env.namespace, {
          labelSelector: `batch=${label}`,
          limit: 2,
          fullListIfExpired,
        })) {
          names.push(item.metadata?.name ?? '');
          if (names.length === 2) {
            // The first page's snapshot is compacted while the caller holds it.
            const late = `${label}-late`;
            await cms.create(env.namespace, { metadata: { name: late, labels: { batch: label } } });
            expected.push(late);
            env.server?.faults.expireHistory();
          }
        }
      })().catch((e: unknown) => e);
      if (fullListIfExpired) {
        expect(error).toBeUndefined();
        expect(names).toHaveLength(new Set(names).size);
        expect(names.sort()).toEqual(expected.sort());
      } else {
        expect(isResourceExpired(error)).toBe(true);
        expect(names).toHaveLength(2);
      }
    },
  );

  it('authenticates with a bearer token and rejects an unknown one with 401', async ({ skip }) => {
    if (env.credentials.token === undefined) skip('no admin token in this mode');
    const good = configMaps(tokenConfig(env.credentials.token ?? ''));
    await expect(good.list(env.namespace)).resolves.toMatchObject({ kind: 'ConfigMapList' });
    const bad = configMaps(tokenConfig('not-a-token'));
    await expect(bad.list(env.namespace)).rejects.toSatisfy(isUnauthorized);
  });

  it('grants an impersonated user the rights of its impersonated groups', async () => {
    const asAdmin = configMaps().withImpersonation({
      user: 'someone',
      groups: ['system:authenticated', 'system:masters'],
      extra: { 'example.com/reason': ['debugging', 'on call'] },
    });
    await expect(asAdmin.list(env.namespace)).resolves.toMatchObject({ kind: 'ConfigMapList' });
  });

  it('answers 403 to an impersonated unprivileged user', async () => {
    const error = await configMaps()
      .withImpersonation({ user: 'nobody' })
      .list(env.namespace)
      .catch((e: unknown) => e);
    expect(isForbidden(error)).toBe(true);
    expect((error as Error).message).toContain('User "nobody" cannot list resource "configmaps"');
  });

  it('re-reads a rotating token file after a 401', async ({ skip }) => {
    if (env.credentials.token === undefined) skip('no admin token in this mode');
    const dir = await mkdtemp(join(tmpdir(), 'lasso-rotate-'));
    try {
      const file = join(dir, 'token');
      await writeFile(file, 'expired-token');
      const cms = configMaps(
        createRestConfig({
          server: env.credentials.server,
          tls: { caPem: env.credentials.caPem },
          auth: { type: 'tokenFile', path: file },
        }),
      );
      await expect(cms.list(env.namespace)).rejects.toSatisfy(isUnauthorized);
      await writeFile(file, env.credentials.token ?? '');
      // Within the 60 s cache window: only the 401 makes the client read the file again.
      await expect(cms.list(env.namespace)).resolves.toMatchObject({ kind: 'ConfigMapList' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs an exec plugin, caches its token until expiry, and runs it again after', async ({
    skip,
  }) => {
    if (env.credentials.token === undefined) skip('no admin token in this mode');
    const dir = await mkdtemp(join(tmpdir(), 'lasso-exec-it-'));
    try {
      const script = join(dir, 'plugin.cjs');
      await writeFile(
        script,
        `require('node:fs').appendFileSync(${JSON.stringify(join(dir, 'runs'))}, 'x');
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
  status: { token: process.env.TOKEN, expirationTimestamp: '2024-01-01T00:05:00Z' } }));`,
      );
      const clock = new FakeClock(Date.UTC(2024, 0, 1));
      const cms = configMaps(
        createRestConfig({
          server: env.credentials.server,
          tls: { caPem: env.credentials.caPem },
          auth: {
            type: 'exec',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [script],
              env: [{ name: 'TOKEN', value: env.credentials.token ?? '' }],
            },
          },
          clock,
          timeoutMs: 0,
        }),
      );
      const runs = async () => (await readFile(join(dir, 'runs'), 'utf8')).length;
      await cms.list(env.namespace);
      await cms.list(env.namespace);
      expect(await runs()).toBe(1);
      await clock.advance(5 * 60_000);
      await cms.list(env.namespace);
      expect(await runs()).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('authenticates with a client certificate handed out by an exec plugin', async ({ skip }) => {
    const { clientCertPem, clientKeyPem, caPem, server } = env.credentials;
    if (clientCertPem === undefined || clientKeyPem === undefined) skip('no client certificate');
    const dir = await mkdtemp(join(tmpdir(), 'lasso-exec-cert-'));
    try {
      const script = join(dir, 'plugin.cjs');
      await writeFile(
        script,
        `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
  status: { clientCertificateData: process.env.CERT, clientKeyData: process.env.KEY } }));`,
      );
      // Without the plugin's certificate the same server refuses the anonymous request.
      const anonymous = await configMaps(createRestConfig({ server, tls: { caPem } }))
        .list(env.namespace)
        .catch((e: unknown) => e);
      expect(isUnauthorized(anonymous) || isForbidden(anonymous)).toBe(true);
      const cms = configMaps(
        createRestConfig({
          server,
          tls: { caPem },
          auth: {
            type: 'exec',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [script],
              env: [
                { name: 'CERT', value: clientCertPem ?? '' },
                { name: 'KEY', value: clientKeyPem ?? '' },
              ],
            },
          },
        }),
      );
      await expect(cms.list(env.namespace)).resolves.toMatchObject({ kind: 'ConfigMapList' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a refused connection as LASSO_CONNECTION_FAILED with ECONNREFUSED as cause', async () => {
    const closed = configMaps(
      createRestConfig({ server: 'https://127.0.0.1:1', tls: { caPem: env.credentials.caPem } }),
    );
    const error = await closed.list(env.namespace).catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('resolves a CRD created after the RESTMapper filled its cache', async () => {
    const mapper = createRestMapper(transport(rest));
    await mapper.resourceFor({ group: 'apps', kind: 'Deployment' });
    const group = `${unique('g')}.lasso.dev`;
    const crds = new Client({
      gvr: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
      kind: 'CustomResourceDefinition',
      namespaced: false,
      rest: transport(rest),
    });
    const crd = await crds.create(undefined, {
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        ],
      },
    });
    try {
      // Wait (on events, not time) until the CRD is Established.
      for await (const event of crds.watch(undefined, {
        resourceVersion: '0',
        fieldSelector: `metadata.name=widgets.${group}`,
        timeoutSeconds: 30,
      })) {
        const conditions = (
          event.object.status as
            | { conditions?: Array<{ type: string; status: string }> }
            | undefined
        )?.conditions;
        if (conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      }
      await expect(mapper.resourceFor({ group, kind: 'Widget' })).resolves.toEqual({
        gvr: { group, version: 'v1', resource: 'widgets' },
        gvk: { group, version: 'v1', kind: 'Widget' },
        namespaced: true,
        // Discovery's verbs ride along: the factory lists without watching a resource that lacks `watch`.
        verbs: expect.arrayContaining(['get', 'list', 'watch']),
      });
    } finally {
      await crds.delete(undefined, crd.metadata?.name ?? '');
    }
  });

  it('maps kinds and resources through discovery', async () => {
    const mapper = createRestMapper(transport(rest));
    await expect(mapper.resourceFor({ group: 'apps', kind: 'Deployment' })).resolves.toEqual({
      gvr: DEPLOYMENTS,
      gvk: { group: 'apps', version: 'v1', kind: 'Deployment' },
      namespaced: true,
      verbs: expect.arrayContaining(['create', 'get', 'list', 'watch']),
    });
    await expect(
      mapper.kindFor({ group: '', version: 'v1', resource: 'namespaces' }),
    ).resolves.toEqual({
      group: '',
      version: 'v1',
      kind: 'Namespace',
    });
  });
});
