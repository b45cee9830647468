import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLassoError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecConfig } from '../config/rest-config.ts';
import { ExecCredentialProvider, parseExecCredential } from './exec.ts';

const V1 = 'client.authentication.k8s.io/v1';
let dir: string;

// The plugin appends a line per run to runs.log, echoes KUBERNETES_EXEC_INFO into info.json, and
// prints a token that expires at $EXPIRES (or never).
const PLUGIN = `
const fs = require('node:fs');
const path = require('node:path');
const dir = process.env.PLUGIN_DIR;
fs.appendFileSync(path.join(dir, 'runs.log'), 'run\\n');
fs.writeFileSync(path.join(dir, 'info.json'), process.env.KUBERNETES_EXEC_INFO || '');
if (process.env.FAIL) { process.stderr.write('token service said no\\n'); process.exit(3); }
const runs = fs.readFileSync(path.join(dir, 'runs.log'), 'utf8').split('\\n').length - 1;
const status = { token: 'token-' + runs };
if (process.env.EXPIRES) status.expirationTimestamp = process.env.EXPIRES;
process.stdout.write(JSON.stringify({ apiVersion: process.env.API_VERSION, kind: 'ExecCredential', status }));
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lasso-exec-'));
  await writeFile(join(dir, 'plugin.cjs'), PLUGIN);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function runs(): Promise<number> {
  try {
    return (await readFile(join(dir, 'runs.log'), 'utf8')).split('\n').length - 1;
  } catch {
    return 0;
  }
}

function plugin(env: Record<string, string> = {}, extra: Partial<ExecConfig> = {}): ExecConfig {
  return {
    apiVersion: V1,
    command: process.execPath,
    args: [join(dir, 'plugin.cjs')],
    env: Object.entries({ PLUGIN_DIR: dir, API_VERSION: V1, ...env }).map(([name, value]) => ({
      name,
      value,
    })),
    source: 'test: users[u].user.exec',
    ...extra,
  };
}

describe('ExecCredentialProvider', () => {
  it('caches the credential until expirationTimestamp, then runs the plugin again', async () => {
    await rm(join(dir, 'runs.log'), { force: true });
    const clock = new FakeClock(Date.UTC(2024, 0, 1));
    const provider = new ExecCredentialProvider(plugin({ EXPIRES: '2024-01-01T00:10:00Z' }), {
      clock,
    });
    await expect(provider.credential()).resolves.toEqual({
      token: 'token-1',
      expiresAt: Date.UTC(2024, 0, 1, 0, 10),
    });
    await expect(provider.credential()).resolves.toMatchObject({ token: 'token-1' });
    await clock.advance(9 * 60_000);
    await expect(provider.credential()).resolves.toMatchObject({ token: 'token-1' });
    expect(await runs()).toBe(1);
    await clock.advance(60_000);
    await expect(provider.credential()).resolves.toMatchObject({ token: 'token-2' });
    expect(await runs()).toBe(2);
  });

  it('runs one plugin for concurrent callers and again after invalidate()', async () => {
    await rm(join(dir, 'runs.log'), { force: true });
    const provider = new ExecCredentialProvider(plugin(), { clock: new FakeClock() });
    const results = await Promise.all([
      provider.credential(),
      provider.credential(),
      provider.credential(),
    ]);
    expect(results.map((r) => r.token)).toEqual(['token-1', 'token-1', 'token-1']);
    expect(provider.runs).toBe(1);
    provider.invalidate();
    await expect(provider.credential()).resolves.toMatchObject({ token: 'token-2' });
    expect(await runs()).toBe(2);
  });

  it('passes KUBERNETES_EXEC_INFO with the cluster when provideClusterInfo is set', async () => {
    const provider = new ExecCredentialProvider(plugin({}, { provideClusterInfo: true }), {
      cluster: { server: 'https://k8s:6443', caPem: 'PEM', tlsServerName: 'kubernetes' },
    });
    await provider.credential();
    const info = JSON.parse(await readFile(join(dir, 'info.json'), 'utf8'));
    expect(info).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: 'https://k8s:6443',
          'tls-server-name': 'kubernetes',
          'certificate-authority-data': Buffer.from('PEM').toString('base64'),
        },
      },
    });
  });

  it('reports a failing plugin with its exit code, stderr and config location', async () => {
    const provider = new ExecCredentialProvider(plugin({ FAIL: '1' }));
    const error = await provider.credential().catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      `test: users[u].user.exec: exec plugin "${process.execPath}" exited with code 3; stderr (last lines, secrets masked): token service said no`,
    );
  });

  it('refuses interactiveMode Always without running the plugin (it would get no terminal)', async () => {
    await rm(join(dir, 'runs.log'), { force: true });
    const provider = new ExecCredentialProvider(plugin({}, { interactiveMode: 'Always' }));
    const error = await provider.credential().catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(
      /^test: users\[u\]\.user\.exec\.interactiveMode: .*needs a terminal/,
    );
    expect(provider.runs).toBe(0);
    expect(await runs()).toBe(0);
  });

  it('resolves a relative command against the kubeconfig directory but runs it in the process directory', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    const script = join(bin, 'cwd-plugin');
    await writeFile(
      script,
      `#!${process.execPath}
process.stdout.write(JSON.stringify({ apiVersion: '${V1}', kind: 'ExecCredential', status: { token: process.cwd() } }));
`,
    );
    await chmod(script, 0o755);
    const provider = new ExecCredentialProvider({
      apiVersion: V1,
      command: './bin/cwd-plugin',
      workingDirectory: dir,
    });
    await expect(provider.credential()).resolves.toEqual({ token: process.cwd() });
  });

  it('reports a missing command with the install hint', async () => {
    const provider = new ExecCredentialProvider({
      apiVersion: V1,
      command: 'lasso-no-such-plugin',
      installHint: 'install it from example.com',
    });
    const error = await provider.credential().catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(
      /cannot run exec plugin "lasso-no-such-plugin".*ENOENT[\s\S]*install it from example\.com/,
    );
  });
});

describe('parseExecCredential', () => {
  const pem = (name: string): string =>
    readFileSync(join(import.meta.dirname, '..', 'config', '__fixtures__', 'pki', name), 'utf8');
  const certificateCredential = (cert: string, key: string): string =>
    JSON.stringify({
      apiVersion: V1,
      kind: 'ExecCredential',
      status: { clientCertificateData: cert, clientKeyData: key },
    });

  it('reads a client certificate credential', () => {
    const [cert, key] = [pem('client.crt'), pem('client.key')];
    expect(parseExecCredential(certificateCredential(cert, key), V1)).toEqual({
      clientCertPem: cert,
      clientKeyPem: key,
    });
  });

  // client-go's exec authenticator: tls.X509KeyPair fails the credential, not the handshake.
  it.for([
    {
      name: 'a key of another certificate',
      cert: 'client.crt',
      key: 'other.key',
      expected: 'status.clientKeyData does not match status.clientCertificateData',
    },
    {
      name: 'a certificate that is not one',
      cert: undefined,
      key: 'client.key',
      expected: 'status.clientCertificateData: certificate 1 of 1 is not a valid X.509 certificate',
    },
  ])('refuses $name, never quoting the key', ({ cert, key, expected }) => {
    const certPem =
      cert !== undefined
        ? pem(cert)
        : '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    const error = (() => {
      try {
        parseExecCredential(certificateCredential(certPem, pem(key)), V1, 'users[u].user.exec');
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error('expected a failure');
    })();
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect(error.message).toBe(`users[u].user.exec: exec plugin output ${expected}`);
    expect(error.message).not.toContain(pem(key).split('\n')[1]);
  });

  it.for([
    { name: 'not JSON', out: 'tok: secret-value' },
    {
      name: 'the wrong apiVersion',
      out: JSON.stringify({
        apiVersion: 'v9',
        kind: 'ExecCredential',
        status: { token: 'secret-value' },
      }),
    },
    {
      name: 'no credential',
      out: JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status: {} }),
    },
    {
      name: 'a bad expiry',
      out: JSON.stringify({
        apiVersion: V1,
        kind: 'ExecCredential',
        status: { token: 'secret-value', expirationTimestamp: 'soon' },
      }),
    },
  ])('rejects output with $name without quoting secrets', ({ out }) => {
    let error: unknown;
    try {
      parseExecCredential(out, V1);
    } catch (e) {
      error = e;
    }
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect((error as Error).message).not.toContain('secret-value');
  });
});
