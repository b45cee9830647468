// The dynamic controller against an API server: a CRD created after start reaches a matching handler within 2 s,
// deletions reach handlers, a deleted CRD's watch stops (no further LIST or WATCH, counted at the undici
// dispatcher), a matcher registered after start is served without a refresh, metadata-only watches, and
// on-demand get/list/update by GVK.
import {
  Client,
  clientFor,
  type GroupVersionKind,
  isNotFound,
  type KubeObject,
} from '@lasso/client';
import type { Logger } from '@lasso/core';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamicController } from '../../src/dynamic-controller.ts';
import { collectionOf, startCluster, type TestCluster, type Waiter } from './helpers.ts';

let cluster: TestCluster;
const cleanups: Array<() => Promise<void>> = [];
let groups = 0;

beforeAll(async () => {
  cluster = await startCluster();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await cluster?.stop();
});

interface Seen {
  readonly gvk: GroupVersionKind;
  readonly key: string;
  readonly object: KubeObject | undefined;
}

/** A logger that wakes the waiter (the controller logs when it starts and stops watching a kind). */
function notifyingLogger(waiter: Waiter): Logger {
  const logger: Logger = {
    debug: () => waiter.notify(),
    info: () => waiter.notify(),
    warn: () => waiter.notify(),
    error: () => waiter.notify(),
    child: () => logger,
  };
  return logger;
}

async function harness() {
  const recording = await cluster.recordingConfig();
  const factory = createSharedControllerFactoryFromConfig(recording.rest);
  const dynamic = createDynamicController(factory, { logger: notifyingLogger(recording.waiter) });
  const stop = new AbortController();
  const seen: Seen[] = [];
  cleanups.push(async () => {
    stop.abort();
    await dynamic.stopped();
    await dynamic.close();
    await factory.stopped();
    await factory.close();
    await recording.close();
  });
  return {
    recording,
    factory,
    dynamic,
    signal: stop.signal,
    seen,
    waiter: recording.waiter,
    /** A handler recording what it sees. */
    record: (gvk: GroupVersionKind, key: string, object: KubeObject | undefined) => {
      seen.push({ gvk, key, object });
      recording.waiter.notify();
    },
  };
}

const crds = () =>
  clientFor(cluster.admin, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
  });

/** A client of the Widgets of `group` (no discovery). */
function widgets(group: string): Client {
  return new Client({
    gvr: { group, version: 'v1', resource: 'widgets' },
    kind: 'Widget',
    namespaced: true,
    rest: cluster.admin,
  });
}

function newGroup(): string {
  return `dyn${++groups}-${process.pid}.example.com`;
}

/** Create a namespaced CRD `kind` in `group` (version v1); deleted after the test. */
async function createCrd(group: string, kind: string): Promise<string> {
  const plural = `${kind.toLowerCase()}s`;
  const name = `${plural}.${group}`;
  await crds().create(undefined, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
            },
          },
        },
      ],
    },
  });
  cleanups.push(async () => {
    await crds()
      .delete(undefined, name)
      .catch(() => undefined);
  });
  return name;
}

describe('dynamic controller', () => {
  it('delivers a CRD created after start to a matching handler within 2 s; deletions; a deleted CRD stops its watch', async () => {
    const { dynamic, signal, seen, waiter, recording, record } = await harness();
    const group = newGroup();
    const namespace = await cluster.namespace('dyn');
    dynamic.onChange(signal, 'group-handler', (gvk) => gvk.group === group, record);
    await dynamic.start(signal);
    const widget: GroupVersionKind = { group, version: 'v1', kind: 'Widget' };
    const collection = `${group}/v1/widgets`;

    const createdAt = Date.now();
    const crdName = await createCrd(group, 'Widget');
    // The dynamic controller lists the new kind by itself (its CRD event, 500 ms debounce, discovery).
    await waiter.until(
      () => recording.collections('list').has(collection),
      'the Widget list',
      2_000,
    );
    // Listed means discovery serves it: the CRD is established.
    await widgets(group).create(namespace, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace },
    });
    await waiter.until(
      () => seen.some((event) => event.key === `${namespace}/w1` && event.object !== undefined),
      'the Widget at its handler',
      Math.max(2_000 - (Date.now() - createdAt), 1),
    );
    expect(Date.now() - createdAt).toBeLessThanOrEqual(2_000);
    expect(seen[0]?.gvk).toEqual(widget);

    // A deletion reaches the handler as the key without an object.
    await widgets(group).delete(namespace, 'w1');
    await waiter.until(
      () => seen.some((event) => event.key === `${namespace}/w1` && event.object === undefined),
      'the deletion at the handler',
    );

    // The CRD goes: its watch stops and no list or watch of it follows.
    const informer = await dynamic.getCache(widget);
    await crds().delete(undefined, crdName);
    await waiter.until(
      () => !dynamic.watched().some((kind) => kind.key === `${group}/v1, Kind=Widget`),
      'the Widget watch to stop',
    );
    await informer.stopped();
    const mark = recording.requests.length;
    // Another kind of the group appears: a discovery refresh runs after the deletion, and nothing lists Widgets.
    await createCrd(group, 'Gadget');
    await waiter.until(
      () => recording.collections('list').has(`${group}/v1/gadgets`),
      'the Gadget list',
      15_000,
    );
    const widgetRequests = recording.requests
      .slice(mark)
      .filter((request) => collectionOf(request.path) === collection);
    expect(widgetRequests).toEqual([]);
  });
});
