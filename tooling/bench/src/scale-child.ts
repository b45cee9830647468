// One W5 measurement in a process of its own, so that its heap and RSS are its own (forked by scale.ts):
//   sync <contender> <kubeconfig> <namespace> <objects>: start the contender on the seeded namespace, wait until
//     it is synced and has handed every object to its add handler; heap = heapUsed after full GCs with it alive
//     minus before its start;
//   stream <contender> <events> <keys>: the informer alone on an in-memory lister-watcher (no HTTP, no JSON)
//     whose watch yields `events` events, made one by one as they are pulled: ADDED for the first `keys`
//     objects, then MODIFIED ones cycling over them.
// Sends one ScaleResult over the IPC channel, then stops what it started and exits.
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ListWatch as ClientNodeListWatch, KubernetesObject } from '@kubernetes/client-node-2';
import {
  createSharedIndexInformer,
  type ListerWatcher,
  metaNamespaceIndexFunc,
  namespaceIndex,
} from '@lasso/cache';
import type { KubeObject, WatchEvent } from '@lasso/client';
import { request } from 'undici';
import { clientNode14, clientNode20 } from './client-node.ts';
import {
  type Contender,
  clientNode14Contender,
  clientNodeContender,
  lassoContender,
} from './contenders.ts';
import { countdown } from './countdown.ts';
import { benchConfigMap } from './fixtures.ts';
import { heapSampler } from './heap-sampler.ts';
import { kubeHttp } from './kube-http.ts';
import { settledHeapUsed } from './measure.ts';

/** What a measurement sends back. */
export interface ScaleResult {
  /** Sync: start -> synced and every add handled. Stream: start -> the last event handled. */
  ms: number;
  /** Objects held at the end. */
  objects: number;
  /** heapUsed after full GCs with the contender (and what it holds) alive, minus before its start. */
  heapBytes: number;
  /** Highest heapUsed sampled every 20 ms during the run, minus before its start. */
  peakHeapBytes: number;
  /** RSS of the process at the end (after the GCs), and its peak (`maxRSS`). */
  rssBytes: number;
  maxRssBytes: number;
}

const informers: Record<string, Contender> = {
  [lassoContender.name]: lassoContender,
  [clientNodeContender.name]: clientNodeContender,
  [clientNode14Contender.name]: clientNode14Contender,
};

/** Kept alive until the heap is read (the limit's list). */
let kept: unknown;

async function sync(
  name: string,
  kubeconfigPath: string,
  namespace: string,
  objects: number,
): Promise<ScaleResult> {
  if (name === 'limit') {
    const http = kubeHttp(kubeconfigPath);
    const baseline = settledHeapUsed();
    const sampler = heapSampler();
    const started = performance.now();
    const url = `${http.server}/api/v1/namespaces/${namespace}/configmaps?resourceVersion=0`;
    const response = await request(url, { dispatcher: http.agent, headers: http.headers });
    const list = JSON.parse(await response.body.text()) as { items?: unknown[] };
    const ms = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`limit: HTTP ${response.statusCode}`);
    kept = list.items;
    await http.agent.close();
    const peak = sampler.stop();
    const heap = settledHeapUsed();
    return result(
      ms,
      (kept as unknown[] | undefined)?.length ?? 0,
      heap - baseline,
      peak - baseline,
    );
  }
  const contender = informers[name];
  if (contender === undefined) throw new TypeError(`scale-child: unknown contender ${name}`);
  const added = countdown(objects);
  const start = await contender.prepare(kubeconfigPath, namespace, {
    onAdd: added.tick,
    onUpdate: () => undefined,
  });
  const baseline = settledHeapUsed();
  const sampler = heapSampler();
  const started = performance.now();
  const informer = start();
  try {
    await informer.synced;
    await Promise.race([added.done, informer.failed]);
    const ms = performance.now() - started;
    const peak = sampler.stop();
    const heap = settledHeapUsed();
    return result(ms, informer.size(), heap - baseline, peak - baseline);
  } finally {
    await informer.stop();
  }
}

function result(ms: number, objects: number, heapBytes: number, peak: number): ScaleResult {
  return {
    ms,
    objects,
    heapBytes,
    peakHeapBytes: peak,
    rssBytes: process.memoryUsage().rss,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

const syntheticNamespace = 'synthetic';

/** Event `index` of the synthetic stream (resourceVersions from 2; the list is empty at "1"). */
function syntheticEvent(index: number, keys: number): WatchEvent<KubeObject> {
  const object = benchConfigMap(index % keys, syntheticNamespace) as KubeObject & {
    metadata: { resourceVersion?: string };
  };
  object.metadata.resourceVersion = String(index + 2);
  // The fixture builds each value as a slice of a longer string, which keeps that string alive: copy the values
  // into flat strings of their own, as JSON.parse of a watch event makes them.
  const data = object.data as Record<string, string>;
  const flat = Buffer.from(Object.values(data).join(''), 'latin1');
  let offset = 0;
  for (const key of Object.keys(data)) {
    const length = (data[key] as string).length;
    data[key] = flat.toString('latin1', offset, offset + length);
    offset += length;
  }
  return { type: index < keys ? 'ADDED' : 'MODIFIED', object };
}

/** The events, made as they are pulled; after the last one the iterator waits for `signal`. */
function syntheticEvents(
  events: number,
  keys: number,
  signal: AbortSignal | undefined,
  initialEventsEnd: boolean,
): AsyncIterableIterator<WatchEvent<KubeObject>> {
  let index = initialEventsEnd ? -1 : 0;
  const ended = new Promise<IteratorResult<WatchEvent<KubeObject>>>((resolve) => {
    const done = (): void => resolve({ value: undefined, done: true });
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
  const iterator: AsyncIterableIterator<WatchEvent<KubeObject>> = {
    [Symbol.asyncIterator]: () => iterator,
    next: () => {
      if (index === -1) {
        index = 0;
        const bookmark = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            resourceVersion: '1',
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        } as KubeObject;
        return Promise.resolve({ value: { type: 'BOOKMARK', object: bookmark }, done: false });
      }
      if (index >= events) return ended;
      return Promise.resolve({ value: syntheticEvent(index++, keys), done: false });
    },
    return: () => Promise.resolve({ value: undefined, done: true }),
  };
  return iterator;
}

/** client-node's `Watch`, in memory: the callback gets the events in batches of 1,000 per macrotask. */
function syntheticClientNodeWatch(events: number, keys: number): { watch: unknown } {
  return {
    watch: async (
      _path: string,
      _query: unknown,
      callback: (phase: string, object: unknown, watchObject: unknown) => void,
    ): Promise<AbortController> => {
      const controller = new AbortController();
      void (async () => {
        for (let index = 0; index < events && !controller.signal.aborted; ) {
          const end = Math.min(events, index + 1000);
          for (; index < end; index++) {
            const event = syntheticEvent(index, keys);
            callback(event.type, event.object, event);
          }
          await nextTurn();
        }
      })();
      return controller;
    },
  };
}

async function stream(name: string, events: number, keys: number): Promise<ScaleResult> {
  const { done, tick: count } = countdown(events);
  const baseline = settledHeapUsed();
  const sampler = heapSampler();
  const started = performance.now();
  const finish = async (objects: number): Promise<ScaleResult> => {
    const ms = performance.now() - started;
    const peak = sampler.stop();
    return result(ms, objects, settledHeapUsed() - baseline, peak - baseline);
  };
  if (name === 'producer') {
    const controller = new AbortController();
    const iterator = syntheticEvents(events, keys, controller.signal, false);
    for (let index = 0; index < events; index++) {
      await iterator.next();
      count();
    }
    return finish(0);
  }
  if (name === '@lasso/cache') {
    const listerWatcher: ListerWatcher<KubeObject> = {
      list: async () => ({
        apiVersion: 'v1',
        kind: 'ConfigMapList',
        metadata: { resourceVersion: '1' },
        items: [],
      }),
      watch: (options) =>
        syntheticEvents(events, keys, options.signal, options.sendInitialEvents === true),
    };
    const informer = createSharedIndexInformer<KubeObject>(listerWatcher, {
      name: 'v1, Kind=ConfigMap',
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
    });
    informer.addEventHandler({ onAdd: count, onUpdate: count });
    const controller = new AbortController();
    await informer.start(controller.signal);
    try {
      const ended = informer.stopped().then(() => Promise.reject(new Error('informer ended')));
      await Promise.race([done, ended]);
      return await finish(informer.getStore().size());
    } finally {
      controller.abort();
      await informer.close();
    }
  }
  const module = [clientNode20, clientNode14].find((version) => version.name === name)?.module;
  if (module === undefined) throw new TypeError(`scale-child: unknown contender ${name}`);
  const ListWatch = module.ListWatch as unknown as new (
    path: string,
    watch: unknown,
    listFn: () => Promise<unknown>,
    autoStart: boolean,
  ) => ClientNodeListWatch<KubernetesObject>;
  const informer = new ListWatch(
    `/api/v1/namespaces/${syntheticNamespace}/configmaps`,
    syntheticClientNodeWatch(events, keys),
    async () => ({ metadata: { resourceVersion: '1' }, items: [] }),
    false,
  );
  informer.on('add', count);
  informer.on('update', count);
  await informer.start();
  try {
    await done;
    return await finish(informer.list(syntheticNamespace).length);
  } finally {
    await informer.stop();
  }
}

async function main(): Promise<void> {
  const [mode, name = '', ...args] = process.argv.slice(2);
  const measured =
    mode === 'sync'
      ? await sync(name, args[0] ?? '', args[1] ?? '', Number(args[2]))
      : mode === 'stream'
        ? await stream(name, Number(args[0]), Number(args[1]))
        : undefined;
  if (measured === undefined) throw new TypeError(`scale-child: unknown mode ${String(mode)}`);
  kept = undefined;
  if (process.send === undefined) throw new Error('scale-child must be started with fork()');
  process.send(measured);
  process.disconnect();
}

main().catch((error: unknown) => {
  console.error('scale-child:', error);
  process.exitCode = 1;
  if (process.connected) process.disconnect();
});
