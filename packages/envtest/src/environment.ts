// startEnvironment: an existing cluster, real etcd + kube-apiserver binaries, or the built-in server,
// with CRDs installed and a kubeconfig written (controller-runtime's envtest.Environment, ported).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createApiServer,
  type LocalApiServer,
  type LocalApiServerControllers,
} from '@lasso/apiserver';
import { type Clock, errorMessage, LassoError, type Logger, sleep, systemClock } from '@lasso/core';
import { stringify as stringifyYaml } from 'yaml';
import { loadCrdFiles } from './crd-loader.ts';
import { connectExistingCluster } from './existing-cluster.ts';
import { sendRequest } from './http-client.ts';
import { startKubebuilderControlPlane } from './kubebuilder.ts';
import { atProcessExit, makePrivateTempDir, sweepStaleTempDirs } from './process-cleanup.ts';
import { installWebhooks, type WebhookInstallOptions } from './webhook-install.ts';

/** Options of {@link startEnvironment}. */
export interface EnvironmentOptions {
  /** CRDs to install before the environment is returned: file/dir paths of YAML (multi-document) or objects. */
  crds?: Array<string | Record<string, unknown>> | undefined;
  /** Create this namespace (or, with `true`, a generated unique one) and return it as `namespace`. */
  namespace?: string | boolean | undefined;
  /** Built-in server only: serve plain HTTP instead of HTTPS (default HTTPS). */
  insecureHttp?: boolean | undefined;
  /** Built-in server only: interval of periodic watch bookmarks (default 60 000 ms, as kube-apiserver). */
  bookmarkIntervalMs?: number | undefined;
  /**
   * Built-in server only: run kube-controller-manager's garbage collector and namespace controller
   * against it (both off by default, as in controller-runtime's envtest). `KUBEBUILDER_ASSETS` starts no
   * controller-manager, so there neither runs whatever this says; an existing cluster runs both.
   */
  controllers?: LocalApiServerControllers | undefined;
  /**
   * Built-in server only: serve `shardSelector` on list and watch as kube-apiserver 1.36 does with its
   * ShardedListAndWatch gate on (KEP-5866). Default true; false ignores the parameter (everything, no
   * `metadata.shardInfo`), as a server before 1.36 does. `KUBEBUILDER_ASSETS` and an existing cluster
   * decide for themselves (kube-apiserver 1.20.2 ignores it).
   */
  shardedListAndWatch?: boolean | undefined;
  /** How long to wait for CRDs to be established and the API server to be ready. Default 60 000 ms. */
  readyTimeoutMs?: number | undefined;
  /** Timestamps and waits. Default `systemClock`. */
  clock?: Clock | undefined;
  /** Receives the built-in server's internal errors. */
  logger?: Logger | undefined;
  /** Aborts the start (and its waits): everything started so far is stopped and the call rejects. */
  signal?: AbortSignal | undefined;
}

/** How to reach the environment's API server as an admin (system:masters). */
export interface Credentials {
  /** `https://127.0.0.1:PORT`. */
  server: string;
  /** CA that signed the serving cert. */
  caPem?: string;
  /** Admin client cert (O=system:masters). */
  clientCertPem?: string;
  clientKeyPem?: string;
  /** A bearer token of a system:masters user (built-in and KUBEBUILDER_ASSETS modes). */
  token?: string;
}

/** A running test environment. */
export interface Environment {
  /** Which API server backs it. */
  mode: 'builtin' | 'kubebuilder' | 'existing';
  /**
   * A kubeconfig file (admin user) written with mode 0600 to a private temp dir, deleted by `stop()`,
   * at process exit (also after an uncaught exception) and on SIGINT/SIGTERM/SIGHUP; one left by a
   * process killed with SIGKILL is deleted by the next `startEnvironment()`.
   */
  kubeconfigPath: string;
  kubeconfigYaml: string;
  credentials: Credentials;
  /** The namespace from options (default `'default'`). */
  namespace: string;
  /** The built-in server (fault API etc.); undefined for real API servers. Tests needing faults skip when undefined. */
  server: LocalApiServer | undefined;
  /**
   * Install CRDs after the start (paths or objects, as the `crds` option): each is created, or updated when it
   * exists, then awaited until Established and served by discovery, as controller-runtime's
   * `envtest.InstallCRDs`. A kind is then ready for clients, informers and RESTMappers. Bounded by `timeoutMs`
   * (default: the environment's `readyTimeoutMs`); rejects with the signal's reason when `signal` aborts.
   *
   * @example
   * ```ts
   * const env = await startEnvironment();
   * await env.installCrds(['./config/crds/widgets.yaml'], { timeoutMs: 30_000 });
   * ```
   */
  installCrds(
    crds: Array<string | Record<string, unknown>>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<void>;
  /**
   * Install Mutating- and ValidatingWebhookConfigurations (objects, or YAML/JSON files) and wait until the
   * API server calls them, as controller-runtime's `WebhookInstallOptions`: with `url`, every webhook's
   * clientConfig becomes that base URL plus its `service.path` (or its url's path); with `caPem`, its
   * caBundle. Each configuration is created, or replaced when it exists. kube-apiserver picks
   * configurations up through an informer (about a second): the wait stores a probe configuration of each
   * kind whose webhook fails dry-run creates of one labelled ConfigMap in `namespace`, retries such a create
   * every 50 ms until it fails naming the probe, then deletes the probes. Bounded by `timeoutMs` (default:
   * the environment's `readyTimeoutMs`); rejects with `LASSO_ENVTEST_FAILED` on a refused configuration
   * or the deadline. An object may be any typed configuration (kubernetes-types' interfaces included):
   * it is copied, never changed.
   *
   * @example
   * ```ts
   * const env = await startEnvironment({ namespace: true });
   * await env.installWebhooks(['./config/webhook/manifests.yaml'], {
   *   url: 'https://127.0.0.1:9443',
   *   caPem: '-----BEGIN CERTIFICATE-----\n...',
   * });
   * ```
   */
  installWebhooks(
    configurations: ReadonlyArray<string | object>,
    options?: WebhookInstallOptions,
  ): Promise<void>;
  /** Release everything (ports, timers, child processes, temp files). Idempotent. */
  stop(): Promise<void>;
}

function fail(message: string, cause?: unknown): LassoError {
  return new LassoError(
    'LASSO_ENVTEST_FAILED',
    message,
    cause === undefined ? undefined : { cause },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A kubeconfig for `credentials` (client certificate user when there is one, else the token). */
export function kubeconfigFor(credentials: Credentials, namespace: string): string {
  const cluster: Record<string, unknown> = { server: credentials.server };
  if (credentials.caPem !== undefined) {
    cluster['certificate-authority-data'] = Buffer.from(credentials.caPem).toString('base64');
  }
  const user: Record<string, unknown> = {};
  if (credentials.clientCertPem !== undefined && credentials.clientKeyPem !== undefined) {
    user['client-certificate-data'] = Buffer.from(credentials.clientCertPem).toString('base64');
    user['client-key-data'] = Buffer.from(credentials.clientKeyPem).toString('base64');
  } else if (credentials.token !== undefined) {
    user.token = credentials.token;
  }
  return stringifyYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'envtest', cluster }],
    users: [{ name: 'envtest-admin', user }],
    contexts: [
      { name: 'envtest', context: { cluster: 'envtest', user: 'envtest-admin', namespace } },
    ],
    'current-context': 'envtest',
    preferences: {},
  });
}

/**
 * Start a test environment: `LASSO_TEST_KUBECONFIG` > `KUBEBUILDER_ASSETS` > the built-in server.
 * CRDs are installed over HTTP in every mode and awaited until Established and served.
 *
 * @example
 * ```ts
 * const env = await startEnvironment({ crds: ['./config/crds'], namespace: true });
 * try {
 *   // point a client at env.kubeconfigPath or env.credentials
 * } finally {
 *   await env.stop();
 * }
 * ```
 *
 * **Gotchas**: no controller-manager runs with `KUBEBUILDER_ASSETS`, nor with the built-in server unless
 * `controllers` asks for its garbage collector and namespace controller: without them owner references
 * are not followed and namespaces never finish terminating. No `default` ServiceAccount exists in any
 * mode but a real cluster (create it before creating Pods).
 */
export async function startEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
  if (options.crds !== undefined && !Array.isArray(options.crds)) {
    throw new TypeError('crds must be an array of paths or objects');
  }
  if (
    options.namespace !== undefined &&
    typeof options.namespace !== 'string' &&
    typeof options.namespace !== 'boolean'
  ) {
    throw new TypeError('namespace must be a string or a boolean');
  }
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  if (!(readyTimeoutMs > 0)) throw new RangeError('readyTimeoutMs must be > 0');
  const clock = options.clock ?? systemClock;
  const { signal } = options;
  signal?.throwIfAborted();
  const crds = await loadCrds(options.crds ?? []);
  // Kubeconfigs and control-plane keys of earlier runs that died of SIGKILL.
  sweepStaleTempDirs();

  const existingPath = process.env.LASSO_TEST_KUBECONFIG;
  const assets = process.env.KUBEBUILDER_ASSETS;
  let mode: Environment['mode'];
  let credentials: Credentials;
  let server: LocalApiServer | undefined;
  let stopBackend: () => Promise<void>;
  let existingYaml: string | undefined;
  if (existingPath !== undefined && existingPath !== '') {
    const existing = await connectExistingCluster(existingPath);
    mode = 'existing';
    credentials = existing.credentials;
    existingYaml = existing.kubeconfigYaml;
    stopBackend = () => existing.stop();
  } else if (assets !== undefined && assets !== '') {
    const plane = await startKubebuilderControlPlane(assets, {
      readyTimeoutMs,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(signal === undefined ? {} : { signal }),
    });
    mode = 'kubebuilder';
    credentials = plane.credentials;
    stopBackend = () => plane.stop();
  } else {
    const local = createApiServer({
      ...(options.insecureHttp === undefined ? {} : { insecureHttp: options.insecureHttp }),
      ...(options.bookmarkIntervalMs === undefined
        ? {}
        : { bookmarkIntervalMs: options.bookmarkIntervalMs }),
      ...(options.controllers === undefined ? {} : { controllers: options.controllers }),
      ...(options.shardedListAndWatch === undefined
        ? {}
        : { shardedListAndWatch: options.shardedListAndWatch }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    // Serves until the environment stops: stopBackend closes it.
    await local.start(new AbortController().signal);
    mode = 'builtin';
    credentials = { ...local.credentials };
    server = local;
    stopBackend = () => local.close();
  }

  let directory: string | undefined;
  let forgetDirectory = (): void => {};
  let createdNamespace: string | undefined;
  try {
    signal?.throwIfAborted();
    await installCrds(credentials, crds, clock, readyTimeoutMs, signal);
    let namespace = 'default';
    if (options.namespace === true) {
      namespace = `lasso-test-${randomBytes(4).toString('hex')}`;
    } else if (typeof options.namespace === 'string' && options.namespace !== '') {
      namespace = options.namespace;
    }
    if (namespace !== 'default') {
      const response = await sendRequest(credentials, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace },
      });
      if (response.status === 201) createdNamespace = namespace;
      else if (response.status !== 409) {
        throw fail(`creating namespace ${namespace} failed: ${response.status} ${response.text}`);
      }
    }
    signal?.throwIfAborted();
    // The kubeconfig holds the admin client key: a 0700 dir named after this pid (so a later start can
    // sweep it once this process is gone) and a 0600 file, removed however the process ends.
    const privateDirectory = makePrivateTempDir('kubeconfig');
    directory = privateDirectory;
    forgetDirectory = atProcessExit(() =>
      rmSync(privateDirectory, { recursive: true, force: true }),
    );
    // An existing cluster's kubeconfig is kept as written (it may use exec plugins or token files).
    const kubeconfigYaml = existingYaml ?? kubeconfigFor(credentials, namespace);
    const kubeconfigPath = join(directory, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigYaml, { mode: 0o600, flag: 'wx' });
    let stopped: Promise<void> | undefined;
    const tempDirectory = directory;
    return {
      mode,
      kubeconfigPath,
      kubeconfigYaml,
      credentials,
      namespace,
      server,
      installCrds: async (entries, installOptions = {}) => {
        if (!Array.isArray(entries))
          throw new TypeError('crds must be an array of paths or objects');
        const timeoutMs = installOptions.timeoutMs ?? readyTimeoutMs;
        if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be > 0');
        installOptions.signal?.throwIfAborted();
        await installCrds(
          credentials,
          await loadCrds(entries),
          clock,
          timeoutMs,
          installOptions.signal,
        );
      },
      installWebhooks: async (entries, installOptions = {}) => {
        if (!Array.isArray(entries)) {
          throw new TypeError('configurations must be an array of paths or objects');
        }
        const timeoutMs = installOptions.timeoutMs ?? readyTimeoutMs;
        if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be > 0');
        if (installOptions.url !== undefined && !/^https:\/\//.test(installOptions.url)) {
          throw new TypeError('url must be an https URL');
        }
        installOptions.signal?.throwIfAborted();
        await installWebhooks(credentials, namespace, clock, entries, {
          ...installOptions,
          timeoutMs,
        });
      },
      stop: () => {
        stopped ??= (async () => {
          const errors: unknown[] = [];
          if (mode === 'existing' && createdNamespace !== undefined) {
            await sendRequest(
              credentials,
              'DELETE',
              `/api/v1/namespaces/${createdNamespace}`,
            ).catch((error: unknown) => errors.push(error));
          }
          await rm(tempDirectory, { recursive: true, force: true }).then(
            () => forgetDirectory(),
            (error: unknown) => errors.push(error),
          );
          await stopBackend().catch((error: unknown) => errors.push(error));
          if (errors.length > 0) {
            throw fail(
              `stopping the environment failed: ${errors.map(errorMessage).join('; ')}`,
              errors[0],
            );
          }
        })();
        return stopped;
      },
    };
  } catch (error) {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    forgetDirectory();
    if (mode === 'existing' && createdNamespace !== undefined) {
      await sendRequest(credentials, 'DELETE', `/api/v1/namespaces/${createdNamespace}`).catch(
        () => {},
      );
    }
    await stopBackend().catch(() => {});
    throw error;
  }
}

async function loadCrds(
  entries: Array<string | Record<string, unknown>>,
): Promise<Array<Record<string, unknown>>> {
  const paths = entries.filter((entry): entry is string => typeof entry === 'string');
  const objects = entries.filter(isRecord);
  if (paths.length + objects.length !== entries.length) {
    throw new TypeError('crds entries must be paths or objects');
  }
  const loaded = paths.length === 0 ? [] : await loadCrdFiles(paths);
  return [...loaded, ...objects];
}

async function installCrds(
  credentials: Credentials,
  crds: Array<Record<string, unknown>>,
  clock: Clock,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (const crd of crds) {
    const name = isRecord(crd.metadata) ? String(crd.metadata.name ?? '') : '';
    const created = await sendRequest(credentials, 'POST', base, crd);
    if (created.status === 409) {
      const existing = await sendRequest(credentials, 'GET', `${base}/${name}`);
      const live = existing.json() as { metadata?: { resourceVersion?: string } };
      const update = structuredClone(crd);
      const metadata = isRecord(update.metadata) ? update.metadata : {};
      metadata.resourceVersion = live.metadata?.resourceVersion;
      update.metadata = metadata;
      const updated = await sendRequest(credentials, 'PUT', `${base}/${name}`, update);
      if (updated.status !== 200) {
        throw fail(`updating CRD ${name} failed: ${updated.status} ${updated.text}`);
      }
    } else if (created.status !== 201) {
      throw fail(`installing CRD ${name} failed: ${created.status} ${created.text}`);
    }
  }
  const deadline = clock.monotonic() + timeoutMs;
  for (const crd of crds) {
    const name = isRecord(crd.metadata) ? String(crd.metadata.name ?? '') : '';
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const plural = isRecord(spec.names) ? String(spec.names.plural ?? '') : '';
    const versions = Array.isArray(spec.versions)
      ? spec.versions.filter(isRecord).filter((version) => version.served === true)
      : [];
    for (;;) {
      signal?.throwIfAborted();
      if (await crdServed(credentials, name, String(spec.group ?? ''), plural, versions)) break;
      if (clock.monotonic() > deadline) {
        throw fail(`CRD ${name} was not established within ${timeoutMs} ms`);
      }
      await sleep(clock, 50, signal === undefined ? {} : { signal });
    }
  }
}

async function crdServed(
  credentials: Credentials,
  name: string,
  group: string,
  plural: string,
  versions: Array<Record<string, unknown>>,
): Promise<boolean> {
  const response = await sendRequest(
    credentials,
    'GET',
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
  );
  if (response.status !== 200) return false;
  const crd = response.json() as {
    status?: { conditions?: Array<{ type: string; status: string }> };
  };
  const established = crd.status?.conditions?.some(
    (condition) => condition.type === 'Established' && condition.status === 'True',
  );
  if (established !== true) return false;
  for (const version of versions) {
    const discovery = await sendRequest(
      credentials,
      'GET',
      `/apis/${group}/${String(version.name)}`,
    );
    if (discovery.status !== 200) return false;
    const list = discovery.json() as { resources?: Array<{ name: string }> };
    if (!list.resources?.some((resource) => resource.name === plural)) return false;
  }
  return true;
}
