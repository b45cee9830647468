// Exec credential plugins (client-go plugin/pkg/client/auth/exec): spawn, parse ExecCredential, cache to expiry.
import { spawn } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { type Clock, errorMessage, LassoError, systemClock } from '@lasso/core';
import type { ExecConfig } from '../config/rest-config.ts';
import { tlsMaterialProblem } from '../config/tls-material.ts';
import { maskSecrets } from './mask-secrets.ts';

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
/** The last this many bytes of a plugin's stderr are kept (a tail of them reported, masked). */
const STDERR_LIMIT = 4096;
/** A plugin printing more than this on stdout is killed: a credential is a few KiB. */
const STDOUT_LIMIT = 1024 * 1024;
/** At most this many characters of a failing plugin's stderr tail appear in an error. */
const STDERR_REPORTED_CHARS = 500;
/**
 * Default of `ExecConfig.timeoutMs`: 60 s. client-go has none; a plugin fetching a cloud token takes
 * seconds, and one that hangs would otherwise hang every request and keep the process alive.
 *
 * @example
 * ```ts
 * const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: 'kubelogin', timeoutMs: 3 * DEFAULT_EXEC_TIMEOUT_MS };
 * ```
 */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;

interface SpawnResult {
  code: number | null;
  /** How it ended: it exited (or failed to start), or it was killed for one reason. */
  ended: 'exit' | 'timeout' | 'closed' | 'stdout';
  stdout: string;
  stderr: string;
  spawnError?: Error;
}

/**
 * Runs an exec credential plugin and caches its credential until `expirationTimestamp`. One spawn
 * at a time: concurrent callers share the running plugin. {@link ExecCredentialProvider.invalidate}
 * (called by the transport on a 401) forces the next call to run the plugin again.
 *
 * A plugin that has not exited after `exec.timeoutMs` (default 60 s, on the injected clock; 0 for
 * none) is killed with SIGKILL, and so is a running one on {@link ExecCredentialProvider.close}
 * (called by `RestTransport.close()`). A failure reports the exit code and only the last lines of
 * stderr, with anything that looks like a token, key or password masked (and every `exec.env`
 * value); stdout is never quoted.
 *
 * @example
 * ```ts
 * const provider = new ExecCredentialProvider(
 *   { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token'], timeoutMs: 30_000 },
 *   { clock },
 * );
 * const { token } = await provider.credential();
 * provider.close();
 * ```
 */
export class ExecCredentialProvider {
  readonly #exec: ExecConfig;
  readonly #clock: Clock;
  readonly #cluster: ExecClusterInfo | undefined;
  #cached: ExecCredential | undefined;
  #running: Promise<ExecCredential> | undefined;
  #runs = 0;
  readonly #timeoutMs: number;
  /** Kills of the running plugin (at most one), for close(). */
  readonly #kill = new Set<(ended: 'closed') => void>();
  #closed = false;

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
    const timeoutMs = exec.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0)) {
      throw new RangeError(
        `ExecCredentialProvider: exec.timeoutMs must be a finite number >= 0, got ${String(timeoutMs)}`,
      );
    }
    this.#exec = exec;
    this.#timeoutMs = timeoutMs;
    this.#clock = options.clock ?? systemClock;
    this.#cluster = options.cluster;
  }

  /**
   * Kill a running plugin (its callers reject with `LASSO_EXEC_PLUGIN_FAILED`) and refuse to run
   * it again: the transport is closing. The cached credential is dropped.
   */
  close(): void {
    this.#closed = true;
    this.#cached = undefined;
    for (const kill of [...this.#kill]) kill('closed');
  }

  /**
   * What messages call the plugin: `exec plugin "<command>"` as the config names it (a path or a
   * name), with where it was configured (`exec.source`). Never its `args` or `env`, which may hold
   * secrets (`--token=...`).
   */
  get description(): string {
    const source = this.#exec.source;
    return `exec plugin ${JSON.stringify(this.#exec.command)}${source !== undefined ? ` (${source})` : ''}`;
  }

  /** Whether the plugin is running now (a caller of {@link credential} waits for it). */
  get running(): boolean {
    return this.#running !== undefined;
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
    if (this.#closed) {
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: exec plugin "${exec.command}" not run: the transport was closed`,
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

    const result = await this.#spawn(command, exec.args ?? [], env);
    const { code, stdout, spawnError } = result;
    const stderr = stderrTail(
      maskSecrets(
        result.stderr,
        (exec.env ?? []).map((item) => item.value),
      ),
    );
    const said = stderr ? `; stderr (last lines, secrets masked): ${stderr}` : '';

    if (spawnError !== undefined) {
      const hint = exec.installHint ? `\n${exec.installHint}` : '';
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: cannot run exec plugin "${exec.command}": ${errorMessage(spawnError)}${hint}`,
        { cause: spawnError },
      );
    }
    if (result.ended === 'timeout') {
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: exec plugin "${exec.command}" did not finish within ${this.#timeoutMs} ms and was killed${said}`,
      );
    }
    if (result.ended === 'closed') {
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: exec plugin "${exec.command}" was killed: the transport was closed`,
      );
    }
    if (result.ended === 'stdout') {
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: exec plugin "${exec.command}" printed more than ${STDOUT_LIMIT} bytes and was killed`,
      );
    }
    if (code !== 0) {
      throw new LassoError(
        'LASSO_EXEC_PLUGIN_FAILED',
        `${where}: exec plugin "${exec.command}" exited with code ${code}${said}`,
      );
    }
    const credential = parseExecCredential(stdout, exec.apiVersion, where);
    this.#cached = credential;
    return credential;
  }

  /**
   * Run the plugin: stdin empty, stdout kept up to {@link STDOUT_LIMIT} bytes, the last
   * {@link STDERR_LIMIT} bytes of stderr kept. Killed (SIGKILL) on timeout, on {@link close} and
   * past the stdout limit; then it resolves once the process exited, without waiting for the pipes
   * to close (a grandchild may hold them).
   */
  #spawn(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<SpawnResult> {
    return new Promise<SpawnResult>((done) => {
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = Buffer.alloc(0);
      let settled = false;
      let timer: { cancel(): void } | undefined;
      // The plugin runs in the process's directory, as under kubectl: only a relative command
      // path resolves against the kubeconfig's directory.
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const finish = (result: Omit<SpawnResult, 'stdout' | 'stderr'>): void => {
        if (settled) return;
        settled = true;
        timer?.cancel();
        this.#kill.delete(kill);
        done({
          ...result,
          stdout: result.ended === 'exit' ? Buffer.concat(out).toString('utf8') : '',
          stderr: err.toString('utf8'),
        });
      };
      let killed: 'timeout' | 'closed' | 'stdout' | undefined;
      const kill = (ended: 'timeout' | 'closed' | 'stdout'): void => {
        if (killed !== undefined || settled) return;
        killed = ended;
        timer?.cancel();
        child.kill('SIGKILL');
        child.stdout.destroy();
        child.stderr.destroy();
      };
      this.#kill.add(kill);
      if (this.#timeoutMs > 0) timer = this.#clock.schedule(this.#timeoutMs, () => kill('timeout'));
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > STDOUT_LIMIT) kill('stdout');
        else out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        err = Buffer.concat([err, chunk]);
        if (err.length > STDERR_LIMIT) err = err.subarray(err.length - STDERR_LIMIT);
      });
      child.on('error', (error) => finish({ code: null, ended: 'exit', spawnError: error }));
      // A killed plugin settles when it has exited (its pipes may stay open in a grandchild).
      child.on('exit', () => {
        if (killed !== undefined) finish({ code: null, ended: killed });
      });
      child.on('close', (exitCode) => finish({ code: exitCode, ended: killed ?? 'exit' }));
    });
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

/** The last {@link STDERR_REPORTED_CHARS} characters of `stderr`, from a line start when there is one. */
function stderrTail(stderr: string): string {
  const text = stderr.trim();
  if (text.length <= STDERR_REPORTED_CHARS) return text;
  const tail = text.slice(-STDERR_REPORTED_CHARS);
  const newline = tail.indexOf('\n');
  return `…${newline !== -1 && newline < tail.length - 1 ? tail.slice(newline + 1) : tail}`;
}
