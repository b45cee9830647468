// OpenTelemetry spans of reconciles and of the API requests they make, against a Kubernetes API server (the
// built-in one, or a real kube-apiserver through KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG), recorded by the
// SDK's in-memory exporter.

import { AsyncLocalStorage } from 'node:async_hooks';
import { createCache } from '@lasso/cache';
import { Client, loadKubeConfig, type RestConfig, RestTransport } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { type Context, type ContextManager, context, ROOT_CONTEXT } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createController } from '../../src/controller.ts';

let env: Environment;
let loaded: RestConfig;
let counter = 0;
const closing: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  env = await startEnvironment();
  loaded = await loadKubeConfig({ path: env.kubeconfigPath });
});

afterAll(async () => {
  for (const closable of closing.reverse()) await closable.close();
  await env?.stop();
});

/** A tracer provider whose ended spans are kept, and awaited with a bounded deadline. */
function recorder() {
  const exporter = new InMemorySpanExporter();
  const waiters: Array<{
    predicate: (span: ReadableSpan) => boolean;
    resolve(span: ReadableSpan): void;
  }> = [];
  const notify: SpanProcessor = {
    onStart: () => {},
    onEnd: (span) => {
      for (const waiter of [...waiters]) {
        if (waiter.predicate(span)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(span);
        }
      }
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter), notify],
  });
  return {
    provider,
    spans: () => exporter.getFinishedSpans(),
    /** The first ended span (already ended or to come) `predicate` accepts; rejects after `deadlineMs`. */
    span(predicate: (span: ReadableSpan) => boolean, deadlineMs = 15_000): Promise<ReadableSpan> {
      const done = exporter.getFinishedSpans().find(predicate);
      if (done !== undefined) return Promise.resolve(done);
      return new Promise<ReadableSpan>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('span not ended in time')), deadlineMs);
        waiters.push({
          predicate,
          resolve: (span) => {
            clearTimeout(timer);
            resolve(span);
          },
        });
      });
    },
  };
}

async function setUp(rest: RestConfig) {
  const namespaces = new Client<Namespace>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  const ns = `tracing-${process.pid}-${++counter}`;
  await namespaces.create(undefined, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  const configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
  return { ns, configMaps };
}

/** An AsyncLocalStorage context manager, as an application registers one (the SDK's node package does). */
function asyncLocalStorageContextManager(): ContextManager {
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable: () => manager,
    disable: () => {
      storage.disable();
      return manager;
    },
  };
  return manager;
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

describe('tracing (integration)', () => {
  afterEach(() => {
    context.disable();
  });

  it('spans each reconcile and each request, the requests made with its signal as its children', async () => {
    const traces = recorder();
    // The transport of its own config: the spans of this test only.
    const rest: RestConfig = { ...loaded, tracerProvider: traces.provider };
    const transport = new RestTransport(rest);
    closing.push(transport);
    const { ns, configMaps } = await setUp(transport.config);
    const tracedConfigMaps = new Client<ConfigMap>({
      gvr: configMaps.gvr,
      kind: 'ConfigMap',
      namespaced: true,
      rest: transport,
    });
    let failures = 0;
    const informer = createCache(tracedConfigMaps, { namespace: ns, logger: noopLogger });
    const controller = createController(
      'tracing-test',
      informer,
      undefined,
      async (_key, configMap, { signal }) => {
        if (configMap === undefined || configMap.data?.done === 'yes') return;
        if (configMap.metadata?.name === 'flaky' && failures++ === 0) {
          throw new Error('first attempt fails');
        }
        await tracedConfigMaps.update(ns, { ...configMap, data: { done: 'yes' } }, { signal });
      },
      { tracerProvider: traces.provider, logger: noopLogger },
    );
    closing.push(controller);
    await configMaps.create(ns, { metadata: { name: 'steady' }, data: {} });
    await configMaps.create(ns, { metadata: { name: 'flaky' }, data: {} });
    const stop = new AbortController();
    await controller.start(stop.signal, 2);

    const isReconcileOf = (name: string) => (span: ReadableSpan) =>
      span.name === 'reconcile tracing-test' && span.attributes['lasso.key'] === `${ns}/${name}`;
    const steady = await traces.span(
      (span) => isReconcileOf('steady')(span) && span.attributes['lasso.outcome'] === 'success',
    );
    expect(steady.attributes).toMatchObject({
      'lasso.controller': 'tracing-test',
      'lasso.kind': 'v1, Kind=ConfigMap',
      'lasso.key': `${ns}/steady`,
      'lasso.retries': 0,
      'lasso.outcome': 'success',
    });
    expect(steady.kind).toBe(0); // INTERNAL
    const update = traces
      .spans()
      .find(
        (span) =>
          span.name === 'update configmaps' &&
          span.attributes['lasso.namespace'] === ns &&
          parentOf(span) === idOf(steady),
      );
    expect(update?.attributes).toMatchObject({
      'lasso.verb': 'update',
      'lasso.resource': 'configmaps',
      'lasso.group': '',
      'lasso.version': 'v1',
      'http.request.method': 'PUT',
      'http.response.status_code': 200,
    });
    expect(update?.kind).toBe(2); // CLIENT
    expect(update?.spanContext().traceId).toBe(steady.spanContext().traceId);

    // The flaky key: an error, then a success whose span counts the retry.
    const failed = await traces.span(
      (span) => isReconcileOf('flaky')(span) && span.attributes['lasso.outcome'] === 'error',
    );
    expect(failed.attributes['lasso.retries']).toBe(0);
    expect(failed.status).toMatchObject({ code: 2, message: 'first attempt fails' });
    const retried = await traces.span(
      (span) => isReconcileOf('flaky')(span) && span.attributes['lasso.outcome'] === 'success',
    );
    expect(retried.attributes['lasso.retries']).toBe(1);

    // Requests outside a reconcile are roots: the informer's list, and the test's own creates.
    // The informer's requests: a streaming list (a watch) where the server has WatchList, else (kube-apiserver
    // 1.20 refuses it with a 422, an ERROR span) a list; then watches. None has a parent.
    const informerRequests = traces
      .spans()
      .filter(
        (span) =>
          (span.name === 'list configmaps' || span.name === 'watch configmaps') &&
          span.attributes['lasso.namespace'] === ns,
      );
    expect(informerRequests.map(parentOf).filter((parent) => parent !== undefined)).toEqual([]);
    expect(informerRequests.some((s) => s.attributes['http.response.status_code'] === 200)).toBe(
      true,
    );
    for (const refused of informerRequests.filter(
      (s) => s.attributes['http.response.status_code'] === 422,
    )) {
      expect(refused.status.code).toBe(2);
    }
    const create = traces
      .spans()
      .find(
        (span) => span.name === 'create configmaps' && span.attributes['lasso.namespace'] === ns,
      );
    expect(create?.attributes['http.response.status_code']).toBe(201);
    stop.abort();
    await controller.stopped();
  });

  it('marks a failed request with its status code and the error', async () => {
    const traces = recorder();
    const transport = new RestTransport({ ...loaded, tracerProvider: traces.provider });
    closing.push(transport);
    const { ns, configMaps } = await setUp(transport.config);
    await expect(configMaps.get(ns, 'missing')).rejects.toMatchObject({ status: 404 });
    const span = await traces.span((s) => s.name === 'get configmaps');
    expect(span.attributes).toMatchObject({
      'lasso.verb': 'get',
      'lasso.namespace': ns,
      'http.response.status_code': 404,
    });
    expect(span.status.code).toBe(2);
    expect(span.events.some((event) => event.name === 'exception')).toBe(true);
  });

  it('with a context manager, a request made without the signal is still a child of its reconcile', async () => {
    context.setGlobalContextManager(asyncLocalStorageContextManager());
    const traces = recorder();
    const transport = new RestTransport({ ...loaded, tracerProvider: traces.provider });
    closing.push(transport);
    const { ns, configMaps } = await setUp(transport.config);
    const informer = createCache(configMaps, { namespace: ns, logger: noopLogger });
    const controller = createController(
      'active-context',
      informer,
      undefined,
      async (_key, configMap) => {
        if (configMap === undefined) return;
        await configMaps.get(ns, configMap.metadata?.name as string); // no signal
      },
      { tracerProvider: traces.provider, logger: noopLogger },
    );
    closing.push(controller);
    await configMaps.create(ns, { metadata: { name: 'one' } });
    const stop = new AbortController();
    await controller.start(stop.signal);
    const reconcile = await traces.span((span) => span.name === 'reconcile active-context');
    const get = await traces.span(
      (span) => span.name === 'get configmaps' && span.attributes['lasso.namespace'] === ns,
    );
    expect(parentOf(get)).toBe(idOf(reconcile));
    stop.abort();
    await controller.stopped();
  });
});
