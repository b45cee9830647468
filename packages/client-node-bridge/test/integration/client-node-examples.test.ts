// client-node's own informer usage examples, run against the bridge through a Kubernetes API server (the built-in
// one, or a real kube-apiserver through KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG). The example code is adapted
// from kubernetes-client/javascript (Apache-2.0), examples/typescript/informer/informer.ts,
// examples/typescript/informer/informer-with-label-selector.ts and examples/cache-example.js at 072811b: the
// interface under test. The one change each example gets is its constructor: `k8s.makeInformer(...)` becomes the
// bridge's `makeInformer(...)`; writes still go through client-node's CoreV1Api. Where the test also runs
// client-node's own informer beside the bridge, both must see the same events.
import * as k8s from '@kubernetes/client-node';
import { createCache } from '@lasso/cache';
import { Client, type KubeObjectLike, loadKubeConfig } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeInformer, fromLassoInformer, makeInformer } from '../../src/index.ts';

let env: Environment;
let kc: k8s.KubeConfig;
let k8sApi: k8s.CoreV1Api;
let counter = 0;
const informers: Array<{ stop(): Promise<void>; close?: () => Promise<void> }> = [];

beforeAll(async () => {
  env = await startEnvironment();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(env.kubeconfigPath);
  k8sApi = kc.makeApiClient(k8s.CoreV1Api);
});

afterAll(async () => {
  // close() of a bridge informer also closes the transport it made for the KubeConfig.
  for (const informer of informers) await (informer.close?.() ?? informer.stop());
  await env?.stop();
});

async function newNamespace(): Promise<string> {
  const name = `bridge-${process.pid}-${++counter}`;
  await k8sApi.createNamespace({ body: { metadata: { name } } });
  // Pods need their service account (no controller makes `default` here; admission checks it).
  await k8sApi.createNamespacedServiceAccount({
    namespace: name,
    body: { metadata: { name: 'default' } },
  });
  return name;
}

/** Records `<verb> <name>` lines as the examples' console.log calls would print them. */
function recorder() {
  const lines: string[] = [];
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  return {
    lines,
    log(line: string): void {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.line === line) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    /** Resolves once `line` was logged; rejects after `deadlineMs`. */
    until(line: string, deadlineMs = 15_000): Promise<void> {
      if (lines.includes(line)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`not logged in time: ${line}; got ${lines.join(' | ')}`)),
          deadlineMs,
        );
        waiters.push({
          line,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

const pod = (name: string, app: string): k8s.V1Pod => ({
  metadata: { name, labels: { app } },
  spec: {
    containers: [{ name: 'nginx', image: 'nginx:latest' } as k8s.V1Container],
    // kube-apiserver's ServiceAccount admission wants a token secret to mount, which no controller makes here.
    automountServiceAccountToken: false,
  },
});

/** The callbacks of client-node's informer.ts example, logging into `out`. */
function wireExample(informer: k8s.Informer<k8s.V1Pod>, out: ReturnType<typeof recorder>): void {
  informer.on('add', (obj: k8s.V1Pod) => {
    out.log(`Added: ${obj.metadata?.name}`);
  });
  informer.on('update', (obj: k8s.V1Pod) => {
    out.log(`Updated: ${obj.metadata?.name}`);
  });
  informer.on('delete', (obj: k8s.V1Pod) => {
    out.log(`Deleted: ${obj.metadata?.name}`);
  });
  informer.on('error', (err: unknown) => {
    out.log(`Error: ${String(err)}`);
  });
}

describe('client-node informer examples on the bridge (integration)', () => {
  it('informer.ts: add, update and delete of pods reach the callbacks, as with client-node itself', async () => {
    const namespace = await newNamespace();
    const listFn = () => k8sApi.listNamespacedPod({ namespace });
    // The one line an operator changes: k8s.makeInformer -> makeInformer.
    const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, listFn, undefined, {
      logger: noopLogger,
    });
    informers.push(informer);
    const bridged = recorder();
    wireExample(informer, bridged);
    // client-node's own informer beside it, wired the same way.
    const original = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, listFn);
    informers.push(original);
    const reference = recorder();
    wireExample(original, reference);

    await k8sApi.createNamespacedPod({ namespace, body: pod('before-start', 'web') });
    await informer.start();
    await original.start();
    // start() resolves with the list in the cache, as client-node's does.
    expect(informer.list(namespace).map((p) => p.metadata?.name)).toEqual(['before-start']);
    expect(informer.get('before-start', namespace)?.metadata?.labels).toEqual({ app: 'web' });
    expect(informer.get('before-start')).toBeUndefined(); // a namespaced object needs its namespace

    await k8sApi.createNamespacedPod({ namespace, body: pod('later', 'web') });
    await Promise.all([bridged.until('Added: later'), reference.until('Added: later')]);
    await k8sApi.patchNamespacedPod({
      name: 'later',
      namespace,
      body: [{ op: 'add', path: '/metadata/labels/tier', value: 'front' }],
    });
    await Promise.all([bridged.until('Updated: later'), reference.until('Updated: later')]);
    expect(informer.get('later', namespace)?.metadata?.labels?.tier).toBe('front');
    await k8sApi.deleteNamespacedPod({ name: 'later', namespace, gracePeriodSeconds: 0 });
    await Promise.all([bridged.until('Deleted: later'), reference.until('Deleted: later')]);

    expect(bridged.lines).toEqual(reference.lines);
    // kube-apiserver marks a pod deleted (an update) before it removes it, even with a grace period of 0.
    expect(bridged.lines.filter((line) => line !== 'Updated: later')).toEqual([
      'Added: before-start',
      'Added: later',
      'Deleted: later',
    ]);
    expect(bridged.lines[2]).toBe('Updated: later');
    expect(informer.latestResourceVersion()).not.toBe('');
    await informer.stop();
    await original.stop();
  });

  it('informer-with-label-selector.ts: only pods of the selector are reported', async () => {
    const namespace = await newNamespace();
    const APP_LABEL_SELECTOR = 'app=foo';
    const listFn = () => k8sApi.listNamespacedPod({ namespace, labelSelector: APP_LABEL_SELECTOR });
    const informer = makeInformer(
      kc,
      `/api/v1/namespaces/${namespace}/pods`,
      listFn,
      APP_LABEL_SELECTOR,
      { logger: noopLogger },
    );
    informers.push(informer);
    const out = recorder();
    wireExample(informer, out);
    await informer.start();
    await k8sApi.createNamespacedPod({ namespace, body: pod('server-foo', 'foo') });
    await k8sApi.createNamespacedPod({ namespace, body: pod('server-bar', 'bar') });
    await out.until('Added: server-foo');
    await k8sApi.deleteNamespacedPod({ name: 'server-foo', namespace, gracePeriodSeconds: 0 });
    await k8sApi.deleteNamespacedPod({ name: 'server-bar', namespace, gracePeriodSeconds: 0 });
    await out.until('Deleted: server-foo');
    // server-bar's create and delete came before server-foo's delete on the same watch: never reported.
    expect(out.lines.filter((line) => line !== 'Updated: server-foo')).toEqual([
      'Added: server-foo',
      'Deleted: server-foo',
    ]);
    await informer.stop();
  });

  it("cache-example.js: list(namespace) of an all-namespaces pod cache, 'change' and 'connect'", {
    timeout: 30_000,
  }, async () => {
    const namespace = await newNamespace();
    const other = await newNamespace();
    await k8sApi.createNamespacedPod({ namespace, body: pod('a', 'x') });
    await k8sApi.createNamespacedPod({ namespace: other, body: pod('b', 'x') });
    const path = '/api/v1/pods';
    const listFn = () => k8sApi.listPodForAllNamespaces();
    const cache: ClientNodeInformer<k8s.V1Pod> = makeInformer(kc, path, listFn, undefined, {
      logger: noopLogger,
    });
    informers.push(cache);
    const out = recorder();
    cache.on('connect', () => out.log('connect'));
    const onChange = (obj: k8s.V1Pod) => out.log(`change ${obj.metadata?.name}`);
    cache.on('change', onChange);
    await cache.start();
    expect(out.lines[0]).toBe('connect');
    // The example's looper body, once.
    const list = cache.list(namespace);
    const names: string[] = [];
    for (let i = 0; i < list.length; i++) {
      names.push(list[i]?.metadata?.name as string);
    }
    expect(names.join(',')).toBe('a');
    expect(cache.list(other).map((p) => p.metadata?.name)).toEqual(['b']);
    expect(cache.list().length).toBeGreaterThanOrEqual(2);
    await out.until('change a');
    cache.off('change', onChange);
    const added = recorder();
    cache.on('add', (obj) => added.log(`Added: ${obj.metadata?.name}`));
    await k8sApi.createNamespacedPod({ namespace, body: pod('c', 'x') });
    await added.until('Added: c');
    expect(out.lines).not.toContain('change c');
    expect(() => cache.on('bogus' as 'add', () => {})).toThrow(/Unknown verb: bogus/);
    await cache.stop();
  });

  it("an informer of a resource the server does not serve reports 'error' and start() resolves", async () => {
    const informer = makeInformer(kc, '/apis/example.com/v1/widgets', undefined, undefined, {
      logger: noopLogger,
    });
    informers.push(informer);
    const errors: unknown[] = [];
    informer.on('error', (err: unknown) => errors.push(err));
    await informer.start();
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as Error).message)).toMatch(/widgets/);
    expect(informer.list()).toEqual([]);
  });

  it('fromLassoInformer: the interface over a lasso informer that others run; stop() only pauses it', async () => {
    const namespace = await newNamespace();
    const rest = await loadKubeConfig({ path: env.kubeconfigPath });
    const configMaps = new Client<KubeObjectLike>({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest,
    });
    const lasso = createCache(configMaps, { namespace, logger: noopLogger });
    const owner = new AbortController();
    await lasso.start(owner.signal); // run by its owner (a factory would)
    const informer = fromLassoInformer(lasso, { logger: noopLogger });
    const out = recorder();
    informer.on('add', (cm) => out.log(`Added: ${cm.metadata?.name}`));
    await configMaps.create(namespace, { metadata: { name: 'one' } });
    await informer.start();
    await out.until('Added: one');
    expect(informer.get('one', namespace)?.metadata?.name).toBe('one');
    await informer.stop();
    expect(lasso.isRunning()).toBe(true); // not the bridge's run to stop
    await configMaps.create(namespace, { metadata: { name: 'two' } });
    await informer.start();
    await configMaps.create(namespace, { metadata: { name: 'three' } });
    await out.until('Added: three');
    expect(
      informer
        .list(namespace)
        .map((cm) => cm.metadata?.name)
        .sort(),
    ).toEqual(['one', 'three', 'two']);
    owner.abort();
    await lasso.stopped();
    await lasso.close();
  });
});
