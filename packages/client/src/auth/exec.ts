// Exec credential plugins (client-go plugin/pkg/client/auth/exec): spawn, parse ExecCredential, cache to expiry.
import { spawn } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { type Clock, errorMessage, LassoError, systemClock } from '@lasso/core';
import type { ExecConfig } from '../config/rest-config.ts';
import { tlsMaterialProblem } from '../config/tls-material.ts';

/** What an exec plugin returned: a bearer token or a client certificate, with its expiry. */
export interface ExecCredential {
  token?: string | undefined;
  clientCertPem?: string | undefined;
  clientKeyPem?: string | undefined;
  /** Epoch ms of `status.expirationTimestamp`; the credential is cached until then (forever when absent). */
  expiresAt?: number | undefined;
}

/** The cluster passed to a plugin in `KUBERNETES_EXEC_INFO` when `provideClusterInfo` is set. */
export interface ExecClusterInfo {
  server: string;
  tlsServerName?: string | undefined;
  insecureSkipTLSVerify?: boolean | undefined;
  caPem?: string | undefined;
  proxyUrl?: string | undefined;
  /** `extensions[client.authentication.k8s.io/exec]` of the cluster. */
  config?: unknown;
}

const API_VERSIONS = new Set([
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
]);
const STDERR_LIMIT = 4096;

/**
 * Runs an exec credential plugin and caches its credential until `expirationTimestamp`. One spawn
 * at a time: concurrent callers share the running plugin. {@link ExecCredentialProvider.invalidate}
 * (called by the transport on a 401) forces the next call to run the plugin again.
 */
export class ExecCredentialProvider {
  readonly #exec: ExecConfig;
  readonly #clock: Clock;
  readonly #cluster: ExecClusterInfo | undefined;
  #cached: ExecCredential | undefined;
  #running: Promise<ExecCredential> | undefined;
  #runs = 0;

  constructor(
    exec: ExecConfig,
    options: { clock?: Clock | undefined; cluster?: ExecClusterInfo | undefined } = {},
  ) {
    if (typeof exec.command !== 'string' || exec.command === '') {
      throw new TypeError('ExecCredentialProvider: exec.command must be a non-empty string');
    }
    if (!API_VERSIONS.has(exec.apiVersion)) {
      throw new LassoError(
        'LASSO_CONFIG_INVALID',
        `${exec.source ?? 'exec'}.apiVersion: unsupported exec plugin apiVersion "${exec.apiVersion}" (want client.authentication.k8s.io/v1 or v1beta1)`,
      );
    }
    this.#exec = exec;
    this.#clock = options.clock ?? systemClock;
    this.#cluster = options.cluster;
  }

  /** How many times the plugin has been spawned (for metrics and tests). */
  get runs(): number {
    return this.#runs;
  }

  /** The cached credential while it has not expired, else a fresh one from the plugin. */
  credential(): Promise<ExecCredential> {
    const cached = this.#cached;
    if (
      cached !== undefined &&
      (cached.expiresAt === undefined || this.#clock.now() < cached.expiresAt)
    ) {
      return Promise.resolve(cached);
    }
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /**
   * Drop the cached credential (after a 401) so the next call runs the plugin. With `rejected`
   * (the credential the refused request carried), only that credential is dropped: a late 401 to
   * an older credential keeps the one a concurrent refresh already fetched (client-go does the same).
   */
  invalidate(rejected?: ExecCredential): void {
    if (rejected !== undefined && rejected !== this.#cached) return;
    this.#cached = undefined;
  }

  async #run(): Promise<ExecCredential> {
    const exec = this.#exec;
    const where = exec.source ?? 'exec plugin';
    if (exec.interactiveMode === 'Always') {
      // client-go refuses too when stdin is not a terminal; here it never is (a library has no
      // user to prompt), and a plugin that must prompt would otherwise fail on an empty stdin.
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}.interactiveMode: exec plugin "${exec.command}" needs a terminal (Always), but plugins run without stdin here; use Never or IfAvailable`,
      );
    }
    this.#runs++;
    const command =
      exec.workingDirectory !== undefined && !isAbsolute(exec.command) && exec.command.includes('/')
        ? resolve(exec.workingDirectory, exec.command)
        : exec.command;
    const info: Record<string, unknown> = {
      apiVersion: exec.apiVersion,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        ...(exec.provideClusterInfo && this.#cluster
          ? { cluster: clusterSpec(this.#cluster) }
          : {}),
      },
    };
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    for (const { name, value } of exec.env ?? []) env[name] = value;

    const { code, stdout, stderr, spawnError } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
      spawnError?: Error;
    }>((done) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let errBytes = 0;
      // The plugin runs in the process's directory, as under kubectl: only a relative command
      // path resolves against the kubeconfig's directory.
      const child = spawn(command, exec.args ?? [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        if (errBytes < STDERR_LIMIT) err.push(chunk);
        errBytes += chunk.length;
      });
      child.on('error', (error) => done({ code: null, stdout: '', stderr: '', spawnError: error }));
      child.on('close', (exitCode) =>
        done({
          code: exitCode,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8').slice(0, STDERR_LIMIT).trim(),
        }),
      );
    });

    if (spawnError !== undefined) {
      const hint = exec.installHint ? `\n${exec.installHint}` : '';
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: cannot run exec plugin "${exec.command}": ${errorMessage(spawnError)}${hint}`,
        { cause: spawnError },
      );
    }
    if (code !== 0) {
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: exec plugin "${exec.command}" exited with code ${code}${stderr ? `: ${stderr}` : ''}`,
      );
    }
    const credential = parseExecCredential(stdout, exec.apiVersion, where);
    this.#cached = credential;
    return credential;
  }
}

function clusterSpec(cluster: ExecClusterInfo): Record<string, unknown> {
  return {
    server: cluster.server,
    ...(cluster.tlsServerName !== undefined ? { 'tls-server-name': cluster.tlsServerName } : {}),
    ...(cluster.insecureSkipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(cluster.caPem !== undefined
      ? { 'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64') }
      : {}),
    ...(cluster.proxyUrl !== undefined ? { 'proxy-url': cluster.proxyUrl } : {}),
    ...(cluster.config !== undefined ? { config: cluster.config } : {}),
  };
}

/** Parse a plugin's stdout as an ExecCredential; errors name the plugin, never the token. */
export function parseExecCredential(
  stdout: string,
  apiVersion: string,
  where = 'exec plugin',
): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new LassoError(
      'LASSO_EXEC_PLUGIN_FAILED',
      `${where}: exec plugin output is not an ExecCredential JSON object (${stdout.length} bytes)`,
    );
  }
  const fail = (what: string): never => {
    throw new LassoError('LASSO_EXEC_PLUGIN_FAILED', `${where}: exec plugin output ${what}`);
  };
  if (typeof parsed !== 'object' || parsed === null) return fail('is not a JSON object');
  const object = parsed as { kind?: unknown; apiVersion?: unknown; status?: unknown };
  if (object.kind !== 'ExecCredential')
    return fail(`has kind ${JSON.stringify(object.kind)}, want ExecCredential`);
  if (object.apiVersion !== apiVersion) {
    return fail(`has apiVersion ${JSON.stringify(object.apiVersion)}, want ${apiVersion}`);
  }
  const status = object.status as
    | {
        token?: unknown;
        clientCertificateData?: unknown;
        clientKeyData?: unknown;
        expirationTimestamp?: unknown;
      }
    | undefined;
  if (typeof status !== 'object' || status === null) return fail('has no status');
  const credential: ExecCredential = {};
  if (typeof status.token === 'string' && status.token !== '') credential.token = status.token;
  if (
    typeof status.clientCertificateData === 'string' &&
    typeof status.clientKeyData === 'string'
  ) {
    // client-go's tls.X509KeyPair: a broken pair fails the credential, not every handshake.
    const problem = tlsMaterialProblem(
      { certPem: status.clientCertificateData, keyPem: status.clientKeyData },
      { caPem: '', certPem: 'status.clientCertificateData', keyPem: 'status.clientKeyData' },
    );
    if (problem !== undefined) return fail(problem);
    credential.clientCertPem = status.clientCertificateData;
    credential.clientKeyPem = status.clientKeyData;
  } else if (status.clientCertificateData !== undefined || status.clientKeyData !== undefined) {
    return fail('has only one of status.clientCertificateData and status.clientKeyData');
  }
  if (credential.token === undefined && credential.clientCertPem === undefined) {
    return fail('has neither status.token nor a client certificate');
  }
  if (status.expirationTimestamp !== undefined) {
    const at =
      typeof status.expirationTimestamp === 'string'
        ? Date.parse(status.expirationTimestamp)
        : Number.NaN;
    if (Number.isNaN(at)) return fail('has an unparsable status.expirationTimestamp');
    credential.expiresAt = at;
  }
  return credential;
}
