// Version gates and retries for the conformance suites: what a test may expect of the server it runs against
// (the built-in server, real kube-apiserver binaries or a cluster, through @lasso/envtest).
import type { Environment } from '@lasso/envtest';
import { call } from '@lasso-internal/wire';

/**
 * Re-run `check` until it returns true or `timeoutMs` passes. Only real API servers need a second
 * try (their discovery and CRD finalizers settle asynchronously); the built-in server passes first time.
 */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The release a server answers as, read from its `/version` once per environment. */
export interface ServerVersion {
  /**
   * The minor release (1.`minor`). The built-in server's `/version` is the newest released kube-apiserver's
   * (@lasso/apiserver's discovery): gates on released versions pass on it, gates on a release yet to ship
   * do not.
   */
  minor: number;
  gitVersion: string;
}

const versions = new WeakMap<Environment, Promise<ServerVersion>>();

async function readVersion(env: Environment): Promise<ServerVersion> {
  const reply = await call(env, 'GET', '/version');
  const body = reply.body ?? {};
  const gitVersion = String(body.gitVersion ?? '');
  // `minor` may carry a `+` (a build past the release, as managed clusters report).
  const major = Number.parseInt(String(body.major ?? ''), 10);
  const minor = Number.parseInt(String(body.minor ?? ''), 10);
  if (major > 1) return { minor: Number.POSITIVE_INFINITY, gitVersion };
  if (major === 1 && Number.isFinite(minor)) return { minor, gitVersion };
  const fromGit = /^v1\.(\d+)\./.exec(gitVersion);
  if (fromGit !== null) return { minor: Number(fromGit[1]), gitVersion };
  throw new Error(`GET /version answered ${reply.status} without a version: ${reply.text}`);
}

/** The server's version, read from `/version` on the first call for `env` and cached for the others. */
export function serverVersion(env: Environment): Promise<ServerVersion> {
  let version = versions.get(env);
  if (version === undefined) {
    version = readVersion(env);
    versions.set(env, version);
    // A failed read is not cached: the next caller asks again.
    version.catch(() => versions.delete(env));
  }
  return version;
}

/**
 * Whether the server is kube-apiserver 1.`minor` or newer (the built-in server answers as the newest
 * released one). Gate on the release that introduced a behaviour, say which in the
 * test name, and name the change (PR) at the gate.
 */
export async function atLeast(env: Environment, minor: number): Promise<boolean> {
  return (await serverVersion(env)).minor >= minor;
}

/**
 * Skip the running test on a real kube-apiserver older than 1.`minor`: for behaviour that release
 * introduced and that older releases have no answer of their own for (say the version in the test name).
 */
export async function skipBefore(
  env: Environment,
  skip: (note?: string) => void,
  minor: number,
): Promise<void> {
  const version = await serverVersion(env);
  if (version.minor < minor) {
    skip(`kube-apiserver ${version.gitVersion} is older than 1.${minor}`);
  }
}
