// In-cluster config (client-go rest.InClusterConfig): service env, service-account CA, rotating token file.
import { access, readFile } from 'node:fs/promises';
import {
  type Clock,
  errorMessage,
  LassoError,
  type Logger,
  type MetricsProvider,
} from '@lasso/core';
import { createRestConfig, type RestConfig } from './rest-config.ts';
import { tlsMaterialProblem } from './tls-material.ts';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Options of {@link loadInClusterConfig}; the paths exist for tests. */
export interface InClusterConfigOptions {
  env?: Record<string, string | undefined> | undefined;
  tokenPath?: string | undefined;
  caPath?: string | undefined;
  namespacePath?: string | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /** Passed into the RestConfig (request counts of the transport). */
  metrics?: MetricsProvider | undefined;
  /** The RestConfig's `timeoutMs`: total deadline of short requests (default 30 s). */
  timeoutMs?: number | undefined;
  /** The RestConfig's `progressTimeoutMs`: progress deadline of lists (default 30 s). */
  progressTimeoutMs?: number | undefined;
}

/**
 * The config of a pod: `KUBERNETES_SERVICE_HOST`/`_PORT`, the service-account CA, and the
 * service-account token as a token file re-read at most every 60 s and at once after a 401
 * (bound tokens rotate). The namespace is the pod's (from the namespace file).
 */
export async function loadInClusterConfig(
  options: InClusterConfigOptions = {},
): Promise<RestConfig> {
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new LassoError(
      'LASSO_CONFIG_INVALID',
      'not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set',
    );
  }
  const tokenPath = options.tokenPath ?? `${SERVICE_ACCOUNT_DIR}/token`;
  const caPath = options.caPath ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`;
  const namespacePath = options.namespacePath ?? `${SERVICE_ACCOUNT_DIR}/namespace`;
  try {
    await access(tokenPath);
  } catch (error) {
    throw new LassoError(
      'LASSO_CONFIG_INVALID',
      `in-cluster: cannot read the service-account token ${tokenPath}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  let caPem: string;
  try {
    caPem = await readFile(caPath, 'utf8');
  } catch (error) {
    throw new LassoError(
      'LASSO_CONFIG_INVALID',
      `in-cluster: cannot read the service-account CA ${caPath}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  if (!caPem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new LassoError('LASSO_CONFIG_INVALID', `in-cluster: ${caPath} is not a PEM certificate`);
  }
  const problem = tlsMaterialProblem({ caPem }, { caPem: caPath, certPem: '', keyPem: '' });
  if (problem !== undefined) throw new LassoError('LASSO_CONFIG_INVALID', `in-cluster: ${problem}`);
  let namespace: string | undefined;
  try {
    namespace = (await readFile(namespacePath, 'utf8')).trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return createRestConfig({
    server: `https://${hostPart}:${port}`,
    tls: { caPem },
    auth: { type: 'tokenFile', path: tokenPath },
    ...(namespace !== undefined ? { namespace } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.progressTimeoutMs !== undefined
      ? { progressTimeoutMs: options.progressTimeoutMs }
      : {}),
    source: 'in-cluster',
  });
}
