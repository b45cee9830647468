// The two versions of @kubernetes/client-node the bench compares: 2.0.x, the version users install today
// (aliased `@kubernetes/client-node-2`, its undici overridden to 7.x in pnpm-workspace.yaml since undici 8 does
// not load on Node 20), and 1.4.x; and the ConfigMap informer of a namespace that W2-W5 build on either.
import * as clientNode14Module from '@kubernetes/client-node';
import * as clientNode2Module from '@kubernetes/client-node-2';

/** The part of @kubernetes/client-node's module the bench uses (the same in 1.4 and 2.0). */
export interface ClientNodeModule {
  readonly KubeConfig: typeof clientNode2Module.KubeConfig;
  readonly CoreV1Api: typeof clientNode2Module.CoreV1Api;
  readonly makeInformer: typeof clientNode2Module.makeInformer;
  readonly ListWatch: typeof clientNode2Module.ListWatch;
}

/** A version of client-node: its name in the reports and its module. */
export interface ClientNodeVersion {
  readonly name: string;
  readonly module: ClientNodeModule;
}

/** @kubernetes/client-node 2.0.x, the version users install today. */
export const clientNode20: ClientNodeVersion = {
  name: 'client-node 2.0',
  module: clientNode2Module as unknown as ClientNodeModule,
};

/** @kubernetes/client-node 1.4.x, the last version whose own dependencies load on Node 20. */
export const clientNode14: ClientNodeVersion = {
  name: 'client-node 1.4',
  module: clientNode14Module as unknown as ClientNodeModule,
};

/** A client-node ConfigMap informer (not started): its events, and its cache. */
export type ConfigMapInformer = clientNode2Module.Informer<clientNode2Module.V1ConfigMap> &
  clientNode2Module.ObjectCache<clientNode2Module.V1ConfigMap>;

/**
 * Load `kubeconfigPath` (its current context) and a `CoreV1Api` on it, then return a function that makes the
 * informer of a namespace's ConfigMaps: `makeInformer` with `listNamespacedConfigMap` (one unpaginated list)
 * as its list function.
 */
export function configMapInformers(
  module: ClientNodeModule,
  kubeconfigPath: string,
): (namespace: string) => ConfigMapInformer {
  const { CoreV1Api, KubeConfig, makeInformer } = module;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return (namespace) =>
    makeInformer(kubeConfig, `/api/v1/namespaces/${namespace}/configmaps`, () =>
      api.listNamespacedConfigMap({ namespace }),
    );
}
