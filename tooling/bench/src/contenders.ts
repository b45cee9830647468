// The informers compared by W2, W3 and W5, behind one small interface: @lasso/cache's `createCache` on a
// @lasso/client `Client` (this build, or a `--baseline` build), and @kubernetes/client-node's `makeInformer` (its
// ListWatch) on `CoreV1Api`, in 2.0.x and 1.4.x (client-node.ts).
import { createCache } from '@lasso/cache';
import { Client, type KubeObject, loadKubeConfig, RestTransport } from '@lasso/client';
import {
  type ClientNodeVersion,
  clientNode14,
  clientNode20,
  configMapInformers,
} from './client-node.ts';
import { failurePromise } from './failure-promise.ts';

/** Counting handlers the benchmark gives to an informer. */
export interface BenchHandlers {
  onAdd(): void;
  onUpdate(): void;
}

/** A started informer. */
export interface BenchInformer {
  /** Resolves when the informer reports its initial list in the store; rejects on the informer's first error. */
  readonly synced: Promise<void>;
  /** Rejects on the informer's first error (list, watch or decode) after it started. */
  readonly failed: Promise<never>;
  /** Objects in the store. */
  size(): number;
  /** The stored object's resourceVersion, by name. */
  resourceVersionOf(name: string): string | undefined;
  /** Stop the informer and release its connections. */
  stop(): Promise<void>;
}

/** One side of the comparison: what it is called and how to start it on a kubeconfig and namespace. */
export interface Contender {
  readonly name: string;
  /** Load the kubeconfig (not timed), then return a function that starts the informer (timed). */
  prepare(
    kubeconfigPath: string,
    namespace: string,
    handlers: BenchHandlers,
  ): Promise<() => BenchInformer>;
}

/** The @lasso/client and @lasso/cache exports a lasso contender uses (this build's, or a `--baseline` build's). */
export interface LassoCacheModules {
  readonly Client: typeof Client;
  readonly loadKubeConfig: typeof loadKubeConfig;
  readonly RestTransport: typeof RestTransport;
  readonly createCache: typeof createCache;
}

/** `createCache` from @lasso/cache (resync off, its defaults otherwise: 500-item list pages). */
export function lassoContenderOf(name: string, lasso: LassoCacheModules): Contender {
  const { Client, createCache, loadKubeConfig, RestTransport } = lasso;
  return {
    name,
    async prepare(kubeconfigPath, namespace, handlers) {
      const rest = await loadKubeConfig({ path: kubeconfigPath });
      return () => {
        const transport = new RestTransport(rest);
        const client = new Client({
          gvr: { group: '', version: 'v1', resource: 'configmaps' },
          kind: 'ConfigMap',
          namespaced: true,
          rest: transport,
        });
        const informer = createCache<KubeObject>(client, { namespace, resyncMs: 0 });
        const failure = failurePromise();
        informer.setWatchErrorHandler((error) => failure.fail(error));
        informer.addEventHandler({ onAdd: handlers.onAdd, onUpdate: handlers.onUpdate });
        const controller = new AbortController();
        informer.start(controller.signal).catch((error: unknown) => failure.fail(error));
        const store = informer.getStore();
        const synced = Promise.race([informer.whenSynced(), failure.promise]);
        synced.catch((error: unknown) => failure.fail(error));
        return {
          synced,
          failed: failure.promise,
          size: () => store.size(),
          resourceVersionOf: (name) =>
            store.getByKey(`${namespace}/${name}`)?.metadata?.resourceVersion,
          stop: async () => {
            controller.abort();
            await informer.close();
            await transport.close();
          },
        };
      };
    },
  };
}

/** This build's @lasso/cache. */
export const lassoContender: Contender = lassoContenderOf('@lasso/cache', {
  Client,
  loadKubeConfig,
  RestTransport,
  createCache,
});

/** `makeInformer` from a version of @kubernetes/client-node with `listNamespacedConfigMap` as its list function. */
function clientNodeContenderOf({ name, module }: ClientNodeVersion): Contender {
  return {
    name,
    async prepare(kubeconfigPath, namespace, handlers) {
      const informerOf = configMapInformers(module, kubeconfigPath);
      return () => {
        const informer = informerOf(namespace);
        const failure = failurePromise();
        informer.on('error', (error) => failure.fail(error));
        informer.on('add', handlers.onAdd);
        informer.on('update', handlers.onUpdate);
        // start() rejects when the first list fails; the error handlers only hear of later failures.
        const synced = Promise.race([informer.start(), failure.promise]);
        synced.catch((error: unknown) => failure.fail(error));
        return {
          synced,
          failed: failure.promise,
          size: () => informer.list(namespace).length,
          resourceVersionOf: (name) => informer.get(name, namespace)?.metadata?.resourceVersion,
          stop: () => informer.stop(),
        };
      };
    },
  };
}

/** @kubernetes/client-node 2.0.x, the version users install today. */
export const clientNodeContender: Contender = clientNodeContenderOf(clientNode20);

/** @kubernetes/client-node 1.4.x, the last version whose own dependencies load on Node 20. */
export const clientNode14Contender: Contender = clientNodeContenderOf(clientNode14);
