import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLassoError } from '@lasso/core';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { connectExistingCluster } from './existing-cluster.ts';

const ca = createCertificateAuthority();
const client = createSignedCertificate(ca, {
  commonName: 'admin',
  organizations: ['system:masters'],
  usage: 'client',
});
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function kubeconfig(
  overrides: {
    cluster?: Record<string, unknown>;
    user?: Record<string, unknown>;
    current?: string;
  } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': overrides.current ?? 'test',
    contexts: [
      { name: 'other', context: { cluster: 'nope', user: 'nope' } },
      { name: 'test', context: { cluster: 'c1', user: 'u1', namespace: 'default' } },
    ],
    clusters: [
      {
        name: 'c1',
        cluster: overrides.cluster ?? {
          server: 'https://127.0.0.1:6443/',
          'certificate-authority-data': b64(ca.certPem),
        },
      },
    ],
    users: [
      {
        name: 'u1',
        user: overrides.user ?? {
          'client-certificate-data': b64(client.certPem),
          'client-key-data': b64(client.keyPem),
        },
      },
    ],
  };
}

describe('connectExistingCluster', () => {
  let directory: string;
  const write = async (config: unknown, name = 'kubeconfig'): Promise<string> => {
    const path = join(directory, name);
    await writeFile(path, typeof config === 'string' ? config : stringify(config));
    return path;
  };
  const failure = async (config: unknown): Promise<string> => {
    const path = await write(config);
    const error = await connectExistingCluster(path).catch((caught: unknown) => caught);
    expect(isLassoError(error, 'LASSO_CONFIG_INVALID')).toBe(true);
    const message = (error as Error).message;
    expect(message.startsWith(`kubeconfig ${path}: `)).toBe(true);
    return message.slice(`kubeconfig ${path}: `.length);
  };

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'lasso-existing-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads server, CA and client certificate data of the current context', async () => {
    const path = await write(kubeconfig());
    const cluster = await connectExistingCluster(path);
    expect(cluster.credentials).toEqual({
      server: 'https://127.0.0.1:6443',
      caPem: ca.certPem,
      clientCertPem: client.certPem,
      clientKeyPem: client.keyPem,
    });
    expect(cluster.kubeconfigYaml).toBe(stringify(kubeconfig()));
    await expect(cluster.stop()).resolves.toBeUndefined();
  });

  it('reads certificate files relative to the kubeconfig and a token file', async () => {
    await writeFile(join(directory, 'ca.crt'), ca.certPem);
    await writeFile(join(directory, 'client.crt'), client.certPem);
    await writeFile(join(directory, 'client.key'), client.keyPem);
    await writeFile(join(directory, 'token'), 'file-token\n');
    const path = await write(
      kubeconfig({
        cluster: { server: 'https://10.0.0.1', 'certificate-authority': 'ca.crt' },
        user: {
          'client-certificate': 'client.crt',
          'client-key': join(directory, 'client.key'),
          tokenFile: 'token',
        },
      }),
    );
    const { credentials } = await connectExistingCluster(path);
    expect(credentials).toEqual({
      server: 'https://10.0.0.1',
      caPem: ca.certPem,
      clientCertPem: client.certPem,
      clientKeyPem: client.keyPem,
      token: 'file-token',
    });
  });

  it('accepts a token user without a CA', async () => {
    const path = await write(
      kubeconfig({ cluster: { server: 'https://k8s.example.com' }, user: { token: 's3cr3t' } }),
    );
    expect((await connectExistingCluster(path)).credentials).toEqual({
      server: 'https://k8s.example.com',
      token: 's3cr3t',
    });
  });

  it('names the missing context, cluster, user and server fields', async () => {
    expect(await failure({ ...kubeconfig(), 'current-context': undefined })).toBe(
      'current-context is missing',
    );
    expect(await failure(kubeconfig({ current: 'absent' }))).toBe(
      'contexts: no entry named "absent"',
    );
    expect(await failure(kubeconfig({ current: 'other' }))).toBe('clusters: no entry named "nope"');
    expect(
      await failure(kubeconfig({ cluster: { 'certificate-authority-data': b64(ca.certPem) } })),
    ).toBe('clusters[name=c1].cluster.server is missing');
    expect(await failure(kubeconfig({ cluster: { server: 'not a url' } }))).toBe(
      'clusters[name=c1].cluster.server is not a URL',
    );
  });

  it('names incomplete or unsupported user credentials without printing secrets', async () => {
    expect(
      await failure(kubeconfig({ user: { 'client-certificate-data': b64(client.certPem) } })),
    ).toBe('users[name=u1].user.client-key(-data) is missing (a client certificate needs both)');
    expect(await failure(kubeconfig({ user: {} }))).toBe(
      'users[name=u1].user has no credentials: set client-certificate-data + client-key-data or token',
    );
    expect(await failure(kubeconfig({ user: { exec: { command: 'aws' } } }))).toContain(
      'exec and auth-provider users are not supported',
    );
    const message = await failure(
      kubeconfig({
        user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': 'c2VjcmV0' },
      }),
    );
    expect(message).toBe('users[name=u1].user.client-key-data is not base64 of a PEM block');
    expect(message).not.toContain('c2VjcmV0');
  });

  it('names an unreadable referenced file', async () => {
    expect(
      await failure(
        kubeconfig({ cluster: { server: 'https://x', 'certificate-authority': 'missing.crt' } }),
      ),
    ).toMatch(/^clusters\[name=c1\]\.cluster\.certificate-authority: cannot read .*missing\.crt: /);
  });

  it('rejects a missing file and text that is not a kubeconfig', async () => {
    const missing = join(directory, 'absent');
    await expect(connectExistingCluster(missing)).rejects.toThrow(
      `kubeconfig ${missing}: cannot read the file`,
    );
    expect(await failure('- just\n- a list\n')).toBe('not a kubeconfig (expected a YAML mapping)');
    expect(await failure('key: [unclosed\n')).toMatch(/^invalid YAML: /);
    await expect(connectExistingCluster('')).rejects.toThrow(TypeError);
  });
});
