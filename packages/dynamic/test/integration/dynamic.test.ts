// The dynamic controller against an API server: a CRD created after start reaches a matching handler within 2 s,
// deletions reach handlers, a deleted CRD's watch stops (no further LIST or WATCH, counted at the undici
// dispatcher), a matcher registered after start is served without a refresh, metadata-only watches, and
// on-demand get/list/update by GVK.
import {
  Client,
  clientFor,
  DiscoveryClient,
  type GroupVersionKind,
  isNotFound,
  type KubeObject,
  restTransportFor,
} from '@lasso/client';
import { isLassoError, type Logger } from '@lasso/core';
import { testCrd } from '@lasso/envtest';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamicController } from '../../src/dynamic-controller.ts';
import { collectionOf, listsOf, startCluster, type TestCluster, type Waiter } from './helpers.ts';

let cluster: TestCluster;
const cleanups: Array<() => Promise<void>> = [];
let groups = 0;
const waiter = (recording: { waiter: Waiter }): Waiter => recording.waiter;

beforeAll(async () => {
  cluster = await startCluster();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await cluster?.stop();
});

const configMapGvk: GroupVersionKind = { group: '', version: 'v1', kind: 'ConfigMap' };

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
  const crd = testCrd({ group, kind });
  const name = crd.metadata.name;
  await crds().create(undefined, crd);
  cleanups.push(async () => {
    await crds()
      .delete(undefined, name)
      .catch(() => undefined);
  });
  return name;
}

// Real time: a test awaits several conditions of 10 to 15 s each; the test timeout is above their sum, so a slow
// machine fails (if at all) naming the condition not reached rather than with vitest's bare 10 s timeout.
describe('dynamic controller', { timeout: 90_000 }, () => {
  it('delivers a CRD created after start to a matching handler within 2 s; deletions; a deleted CRD stops its watch', async () => {
    const { dynamic, signal, seen, waiter, recording, record } = await harness();
    const group = newGroup();
    const namespace = await cluster.namespace('dyn');
    dynamic.onChange(signal, 'group-handler', (gvk) => gvk.group === group, record);
    await dynamic.start(signal);
    const widget: GroupVersionKind = { group, version: 'v1', kind: 'Widget' };
    const collection = `${group}/v1/widgets`;

    const crdName = await createCrd(group, 'Widget');
    // The dynamic controller lists the new kind by itself (its CRD event, 500 ms debounce, discovery).
    await waiter.until(
      () => recording.collections('list').has(collection),
      'the Widget list',
      10_000,
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
      // The goal is 2 s (debounce 500 ms + a list); the deadline leaves room for a loaded CI machine.
      10_000,
    );
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

  it('watches the kinds a matcher registered after start accepts at once, without a discovery refresh', async () => {
    const { dynamic, signal, seen, waiter, recording, record } = await harness();
    const namespace = await cluster.namespace('dyn-late');
    const configMaps = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'late', namespace },
    });
    await dynamic.start(signal);
    expect(recording.collections('list').has('v1/configmaps')).toBe(false); // nobody matched it
    const refreshes = dynamic.refreshes();
    dynamic.onChange(
      signal,
      'config-maps',
      (gvk) => gvk.group === '' && gvk.kind === 'ConfigMap',
      record,
    );
    expect(dynamic.watched().map((kind) => kind.key)).toEqual(['/v1, Kind=ConfigMap']);
    await waiter.until(
      () => seen.some((event) => event.key === `${namespace}/late`),
      'the ConfigMap at the late handler',
    );
    expect(dynamic.refreshes()).toBe(refreshes);
    expect(seen.every((event) => event.gvk.kind === 'ConfigMap')).toBe(true);
  });

  it('reads, lists, indexes, updates and enqueues by GVK on demand; a missing object is NotFound', async () => {
    const { dynamic, signal, seen, waiter, record } = await harness();
    const namespace = await cluster.namespace('dyn-demand');
    const configMaps = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    for (const name of ['a', 'b']) {
      await configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: { pick: name === 'a' ? 'yes' : 'no' } },
        data: { k: name },
      });
    }
    await expect(dynamic.get(configMapGvk, namespace, 'a')).rejects.toSatisfy((error) =>
      isLassoError(error, 'LASSO_DYNAMIC_NOT_RUNNING'),
    );
    await dynamic.start(signal);
    expect(dynamic.watched()).toEqual([]); // nothing matched, nothing asked for
    const a = await dynamic.get(configMapGvk, namespace, 'a');
    expect(a.data).toEqual({ k: 'a' });
    expect(dynamic.watched().map((kind) => kind.key)).toEqual(['/v1, Kind=ConfigMap']);
    const missing = await dynamic
      .get(configMapGvk, namespace, 'nope')
      .catch((error: unknown) => error);
    expect(isNotFound(missing)).toBe(true);
    expect(
      (await dynamic.list(configMapGvk, namespace)).map((cm) => cm.metadata?.name).sort(),
    ).toEqual(['a', 'b']);
    expect(
      (await dynamic.list(configMapGvk, namespace, { labels: { pick: 'yes' } })).map(
        (cm) => cm.metadata?.name,
      ),
    ).toEqual(['a']);
    expect((await dynamic.getByIndex(configMapGvk, 'namespace', namespace)).length).toBe(2);

    const updated = await dynamic.update({ ...a, data: { k: 'changed' } });
    expect(updated.data).toEqual({ k: 'changed' });
    expect((await configMaps.get(namespace, 'a')).data).toEqual({ k: 'changed' });

    // A handler registered on the kind sees an enqueued key.
    dynamic.onChange(signal, 'cms', (gvk) => gvk.kind === 'ConfigMap' && gvk.group === '', record);
    seen.length = 0;
    await dynamic.enqueue(configMapGvk, namespace, 'b');
    await waiter.until(
      () => seen.some((event) => event.key === `${namespace}/b`),
      'the enqueued key',
    );

    // A kind the server does not serve.
    const unknown = await dynamic
      .get({ group: 'nothing.example.com', version: 'v1', kind: 'Nothing' }, namespace, 'x')
      .catch((error: unknown) => error);
    expect(isLassoError(unknown, 'LASSO_NO_KIND_MATCH')).toBe(true);
  });

  it('lists by a selector string or object, adds an indexer to current and later kinds, and chains handler results', async () => {
    const { dynamic, signal, waiter } = await harness();
    const namespace = await cluster.namespace('dyn-rows');
    const configMaps = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    for (const [name, tier] of [
      ['web', 'front'],
      ['db', 'back'],
      ['cache', 'back'],
    ] as const) {
      await configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: { tier, app: 'shop' } },
        data: { tier },
      });
    }
    // Before start: bad input is refused at once, naming the problem.
    expect(() =>
      dynamic.addIndexer(
        '',
        () => true,
        () => [],
      ),
    ).toThrow(/name must be/);
    dynamic.addIndexer(
      'byTier',
      (gvk) => gvk.kind === 'ConfigMap',
      (object) => [String(object.metadata?.labels?.tier)],
    );
    expect(() =>
      dynamic.addIndexer(
        'byTier',
        () => true,
        () => [],
      ),
    ).toThrow(/already added/);
    await dynamic.start(signal);

    const names = (objects: KubeObject[]): string[] =>
      objects.map((object) => String(object.metadata?.name)).sort();
    expect(names(await dynamic.list(configMapGvk, namespace, { selector: 'tier=back' }))).toEqual([
      'cache',
      'db',
    ]);
    expect(
      names(await dynamic.list(configMapGvk, namespace, { selector: 'tier notin (back),app' })),
    ).toEqual(['web']);
    expect(
      names(
        await dynamic.list(configMapGvk, namespace, {
          selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] },
          labels: { app: 'shop' },
        }),
      ),
    ).toEqual(['web']);
    await expect(dynamic.list(configMapGvk, namespace, { selector: 'tier in (' })).rejects.toThrow(
      RangeError,
    );
    await expect(
      dynamic.list(configMapGvk, namespace, { labels: 'tier=back' as never }),
    ).rejects.toThrow(/pass a selector string as `selector`/);
    // The kind was watched on demand after addIndexer: the index was added when it was.
    expect(names(await dynamic.getByIndex(configMapGvk, 'byTier', 'back'))).toEqual([
      'cache',
      'db',
    ]);
    // Added while the kind is watched: added to its informer at once.
    dynamic.addIndexer(
      'byData',
      (gvk) => gvk.kind === 'ConfigMap',
      (object) => [String((object as { data?: Record<string, string> }).data?.tier)],
    );
    expect(names(await dynamic.getByIndex(configMapGvk, 'byData', 'front'))).toEqual(['web']);

    // Chaining: the object the first handler returns is what the second receives.
    const secondSaw: string[] = [];
    const mine = (gvk: GroupVersionKind): boolean => gvk.kind === 'ConfigMap' && gvk.group === '';
    dynamic.onChange(signal, 'first', mine, (_gvk, key, object) => {
      if (object === undefined || key !== `${namespace}/web`) return undefined;
      return { ...object, metadata: { ...object.metadata, annotations: { seenBy: 'first' } } };
    });
    dynamic.onChange(signal, 'second', mine, (_gvk, key, object) => {
      if (key !== `${namespace}/web`) return;
      secondSaw.push(String(object?.metadata?.annotations?.seenBy));
      waiter.notify();
    });
    await dynamic.enqueue(configMapGvk, namespace, 'web');
    await waiter.until(() => secondSaw.length > 0, 'the second handler');
    expect(secondSaw[0]).toBe('first');
  });

  it('watches metadata only when every matching handler asks for it', async (context) => {
    const namespace = await cluster.namespace('dyn-meta');
    const configMaps = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    const probe = await configMaps.list(namespace, { asMetadata: true });
    if (probe.kind !== 'PartialObjectMetadataList') {
      context.skip('this server does not serve PartialObjectMetadataList');
    }
    const { dynamic, signal, seen, waiter, recording, record } = await harness();
    await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'meta', namespace, labels: { a: 'b' } },
      data: { big: 'x'.repeat(1024) },
    });
    dynamic.onChange(
      signal,
      'config-map-metadata',
      { gvk: (gvk) => gvk.group === '' && gvk.kind === 'ConfigMap', metadataOnly: true },
      record,
    );
    await dynamic.start(signal);
    expect(dynamic.watched()).toEqual([
      expect.objectContaining({ key: '/v1, Kind=ConfigMap', metadataOnly: true }),
    ]);
    await waiter.until(
      () => seen.some((event) => event.key === `${namespace}/meta`),
      'the metadata',
    );
    const object = seen.find((event) => event.key === `${namespace}/meta`)?.object;
    expect(object?.kind).toBe('PartialObjectMetadata');
    expect(object?.metadata?.labels).toEqual({ a: 'b' });
    expect((object as { data?: unknown }).data).toBeUndefined();
    expect(recording.collections('list').has('v1/configmaps')).toBe(true);
  });

  it('stops with its signal (drained, kinds released), starts again on the same object, and refuses after close', async () => {
    const { dynamic, factory, seen, waiter, record } = await harness();
    const namespace = await cluster.namespace('dyn-life');
    const configMaps = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    const forever = new AbortController();
    dynamic.onChange(
      forever.signal,
      'cms',
      (gvk) => gvk.group === '' && gvk.kind === 'ConfigMap',
      record,
    );
    const first = new AbortController();
    await dynamic.start(first.signal);
    expect(dynamic.isRunning()).toBe(true);
    expect(dynamic.watched()).toHaveLength(1);
    first.abort();
    expect(await dynamic.stopped()).toEqual({ drained: true, pending: [] });
    expect(dynamic.isRunning()).toBe(false);
    expect(dynamic.watched()).toEqual([]);
    await factory.stopped();

    const second = new AbortController();
    cleanups.push(async () => second.abort());
    await dynamic.start(second.signal);
    await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'after-restart', namespace },
    });
    await waiter.until(
      () => seen.some((event) => event.key === `${namespace}/after-restart`),
      'the ConfigMap after a restart',
    );
    await dynamic.close();
    expect(dynamic.isRunning()).toBe(false);
    await expect(dynamic.start(new AbortController().signal)).rejects.toMatchObject({
      code: 'LASSO_DYNAMIC_CLOSED',
    });
    forever.abort();
  });

  it('logs a group version whose discovery fails, skips it, and keeps watching its kinds already watched', async () => {
    const recording = await cluster.recordingConfig();
    const factory = createSharedControllerFactoryFromConfig(recording.rest);
    const real = new DiscoveryClient(restTransportFor(recording.rest));
    let failCore = false;
    const warnings: string[] = [];
    const logger: Logger = {
      ...notifyingLogger(recording.waiter),
      warn: (message, attributes) => {
        warnings.push(`${message} ${String(attributes?.groupVersion)}`);
        recording.waiter.notify();
      },
    };
    logger.child = () => logger;
    // An aggregated API down, simulated on the core group: its discovery fails from the second refresh on.
    const discovery = {
      invalidate: () => real.invalidate(),
      async discover(options: { signal?: AbortSignal | undefined }) {
        const result = await real.discover(options);
        if (!failCore) return result;
        return {
          ...result,
          resources: result.resources.filter((resource) => resource.group !== ''),
          failed: new Map([...result.failed, ['v1', new Error('503 service unavailable')]]),
        };
      },
    };
    const dynamic = createDynamicController(factory, { discovery, logger });
    const stop = new AbortController();
    cleanups.push(async () => {
      stop.abort();
      await dynamic.close();
      await factory.stopped();
      await factory.close();
      await recording.close();
    });
    const group = newGroup();
    dynamic.onChange(
      stop.signal,
      'cms-and-group',
      (gvk) => (gvk.group === '' && gvk.kind === 'ConfigMap') || gvk.group === group,
      () => {},
    );
    await dynamic.start(stop.signal);
    expect(dynamic.watched().map((kind) => kind.key)).toEqual(['/v1, Kind=ConfigMap']);
    failCore = true;
    await createCrd(group, 'Widget'); // an event: a refresh in which the core group fails
    await waiter(recording).until(
      () => dynamic.watched().some((kind) => kind.key === `${group}/v1, Kind=Widget`),
      'the Widget watched despite the failing group',
    );
    expect(warnings).toContain('discovery of a group version failed, skipping it v1');
    expect(dynamic.watched().map((kind) => kind.key)).toContain('/v1, Kind=ConfigMap');
  });

  it("reuses the factory's informer of a kind that already runs and synced: no second list", async () => {
    const { dynamic, factory, signal, recording, seen, record } = await harness();
    const namespace = await cluster.namespace('dyn-reuse');
    const configMaps = clientFor(cluster.admin, { apiVersion: 'v1', kind: 'ConfigMap' });
    await configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared', namespace },
    });
    const controller = await factory.forKind({ apiVersion: 'v1', kind: 'ConfigMap' });
    controller.registerHandler(signal, 'factory-side', () => undefined);
    await factory.start(signal, 1);
    await factory.sharedCacheFactory().waitForCacheSync(signal);
    // LISTs and streaming lists (a streaming list refused by an older server counts once, with its LIST).
    const lists = (): number => listsOf(recording, 'v1/configmaps');
    expect(lists()).toBe(1);
    dynamic.onChange(signal, 'cms', (gvk) => gvk.group === '' && gvk.kind === 'ConfigMap', record);
    await dynamic.start(signal);
    expect(dynamic.watched()).toEqual([
      expect.objectContaining({ key: '/v1, Kind=ConfigMap', reused: true }),
    ]);
    await recording.waiter.until(
      () => seen.some((event) => event.key === `${namespace}/shared`),
      'the shared ConfigMap at the dynamic handler',
    );
    expect(lists()).toBe(1);
  });
});
