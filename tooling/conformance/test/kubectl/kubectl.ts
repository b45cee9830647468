// Runs the installed kubectl against an Environment: its kubeconfig, a discovery cache of its own
// and a bounded time per command. The kubectl suites skip themselves when kubectl is not on PATH.
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { call } from '@lasso-internal/wire';

function findOnPath(command: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The kubectl binary on PATH, or undefined (the suites then skip). */
export const kubectlPath = findOnPath('kubectl');

/**
 * Options of every kubectl `describe` block: tests run concurrently (each has its own namespace, and
 * kubectl runs as a child process, so a second core helps), each bounded at 30 s since a kubectl run
 * on a loaded machine can take seconds.
 */
export const suiteOptions = { concurrent: true, timeout: 30_000 } as const;

/** What one kubectl run printed and how it ended. */
export interface KubectlResult {
  /** Exit code (0 on success). */
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one kubectl run. */
export interface KubectlOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** Extra environment variables (e.g. `KUBE_EDITOR`). */
  env?: Record<string, string>;
  /** Killed after this long; default 30 000 ms. */
  timeoutMs?: number;
}

/** A kubectl run still going: its stderr can be awaited line by line (e.g. for `-v=6` request logs). */
export interface RunningKubectl {
  /** Resolves once a stderr line matches `pattern`; rejects when kubectl exits first or after `timeoutMs`. */
  stderrLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once a stdout line matches `pattern`; rejects when kubectl exits first or after `timeoutMs`. */
  stdoutLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Stop kubectl (SIGTERM) if it still runs; `result` then settles. */
  stop(): void;
  /** Settles when kubectl exits. */
  result: Promise<KubectlResult>;
}

/** A ConfigMap body for {@link Kubectl.seed}. */
export function configMapObject(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: labels === undefined ? { name } : { name, labels },
    data,
  };
}

/** A one-container Deployment body (`app: name`, one replica) for {@link Kubectl.seed}. */
export function deploymentObject(
  name: string,
  image = 'registry.k8s.io/pause:3.9',
): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image }] },
      },
    },
  };
}

/** A kubectl bound to one environment. */
export interface Kubectl {
  /** Run kubectl with `args`; resolves with its exit code and output, never rejects on a non-zero exit. */
  run(args: string[], options?: KubectlOptions): Promise<KubectlResult>;
  /** Run kubectl and return its stdout; throws with stderr when it exits non-zero. */
  ok(args: string[], options?: KubectlOptions): Promise<string>;
  /**
   * Start kubectl and return before it exits. With `-v=6` in `args` it logs each request once its
   * response arrives, so `stderrLine(/watch=true 200/)` resolves once its watch is established.
   */
  start(args: string[], options?: KubectlOptions): RunningKubectl;
  /**
   * Create `object` over HTTP as JSON (not through kubectl), for a test's setup: a test of `label` then
   * fails only when `label` does. Kinds: see {@link seedPaths}.
   */
  seed(namespace: string, object: Record<string, unknown>): Promise<void>;
  /**
   * Read an object over HTTP (JSON), by kubectl's name for its type (`cm`, `configmap`,
   * `deployment.apps`, ...; see {@link readPaths}): checking what a command stored costs no kubectl run.
   */
  read(namespace: string, type: string, name: string): Promise<any>;
  /** A fresh namespace created for one test. */
  namespace(prefix?: string): Promise<string>;
  /** A scratch directory (removed by `stop()`) for manifests and editor scripts. */
  directory: string;
  /** Write `text` to a file in `directory` and return its path. */
  file(name: string, text: string): string;
  env: Environment;
  stop(): Promise<void>;
}

/** Collection paths of the kinds tests seed (`{ns}` is replaced; cluster-scoped kinds have none). */
export const seedPaths: Record<string, string> = {
  ConfigMap: '/api/v1/namespaces/{ns}/configmaps',
  Deployment: '/apis/apps/v1/namespaces/{ns}/deployments',
  Service: '/api/v1/namespaces/{ns}/services',
  Secret: '/api/v1/namespaces/{ns}/secrets',
  Role: '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles',
  RoleBinding: '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings',
  ClusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
};

/** Collection paths by kubectl's type names (`{ns}` is replaced). */
export const readPaths: Record<string, string> = {
  cm: '/api/v1/namespaces/{ns}/configmaps',
  configmap: '/api/v1/namespaces/{ns}/configmaps',
  secret: '/api/v1/namespaces/{ns}/secrets',
  service: '/api/v1/namespaces/{ns}/services',
  serviceaccount: '/api/v1/namespaces/{ns}/serviceaccounts',
  resourcequota: '/api/v1/namespaces/{ns}/resourcequotas',
  pod: '/api/v1/namespaces/{ns}/pods',
  deployment: '/apis/apps/v1/namespaces/{ns}/deployments',
  'deployment.apps': '/apis/apps/v1/namespaces/{ns}/deployments',
  'job.batch': '/apis/batch/v1/namespaces/{ns}/jobs',
  'cronjob.batch': '/apis/batch/v1/namespaces/{ns}/cronjobs',
  'role.rbac.authorization.k8s.io': '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles',
  'rolebinding.rbac.authorization.k8s.io':
    '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings',
  'poddisruptionbudget.policy': '/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets',
  'ingress.networking.k8s.io': '/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses',
};

/** Start an environment (real or built-in, as `startEnvironment` picks) and a kubectl bound to it. */
export async function startKubectl(): Promise<Kubectl> {
  const env = await startEnvironment();
  const directory = mkdtempSync(join(tmpdir(), 'lasso-kubectl-'));
  const cacheDirectory = join(directory, 'cache');
  let counter = 0;
  const start = (args: string[], options: KubectlOptions = {}): RunningKubectl => {
    const output = { stdout: '', stderr: '' };
    let exited = false;
    let child: ReturnType<typeof execFile> | undefined;
    const listeners = new Set<() => void>();
    const result = new Promise<KubectlResult>((resolve, reject) => {
      if (kubectlPath === undefined) {
        reject(new Error('kubectl is not on PATH'));
        return;
      }
      child = execFile(
        kubectlPath,
        ['--kubeconfig', env.kubeconfigPath, '--cache-dir', cacheDirectory, ...args],
        {
          timeout: options.timeoutMs ?? 30_000,
          maxBuffer: 64 * 1024 * 1024,
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH ?? '',
            HOME: directory,
            KUBECTL_INTERACTIVE_DELETE: 'false',
            ...options.env,
          },
        },
        (error, stdout, allStderr) => {
          exited = true;
          for (const listener of [...listeners]) listener();
          if (error !== null && typeof error.code !== 'number') {
            reject(
              new Error(`kubectl ${args.join(' ')}: ${error.message}\n${allStderr}`, {
                cause: error,
              }),
            );
            return;
          }
          resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr: allStderr });
        },
      );
      for (const stream of ['stdout', 'stderr'] as const) {
        child[stream]?.on('data', (chunk: string) => {
          output[stream] += chunk;
          for (const listener of [...listeners]) listener();
        });
      }
      child.stdin?.end(options.input ?? '');
    });
    const line = (
      stream: 'stdout' | 'stderr',
      pattern: RegExp,
      timeoutMs = 20_000,
    ): Promise<string> =>
      new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const found = output[stream].split('\n').find((candidate) => pattern.test(candidate));
          if (found !== undefined) {
            finish();
            resolve(found);
          } else if (exited) {
            finish();
            reject(
              new Error(
                `kubectl ${args.join(' ')} exited before printing ${pattern}:\n${output[stream]}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(`kubectl printed no ${pattern} within ${timeoutMs} ms:\n${output[stream]}`),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    return {
      result,
      stderrLine: (pattern, timeoutMs) => line('stderr', pattern, timeoutMs),
      stdoutLine: (pattern, timeoutMs) => line('stdout', pattern, timeoutMs),
      stop: () => {
        if (!exited) child?.kill('SIGTERM');
      },
    };
  };
  const run = (args: string[], options: KubectlOptions = {}): Promise<KubectlResult> =>
    start(args, options).result;
  return {
    env,
    directory,
    run,
    start,
    async ok(args, options) {
      const result = await run(args, options);
      if (result.code !== 0) {
        throw new Error(`kubectl ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
      }
      return result.stdout;
    },
    async seed(namespace, object) {
      const template = seedPaths[String(object.kind)];
      if (template === undefined)
        throw new TypeError(`no seed path for kind ${String(object.kind)}`);
      const reply = await call(env, 'POST', template.replace('{ns}', namespace), { body: object });
      if (reply.status !== 201) {
        throw new Error(`seeding ${String(object.kind)}: ${reply.status} ${reply.text}`);
      }
    },
    async read(namespace, type, name) {
      const template = readPaths[type];
      if (template === undefined) throw new TypeError(`no read path for type ${type}`);
      const reply = await call(env, 'GET', `${template.replace('{ns}', namespace)}/${name}`);
      if (reply.status !== 200)
        throw new Error(`reading ${type}/${name}: ${reply.status} ${reply.text}`);
      return reply.body;
    },
    async namespace(prefix = 'k') {
      counter += 1;
      const name = `${prefix}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
      const reply = await call(env, 'POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      });
      if (reply.status !== 201) throw new Error(`namespace ${name}: ${reply.status} ${reply.text}`);
      return name;
    },
    file(name, text) {
      const path = join(directory, name);
      writeFileSync(path, text, { mode: 0o700 });
      return path;
    },
    async stop() {
      rmSync(directory, { recursive: true, force: true });
      await env.stop();
    },
  };
}
