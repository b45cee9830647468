// loadDefaultConfig: KUBECONFIG -> ~/.kube/config -> in-cluster, as kubectl and client-go's deferred loader.
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage, LassoError } from '@lasso/core';
import { type InClusterConfigOptions, loadInClusterConfig } from './in-cluster.ts';
import { type LoadKubeConfigOptions, loadKubeConfig } from './kubeconfig.ts';
import type { RestConfig } from './rest-config.ts';

/** Options of {@link loadDefaultConfig}. */
export type LoadDefaultConfigOptions = Omit<LoadKubeConfigOptions, 'path'> &
  Omit<InClusterConfigOptions, 'env'>;

/**
 * The config a program finds by default: the `KUBECONFIG` list when set, else `~/.kube/config`
 * when it exists, else the in-cluster config. `source` of the result says which one was used
 * (`kubeconfig:<files>#<context>` or `in-cluster`), and it is logged at info.
 */
export async function loadDefaultConfig(
  options: LoadDefaultConfigOptions = {},
): Promise<RestConfig> {
  const env = options.env ?? process.env;
  let config: RestConfig;
  if (env.KUBECONFIG !== undefined && env.KUBECONFIG !== '') {
    config = await loadKubeConfig({ ...options, env });
  } else {
    const home = join(options.homeDir ?? homedir(), '.kube', 'config');
    let exists = true;
    try {
      await access(home);
    } catch {
      exists = false;
    }
    if (exists) {
      config = await loadKubeConfig({ ...options, path: home });
    } else {
      try {
        config = await loadInClusterConfig({ ...options, env });
      } catch (error) {
        throw new LassoError(
          'LASSO_CONFIG_INVALID',
          `no Kubernetes config found: KUBECONFIG is not set, ${home} does not exist, and the in-cluster config failed: ${errorMessage(error)}`,
          { cause: error },
        );
      }
    }
  }
  options.logger?.info('kubernetes config loaded', { source: config.source });
  return config;
}
