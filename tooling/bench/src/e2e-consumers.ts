// W4's consumers of a namespace of ConfigMaps, each calling a handler once per key: a @lasso/factory
// SharedControllerFactory, the natural hand-rolled operator on client-node (informer + work queue + workers) in
// 2.0.x (what users install today) and optionally 1.4.x, the limit (one raw watch: undici + JSON.parse, no cache,
// no queue), and optionally a second @lasso/factory build (`baseline`, for A/B runs). A `Recorder` notes, per
// object, when a handler first saw it and how long after the timestamp the writer put into its data.
import type { V1ConfigMap } from '@kubernetes/client-node-2';
import { loadKubeConfig } from '@lasso/client';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { request } from 'undici';
import { importBaseline } from './baseline.ts';
import {
  type ClientNodeVersion,
  clientNode14,
  clientNode20,
  configMapInformers,
} from './client-node.ts';
import { failurePromise } from './failure-promise.ts';
import { writtenAtKey } from './fixtures.ts';
import { kubeHttp } from './kube-http.ts';
import { monotonicMs } from './measure.ts';
import { ReferenceQueue } from './reference-queue.ts';

/** What a consumer's handlers saw in one run, by object index (the number in `cm-000123`). */
export class Recorder {
  /** When a handler first saw each object (monotonicMs); NaN until then. */
  readonly seenMs: Float64Array;
  /** For each object: first sighting minus the timestamp the writer put into its data just before the create. */
  readonly latencyMs: Float64Array;
  /** Resolves once every object was seen. */
  readonly all: Promise<void>;
  /** Resolves once the first object was seen. */
  readonly first: Promise<void>;
  #count = 0;
  #resolve: () => void = () => undefined;
  #resolveFirst: () => void = () => undefined;

  constructor(objects: number) {
    this.seenMs = new Float64Array(objects).fill(Number.NaN);
    this.latencyMs = new Float64Array(objects).fill(Number.NaN);
    this.all = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    this.first = new Promise((resolve) => {
      this.#resolveFirst = resolve;
    });
  }

  get count(): number {
    return this.#count;
  }

  /** A handler got `key` with an object whose data carries `writtenAt` (only the first sighting counts). */
  see(key: string, writtenAt: string | undefined): void {
    if (writtenAt === undefined) return;
    const index = Number(key.slice(key.lastIndexOf('-') + 1));
    if (!Number.isNaN(this.seenMs[index] ?? 0)) return; // seen before, or not one of ours
    const now = monotonicMs();
    this.seenMs[index] = now;
    this.latencyMs[index] = now - Number(writtenAt) / 1e6;
    if (this.#count === 0) this.#resolveFirst();
    if (++this.#count === this.seenMs.length) this.#resolve();
  }
}

/** A consumer watching a namespace, started before the first create. */
export interface RunningConsumer {
  /** Rejects on the consumer's first error. */
  readonly failed: Promise<never>;
  stop(): Promise<void>;
}

export interface Consumer {
  readonly name: string;
  /** Start on the (empty) namespace with `workers` handler calls at once; resolves once synced. */
  start(
    kubeconfigPath: string,
    namespace: string,
    workers: number,
    recorder: Recorder,
  ): Promise<RunningConsumer>;
}

/** The @lasso/client and @lasso/factory functions a factory consumer uses (this build's, or a baseline's). */
interface LassoModules {
  readonly loadKubeConfig: typeof loadKubeConfig;
  readonly createSharedControllerFactoryFromConfig: typeof createSharedControllerFactoryFromConfig;
}

/**
 * @lasso/factory: `createSharedControllerFactoryFromConfig` watching the namespace (resync off), a handler
 * registered on the ConfigMap controller, `start(signal, workers)`.
 */
function factoryConsumerOf(name: string, modules: () => Promise<LassoModules>): Consumer {
  return {
    name,
    async start(kubeconfigPath, namespace, workers, recorder) {
      const lasso = await modules();
      const rest = await lasso.loadKubeConfig({ path: kubeconfigPath });
      const factory = lasso.createSharedControllerFactoryFromConfig(rest, {
        cache: { defaultNamespace: namespace, defaultResyncMs: 0 },
      });
      const configMaps = await factory.forKind({ group: '', version: 'v1', kind: 'ConfigMap' });
      const stop = new AbortController();
      configMaps.registerHandler(stop.signal, 'bench', (key, configMap) => {
        if (configMap !== undefined) recorder.see(key, configMap.data?.[writtenAtKey]);
        return undefined;
      });
      await factory.start(stop.signal, workers);
      return {
        // The factory retries and logs handler and watch errors; a stuck run ends by the round's timeout.
        failed: failurePromise().promise,
        stop: async () => {
          stop.abort();
          await configMaps.stopped();
          // Closes the transport it created from the config: the only close it needs.
          await factory.close();
        },
      };
    },
  };
}

/** This build's @lasso/factory. */
export const lassoConsumer: Consumer = factoryConsumerOf('@lasso/factory', async () => ({
  loadKubeConfig,
  createSharedControllerFactoryFromConfig,
}));

/**
 * The @lasso/factory build under `dir` (`--baseline DIR`): DIR holds `node_modules/@lasso/<package>` for factory,
 * controller, cache, client, workqueue and core (each a package.json and its dist, copied before a change, or a
 * link to the workspace package), so that its factory resolves its own controller.
 */
export function baselineConsumer(dir: string): Consumer {
  return factoryConsumerOf('baseline', async () => {
    const [client, factory] = await Promise.all([
      importBaseline(dir, 'client'),
      importBaseline(dir, 'factory'),
    ]);
    return {
      loadKubeConfig: client.loadKubeConfig as typeof loadKubeConfig,
      createSharedControllerFactoryFromConfig:
        factory.createSharedControllerFactoryFromConfig as typeof createSharedControllerFactoryFromConfig,
    };
  });
}

/**
 * The natural hand-rolled operator on client-node: `makeInformer` (its ListWatch) whose add/update/delete
 * callbacks put `namespace/name` into a Map/array work queue with client-go's dedup semantics
 * (`ReferenceQueue`, W1's limit), and `workers` async loops that take a key, read the object from the
 * informer's cache and await the handler.
 */
function clientNodeConsumerOf({ name, module }: ClientNodeVersion): Consumer {
  return {
    name,
    async start(kubeconfigPath, namespace, workers, recorder) {
      const informer = configMapInformers(module, kubeconfigPath)(namespace);
      const failure = failurePromise();
      let stopping = false;
      informer.on('error', (error) => {
        if (!stopping) failure.fail(error);
      });
      const queue = new ReferenceQueue<string>();
      const enqueue = (configMap: V1ConfigMap): void =>
        queue.add(`${configMap.metadata?.namespace}/${configMap.metadata?.name}`);
      informer.on('add', enqueue);
      informer.on('update', enqueue);
      informer.on('delete', enqueue);
      const handler = async (key: string, configMap: V1ConfigMap | undefined): Promise<void> => {
        if (configMap !== undefined) recorder.see(key, configMap.data?.[writtenAtKey]);
      };
      await Promise.race([informer.start(), failure.promise]);
      const loops = Array.from({ length: workers }, async () => {
        for (;;) {
          const next = await queue.get();
          if (next.shutdown) return;
          const key = next.item;
          const slash = key.indexOf('/');
          try {
            await handler(key, informer.get(key.slice(slash + 1), key.slice(0, slash)));
          } catch (error) {
            failure.fail(error);
          } finally {
            queue.done(key);
          }
        }
      });
      return {
        failed: failure.promise,
        stop: async () => {
          stopping = true;
          queue.shutDown();
          await informer.stop();
          await Promise.all(loops);
        },
      };
    },
  };
}

/** @kubernetes/client-node 2.0.x, the version users install today (its undici overridden to 7.x for Node 20). */
export const clientNodeConsumer: Consumer = clientNodeConsumerOf(clientNode20);

/** @kubernetes/client-node 1.4.x (`--legacy 1`). */
export const clientNode14Consumer: Consumer = clientNodeConsumerOf(clientNode14);

/** The limit: a list, then one watch read through undici, each line JSON.parsed and handled inline. */
export const limitConsumer: Consumer = {
  name: 'limit',
  async start(kubeconfigPath, namespace, _workers, recorder) {
    const { agent, headers, server } = kubeHttp(kubeconfigPath);
    const base = `${server}/api/v1/namespaces/${namespace}/configmaps`;
    const listResponse = await request(base, { dispatcher: agent, headers });
    const list = JSON.parse(await listResponse.body.text()) as {
      metadata?: { resourceVersion?: string };
    };
    if (listResponse.statusCode !== 200) {
      throw new Error(`limit: list HTTP ${listResponse.statusCode}`);
    }
    const abort = new AbortController();
    const response = await request(
      `${base}?watch=true&resourceVersion=${list.metadata?.resourceVersion ?? ''}`,
      { dispatcher: agent, headers, signal: abort.signal },
    );
    if (response.statusCode !== 200) {
      throw new Error(`limit: watch HTTP ${response.statusCode}`);
    }
    const failure = failurePromise();
    response.body.setEncoding('utf8');
    const reading = (async () => {
      let rest = '';
      for await (const chunk of response.body as AsyncIterable<string>) {
        const text = rest + chunk;
        let from = 0;
        let newline = text.indexOf('\n');
        while (newline !== -1) {
          const event = JSON.parse(text.slice(from, newline)) as {
            type: string;
            object: { metadata?: { name?: string }; data?: Record<string, string> };
          };
          if (event.type === 'ADDED' || event.type === 'MODIFIED') {
            const name = event.object.metadata?.name;
            recorder.see(`${namespace}/${name}`, event.object.data?.[writtenAtKey]);
          } else if (event.type === 'ERROR') {
            throw new Error(`limit: watch ERROR event ${JSON.stringify(event.object)}`);
          }
          from = newline + 1;
          newline = text.indexOf('\n', from);
        }
        rest = text.slice(from);
      }
    })();
    reading.catch((error: unknown) => {
      if (!abort.signal.aborted) failure.fail(error);
    });
    return {
      failed: failure.promise,
      stop: async () => {
        abort.abort();
        await reading.catch(() => undefined);
        await agent.close();
      },
    };
  },
};

/** The consumers every run has, in report order: lasso first, then its peer and the limit. */
export const consumers: readonly Consumer[] = [lassoConsumer, clientNodeConsumer, limitConsumer];

/** A consumer by name: those above, `client-node 1.4`, or `baseline` (the build under `baselineDir`). */
export function consumerNamed(name: string, baselineDir?: string): Consumer | undefined {
  if (name === 'baseline') return baselineDir ? baselineConsumer(baselineDir) : undefined;
  if (name === clientNode14Consumer.name) return clientNode14Consumer;
  return consumers.find((candidate) => candidate.name === name);
}
