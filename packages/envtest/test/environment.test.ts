// startEnvironment: modes, kubeconfig, namespaces, CRD installation, several environments, stop().
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, crd, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type Environment, startEnvironment } from '../src/index.ts';

const builtin = !process.env.LASSO_TEST_KUBECONFIG && !process.env.KUBEBUILDER_ASSETS;

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('startEnvironment', () => {
  let env: Environment;
  let crdDirectory: string;
  const group = `${unique('envtest')}.lasso.example.com`;

  beforeAll(async () => {
    crdDirectory = await mkdtemp(join(tmpdir(), 'lasso-envtest-crds-'));
    const fromFile = crd({ group, plural: 'filethings', kind: 'FileThing' });
    await writeFile(
      join(crdDirectory, 'things.yaml'),
      `# two documents\n${JSON.stringify(fromFile)}\n---\n${JSON.stringify(
        crd({ group, plural: 'otherthings', kind: 'OtherThing', scope: 'Cluster' }),
      )}\n`,
    );
    env = await startEnvironment({
      crds: [crdDirectory, crd({ group, plural: 'objectthings', kind: 'ObjectThing' })],
      namespace: true,
    });
  });

  afterAll(async () => {
    await env?.stop();
    await rm(crdDirectory, { recursive: true, force: true });
  });

  it('writes a kubeconfig with the CA and an admin user', async () => {
    const text = await readFile(env.kubeconfigPath, 'utf8');
    expect(text).toBe(env.kubeconfigYaml);
    const config = parseYaml(text) as any;
    const context = config.contexts.find((item: any) => item.name === config['current-context']);
    const cluster = config.clusters.find((item: any) => item.name === context.context.cluster);
    expect(cluster.cluster.server).toBe(env.credentials.server);
    if (env.mode !== 'existing') {
      expect(Buffer.from(cluster.cluster['certificate-authority-data'], 'base64').toString()).toBe(
        env.credentials.caPem,
      );
      const user = config.users.find((item: any) => item.name === context.context.user);
      expect(user.user['client-certificate-data']).toEqual(expect.any(String));
      expect(context.context.namespace).toBe(env.namespace);
    }
  });

  it('creates a generated namespace', async () => {
    expect(env.namespace).toMatch(/^lasso-test-[0-9a-f]{8}$/);
    const reply = await call(env, 'GET', `/api/v1/namespaces/${env.namespace}`);
    expect(reply.status).toBe(200);
  });

  it('installs CRDs from files (multi-document) and objects before returning', async () => {
    for (const plural of ['filethings', 'otherthings', 'objectthings']) {
      const reply = await call(env, 'GET', `/apis/${group}/v1`);
      expect(reply.body.resources.map((resource: any) => resource.name)).toContain(plural);
    }
    const created = await call(env, 'POST', `/apis/${group}/v1/otherthings`, {
      body: { apiVersion: `${group}/v1`, kind: 'OtherThing', metadata: { name: 'x' }, spec: {} },
    });
    expect(created.status).toBe(201);
  });

  it('serves the default namespaces kube-apiserver creates', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      expect((await call(env, 'GET', `/api/v1/namespaces/${name}`)).status, name).toBe(200);
    }
  });

  it('installs CRDs after the start, ready for discovery, and updates one that exists', async () => {
    const later = crd({ group, plural: 'laterthings', kind: 'LaterThing' });
    try {
      await env.installCrds([later, join(crdDirectory, 'things.yaml')]);
      const reply = await call(env, 'GET', `/apis/${group}/v1`);
      expect(reply.body.resources.map((resource: any) => resource.name)).toContain('laterthings');
      const created = await call(
        env,
        'POST',
        `/apis/${group}/v1/namespaces/${env.namespace}/laterthings`,
        {
          body: {
            apiVersion: `${group}/v1`,
            kind: 'LaterThing',
            metadata: { name: 'x' },
            spec: {},
          },
        },
      );
      expect(created.status).toBe(201);
      // Installing again updates in place (discovery may show it later on a real server: read the CRD).
      await env.installCrds([
        { ...later, spec: { ...later.spec, names: { ...later.spec.names, shortNames: ['lt'] } } },
      ]);
      const updated = await call(
        env,
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/laterthings.${group}`,
      );
      expect(updated.body.spec.names.shortNames).toEqual(['lt']);
    } finally {
      await call(
        env,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/laterthings.${group}`,
      );
    }
  });

  it('refuses bad installCrds input before any request, and an aborted signal with its reason', async () => {
    await expect(env.installCrds('nope' as never)).rejects.toThrow(TypeError);
    await expect(env.installCrds([], { timeoutMs: 0 })).rejects.toThrow('timeoutMs must be > 0');
    const reason = new Error('cancelled');
    await expect(
      env.installCrds([crd({ group, plural: 'neverthings', kind: 'NeverThing' })], {
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
    expect(
      (
        await call(
          env,
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/neverthings.${group}`,
        )
      ).status,
    ).toBe(404);
  });

  it('rejects bad options with TypeError', async () => {
    await expect(startEnvironment({ crds: 'nope' as never })).rejects.toThrow(TypeError);
    await expect(startEnvironment({ namespace: 3 as never })).rejects.toThrow(TypeError);
  });
});

describe('startEnvironment (built-in server)', () => {
  it('runs several environments side by side and releases everything on stop()', async ({
    skip,
  }) => {
    if (!builtin) skip('built-in mode only');
    const first = await startEnvironment({ namespace: 'shared-name' });
    const second = await startEnvironment({ namespace: 'shared-name' });
    try {
      expect(first.mode).toBe('builtin');
      expect(first.server).toBeDefined();
      expect(first.credentials.server).not.toBe(second.credentials.server);
      expect(first.namespace).toBe('shared-name');
      expect((await call(second, 'GET', '/api/v1/namespaces/shared-name')).status).toBe(200);
    } finally {
      await first.stop();
    }
    expect(existsSync(first.kubeconfigPath)).toBe(false);
    expect(await refused(first.credentials.server)).toBe(true);
    await first.stop();
    expect((await call(second, 'GET', '/version')).status).toBe(200);
    await second.stop();
  });

  it('serves plain HTTP with insecureHttp', async ({ skip }) => {
    if (!builtin) skip('built-in mode only');
    const env = await startEnvironment({ insecureHttp: true });
    try {
      expect(env.credentials.server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(env.server!.url).toBe(env.credentials.server);
      const reply = await call(env, 'GET', '/api/v1/namespaces/default');
      expect(reply.status).toBe(200);
      // No credentials: system:anonymous, as kube-apiserver's default --anonymous-auth=true, whom RBAC refuses.
      const anonymous = await call(env, 'GET', '/api/v1/namespaces', { anonymous: true });
      expect(anonymous.status).toBe(403);
      expect(anonymous.body).toMatchObject({
        reason: 'Forbidden',
        message:
          'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
      });
      const discovery = await call(env, 'GET', '/apis', { anonymous: true });
      expect(discovery.status).toBe(403);
      expect(discovery.body).toMatchObject({
        reason: 'Forbidden',
        message: 'forbidden: User "system:anonymous" cannot get path "/apis"',
        details: {},
      });
      expect((await call(env, 'GET', '/version', { anonymous: true })).status).toBe(200);
    } finally {
      await env.stop();
    }
  });

  it('fails with LASSO_ENVTEST_FAILED for a CRD the server rejects, and cleans up', async ({
    skip,
  }) => {
    if (!builtin) skip('built-in mode only');
    const bad = crd({ group: 'bad.example.com', plural: 'bads', kind: 'Bad' });
    bad.metadata.name = 'wrong.example.com';
    await expect(startEnvironment({ crds: [bad] })).rejects.toMatchObject({
      code: 'LASSO_ENVTEST_FAILED',
    });
  });
});
