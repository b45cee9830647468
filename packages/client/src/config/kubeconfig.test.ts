import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { inspect } from 'node:util';
import { isLassoError } from '@lasso/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startLoopback } from '../../test/helpers/loopback.ts';
import { RestTransport } from '../transport.ts';
import { loadDefaultConfig } from './default-config.ts';
import { loadInClusterConfig } from './in-cluster.ts';
import { loadKubeConfig } from './kubeconfig.ts';
import { createRestConfig } from './rest-config.ts';

const fixtures = join(import.meta.dirname, '__fixtures__');
const fixture = (name: string): string => join(fixtures, name);
const pem = (name: string): string => readFileSync(fixture(`pki/${name}`), 'utf8');

async function configError(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(isLassoError(error, 'LASSO_CONFIG_INVALID')).toBe(true);
  return error as Error;
}

describe('loadKubeConfig', () => {
  it('reads an EKS-style exec user (v1beta1, args, env)', async () => {
    const config = await loadKubeConfig({ path: fixture('eks.yaml') });
    expect(config.server).toBe('https://ABCDEF0123456789.gr7.eu-west-1.eks.amazonaws.com');
    expect(config.tls?.caPem).toContain('-----BEGIN CERTIFICATE-----');
    expect(config.auth).toMatchObject({
      type: 'exec',
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: 'aws',
        args: [
          '--region',
          'eu-west-1',
          'eks',
          'get-token',
          '--cluster-name',
          'prod',
          '--output',
          'json',
        ],
        env: [{ name: 'AWS_PROFILE', value: 'prod-admin' }],
        interactiveMode: 'IfAvailable',
        workingDirectory: fixtures,
      },
    });
    expect(config.source).toBe(
      `kubeconfig:${fixture('eks.yaml')}#arn:aws:eks:eu-west-1:123456789012:cluster/prod`,
    );
  });

  it('reads a GKE-style exec user with provideClusterInfo and the context namespace', async () => {
    const config = await loadKubeConfig({ path: fixture('gke.yaml') });
    expect(config.auth).toMatchObject({
      type: 'exec',
      exec: { command: 'gke-gcloud-auth-plugin', provideClusterInfo: true },
    });
    expect(config.auth?.type === 'exec' && config.auth.exec.installHint).toContain(
      'Install gke-gcloud-auth-plugin',
    );
    expect(config.namespace).toBe('apps');
  });

  it('reads client certificates from data and from files relative to the kubeconfig', async () => {
    const data = await loadKubeConfig({ path: fixture('client-cert.yaml') });
    expect(data.tls).toMatchObject({ serverName: 'kubernetes' });
    expect(data.tls?.certPem).toBe(pem('client.crt'));
    expect(data.tls?.keyPem).toContain('BEGIN PRIVATE KEY');
    expect(data.auth).toBeUndefined();
    const files = await loadKubeConfig({ path: fixture('client-cert.yaml'), context: 'files' });
    expect(files.tls?.caPem).toBe(pem('ca.crt'));
    expect(files.tls?.certPem).toBe(pem('client.crt'));
    expect(files.tls?.keyPem).toContain('BEGIN EC PRIVATE KEY');
    expect(files.proxyUrl).toBe('http://proxy.internal:3128');
    expect(files.namespace).toBe('team-a');
  });

  it.for([
    { context: 'token', auth: { type: 'token', token: 's3cr3t-token-value' } },
    {
      context: 'token-file',
      auth: { type: 'tokenFile', path: join(fixtures, 'secrets', 'token') },
    },
    { context: 'basic', auth: { type: 'basic', username: 'admin', password: 'hunter2-password' } },
    { context: 'anonymous', auth: undefined },
  ])('reads the $context user', async ({ context, auth }) => {
    const config = await loadKubeConfig({ path: fixture('tokens.yaml'), context });
    expect(config.auth).toEqual(auth);
    expect(config.tls?.insecureSkipTLSVerify).toBe(true);
  });

  it('reads as / as-groups / as-user-extra as impersonation', async () => {
    const config = await loadKubeConfig({ path: fixture('tokens.yaml') });
    expect(config.impersonation).toEqual({
      user: 'jane',
      groups: ['devs', 'ops'],
      extra: { reason: ['debugging'] },
    });
  });

  it('merges a KUBECONFIG list as kubectl: first file wins per name and for current-context', async () => {
    const env = {
      KUBECONFIG: [fixture('missing.yaml'), fixture('merge-a.yaml'), fixture('merge-b.yaml')].join(
        delimiter,
      ),
    };
    const current = await loadKubeConfig({ env });
    expect(current.server).toBe('https://only-b.example.com');
    expect(current.auth).toEqual({ type: 'token', token: 'token-b' });
    expect(current.namespace).toBe('bns');
    const fromA = await loadKubeConfig({ env, context: 'from-a' });
    expect(fromA.server).toBe('https://a.example.com');
    expect(fromA.auth).toEqual({ type: 'token', token: 'token-a' });
  });

  it('resolves relative paths of a merged KUBECONFIG against the file that names them', async () => {
    const root = await mkdtemp(join(tmpdir(), 'lasso-merge-'));
    try {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(root, 'a'));
      await mkdir(join(root, 'b'));
      // Only b/ holds the files: resolving against a/ (the first file) or the cwd would fail.
      await writeFile(join(root, 'b', 'ca.crt'), await readFile(fixture('pki/ca.crt'), 'utf8'));
      await writeFile(join(root, 'b', 'token'), 'b-token\n');
      await writeFile(
        join(root, 'a', 'config'),
        'current-context: x\ncontexts:\n- name: x\n  context: { cluster: c, user: u, namespace: from-a }\n',
      );
      await writeFile(
        join(root, 'b', 'config'),
        [
          'current-context: ignored',
          'clusters:',
          '- name: c',
          '  cluster: { server: "https://b.example.com", certificate-authority: ca.crt }',
          'users:',
          '- name: u',
          '  user: { tokenFile: ./token }',
          'contexts:',
          '- name: x',
          '  context: { cluster: other, user: other }',
        ].join('\n'),
      );
      const config = await loadKubeConfig({
        env: { KUBECONFIG: [join(root, 'a', 'config'), join(root, 'b', 'config')].join(delimiter) },
      });
      expect(config.server).toBe('https://b.example.com');
      expect(config.namespace).toBe('from-a');
      expect(config.tls?.caPem).toBe(pem('ca.crt'));
      expect(config.auth).toEqual({ type: 'tokenFile', path: join(root, 'b', 'token') });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('reads ~/.kube/config when neither path nor KUBECONFIG is given', async () => {
    const home = await mkdtemp(join(tmpdir(), 'lasso-home-'));
    try {
      await expect(loadKubeConfig({ env: {}, homeDir: home })).rejects.toThrow(
        join(home, '.kube', 'config'),
      );
      const { mkdir, copyFile } = await import('node:fs/promises');
      await mkdir(join(home, '.kube'));
      await copyFile(fixture('gke.yaml'), join(home, '.kube', 'config'));
      const config = await loadKubeConfig({ env: {}, homeDir: home });
      expect(config.server).toBe('https://34.1.2.3');
      expect(config.source).toBe(
        `kubeconfig:${join(home, '.kube', 'config')}#gke_my-project_europe-west1_autopilot`,
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it.for([
    {
      name: 'a missing file',
      path: 'missing.yaml',
      context: undefined,
      expected: /cannot read kubeconfig .*missing\.yaml/,
    },
    {
      name: 'unparsable YAML',
      path: 'bad-yaml.yaml',
      context: undefined,
      expected: /bad-yaml\.yaml: unparsable YAML/,
    },
    {
      name: 'an unknown context',
      path: 'tokens.yaml',
      context: 'nope',
      expected: /context "nope" not found \(contexts: token, token-file/,
    },
    {
      name: 'a missing user',
      path: 'tokens.yaml',
      context: 'missing-user',
      expected:
        /tokens\.yaml: contexts\[missing-user\]\.context\.user names "ghost" but no users\[\] entry/,
    },
    {
      name: 'a missing cluster',
      path: 'tokens.yaml',
      context: 'missing-cluster',
      expected: /contexts\[missing-cluster\]\.context\.cluster names "nowhere"/,
    },
    {
      name: 'a CA that is not PEM',
      path: 'bad-ca.yaml',
      context: undefined,
      expected: /bad-ca\.yaml: clusters\[c\]\.cluster\.certificate-authority-data is not PEM/,
    },
    {
      name: 'an auth-provider',
      path: 'tokens.yaml',
      context: 'legacy',
      expected: /users\[legacy\]\.user\.auth-provider is not supported/,
    },
    {
      name: 'a CA together with insecure-skip-tls-verify',
      path: 'ca-and-insecure.yaml',
      context: undefined,
      expected:
        /ca-and-insecure\.yaml: clusters\[c\]\.cluster: certificate-authority\(-data\) and insecure-skip-tls-verify cannot be used together/,
    },
    {
      name: 'a name repeated within one file',
      path: 'duplicate-user.yaml',
      context: undefined,
      expected: /duplicate-user\.yaml: users\[1\]\.name "u" appears twice in users$/,
    },
  ])('names the file and field for $name', async ({ path, context, expected }) => {
    const error = await configError(loadKubeConfig({ path: fixture(path), context }));
    expect(error.message).toMatch(expected);
  });

  it('gives a provideClusterInfo plugin the cluster and its client.authentication.k8s.io/exec extension', async () => {
    const server = await startLoopback((_request, response) => json(response, 200, {}));
    const dir = await mkdtemp(join(tmpdir(), 'lasso-exec-ext-'));
    try {
      const plugin = join(dir, 'plugin.cjs');
      await writeFile(
        plugin,
        `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'info.json'))}, process.env.KUBERNETES_EXEC_INFO);
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 't' } }));`,
      );
      const file = join(dir, 'config');
      await writeFile(
        file,
        JSON.stringify({
          'current-context': 'x',
          clusters: [
            {
              name: 'c',
              cluster: {
                server: server.url,
                extensions: [
                  { name: 'other', extension: { ignored: true } },
                  {
                    name: 'client.authentication.k8s.io/exec',
                    extension: { audience: 'k8s', region: 'eu' },
                  },
                ],
              },
            },
          ],
          users: [
            {
              name: 'u',
              user: {
                exec: {
                  apiVersion: 'client.authentication.k8s.io/v1',
                  command: process.execPath,
                  args: [plugin],
                  provideClusterInfo: true,
                  interactiveMode: 'Never',
                },
              },
            },
          ],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        }),
      );
      const transport = new RestTransport(await loadKubeConfig({ path: file }));
      try {
        await transport.requestJson({ method: 'GET', path: '/api' });
      } finally {
        await transport.close();
      }
      expect(server.requests[0]?.headers.authorization).toBe('Bearer t');
      expect(JSON.parse(await readFile(join(dir, 'info.json'), 'utf8'))).toEqual({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        spec: {
          interactive: false,
          cluster: { server: server.url, config: { audience: 'k8s', region: 'eu' } },
        },
      });
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('never shows secrets in util.inspect or JSON of a config', async () => {
    for (const context of ['token', 'basic']) {
      const config = await loadKubeConfig({ path: fixture('tokens.yaml'), context });
      const printed = `${inspect(config, { depth: 10 })}${JSON.stringify(config)}`;
      expect(printed).not.toContain('s3cr3t-token-value');
      expect(printed).not.toContain('hunter2-password');
      expect(printed).toContain('<redacted>');
    }
    const certs = await loadKubeConfig({ path: fixture('client-cert.yaml') });
    const keyBody = certs.tls?.keyPem?.split('\n')[1] ?? '';
    expect(keyBody.length).toBeGreaterThan(40);
    expect(`${inspect(certs, { depth: 10 })}${JSON.stringify(certs)}`).not.toContain(keyBody);
    const eks = await loadKubeConfig({ path: fixture('eks.yaml') });
    expect(`${inspect(eks, { depth: 10 })}${JSON.stringify(eks)}`).not.toContain('prod-admin');
  });
});

describe('loadKubeConfig: cluster fields as client-go reads them', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lasso-cluster-fields-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  let files = 0;
  /** A kubeconfig whose one cluster has `cluster` (flow YAML) and whose user has `user`. */
  async function load(cluster: string, user = '{}'): Promise<ReturnType<typeof loadKubeConfig>> {
    const file = join(dir, `config-${++files}.yaml`);
    await writeFile(
      file,
      `clusters:\n- name: c\n  cluster: ${cluster}\nusers:\n- name: u\n  user: ${user}\ncontexts:\n- name: x\n  context: { cluster: c, user: u }\ncurrent-context: x\n`,
    );
    return loadKubeConfig({ path: file });
  }
  const ca = `certificate-authority: ${JSON.stringify(fixture('pki/ca.crt'))}`;
  const clientCert = `{ client-certificate: ${JSON.stringify(fixture('pki/client.crt'))}, client-key: ${JSON.stringify(fixture('pki/client.key'))} }`;

  // client-go's DefaultServerURL: a host:port without scheme is https when TLS is configured.
  it.for([
    {
      name: 'https with a CA',
      cluster: `{ server: 'localhost:6443', ${ca} }`,
      user: '{}',
      server: 'https://localhost:6443',
    },
    {
      name: 'https with insecure-skip-tls-verify',
      cluster: "{ server: 'localhost:6443', insecure-skip-tls-verify: true }",
      user: '{}',
      server: 'https://localhost:6443',
    },
    {
      name: 'https with a client certificate',
      cluster: "{ server: 'localhost:6443' }",
      user: clientCert,
      server: 'https://localhost:6443',
    },
    {
      name: 'http without any TLS setting',
      cluster: "{ server: 'localhost:6443' }",
      user: '{}',
      server: 'http://localhost:6443',
    },
    {
      name: 'an IP and port',
      cluster: `{ server: '10.0.0.1:6443', ${ca} }`,
      user: '{}',
      server: 'https://10.0.0.1:6443',
    },
    {
      name: 'a bare host name',
      cluster: "{ server: 'k8s.example.com' }",
      user: '{}',
      server: 'http://k8s.example.com',
    },
    {
      name: 'a URL as it is',
      cluster: "{ server: 'https://k8s.example.com:443/prefix' }",
      user: '{}',
      server: 'https://k8s.example.com:443/prefix',
    },
  ])('gives a server without scheme $name', async ({ cluster, user, server }) => {
    const config = await load(cluster, user);
    expect(new URL(config.server).href).toBe(new URL(server).href);
    expect(config.server.startsWith(server)).toBe(true);
  });

  it.for([
    {
      name: 'a server of another scheme',
      cluster: "{ server: 'ftp://k8s.example.com' }",
      user: '{}',
      expected:
        /config-\d+\.yaml: clusters\[c\]\.cluster\.server must be an http or https URL, got ftp:/,
    },
    {
      name: 'a server that is no URL even with a scheme',
      cluster: "{ server: 'k8s.example.com:port' }",
      user: '{}',
      expected: /config-\d+\.yaml: clusters\[c\]\.cluster\.server is not a valid URL$/,
    },
    {
      name: 'a string as insecure-skip-tls-verify',
      cluster: "{ server: 'https://x', insecure-skip-tls-verify: 'true' }",
      user: '{}',
      expected:
        /config-\d+\.yaml: clusters\[c\]\.cluster\.insecure-skip-tls-verify must be true or false, got a string/,
    },
    {
      name: 'a string as disable-compression',
      cluster: "{ server: 'https://x', disable-compression: 'yes' }",
      user: '{}',
      expected: /clusters\[c\]\.cluster\.disable-compression must be true or false, got a string/,
    },
    {
      name: 'a string as provideClusterInfo',
      cluster: "{ server: 'https://x' }",
      user: "{ exec: { apiVersion: client.authentication.k8s.io/v1, command: x, provideClusterInfo: 'true' } }",
      expected: /users\[u\]\.user\.exec\.provideClusterInfo must be true or false, got a string/,
    },
  ])('refuses $name, naming the file and field', async ({ cluster, user, expected }) => {
    const error = await configError(load(cluster, user));
    expect(error.message).toMatch(expected);
  });

  // client-go decodes a kubeconfig as v1 Config: another apiVersion or kind is not a kubeconfig.
  it.for([
    {
      header: 'apiVersion: v2\n',
      expected: /config-\d+\.yaml: apiVersion: a kubeconfig has apiVersion v1, got "v2"$/,
    },
    {
      header: 'kind: Pod\n',
      expected: /config-\d+\.yaml: kind: a kubeconfig has kind Config, got "Pod"$/,
    },
    {
      header: 'apiVersion: apps/v1\nkind: Config\n',
      expected: /apiVersion: a kubeconfig has apiVersion v1, got "apps\/v1"$/,
    },
  ])('refuses a file with $header', async ({ header, expected }) => {
    const file = join(dir, `config-${++files}.yaml`);
    await writeFile(
      file,
      `${header}clusters:\n- name: c\n  cluster: { server: 'https://x' }\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context: { cluster: c, user: u }\ncurrent-context: x\n`,
    );
    const error = await configError(loadKubeConfig({ path: file }));
    expect(isLassoError(error, 'LASSO_CONFIG_INVALID')).toBe(true);
    expect(error.message).toMatch(expected);
  });

  it('accepts apiVersion v1 and kind Config, or neither (client-go defaults them)', async () => {
    for (const header of ['apiVersion: v1\nkind: Config\n', '']) {
      const file = join(dir, `config-${++files}.yaml`);
      await writeFile(
        file,
        `${header}clusters:\n- name: c\n  cluster: { server: 'https://x' }\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context: { cluster: c, user: u }\ncurrent-context: x\n`,
      );
      await expect(loadKubeConfig({ path: file })).resolves.toMatchObject({ server: 'https://x' });
    }
  });

  // client-go checks TLS material when it builds the transport (tls.X509KeyPair, AppendCertsFromPEM);
  // a mismatched key would otherwise be sent as system:anonymous and a bad CA fail every handshake.
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const notACertificate =
    '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
  const notAKey = '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n';
  it.for([
    {
      name: 'a client key (file) that does not match its certificate',
      cluster: "{ server: 'https://x' }",
      user: `{ client-certificate: ${JSON.stringify(fixture('pki/client.crt'))}, client-key: ${JSON.stringify(fixture('pki/other.key'))} }`,
      expected:
        /config-\d+\.yaml: users\[u\]\.user\.client-key \(.*other\.key\) does not match users\[u\]\.user\.client-certificate \(.*client\.crt\)$/,
    },
    {
      name: 'a client key (data) that does not match its certificate',
      cluster: "{ server: 'https://x' }",
      user: `{ client-certificate-data: ${b64(pem('client.crt'))}, client-key-data: ${b64(pem('other.key'))} }`,
      expected:
        /users\[u\]\.user\.client-key-data does not match users\[u\]\.user\.client-certificate-data$/,
    },
    {
      name: 'CA data that is not a certificate',
      cluster: `{ server: 'https://x', certificate-authority-data: ${b64(notACertificate)} }`,
      user: '{}',
      expected:
        /config-\d+\.yaml: clusters\[c\]\.cluster\.certificate-authority-data: certificate 1 of 1 is not a valid X\.509 certificate$/,
    },
    {
      name: 'a CA bundle whose second certificate is broken',
      cluster: `{ server: 'https://x', certificate-authority-data: ${b64(pem('ca.crt') + notACertificate)} }`,
      user: '{}',
      expected:
        /clusters\[c\]\.cluster\.certificate-authority-data: certificate 2 of 2 is not a valid X\.509 certificate$/,
    },
    {
      name: 'a client certificate that is not a certificate',
      cluster: "{ server: 'https://x' }",
      user: `{ client-certificate-data: ${b64(notACertificate)}, client-key-data: ${b64(pem('client.key'))} }`,
      expected:
        /users\[u\]\.user\.client-certificate-data: certificate 1 of 1 is not a valid X\.509 certificate$/,
    },
    {
      name: 'a client key that is not a key',
      cluster: "{ server: 'https://x' }",
      user: `{ client-certificate-data: ${b64(pem('client.crt'))}, client-key-data: ${b64(notAKey)} }`,
      expected: /users\[u\]\.user\.client-key-data is not a valid private key$/,
    },
  ])('refuses $name, naming the file and field', async ({ cluster, user, expected }) => {
    const error = await configError(load(cluster, user));
    expect(error.message).toMatch(expected);
    expect(inspect(error)).not.toContain(pem('other.key').split('\n')[1]);
  });

  it('accepts a CA bundle of several certificates and a matching key in either PEM shape', async () => {
    const config = await load(
      `{ server: 'https://x', certificate-authority-data: ${b64(pem('ca.crt') + pem('client.crt'))} }`,
      `{ client-certificate-data: ${b64(pem('client.crt'))}, client-key: ${JSON.stringify(fixture('pki/client.key'))} }`,
    );
    expect(config.tls?.certPem).toBe(pem('client.crt'));
  });

  it('keeps insecure-skip-tls-verify: false as verification on', async () => {
    const config = await load("{ server: 'https://x', insecure-skip-tls-verify: false }");
    expect(config.tls?.insecureSkipTLSVerify).toBeUndefined();
  });
});

describe('createRestConfig', () => {
  it.for([
    { name: 'an empty server', init: { server: '' }, type: TypeError },
    { name: 'a non-http server', init: { server: 'ftp://x' }, type: TypeError },
    {
      name: 'a server that is no URL even with a scheme',
      init: { server: 'x:port' },
      type: TypeError,
    },
    {
      name: 'a negative timeoutMs',
      init: { server: 'https://x', timeoutMs: -1 },
      type: RangeError,
    },
    {
      name: 'a socks proxy',
      init: { server: 'https://x', proxyUrl: 'socks5://p:1080' },
      type: TypeError,
    },
  ])('rejects $name', ({ init, type }) => {
    expect(() => createRestConfig(init)).toThrow(type);
  });

  it.for([
    {
      name: 'a key that does not match the certificate',
      tls: { certPem: pem('client.crt'), keyPem: pem('other.key') },
      expected: 'createRestConfig: tls.keyPem does not match tls.certPem',
    },
    {
      name: 'a CA that is not a certificate',
      tls: { caPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' },
      expected: 'createRestConfig: tls.caPem: certificate 1 of 1 is not a valid X.509 certificate',
    },
    {
      name: 'a certificate without its key',
      tls: { certPem: pem('client.crt') },
      expected: 'createRestConfig: tls.certPem and tls.keyPem must be given together',
    },
  ])('refuses TLS material with $name, naming the option', ({ tls, expected }) => {
    expect(() => createRestConfig({ server: 'https://x', tls })).toThrow(new TypeError(expected));
  });

  it.for([
    { name: 'https with a CA', tls: { caPem: pem('ca.crt') }, server: 'https://localhost:6443' },
    {
      name: 'https with a client certificate',
      tls: { certPem: pem('client.crt'), keyPem: pem('client.key') },
      server: 'https://localhost:6443',
    },
    {
      name: 'https with insecureSkipTLSVerify',
      tls: { insecureSkipTLSVerify: true },
      server: 'https://localhost:6443',
    },
    { name: 'http without TLS settings', tls: undefined, server: 'http://localhost:6443' },
  ])('gives a host:port server $name (client-go DefaultServerURL)', ({ tls, server }) => {
    expect(createRestConfig({ server: 'localhost:6443', tls }).server).toBe(server);
  });
});

describe('loadInClusterConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lasso-sa-'));
    await writeFile(join(dir, 'token'), 'sa-token\n');
    await writeFile(join(dir, 'ca.crt'), pem('ca.crt'));
    await writeFile(join(dir, 'namespace'), 'operators\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const paths = () => ({
    tokenPath: join(dir, 'token'),
    caPath: join(dir, 'ca.crt'),
    namespacePath: join(dir, 'namespace'),
  });

  it('builds the config from the service env, CA, token file and namespace', async () => {
    const config = await loadInClusterConfig({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      ...paths(),
    });
    expect(config).toMatchObject({
      server: 'https://[fd00::1]:443',
      auth: { type: 'tokenFile', path: join(dir, 'token') },
      namespace: 'operators',
      source: 'in-cluster',
    });
    expect(config.tls?.caPem).toContain('BEGIN CERTIFICATE');
  });

  it('refuses a service-account CA that is not a certificate, naming the file', async () => {
    const bad = join(dir, 'bad-ca.crt');
    await writeFile(bad, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const error = await configError(
      loadInClusterConfig({
        env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
        ...paths(),
        caPath: bad,
      }),
    );
    expect(error.message).toBe(
      `in-cluster: ${bad}: certificate 1 of 1 is not a valid X.509 certificate`,
    );
  });

  it('says it is not in a cluster when the service env is missing', async () => {
    const error = await configError(loadInClusterConfig({ env: {}, ...paths() }));
    expect(error.message).toContain('KUBERNETES_SERVICE_HOST');
  });
});

describe('loadDefaultConfig', () => {
  it('uses KUBECONFIG first and says so in source', async () => {
    const config = await loadDefaultConfig({ env: { KUBECONFIG: fixture('gke.yaml') } });
    expect(config.source).toMatch(/^kubeconfig:.*gke\.yaml#/);
  });

  it('falls back to ~/.kube/config, then to in-cluster', async () => {
    const home = await mkdtemp(join(tmpdir(), 'lasso-home-'));
    try {
      const error = await configError(loadDefaultConfig({ env: {}, homeDir: home }));
      expect(error.message).toMatch(
        /KUBECONFIG is not set, .*\.kube\/config does not exist, and the in-cluster config failed/,
      );
      const { mkdir, copyFile } = await import('node:fs/promises');
      await mkdir(join(home, '.kube'));
      await copyFile(fixture('tokens.yaml'), join(home, '.kube', 'config'));
      const config = await loadDefaultConfig({ env: {}, homeDir: home });
      expect(config.source).toBe(`kubeconfig:${join(home, '.kube', 'config')}#token`);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
