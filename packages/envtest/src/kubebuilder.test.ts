import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { isLassoError, TimeoutError } from '@lasso/core';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  etcdArguments,
  type KubeVersion,
  kubeApiServerArguments,
  parseKubeApiServerVersion,
  readKubeApiServerVersion,
  startKubebuilderControlPlane,
  systemNamespaces,
  terminateProcess,
  versionSpecificArguments,
  waitForHealthy,
  waitForSystemNamespaces,
} from './kubebuilder.ts';

const layout = {
  directory: '/tmp/cp',
  etcdClientPort: 2379,
  etcdPeerPort: 2380,
  apiServerPort: 6443,
};

describe('etcdArguments', () => {
  it('puts client and peer URLs on 127.0.0.1 and the data dir in the layout directory', () => {
    expect(etcdArguments(layout)).toEqual([
      '--data-dir=/tmp/cp/etcd',
      '--listen-client-urls=http://127.0.0.1:2379',
      '--advertise-client-urls=http://127.0.0.1:2379',
      '--listen-peer-urls=http://127.0.0.1:2380',
      '--initial-advertise-peer-urls=http://127.0.0.1:2380',
      '--initial-cluster=default=http://127.0.0.1:2380',
      '--name=default',
    ]);
  });
});

const v = (gitVersion: string): KubeVersion => {
  const version = parseKubeApiServerVersion(`Kubernetes ${gitVersion}`);
  if (version === undefined) throw new Error(`no version in ${gitVersion}`);
  return version;
};

describe('parseKubeApiServerVersion', () => {
  it.each([
    ['Kubernetes v1.20.2\n', { major: 1, minor: 20, patch: 2, gitVersion: 'v1.20.2' }],
    ['Kubernetes v1.31.0+k3s1', { major: 1, minor: 31, patch: 0, gitVersion: 'v1.31.0+k3s1' }],
    [
      'Kubernetes v1.24.0-rc.1.5+abc',
      { major: 1, minor: 24, patch: 0, gitVersion: 'v1.24.0-rc.1.5+abc' },
    ],
  ])('reads %j', (output, expected) => {
    expect(parseKubeApiServerVersion(output)).toEqual(expected);
  });

  it('has no version for a build without version information or no output', () => {
    expect(parseKubeApiServerVersion('Kubernetes v0.0.0-master+faecb196815e2')).toBeUndefined();
    expect(parseKubeApiServerVersion('')).toBeUndefined();
    expect(parseKubeApiServerVersion('unknown flag: --version')).toBeUndefined();
  });
});

describe('versionSpecificArguments', () => {
  it('closes the insecure port (8080 by default before 1.20) while the flag exists, before 1.24', () => {
    for (const version of ['v1.16.0', 'v1.19.16', 'v1.20.2', 'v1.23.17', 'v1.23.0-alpha.1']) {
      expect(versionSpecificArguments(v(version)), version).toEqual(['--insecure-port=0']);
    }
  });

  it('passes no --insecure-port from 1.24 on, which removed the flag', () => {
    for (const version of ['v1.24.0', 'v1.24.0-rc.1', 'v1.28.3', 'v1.31.0+k3s1', 'v2.0.0']) {
      expect(versionSpecificArguments(v(version)), version).toEqual([]);
    }
  });

  it('keeps the service-account issuer and keys (mandatory from 1.20) in every version', () => {
    for (const version of ['v1.16.15', 'v1.19.16', 'v1.20.2', 'v1.23.17', 'v1.24.0', 'v1.31.1']) {
      const args = kubeApiServerArguments(layout, v(version));
      expect(args, version).toEqual(
        expect.arrayContaining([
          '--service-account-issuer=https://127.0.0.1:6443/',
          '--service-account-key-file=/tmp/cp/sa.pub',
          '--service-account-signing-key-file=/tmp/cp/sa.key',
        ]),
      );
      expect(args.filter((arg) => arg.startsWith('--insecure-port')).length, version).toBe(
        v(version).minor < 24 ? 1 : 0,
      );
    }
  });
});

describe('kubeApiServerArguments', () => {
  it('passes every flag a loopback kube-apiserver needs', () => {
    const args = kubeApiServerArguments(layout, v('v1.31.0'));
    expect(args).toEqual(
      expect.arrayContaining([
        '--etcd-servers=http://127.0.0.1:2379',
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        '--secure-port=6443',
        '--tls-cert-file=/tmp/cp/apiserver.crt',
        '--tls-private-key-file=/tmp/cp/apiserver.key',
        '--client-ca-file=/tmp/cp/ca.crt',
        '--token-auth-file=/tmp/cp/tokens.csv',
        '--service-account-issuer=https://127.0.0.1:6443/',
        '--service-account-key-file=/tmp/cp/sa.pub',
        '--service-account-signing-key-file=/tmp/cp/sa.key',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--authorization-mode=RBAC',
        '--endpoint-reconciler-type=none',
      ]),
    );
    expect(new Set(args.map((arg) => arg.split('=')[0])).size).toBe(args.length);
  });
});

describe('waitForHealthy', () => {
  const ca = createCertificateAuthority();
  const serving = createSignedCertificate(ca, {
    commonName: 'api',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const admin = createSignedCertificate(ca, {
    commonName: 'admin',
    organizations: ['system:masters'],
    usage: 'client',
  });
  const tls = { caPem: ca.certPem, certPem: admin.certPem, keyPem: admin.keyPem };
  let server: https.Server;
  let url: string;
  let answers: number[];
  const seen: string[] = [];

  beforeEach(async () => {
    answers = [];
    seen.length = 0;
    server = https.createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        seen.push(`${req.url} ${(req.socket as TLSSocket).getPeerCertificate().subject.CN}`);
        res.statusCode = answers.shift() ?? 503;
        res.end(res.statusCode === 200 ? 'ok' : '[-]etcd failed: reason withheld');
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  it('retries on the clock until /readyz answers 200, presenting the client certificate', async () => {
    answers = [503, 500, 200];
    const clock = new FakeClock();
    let sleeping = clock.scheduled(250);
    const ready = waitForHealthy({ url, tls, timeoutMs: 10_000, intervalMs: 250, clock });
    for (let attempt = 0; attempt < 2; attempt++) {
      await sleeping;
      sleeping = clock.scheduled(250);
      await clock.advance(250);
    }
    await ready;
    expect(seen).toEqual(['/readyz admin', '/readyz admin', '/readyz admin']);
  });

  it('times out with the last answer once the deadline passes', async () => {
    const clock = new FakeClock();
    let sleeping = clock.scheduled(250);
    const ready = waitForHealthy({ url, tls, timeoutMs: 500, intervalMs: 250, clock });
    const outcome = ready.catch((error: unknown) => error);
    for (let attempt = 0; attempt < 2; attempt++) {
      await sleeping;
      sleeping = clock.scheduled(250);
      await clock.advance(250);
    }
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      `${url} not ready after 500 ms (last: HTTP 503: [-]etcd failed: reason withheld)`,
    );
    expect(seen).toHaveLength(3);
  });

  it('fails at once when the process it waits for has died', async () => {
    const error = await waitForHealthy({
      url,
      tls,
      timeoutMs: 10_000,
      failed: () => 'etcd exited (code 1)',
    }).catch((caught: unknown) => caught);
    expect(isLassoError(error, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((error as Error).message).toContain('etcd exited (code 1)');
    expect(seen).toEqual([]);
  });
});

describe('waitForSystemNamespaces', () => {
  const ca = createCertificateAuthority();
  const serving = createSignedCertificate(ca, {
    commonName: 'api',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const admin = createSignedCertificate(ca, {
    commonName: 'admin',
    organizations: ['system:masters'],
    usage: 'client',
  });
  let server: https.Server;
  let credentials: { server: string; caPem: string; clientCertPem: string; clientKeyPem: string };
  let existing: Set<string>;
  const seen: string[] = [];

  beforeEach(async () => {
    existing = new Set();
    seen.length = 0;
    server = https.createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true },
      (req, res) => {
        seen.push(req.url ?? '');
        const name = req.url?.replace('/api/v1/namespaces/', '') ?? '';
        res.statusCode = req.url === '/readyz' || existing.has(name) ? 200 : 404;
        res.end('{}');
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    credentials = {
      server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      caPem: ca.certPem,
      clientCertPem: admin.certPem,
      clientKeyPem: admin.keyPem,
    };
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  it('waits on the clock until /readyz and every namespace kube-apiserver creates exist', async () => {
    existing.add('kube-system');
    const clock = new FakeClock();
    const sleeping = clock.scheduled(100);
    let done = false;
    const ready = waitForSystemNamespaces(credentials, { timeoutMs: 10_000, clock }).then(() => {
      done = true;
    });
    await sleeping;
    expect(done).toBe(false);
    expect(seen).toEqual([
      '/readyz',
      '/api/v1/namespaces/default',
      '/api/v1/namespaces/kube-system',
      '/api/v1/namespaces/kube-public',
      '/api/v1/namespaces/kube-node-lease',
    ]);
    for (const name of systemNamespaces) existing.add(name);
    seen.length = 0;
    await clock.advance(100);
    await ready;
    // Only what was missing is asked again.
    expect(seen).toEqual([
      '/api/v1/namespaces/default',
      '/api/v1/namespaces/kube-public',
      '/api/v1/namespaces/kube-node-lease',
    ]);
  });

  it('times out naming what is still missing', async () => {
    existing = new Set(['default', 'kube-system']);
    const clock = new FakeClock();
    const sleeping = clock.scheduled(100);
    const outcome = waitForSystemNamespaces(credentials, { timeoutMs: 100, clock }).catch(
      (error: unknown) => error,
    );
    await sleeping;
    await clock.advance(100);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      `kube-apiserver at ${credentials.server} not ready after 100 ms: missing kube-public, kube-node-lease`,
    );
  });

  it('stops waiting when its signal aborts', async () => {
    const clock = new FakeClock();
    const sleeping = clock.scheduled(100);
    const controller = new AbortController();
    const outcome = waitForSystemNamespaces(credentials, {
      timeoutMs: 10_000,
      clock,
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await sleeping;
    const reason = new Error('test over');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
  });
});

describe('readKubeApiServerVersion', () => {
  let assets: string;
  const binary = async (output: string, code = 0): Promise<string> => {
    const path = join(assets, 'kube-apiserver');
    await writeFile(
      path,
      `#!${process.execPath}\nconsole.log(${JSON.stringify(output)}); process.exit(${code});\n`,
    );
    await chmod(path, 0o755);
    return path;
  };
  beforeEach(async () => {
    assets = await mkdtemp(join(tmpdir(), 'lasso-version-'));
  });
  afterEach(async () => {
    await rm(assets, { recursive: true, force: true });
  });

  it('reads the version a release prints', async () => {
    expect(await readKubeApiServerVersion(await binary('Kubernetes v1.20.2'))).toEqual(
      v('v1.20.2'),
    );
  });

  it('refuses a version older than 1.16, naming it', async () => {
    const error = await readKubeApiServerVersion(await binary('Kubernetes v1.15.12')).catch(
      (caught: unknown) => caught,
    );
    expect(isLassoError(error, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      'kube-apiserver v1.15.12 is older than 1.16, the oldest version envtest supports',
    );
  });

  it('refuses a build that prints no version, and a binary that fails', async () => {
    const unknown = await readKubeApiServerVersion(
      await binary('Kubernetes v0.0.0-master+faecb196815e2'),
    ).catch((caught: unknown) => caught);
    expect(isLassoError(unknown, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((unknown as Error).message).toContain('cannot tell the kube-apiserver version');
    const failing = await readKubeApiServerVersion(await binary('boom', 2)).catch(
      (caught: unknown) => caught,
    );
    expect(isLassoError(failing, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((failing as Error).message).toContain('--version failed');
  });
});

describe('terminateProcess', () => {
  it('sends SIGKILL after the timeout when SIGTERM is ignored', async () => {
    const child = spawn(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('ready')"],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await once(child.stdout, 'data');
    const clock = new FakeClock();
    const scheduled = clock.scheduled(5_000);
    const done = terminateProcess(child, { timeoutMs: 5_000, clock });
    await scheduled;
    expect(child.exitCode).toBeNull();
    await clock.advance(5_000);
    await done;
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('resolves at once for a process that already exited', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    await terminateProcess(child, { timeoutMs: 5_000, clock: new FakeClock() });
  });
});

// Fake binaries: node scripts that honour the same flags as etcd and kube-apiserver.
const argsRecorder = `
const fs = require('node:fs');
const args = {};
for (const arg of process.argv.slice(2)) { const i = arg.indexOf('='); args[arg.slice(2, i)] = arg.slice(i + 1); }
const record = { argv: process.argv.slice(2), pid: process.pid, requests: [] };
const save = () => fs.writeFileSync(process.argv[1] + '.json', JSON.stringify(record));
save();
`;
// `kube-apiserver --version` as a release prints it.
const versionAnswer = (version = 'v1.23.4'): string => `
if (process.argv.includes('--version')) { console.log('Kubernetes ${version}'); process.exit(0); }
`;
const fakeEtcd = `${argsRecorder}
const url = new URL(args['listen-client-urls']);
if (!fs.statSync(args['data-dir']).isDirectory()) process.exit(2);
require('node:http').createServer((req, res) => res.end(req.url === '/health' ? '{"health":"true"}' : ''))
  .listen(Number(url.port), url.hostname);
`;
// Like kube-apiserver's bootstrap controller, the namespaces appear a moment after /readyz is 200.
const fakeApiServer = `${versionAnswer()}${argsRecorder}
const seen = new Map();
const token = fs.readFileSync(args['token-auth-file'], 'utf8').split(',')[0];
if (!fs.readFileSync(args['service-account-signing-key-file'], 'utf8').includes('BEGIN EC PRIVATE KEY')) process.exit(3);
if (!fs.readFileSync(args['service-account-key-file'], 'utf8').includes('BEGIN PUBLIC KEY')) process.exit(4);
require('node:https').createServer({
  cert: fs.readFileSync(args['tls-cert-file']), key: fs.readFileSync(args['tls-private-key-file']),
  ca: fs.readFileSync(args['client-ca-file']), requestCert: true, rejectUnauthorized: false,
}, (req, res) => {
  const cert = req.socket.getPeerCertificate();
  const user = req.socket.authorized && cert.subject.O === 'system:masters' ? cert.subject.CN
    : req.headers.authorization === 'Bearer ' + token ? 'token-admin' : undefined;
  record.requests.push(req.url);
  save();
  seen.set(req.url, (seen.get(req.url) ?? 0) + 1);
  const pending = req.url.startsWith('/api/v1/namespaces/') && seen.get(req.url) < 3;
  res.statusCode = user === undefined ? 401 : pending ? 404 : 200;
  res.end(req.url === '/readyz' ? 'ok' : JSON.stringify({ user }));
}).listen(Number(args['secure-port']), args['bind-address']);
`;
const crashingApiServer = `${versionAnswer()}${argsRecorder}
process.stderr.write('Error: unknown flag: --bogus\\n');
process.exit(1);
`;

describe('startKubebuilderControlPlane', () => {
  let assets: string;
  const install = async (name: string, script: string, mode = 0o755): Promise<void> => {
    await writeFile(join(assets, name), `#!${process.execPath}\n${script}`);
    await chmod(join(assets, name), mode);
  };
  const recorded = async (
    name: string,
  ): Promise<{ argv: string[]; pid: number; requests: string[] }> =>
    JSON.parse(await readFile(join(assets, `${name}.json`), 'utf8')) as {
      argv: string[];
      pid: number;
      requests: string[];
    };
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const get = (
    url: string,
    options: https.RequestOptions,
  ): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      https
        .get(url, { ...options, agent: false }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });

  beforeEach(async () => {
    assets = await mkdtemp(join(tmpdir(), 'lasso-assets-'));
  });
  afterEach(async () => {
    await rm(assets, { recursive: true, force: true });
  });

  it('names a missing binary in a LassoError', async () => {
    await install('etcd', fakeEtcd);
    const error = await startKubebuilderControlPlane(assets).catch((caught: unknown) => caught);
    expect(isLassoError(error, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((error as Error).message).toContain(
      `KUBEBUILDER_ASSETS: ${join(assets, 'kube-apiserver')} is missing or not executable`,
    );
  });

  it('names a binary that is not executable', async () => {
    await install('etcd', fakeEtcd, 0o644);
    await install('kube-apiserver', fakeApiServer);
    await expect(startKubebuilderControlPlane(assets)).rejects.toThrow(
      `${join(assets, 'etcd')} is missing or not executable`,
    );
  });

  it('starts both processes with certificates that authenticate the admin, and stop releases everything', async () => {
    await install('etcd', fakeEtcd);
    await install('kube-apiserver', fakeApiServer);
    const exitListeners = process.listenerCount('exit');
    const plane = await startKubebuilderControlPlane(assets, { readyTimeoutMs: 20_000 });
    const { credentials } = plane;
    expect(credentials.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(process.listenerCount('exit')).toBe(exitListeners + 1);

    const byCert = await get(`${credentials.server}/api`, {
      ca: credentials.caPem,
      cert: credentials.clientCertPem,
      key: credentials.clientKeyPem,
    });
    expect(byCert).toEqual({ status: 200, body: '{"user":"admin"}' });
    const byToken = await get(`${credentials.server}/api`, {
      ca: credentials.caPem,
      headers: { authorization: `Bearer ${credentials.token}` },
    });
    expect(byToken).toEqual({ status: 200, body: '{"user":"token-admin"}' });

    const etcd = await recorded('etcd');
    const apiServer = await recorded('kube-apiserver');
    const dataDir =
      etcd.argv.find((arg) => arg.startsWith('--data-dir='))?.slice('--data-dir='.length) ?? '';
    const directory = join(dataDir, '..');
    const port = Number(new URL(credentials.server).port);
    const etcdPort = Number(
      etcd.argv
        .find((arg) => arg.startsWith('--listen-client-urls='))
        ?.split(':')
        .pop(),
    );
    const peerPort = Number(
      etcd.argv
        .find((arg) => arg.startsWith('--listen-peer-urls='))
        ?.split(':')
        .pop(),
    );
    expect(apiServer.argv).toEqual(
      kubeApiServerArguments(
        { directory, etcdClientPort: etcdPort, etcdPeerPort: peerPort, apiServerPort: port },
        v('v1.23.4'),
      ),
    );
    expect(apiServer.argv).toContain('--insecure-port=0');
    expect(plane.version).toEqual(v('v1.23.4'));
    expect(apiServer.requests).toEqual(
      expect.arrayContaining([
        '/readyz',
        ...systemNamespaces.map((name) => `/api/v1/namespaces/${name}`),
      ]),
    );
    expect(new Set([port, etcdPort, peerPort]).size).toBe(3);
    expect(existsSync(dataDir)).toBe(true);

    await plane.stop();
    await plane.stop();
    expect(alive(etcd.pid)).toBe(false);
    expect(alive(apiServer.pid)).toBe(false);
    expect(existsSync(directory)).toBe(false);
    expect(process.listenerCount('exit')).toBe(exitListeners);
  });

  it('passes no --insecure-port to kube-apiserver 1.24+, which would refuse the flag', async () => {
    await install('etcd', fakeEtcd);
    await install(
      'kube-apiserver',
      fakeApiServer
        .replace('v1.23.4', 'v1.24.17')
        .replace(
          'const seen',
          "if (process.argv.some((arg) => arg.startsWith('--insecure-port'))) { console.error('Error: unknown flag: --insecure-port'); process.exit(1); }\nconst seen",
        ),
    );
    const plane = await startKubebuilderControlPlane(assets, { readyTimeoutMs: 20_000 });
    try {
      expect(plane.version.gitVersion).toBe('v1.24.17');
      expect((await recorded('kube-apiserver')).argv).not.toContain('--insecure-port=0');
    } finally {
      await plane.stop();
    }
  });

  it('refuses an unsupported kube-apiserver before starting anything', async () => {
    await install('etcd', fakeEtcd);
    await install('kube-apiserver', fakeApiServer.replace('v1.23.4', 'v1.15.12'));
    await expect(startKubebuilderControlPlane(assets)).rejects.toThrow(
      'kube-apiserver v1.15.12 is older than 1.16',
    );
    expect(existsSync(join(assets, 'etcd.json'))).toBe(false);
  });

  it('rejects with the reason of an already aborted signal, starting nothing', async () => {
    await install('etcd', fakeEtcd);
    await install('kube-apiserver', fakeApiServer);
    const reason = new Error('cancelled');
    await expect(
      startKubebuilderControlPlane(assets, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(existsSync(join(assets, 'etcd.json'))).toBe(false);
  });

  it('reports the output of a kube-apiserver that exits and cleans up etcd', async () => {
    await install('etcd', fakeEtcd);
    await install('kube-apiserver', crashingApiServer);
    const exitListeners = process.listenerCount('exit');
    const error = await startKubebuilderControlPlane(assets, { readyTimeoutMs: 20_000 }).catch(
      (caught: unknown) => caught,
    );
    expect(isLassoError(error, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((error as Error).message).toContain('kube-apiserver exited (code 1)');
    expect((error as Error).message).toContain('Error: unknown flag: --bogus');
    const etcd = await recorded('etcd');
    expect(alive(etcd.pid)).toBe(false);
    const dataDir =
      etcd.argv.find((arg) => arg.startsWith('--data-dir='))?.slice('--data-dir='.length) ?? '';
    expect(existsSync(join(dataDir, '..'))).toBe(false);
    expect(process.listenerCount('exit')).toBe(exitListeners);
  });

  it('starts again on fresh ports when a port it chose was taken before etcd bound it', async () => {
    // The first etcd finds its client port taken (as when a parallel worker took it), the second binds.
    await install(
      'etcd',
      `const marker = process.argv[1] + '.clashed';
if (!require('node:fs').existsSync(marker)) {
  require('node:fs').writeFileSync(marker, process.argv.slice(2).join(' '));
  process.stderr.write('listen tcp 127.0.0.1:2379: bind: address already in use\\n');
  process.exit(1);
}
${fakeEtcd}`,
    );
    await install('kube-apiserver', fakeApiServer);
    const logger = createTestLogger();
    const exitListeners = process.listenerCount('exit');
    const plane = await startKubebuilderControlPlane(assets, { readyTimeoutMs: 20_000, logger });
    try {
      const first = await readFile(join(assets, 'etcd.clashed'), 'utf8');
      const second = (await recorded('etcd')).argv.join(' ');
      const dataDirOf = (argv: string): string => /--data-dir=(\S+)/.exec(argv)?.[1] ?? '';
      expect(dataDirOf(first)).not.toBe('');
      // A fresh directory, and the first one is gone.
      expect(dataDirOf(second)).not.toBe(dataDirOf(first));
      expect(existsSync(join(dataDirOf(first), '..'))).toBe(false);
      expect(
        logger.entries.filter((entry) => entry.message.includes('starting again on fresh ports')),
      ).toHaveLength(1);
    } finally {
      await plane.stop();
    }
    expect(process.listenerCount('exit')).toBe(exitListeners);
  });

  it('gives up after three clashes with the error of the last', async () => {
    await install(
      'etcd',
      `process.stderr.write('listen tcp 127.0.0.1:2379: bind: address already in use\\n');
process.exit(1);
`,
    );
    await install('kube-apiserver', fakeApiServer);
    const logger = createTestLogger();
    const error = await startKubebuilderControlPlane(assets, {
      readyTimeoutMs: 20_000,
      logger,
    }).catch((caught: unknown) => caught);
    expect(isLassoError(error, 'LASSO_ENVTEST_FAILED')).toBe(true);
    expect((error as Error).message).toContain('address already in use');
    expect(
      logger.entries.filter((entry) => entry.message.includes('starting again on fresh ports')),
    ).toHaveLength(2);
  });
});
