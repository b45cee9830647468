import { existsSync, readFileSync, watch } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLassoError, TimeoutError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRestConfig, type ExecConfig } from '../config/rest-config.ts';
import { RequestTimeoutError } from '../timeout-policy.ts';
import { RestTransport } from '../transport.ts';
import { DEFAULT_EXEC_TIMEOUT_MS, ExecCredentialProvider } from './exec.ts';
import { maskSecrets } from './mask-secrets.ts';

const V1 = 'client.authentication.k8s.io/v1';
let dir: string;
let runId = 0;

// Writes its pid to $PID_FILE, then never exits.
const HANG = `
require('node:fs').writeFileSync(process.env.PID_FILE, String(process.pid));
setInterval(() => {}, 1 << 30);
`;
// Prints a bare token to stderr (synchronous on a pipe), writes its pid to $PID_FILE, then never exits.
const HANG_LEAKY = `
process.stderr.write('fetching with s3cr3tT0kenABCDEFGH1\\n');
require('node:fs').writeFileSync(process.env.PID_FILE, String(process.pid));
setInterval(() => {}, 1 << 30);
`;
// Prints secrets (and $NOISE lines of filler first) to stderr, then fails.
const LEAKY = `
const noise = Number(process.env.NOISE || 0);
for (let i = 0; i < noise; i++) process.stderr.write('line ' + i + ' of harmless progress output\\n');
process.stderr.write('using token=s3cr3t-t0ken-value and password: hunter2hunter2\\n');
process.stderr.write('Authorization: Bearer abc.def.ghi\\n');
process.stderr.write('jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl\\n');
process.stderr.write('-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n');
process.stderr.write('opaque AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENG and env ' + process.env.API_KEY_VALUE + '\\n');
process.stderr.write('refused s3cr3tT0kenABCDEFGH1\\n');
process.stderr.write('could not reach the token service\\n');
process.exitCode = 2;
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lasso-exec-life-'));
  await writeFile(join(dir, 'hang.cjs'), HANG);
  await writeFile(join(dir, 'leaky.cjs'), LEAKY);
  await writeFile(join(dir, 'hang-leaky.cjs'), HANG_LEAKY);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const providers: ExecCredentialProvider[] = [];
const transports: RestTransport[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) p.close();
  for (const t of transports.splice(0)) await t.close();
});

function hanging(extra: Partial<ExecConfig> = {}): { exec: ExecConfig; pidFile: string } {
  const pidFile = join(dir, `pid-${++runId}`);
  return {
    pidFile,
    exec: {
      apiVersion: V1,
      command: process.execPath,
      args: [join(dir, 'hang.cjs')],
      env: [{ name: 'PID_FILE', value: pidFile }],
      source: 'test: users[u].user.exec',
      ...extra,
    },
  };
}

/** The pid the plugin wrote, once the file appears (an fs event; the test timeout bounds it). */
async function pidOf(file: string): Promise<number> {
  if (!existsSync(file)) {
    await new Promise<void>((resolve) => {
      const watcher = watch(dir, () => {
        if (existsSync(file)) {
          watcher.close();
          resolve();
        }
      });
      if (existsSync(file)) {
        watcher.close();
        resolve();
      }
    });
  }
  for (;;) {
    const text = readFileSync(file, 'utf8');
    if (text !== '') return Number(text);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** True when `pid` is gone or a zombie (killed, not yet reaped). */
function dead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe('exec plugin lifecycle', () => {
  it('has a 60 s default timeout', () => {
    expect(DEFAULT_EXEC_TIMEOUT_MS).toBe(60_000);
    expect(
      () => new ExecCredentialProvider({ apiVersion: V1, command: 'x', timeoutMs: -1 }),
    ).toThrow(
      new RangeError('ExecCredentialProvider: exec.timeoutMs must be a finite number >= 0, got -1'),
    );
  });

  it('kills a plugin that does not finish within timeoutMs (on the clock) and says so', async () => {
    const clock = new FakeClock();
    const { exec, pidFile } = hanging({ timeoutMs: 5000 });
    const provider = new ExecCredentialProvider(exec, { clock });
    providers.push(provider);
    const result = provider.credential().catch((e: unknown) => e);
    const pid = await pidOf(pidFile);
    await clock.advance(4999);
    expect(dead(pid)).toBe(false);
    await clock.advance(1);
    const error = (await result) as Error;
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect(error.message).toBe(
      `test: users[u].user.exec: exec plugin "${process.execPath}" did not finish within 5000 ms and was killed`,
    );
    expect(dead(pid)).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('kills a running plugin on close() and runs none after', async () => {
    const { exec, pidFile } = hanging();
    const provider = new ExecCredentialProvider(exec, { clock: new FakeClock() });
    const result = provider.credential().catch((e: unknown) => e);
    const pid = await pidOf(pidFile);
    provider.close();
    const error = (await result) as Error;
    expect(error.message).toBe(
      `test: users[u].user.exec: exec plugin "${process.execPath}" was killed: the transport was closed`,
    );
    expect(dead(pid)).toBe(true);
    await expect(provider.credential()).rejects.toThrow('not run: the transport was closed');
  });

  it('kills the plugin when the transport closes, and the request fails', async () => {
    const { exec, pidFile } = hanging();
    const transport = new RestTransport(
      createRestConfig({
        server: 'https://127.0.0.1:1',
        auth: { type: 'exec', exec },
        clock: new FakeClock(),
      }),
    );
    const request = transport
      .requestJson({ method: 'GET', path: '/api', timeoutMs: 0 })
      .catch((e: unknown) => e);
    const pid = await pidOf(pidFile);
    await transport.close();
    expect(isLassoError(await request, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect(dead(pid)).toBe(true);
  });

  it('lets the request timeout cover waiting for the plugin', async () => {
    const clock = new FakeClock();
    const { exec, pidFile } = hanging();
    const transport = new RestTransport(
      createRestConfig({ server: 'https://127.0.0.1:1', auth: { type: 'exec', exec }, clock }),
    );
    transports.push(transport);
    const request = transport
      .requestJson({ method: 'GET', path: '/api', timeoutMs: 1000 })
      .catch((e: unknown) => e);
    await pidOf(pidFile);
    await clock.advance(1000);
    const error = await request;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/^GET \/api: /);
  });

  it('names the plugin, never its arguments, when the request deadline passes while it runs', async () => {
    const clock = new FakeClock();
    const { exec, pidFile } = hanging({
      args: [join(dir, 'hang.cjs'), '--token=argSecret0123456789'],
    });
    const transport = new RestTransport(
      createRestConfig({ server: 'https://127.0.0.1:1', auth: { type: 'exec', exec }, clock }),
    );
    transports.push(transport);
    // A short call (30 s total) and a list (30 s without response bytes): both wait for the plugin.
    const get = transport.requestJson({ method: 'GET', path: '/api/v1/namespaces/d/configmaps/a' });
    const list = transport.requestJson({ method: 'GET', path: '/api/v1/namespaces/d/configmaps' });
    const errors = Promise.all([get, list].map((p) => p.catch((e: unknown) => e)));
    await pidOf(pidFile);
    await clock.advance(30_000);
    const [getError, listError] = (await errors) as [RequestTimeoutError, RequestTimeoutError];
    const plugin = `exec plugin ${JSON.stringify(process.execPath)} (test: users[u].user.exec)`;
    expect(getError).toBeInstanceOf(RequestTimeoutError);
    expect(getError.message).toBe(
      `get configmaps "a" in namespace "d" (GET /api/v1/namespaces/d/configmaps/a): no whole answer within 30000 ms (request deadline, timeoutMs), still waiting for ${plugin}`,
    );
    expect(getError.waitingFor).toBe(plugin);
    expect(listError.deadline).toBe('progress');
    expect(listError.message).toContain(
      `(progress deadline, progressTimeoutMs), still waiting for ${plugin}`,
    );
    for (const error of [getError, listError]) {
      expect(error.message).not.toContain('hang.cjs');
      expect(error.message).not.toContain('argSecret');
    }
  });

  it('masks a bare token on the stderr of a plugin killed at its own timeout', async () => {
    const clock = new FakeClock();
    const { exec, pidFile } = hanging({ args: [join(dir, 'hang-leaky.cjs')], timeoutMs: 5000 });
    const provider = new ExecCredentialProvider(exec, { clock });
    providers.push(provider);
    const result = provider.credential().catch((e: unknown) => e);
    await pidOf(pidFile);
    await clock.advance(5000);
    const error = (await result) as Error;
    expect(error.message).toBe(
      `test: users[u].user.exec: exec plugin "${process.execPath}" did not finish within 5000 ms and was killed; stderr (last lines, secrets masked): fetching with <masked>`,
    );
  });

  it('reports only a masked tail of stderr: no token, key or password', async () => {
    const secretEnv = 'env-secret-value-42';
    const provider = new ExecCredentialProvider({
      apiVersion: V1,
      command: process.execPath,
      args: [join(dir, 'leaky.cjs')],
      env: [{ name: 'API_KEY_VALUE', value: secretEnv }],
      source: 'u.exec',
    });
    const error = (await provider.credential().catch((e: unknown) => e)) as Error;
    expect(isLassoError(error, 'LASSO_EXEC_PLUGIN_FAILED')).toBe(true);
    expect(error.message).toContain(`exited with code 2; stderr (last lines, secrets masked): `);
    expect(error.message).toContain('could not reach the token service');
    for (const secret of [
      's3cr3t-t0ken-value',
      'hunter2',
      'abc.def.ghi',
      'eyJhbGciOiJSUzI1NiJ9',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
      'AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENG',
      's3cr3tT0kenABCDEFGH1',
      secretEnv,
    ]) {
      expect(error.message).not.toContain(secret);
    }
  });

  it('bounds the stderr it reports to a tail', async () => {
    const provider = new ExecCredentialProvider({
      apiVersion: V1,
      command: process.execPath,
      args: [join(dir, 'leaky.cjs')],
      env: [{ name: 'NOISE', value: '2000' }],
    });
    const error = (await provider.credential().catch((e: unknown) => e)) as Error;
    const stderr = error.message.slice(error.message.indexOf('masked): ') + 9);
    expect(stderr.length).toBeLessThanOrEqual(501);
    expect(stderr.startsWith('…')).toBe(true);
    expect(stderr).toContain('could not reach the token service');
    expect(stderr).not.toContain('line 0 of');
  });
});

describe('maskSecrets', () => {
  it.for([
    ['token=abc123', 'token=<masked>'],
    ['"access_token": "abc"', '"access_token": "<masked>"'],
    ['client-key: /tmp/x', 'client-key: <masked>'],
    ['Authorization: Bearer xyz', 'Authorization: <masked> <masked>'],
    ['use Bearer xyz now', 'use Bearer <masked> now'],
    ['hash 0123456789abcdef0123456789', 'hash <masked>'],
    ['see https://example.com/docs for help', 'see https://example.com/docs for help'],
    ['exit status 1: connection refused', 'exit status 1: connection refused'],
    // A bare token-like word, 16+ characters of the base64/base64url/hex alphabet.
    ['error: s3cr3tT0kenABCDEFGH1 rejected', 'error: <masked> rejected'],
    ['id AKIAIOSFODNN7EXAMPLE.', 'id <masked>.'],
    ['got dGhpc2lzYXNlY3JldHRva2Vu back', 'got <masked> back'],
    ['abc0123456789def0123 hex', '<masked> hex'],
    ['request 3f2b1c9e-8a7d-4e6f-9b0c-1d2e3f4a5b6c', 'request <masked>'],
    ['after a dot: sts.s3cr3tT0kenABCDEFGH1', 'after a dot: sts.<masked>'],
    // Known prefixes, whatever follows.
    ['ghp_abcdefghijklmnopqrstuvwxyz', '<masked>'],
    ['use glpat-abcdefghij now', 'use <masked> now'],
    ['xoxb-1234-abcdefgh', '<masked>'],
    ['k8s-aws-v1.aHR0cHM6Ly9zdHM', '<masked>'],
    ['sha256~abcdefghijklmnop', '<masked>'],
    // Words that read as names stay: no digit and few capitals, a path, a host.
    ['ServiceAccountToken expired', 'ServiceAccountToken expired'],
    ['kubernetes-authentication-plugin failed', 'kubernetes-authentication-plugin failed'],
    ['/usr/local/bin/authenticator2 failed', '/usr/local/bin/authenticator2 failed'],
    ['letters only: dGhpcyBpcyBhIHNlY3JldA', 'letters only: <masked>'],
    ['HTTPSConnectionPool(host=sts.amazonaws.com)', 'HTTPSConnectionPool(host=sts.amazonaws.com)'],
  ] as const)('%j -> %j', ([text, masked]) => {
    expect(maskSecrets(text)).toBe(masked);
  });

  it('masks the known values wherever they appear', () => {
    expect(maskSecrets('a pa55word b', ['pa55word', 'xy'])).toBe('a <masked> b');
  });
});
