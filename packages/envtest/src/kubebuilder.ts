// KUBEBUILDER_ASSETS mode: real etcd + kube-apiserver on loopback with generated certificates, an admin
// client certificate, service-account keys and an admin token; ports controller-runtime's
// pkg/internal/testing/controlplane (etcd.go, apiserver.go) and its process handling.
// size: one control plane (etcd and kube-apiserver started, checked and stopped together with their certificates).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { constants, rmSync } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  abortReason,
  anySignal,
  type Clock,
  defaultLogger,
  errorMessage,
  LassoError,
  type Logger,
  sleep,
  systemClock,
  TimeoutError,
  timeoutSignal,
} from '@lasso/core';
import {
  type CertificatePair,
  createCertificateAuthority,
  createSignedCertificate,
} from '@lasso/core/pki';
import type { Credentials } from './environment.ts';
import { sendRequest } from './http-client.ts';
import { atProcessExit, makePrivateTempDir, sweepStaleTempDirs } from './process-cleanup.ts';

/** Options of {@link startKubebuilderControlPlane}. */
export interface KubebuilderOptions {
  /** How long to wait for etcd health and kube-apiserver `/readyz` (default 60 000 ms). */
  readyTimeoutMs?: number | undefined;
  /** How long `stop()` waits after SIGTERM before SIGKILL (default 10 000 ms). */
  stopTimeoutMs?: number | undefined;
  /** Extra kube-apiserver flags (`--feature-gates=...`), appended after the defaults. */
  extraApiServerArgs?: string[] | undefined;
  /** Waits and timeouts (default `systemClock`). */
  clock?: Clock | undefined;
  /** Receives start/stop progress (never credentials). */
  logger?: Logger | undefined;
  /** Aborts the start: processes are stopped, the data directory removed, and the call rejects. */
  signal?: AbortSignal | undefined;
}

/** A running etcd + kube-apiserver pair. */
export interface KubebuilderControlPlane {
  /** Admin credentials: client certificate (O=system:masters) and a bearer token. */
  credentials: Credentials;
  /** The version `kube-apiserver --version` reported. */
  version: KubeVersion;
  /** SIGTERM both processes (SIGKILL after `stopTimeoutMs`) and remove the data directory. Idempotent. */
  stop(): Promise<void>;
}

/** The files and ports one control plane uses; the input of the argument builders. */
export interface ControlPlaneLayout {
  /** Temp directory holding certificates, keys, the token file and etcd's data dir. */
  directory: string;
  /** etcd's client port (kube-apiserver's `--etcd-servers`). */
  etcdClientPort: number;
  /** etcd's peer port (a single-member cluster still listens on one). */
  etcdPeerPort: number;
  /** kube-apiserver's `--secure-port`. */
  apiServerPort: number;
}

/** The service CIDR given to kube-apiserver; its first address is the `kubernetes` Service IP. */
export const serviceClusterIpRange = '10.0.0.0/24';

const files = {
  ca: 'ca.crt',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  serviceAccountKey: 'sa.key',
  serviceAccountPublicKey: 'sa.pub',
  tokens: 'tokens.csv',
  etcdData: 'etcd',
} as const;

/** etcd flags: client and peer URLs on 127.0.0.1 and a data dir, as controller-runtime runs it. */
export function etcdArguments(layout: ControlPlaneLayout): string[] {
  const client = `http://127.0.0.1:${layout.etcdClientPort}`;
  const peer = `http://127.0.0.1:${layout.etcdPeerPort}`;
  return [
    `--data-dir=${join(layout.directory, files.etcdData)}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    '--name=default',
  ];
}

/** A kube-apiserver release, as `kube-apiserver --version` prints it (`Kubernetes v1.20.2`). */
export interface KubeVersion {
  major: number;
  minor: number;
  patch: number;
  /** The version as printed, e.g. `v1.20.2` or `v1.31.0+k3s1`. */
  gitVersion: string;
}

/** The oldest kube-apiserver minor release `startKubebuilderControlPlane` runs (see the README). */
// 1.16 is the first release serving apiextensions.k8s.io/v1, which CRDs are installed through.
export const oldestSupportedVersion = { major: 1, minor: 16 } as const;

/**
 * The version in `kube-apiserver --version` output, or undefined when there is none: a build without
 * version information prints `v0.0.0-master+...`, which tells nothing about its flags.
 */
export function parseKubeApiServerVersion(output: string): KubeVersion | undefined {
  const match = /\bv(\d+)\.(\d+)\.(\d+)([-+][0-9A-Za-z.+-]*)?/.exec(output);
  if (match === null) return undefined;
  const [gitVersion, major, minor, patch] = match;
  const version = { major: Number(major), minor: Number(minor), patch: Number(patch), gitVersion };
  return version.major === 0 ? undefined : version;
}

function atLeast(version: KubeVersion, major: number, minor: number): boolean {
  return version.major > major || (version.major === major && version.minor >= minor);
}

/**
 * The flags `version` needs beyond the common ones (controller-runtime's envtest decides the same):
 * before 1.20 kube-apiserver also serves plain HTTP on `--insecure-port` (8080 by default), which two
 * environments would both claim, so it is closed with `--insecure-port=0`; 1.20 to 1.23 keep the flag
 * as a no-op that accepts only 0, and 1.24 removed it (an unknown flag stops the server). The
 * service-account issuer and keys that 1.20 made mandatory are common flags (every supported version
 * takes them; TokenRequest needs them).
 */
export function versionSpecificArguments(version: KubeVersion): string[] {
  return atLeast(version, 1, 24) ? [] : ['--insecure-port=0'];
}

/**
 * kube-apiserver flags for a loopback control plane with RBAC, client-certificate and token auth, for
 * the kube-apiserver `version` (see {@link versionSpecificArguments}).
 */
export function kubeApiServerArguments(layout: ControlPlaneLayout, version: KubeVersion): string[] {
  const file = (name: string): string => join(layout.directory, name);
  return [
    `--etcd-servers=http://127.0.0.1:${layout.etcdClientPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${layout.apiServerPort}`,
    `--tls-cert-file=${file(files.servingCert)}`,
    `--tls-private-key-file=${file(files.servingKey)}`,
    `--client-ca-file=${file(files.ca)}`,
    `--token-auth-file=${file(files.tokens)}`,
    `--service-account-issuer=https://127.0.0.1:${layout.apiServerPort}/`,
    `--service-account-key-file=${file(files.serviceAccountPublicKey)}`,
    `--service-account-signing-key-file=${file(files.serviceAccountKey)}`,
    `--service-cluster-ip-range=${serviceClusterIpRange}`,
    '--authorization-mode=RBAC',
    // With a loopback advertise address the endpoint reconciler would fail to publish the kubernetes Service.
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    ...versionSpecificArguments(version),
  ];
}

/** Options of {@link readKubeApiServerVersion}. */
export interface ReadVersionOptions {
  /** How long `--version` may take (default 10 000 ms). */
  timeoutMs?: number | undefined;
  clock?: Clock | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Run `binary --version` and parse it. Throws a `LASSO_ENVTEST_FAILED` {@link LassoError} when the
 * binary fails, prints no version, or is older than {@link oldestSupportedVersion}.
 */
export async function readKubeApiServerVersion(
  binary: string,
  options: ReadVersionOptions = {},
): Promise<KubeVersion> {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const timeout = timeoutSignal(clock, timeoutMs, `${binary} --version took over ${timeoutMs} ms`);
  const combined = anySignal([timeout.signal, options.signal]);
  let output: string;
  try {
    output = await new Promise<string>((resolve, reject) => {
      execFile(
        binary,
        ['--version'],
        { signal: combined.signal, maxBuffer: 64 * 1024 },
        (error, stdout, stderr) => {
          if (combined.signal.aborted) reject(abortReason(combined.signal));
          else if (error !== null) {
            reject(fail(`${binary} --version failed: ${errorMessage(error)}`, error));
          } else resolve(`${stdout}\n${stderr}`);
        },
      );
    });
  } finally {
    combined.dispose();
    timeout.clear();
  }
  const version = parseKubeApiServerVersion(output);
  if (version === undefined) {
    throw fail(
      `cannot tell the kube-apiserver version from \`${binary} --version\` (${JSON.stringify(output.trim().slice(0, 200))}); envtest chooses its flags by version`,
    );
  }
  if (!atLeast(version, oldestSupportedVersion.major, oldestSupportedVersion.minor)) {
    throw fail(
      `kube-apiserver ${version.gitVersion} is older than ${oldestSupportedVersion.major}.${oldestSupportedVersion.minor}, the oldest version envtest supports`,
    );
  }
  return version;
}

/** The namespaces kube-apiserver's bootstrap controller creates, shortly after `/readyz` turns 200. */
export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Options of {@link waitForSystemNamespaces}. */
export interface WaitForNamespacesOptions {
  timeoutMs: number;
  /** Delay between rounds (default 100 ms). */
  intervalMs?: number | undefined;
  clock?: Clock | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Wait until `/readyz` answers 200 and every namespace of {@link systemNamespaces} exists, as the
 * built-in server guarantees from its start. Throws a {@link TimeoutError} naming what is missing.
 */
export async function waitForSystemNamespaces(
  credentials: Credentials,
  options: WaitForNamespacesOptions,
): Promise<void> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.monotonic() + options.timeoutMs;
  // One request may outlast the deadline by this much (as in waitForHealthy): a bounded overshoot.
  const attemptTimeoutMs = 5_000;
  let missing = ['/readyz', ...systemNamespaces];
  for (;;) {
    options.signal?.throwIfAborted();
    const still: string[] = [];
    for (const name of missing) {
      const path = name === '/readyz' ? name : `/api/v1/namespaces/${name}`;
      const attempt = timeoutSignal(clock, attemptTimeoutMs);
      const combined = anySignal([attempt.signal, options.signal]);
      const response = await sendRequest(credentials, 'GET', path, undefined, {}, combined)
        .catch(() => undefined)
        .finally(() => {
          combined.dispose();
          attempt.clear();
        });
      if (response?.status !== 200) still.push(name);
    }
    missing = still;
    if (missing.length === 0) return;
    const left = deadline - clock.monotonic();
    if (left <= 0) {
      throw new TimeoutError(
        `kube-apiserver at ${credentials.server} not ready after ${options.timeoutMs} ms: missing ${missing.join(', ')}`,
        options.timeoutMs,
      );
    }
    await sleep(
      clock,
      Math.min(options.intervalMs ?? 100, left),
      options.signal === undefined ? {} : { signal: options.signal },
    );
  }
}

function fail(message: string, cause?: unknown): LassoError {
  return new LassoError(
    'LASSO_ENVTEST_FAILED',
    message,
    cause === undefined ? undefined : { cause },
  );
}

/** Loopback ports nobody listens on right now: all held open together so they differ. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  });
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
  return ports;
}

/** A child process with the tail of its output, for error messages. */
interface Managed {
  name: string;
  child: ChildProcess;
  /** Set once the process has exited (or failed to spawn): a description with the output tail. */
  exited: string | undefined;
  exit: Promise<void>;
  tail(): string;
}

const tailBytes = 4096;

function launch(name: string, binary: string, args: string[]): Managed {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-tailBytes);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const managed: Managed = {
    name,
    child,
    exited: undefined,
    exit: new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        managed.exited = `${name} exited (${signal === null ? `code ${String(code)}` : signal})`;
        resolve();
      });
      child.once('error', (error) => {
        managed.exited = `${name} could not start: ${error.message}`;
        resolve();
      });
    }),
    tail: () => output.trim(),
  };
  return managed;
}

function describeFailure(managed: Managed): string {
  const tail = managed.tail();
  return tail === ''
    ? `${managed.exited ?? managed.name}`
    : `${managed.exited ?? managed.name}; output tail:\n${tail}`;
}

/**
 * SIGTERM `child`, then SIGKILL if it has not exited after `timeoutMs` on `clock`; resolves once it
 * has exited. A process that already exited resolves at once.
 */
export async function terminateProcess(
  child: ChildProcess,
  options: { timeoutMs: number; clock?: Clock },
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const clock = options.clock ?? systemClock;
  const timer = clock.schedule(options.timeoutMs, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await exited;
  timer.cancel();
}

/** Options of {@link waitForHealthy}. */
export interface WaitForHealthyOptions {
  /** `https://127.0.0.1:PORT/readyz` or `http://127.0.0.1:PORT/health`. */
  url: string;
  /** CA, client certificate and key for HTTPS. */
  tls?: { caPem: string; certPem: string; keyPem: string } | undefined;
  timeoutMs: number;
  /** Delay between attempts (default 100 ms). */
  intervalMs?: number | undefined;
  /** Limit of one attempt (default 5 000 ms). */
  attemptTimeoutMs?: number | undefined;
  clock?: Clock | undefined;
  /** Checked before every attempt: a string means the process died; the wait fails with it. */
  failed?: (() => string | undefined) | undefined;
  signal?: AbortSignal | undefined;
}

function probe(
  url: string,
  tls: WaitForHealthyOptions['tls'],
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const callback = (response: http.IncomingMessage): void => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body = (body + chunk).slice(0, 1024);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    };
    const request = url.startsWith('https:')
      ? https.get(
          url,
          {
            signal,
            agent: false,
            ...(tls ? { ca: tls.caPem, cert: tls.certPem, key: tls.keyPem } : {}),
          },
          callback,
        )
      : http.get(url, { signal, agent: false }, callback);
    request.on('error', reject);
  });
}

/**
 * Poll `url` until it answers 200, `failed()` reports a dead process, or `timeoutMs` passes on `clock`.
 * Throws a `LASSO_ENVTEST_FAILED` error (process died) or a {@link TimeoutError} naming the last answer.
 */
export async function waitForHealthy(options: WaitForHealthyOptions): Promise<void> {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = clock.monotonic() + options.timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    options.signal?.throwIfAborted();
    const failure = options.failed?.();
    if (failure !== undefined) throw fail(`${options.url} will never be ready: ${failure}`);
    const attempt = timeoutSignal(clock, options.attemptTimeoutMs ?? 5_000);
    const combined = anySignal([attempt.signal, options.signal]);
    try {
      const { status, body } = await probe(options.url, options.tls, combined.signal);
      if (status === 200) return;
      last = `HTTP ${status}${body.trim() === '' ? '' : `: ${body.trim().slice(0, 300)}`}`;
    } catch (error) {
      options.signal?.throwIfAborted();
      last = errorMessage(error);
    } finally {
      combined.dispose();
      attempt.clear();
    }
    const failed = options.failed?.();
    if (failed !== undefined) throw fail(`${options.url} will never be ready: ${failed}`);
    const left = deadline - clock.monotonic();
    if (left <= 0) {
      throw new TimeoutError(
        `${options.url} not ready after ${options.timeoutMs} ms (last: ${last})`,
        options.timeoutMs,
      );
    }
    await sleep(
      clock,
      Math.min(intervalMs, left),
      options.signal === undefined ? {} : { signal: options.signal },
    );
  }
}

/**
 * Start etcd and kube-apiserver from `assetsDir` (the folder `KUBEBUILDER_ASSETS` names, as
 * setup-envtest fills it) on free loopback ports, with a generated CA, serving certificate, admin
 * client certificate (CN=admin, O=system:masters), service-account signing key and an admin token
 * (`--token-auth-file`), and wait for `/readyz` and the namespaces kube-apiserver creates
 * ({@link systemNamespaces}). The flags depend on `kube-apiserver --version` ({@link
 * kubeApiServerArguments}). Children are killed and the data directory (keys, token file) removed on
 * `stop()`, on process exit and on SIGINT/SIGTERM/SIGHUP; a directory left by a process killed with
 * SIGKILL is removed by the next start.
 *
 * Without a controller-manager there is no garbage collection, namespaces never finish terminating
 * and no `default` ServiceAccount exists: create it before creating Pods.
 *
 * Throws a `LASSO_ENVTEST_FAILED` {@link LassoError} naming a missing binary, or with the failing
 * process's output tail when it exits or is not ready in time.
 */
export async function startKubebuilderControlPlane(
  assetsDir: string,
  options: KubebuilderOptions = {},
): Promise<KubebuilderControlPlane> {
  if (typeof assetsDir !== 'string' || assetsDir === '')
    throw new TypeError('assetsDir must be a non-empty string');
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  if (!(readyTimeoutMs > 0)) throw new RangeError('readyTimeoutMs must be > 0');
  if (!(stopTimeoutMs >= 0)) throw new RangeError('stopTimeoutMs must be >= 0');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? defaultLogger;
  const { signal } = options;
  signal?.throwIfAborted();

  const binaries = { etcd: join(assetsDir, 'etcd'), apiServer: join(assetsDir, 'kube-apiserver') };
  for (const binary of [binaries.etcd, binaries.apiServer]) {
    try {
      await access(binary, constants.X_OK);
    } catch (error) {
      throw fail(
        `KUBEBUILDER_ASSETS: ${binary} is missing or not executable (point KUBEBUILDER_ASSETS at a folder holding etcd and kube-apiserver, e.g. from setup-envtest)`,
        error,
      );
    }
  }

  const version = await readKubeApiServerVersion(binaries.apiServer, {
    timeoutMs: readyTimeoutMs,
    clock,
    ...(signal === undefined ? {} : { signal }),
  });
  sweepStaleTempDirs();
  // One deadline for every attempt: a retry on fresh ports does not extend the wait the caller asked for.
  const deadline = clock.monotonic() + readyTimeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startAttempt({
        binaries,
        version,
        deadline,
        clock,
        logger,
        stopTimeoutMs,
        options,
      });
    } catch (error) {
      // The ports are found free, then closed before etcd and kube-apiserver bind them: another process (a
      // parallel test worker) can take one in between. Start again on fresh ports, as a fresh control plane.
      if (attempt >= maxPortAttempts || signal?.aborted || !isPortClash(error)) throw error;
      logger.warn(
        'a control plane port was taken before its process bound it; starting again on fresh ports',
        {
          attempt,
        },
      );
    }
  }
}

/** Attempts of {@link startKubebuilderControlPlane} when a port it chose is taken before it is bound. */
const maxPortAttempts = 3;

/** Whether a start failed because a process could not bind its port (etcd and kube-apiserver say it so). */
function isPortClash(error: unknown): boolean {
  return errorMessage(error).includes('address already in use');
}

/** One start of etcd and kube-apiserver on ports free at its beginning; stops what it started when it fails. */
async function startAttempt(input: {
  binaries: { etcd: string; apiServer: string };
  version: KubeVersion;
  deadline: number;
  clock: Clock;
  logger: Logger;
  stopTimeoutMs: number;
  options: KubebuilderOptions;
}): Promise<KubebuilderControlPlane> {
  const { binaries, version, deadline, clock, logger, stopTimeoutMs, options } = input;
  const { signal } = options;
  const directory = makePrivateTempDir('kubebuilder');
  const processes: Managed[] = [];
  // Children and keys must not outlive the test process, even when it exits without calling stop().
  const forgetExitCleanup = atProcessExit(() => {
    for (const managed of processes) {
      if (managed.exited === undefined) managed.child.kill('SIGKILL');
    }
    rmSync(directory, { recursive: true, force: true });
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // kube-apiserver first: it would log etcd errors while etcd goes away.
      for (const managed of [...processes].reverse()) {
        await terminateProcess(managed.child, { timeoutMs: stopTimeoutMs, clock });
        await managed.exit;
      }
      forgetExitCleanup();
      await rm(directory, { recursive: true, force: true });
      logger.debug('kubebuilder control plane stopped', { directory });
    })();
    return stopping;
  };

  try {
    const [etcdClientPort = 0, etcdPeerPort = 0, apiServerPort = 0] = await freePorts(3);
    const layout: ControlPlaneLayout = { directory, etcdClientPort, etcdPeerPort, apiServerPort };
    const pki = await writePki(directory);

    const left = (): number => Math.max(1, deadline - clock.monotonic());
    const rethrowAbort = (): void => {
      if (signal?.aborted) throw abortReason(signal);
    };
    const etcd = launch('etcd', binaries.etcd, etcdArguments(layout));
    processes.push(etcd);
    await waitForHealthy({
      url: `http://127.0.0.1:${etcdClientPort}/health`,
      timeoutMs: left(),
      clock,
      failed: () => (etcd.exited === undefined ? undefined : describeFailure(etcd)),
      ...(signal === undefined ? {} : { signal }),
    }).catch((error: unknown) => {
      rethrowAbort();
      throw fail(
        `etcd did not become healthy: ${errorMessage(error)}${etcd.exited ? '' : `\n${etcd.tail()}`}`,
        error,
      );
    });

    const apiServer = launch('kube-apiserver', binaries.apiServer, [
      ...kubeApiServerArguments(layout, version),
      ...(options.extraApiServerArgs ?? []),
    ]);
    processes.push(apiServer);
    const server = `https://127.0.0.1:${apiServerPort}`;
    await waitForHealthy({
      url: `${server}/readyz`,
      tls: { caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem },
      timeoutMs: left(),
      clock,
      ...(signal === undefined ? {} : { signal }),
      failed: () =>
        apiServer.exited !== undefined
          ? describeFailure(apiServer)
          : etcd.exited !== undefined
            ? describeFailure(etcd)
            : undefined,
    }).catch((error: unknown) => {
      rethrowAbort();
      throw fail(
        `kube-apiserver did not become ready: ${errorMessage(error)}${apiServer.exited ? '' : `\nkube-apiserver output tail:\n${apiServer.tail()}`}`,
        error,
      );
    });
    const credentials: Credentials = {
      server,
      caPem: pki.ca.certPem,
      clientCertPem: pki.admin.certPem,
      clientKeyPem: pki.admin.keyPem,
      token: pki.token,
    };
    // /readyz turns 200 before the bootstrap controller has created default, kube-system, ...
    await waitForSystemNamespaces(credentials, {
      timeoutMs: left(),
      clock,
      ...(signal === undefined ? {} : { signal }),
    }).catch((error: unknown) => {
      rethrowAbort();
      throw fail(
        `kube-apiserver did not become ready: ${errorMessage(error)}${apiServer.exited ? `\n${describeFailure(apiServer)}` : ''}`,
        error,
      );
    });
    logger.debug('kubebuilder control plane ready', { server, version: version.gitVersion });
    return { credentials, version, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

async function writePki(
  directory: string,
): Promise<{ ca: CertificatePair; admin: CertificatePair; token: string }> {
  const ca = createCertificateAuthority({ commonName: 'lasso-envtest-ca' });
  const serving = createSignedCertificate(ca, {
    commonName: 'kube-apiserver',
    dnsNames: [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ],
    ipAddresses: ['127.0.0.1', '10.0.0.1'],
    usage: 'server',
  });
  const admin = createSignedCertificate(ca, {
    commonName: 'admin',
    organizations: ['system:masters'],
    usage: 'client',
  });
  // keyutil reads EC private keys only in SEC1 form ("EC PRIVATE KEY"), and public keys as SPKI.
  const serviceAccount = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const serviceAccountKey = serviceAccount.privateKey
    .export({ type: 'sec1', format: 'pem' })
    .toString();
  const serviceAccountPublicKey = serviceAccount.publicKey
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const token = randomBytes(24).toString('hex');
  await mkdir(join(directory, files.etcdData), { recursive: true, mode: 0o700 });
  await Promise.all([
    writeFile(join(directory, files.ca), ca.certPem),
    writeFile(join(directory, files.servingCert), serving.certPem),
    writeFile(join(directory, files.servingKey), serving.keyPem, { mode: 0o600 }),
    writeFile(join(directory, files.serviceAccountKey), serviceAccountKey, { mode: 0o600 }),
    writeFile(join(directory, files.serviceAccountPublicKey), serviceAccountPublicKey),
    // token,user,uid,"group1,group2" (kube-apiserver's static token file format).
    writeFile(join(directory, files.tokens), `${token},admin,admin,"system:masters"\n`, {
      mode: 0o600,
    }),
  ]);
  return { ca, admin, token };
}
