// LASSO_TEST_KUBECONFIG mode: read the current context of an existing cluster's kubeconfig into
// Credentials (controller-runtime envtest's UseExistingCluster, without client-go's loader).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { errorMessage, LassoError } from '@lasso/core';
import { parse as parseYaml } from 'yaml';
import type { Credentials } from './environment.ts';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The current context's cluster and user of `kubeconfigPath`, as {@link Credentials}. */
export interface ExistingCluster {
  credentials: Credentials;
  /** The kubeconfig file's text, unchanged. */
  kubeconfigYaml: string;
  /** Nothing to release for an existing cluster; present so every mode stops the same way. */
  stop(): Promise<void>;
}

/**
 * Read the kubeconfig named by `LASSO_TEST_KUBECONFIG`: the current context's `server`,
 * `certificate-authority-data` or `certificate-authority` (a file, relative to the kubeconfig),
 * `client-certificate(-data)` + `client-key(-data)` and/or `token` / `tokenFile`.
 * Exec and auth-provider users are not supported (use a token or a client certificate).
 *
 * Throws a `LASSO_CONFIG_INVALID` {@link LassoError} naming the file and the missing or bad field;
 * secrets never appear in messages.
 */
export async function connectExistingCluster(kubeconfigPath: string): Promise<ExistingCluster> {
  if (typeof kubeconfigPath !== 'string' || kubeconfigPath === '') {
    throw new TypeError('kubeconfigPath must be a non-empty string');
  }
  const fail = (message: string, cause?: unknown): LassoError =>
    new LassoError(
      'LASSO_CONFIG_INVALID',
      `kubeconfig ${kubeconfigPath}: ${message}`,
      cause === undefined ? undefined : { cause },
    );

  let text: string;
  try {
    text = await readFile(kubeconfigPath, 'utf8');
  } catch (error) {
    throw fail(`cannot read the file: ${errorMessage(error)}`, error);
  }
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch (error) {
    throw fail(`invalid YAML: ${errorMessage(error)}`, error);
  }
  if (!isRecord(config)) throw fail('not a kubeconfig (expected a YAML mapping)');

  const contextName = config['current-context'];
  if (typeof contextName !== 'string' || contextName === '')
    throw fail('current-context is missing');
  const named = (list: string, name: string): Record<string, unknown> => {
    const entries = config[list];
    const entry = Array.isArray(entries)
      ? (entries as unknown[]).find((item) => isRecord(item) && item.name === name)
      : undefined;
    const body = isRecord(entry) ? entry[list.slice(0, -1)] : undefined;
    if (!isRecord(body)) throw fail(`${list}: no entry named "${name}"`);
    return body;
  };
  const context = named('contexts', contextName);
  const clusterName = context.cluster;
  const userName = context.user;
  if (typeof clusterName !== 'string' || clusterName === '') {
    throw fail(`contexts[name=${contextName}].context.cluster is missing`);
  }
  if (typeof userName !== 'string' || userName === '') {
    throw fail(`contexts[name=${contextName}].context.user is missing`);
  }
  const cluster = named('clusters', clusterName);
  const user = named('users', userName);
  const base = dirname(resolve(kubeconfigPath));

  const pem = async (
    record: Record<string, unknown>,
    field: string,
    where: string,
  ): Promise<string | undefined> => {
    const data = record[`${field}-data`];
    if (typeof data === 'string' && data !== '') {
      const decoded = Buffer.from(data, 'base64').toString('utf8');
      if (!decoded.includes('-----BEGIN'))
        throw fail(`${where}.${field}-data is not base64 of a PEM block`);
      return decoded;
    }
    const file = record[field];
    if (typeof file !== 'string' || file === '') return undefined;
    const path = isAbsolute(file) ? file : resolve(base, file);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw fail(`${where}.${field}: cannot read ${path}: ${errorMessage(error)}`, error);
    }
  };

  const clusterWhere = `clusters[name=${clusterName}].cluster`;
  const userWhere = `users[name=${userName}].user`;
  const server = cluster.server;
  if (typeof server !== 'string' || server === '') throw fail(`${clusterWhere}.server is missing`);
  try {
    new URL(server);
  } catch {
    throw fail(`${clusterWhere}.server is not a URL`);
  }
  const credentials: Credentials = { server: server.replace(/\/+$/, '') };
  const caPem = await pem(cluster, 'certificate-authority', clusterWhere);
  if (caPem !== undefined) credentials.caPem = caPem;

  if (user.exec !== undefined || user['auth-provider'] !== undefined) {
    throw fail(
      `${userWhere}: exec and auth-provider users are not supported; use a token or a client certificate`,
    );
  }
  const clientCertPem = await pem(user, 'client-certificate', userWhere);
  const clientKeyPem = await pem(user, 'client-key', userWhere);
  if ((clientCertPem === undefined) !== (clientKeyPem === undefined)) {
    throw fail(
      `${userWhere}.${clientCertPem === undefined ? 'client-certificate(-data)' : 'client-key(-data)'} is missing (a client certificate needs both)`,
    );
  }
  if (clientCertPem !== undefined && clientKeyPem !== undefined) {
    credentials.clientCertPem = clientCertPem;
    credentials.clientKeyPem = clientKeyPem;
  }
  let token = typeof user.token === 'string' && user.token !== '' ? user.token : undefined;
  if (token === undefined && typeof user.tokenFile === 'string' && user.tokenFile !== '') {
    const path = isAbsolute(user.tokenFile) ? user.tokenFile : resolve(base, user.tokenFile);
    try {
      token = (await readFile(path, 'utf8')).trim();
    } catch (error) {
      throw fail(`${userWhere}.tokenFile: cannot read ${path}: ${errorMessage(error)}`, error);
    }
  }
  if (token !== undefined) credentials.token = token;
  if (credentials.clientCertPem === undefined && credentials.token === undefined) {
    throw fail(
      `${userWhere} has no credentials: set client-certificate-data + client-key-data or token`,
    );
  }
  return { credentials, kubeconfigYaml: text, stop: async () => {} };
}
