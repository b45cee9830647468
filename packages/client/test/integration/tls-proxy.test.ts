// Kubeconfig cluster TLS and proxy shapes against startEnvironment(): proxy-url (http and https CONNECT
// proxies), tls-server-name, insecure-skip-tls-verify.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLassoError } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig, RestTransport } from '../../src/index.ts';
import { NAMESPACES, useClients } from '../helpers/clients.ts';
import { type LoopbackProxy, startProxy } from '../helpers/proxy.ts';

let env: Environment;
let dir: string;
let proxy: LoopbackProxy | undefined;

beforeAll(async () => {
  env = await startEnvironment();
  dir = await mkdtemp(join(tmpdir(), 'lasso-tls-proxy-'));
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

// After the hook above: after-each hooks run last-registered first, so the transports close before the proxy.
const { track, client } = useClients();

afterAll(async () => {
  await env?.stop();
  await rm(dir, { recursive: true, force: true });
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** Write a kubeconfig whose cluster has `cluster` fields and whose user has the admin credentials. */
async function kubeconfig(name: string, server: string, cluster: Record<string, unknown>) {
  const c = env.credentials;
  const user: Record<string, unknown> =
    c.clientCertPem !== undefined && c.clientKeyPem !== undefined
      ? { 'client-certificate-data': b64(c.clientCertPem), 'client-key-data': b64(c.clientKeyPem) }
      : { token: c.token };
  const file = join(dir, `${name}.json`);
  // JSON is YAML: no serializer needed.
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'test',
      clusters: [{ name: 'test', cluster: { server, ...cluster } }],
      users: [{ name: 'admin', user }],
      contexts: [{ name: 'test', context: { cluster: 'test', user: 'admin' } }],
    }),
  );
  return client(track(new RestTransport(await loadKubeConfig({ path: file }))), NAMESPACES);
}

const serverUrl = (): URL => new URL(env.credentials.server);
const caData = (): Record<string, string> =>
  env.credentials.caPem !== undefined
    ? { 'certificate-authority-data': b64(env.credentials.caPem) }
    : {};

describe('loadKubeConfig cluster TLS and proxy (integration)', () => {
  it('tunnels every request through an http proxy-url with CONNECT, with its credentials', async () => {
    proxy = await startProxy();
    const withCredentials = new URL(proxy.url);
    withCredentials.username = 'proxy-user';
    withCredentials.password = 'proxy-pass';
    const namespaces = await kubeconfig('http-proxy', env.credentials.server, {
      ...caData(),
      'proxy-url': withCredentials.toString(),
    });
    await expect(namespaces.get(undefined, 'default')).resolves.toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'default' },
    });
    expect(proxy.connects).toEqual([serverUrl().host]);
    expect(proxy.proxyAuthorization).toEqual([
      `Basic ${Buffer.from('proxy-user:proxy-pass').toString('base64')}`,
    ]);
  });

  it('verifies the server certificate against tls-server-name instead of the URL host', async ({
    skip,
  }) => {
    if (serverUrl().protocol !== 'https:') skip('the environment serves plain http');
    // The proxy sends every tunnel to the server: the URL may name a host its certificate lacks.
    proxy = await startProxy({ target: serverUrl().host });
    const server = `https://not-in-the-certificate.invalid:${serverUrl().port}`;
    const wrong = await kubeconfig('no-server-name', server, {
      ...caData(),
      'proxy-url': proxy.url,
    });
    const error = await wrong.get(undefined, 'default').catch((e: unknown) => e);
    expect(isLassoError(error) && error.code).toBe('LASSO_CONNECTION_FAILED');
    const right = await kubeconfig('server-name', server, {
      ...caData(),
      'proxy-url': proxy.url,
      'tls-server-name': 'kubernetes',
    });
    await expect(right.get(undefined, 'default')).resolves.toMatchObject({ kind: 'Namespace' });
  });

  it('skips certificate verification only with insecure-skip-tls-verify', async ({ skip }) => {
    if (serverUrl().protocol !== 'https:') skip('the environment serves plain http');
    const unverified = await kubeconfig('no-ca', env.credentials.server, {});
    const error = await unverified.get(undefined, 'default').catch((e: unknown) => e);
    expect(isLassoError(error) && error.code).toBe('LASSO_CONNECTION_FAILED');
    const insecure = await kubeconfig('insecure', env.credentials.server, {
      'insecure-skip-tls-verify': true,
    });
    await expect(insecure.get(undefined, 'default')).resolves.toMatchObject({ kind: 'Namespace' });
  });

  it('tunnels through an https proxy-url, verifying the proxy with the cluster TLS settings', async ({
    skip,
  }) => {
    const pki = await selfSignedCertificate();
    if (pki === undefined) skip('openssl is not installed');
    proxy = await startProxy({ tls: pki ?? { certPem: '', keyPem: '' } });
    // The proxy's certificate is self-signed: as in client-go, the cluster's TLS config (here
    // insecure-skip-tls-verify) also governs the connection to an https proxy.
    const namespaces = await kubeconfig('https-proxy', env.credentials.server, {
      'insecure-skip-tls-verify': true,
      'proxy-url': proxy.url,
    });
    await expect(namespaces.get(undefined, 'default')).resolves.toMatchObject({
      kind: 'Namespace',
    });
    expect(proxy.connects).toEqual([serverUrl().host]);
  });
});

async function selfSignedCertificate(): Promise<{ certPem: string; keyPem: string } | undefined> {
  const keyFile = join(dir, 'proxy.key');
  const certFile = join(dir, 'proxy.crt');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
}
