// Ports the intent of rancher/lasso pkg/cache/cache.go behaviours (deferred lister-watcher, resync); its RV "0" rewrite
// is now the reflector's `initialList: 'consistent'` (list-strategy.test.ts).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiError,
  Client,
  createRestConfig,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  RestTransport,
  type WatchEvent,
  type WatchOptions,
} from '@lasso/client';
import { LassoError, TimeoutError } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { startRun } from '../test/reflector-harness.ts';
import {
  type CacheClient,
  createCache,
  createClientListerWatcher,
  defaultCacheResyncMs,
  defaultResyncMsFromEnv,
} from './cache.ts';
import type { WatchError } from './errors.ts';
import { Reflector } from './reflector.ts';
import { createStore, namespaceIndex } from './store.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

interface Call {
  verb: 'list' | 'watch';
  namespace: string | undefined;
  options: ListOptions | WatchOptions | undefined;
}

function fakeClient(namespaced: boolean, objects: KubeObject[] = []) {
  const backend = new FakeListerWatcher({ objects });
  const calls: Call[] = [];
  const client: CacheClient & { calls: Call[]; backend: FakeListerWatcher } = {
    gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
    kind: 'Deployment',
    namespaced,
    calls,
    backend,
    list(namespace, options): Promise<ObjectList> {
      calls.push({ verb: 'list', namespace, options });
      return backend.list(options ?? {});
    },
    watch(namespace, options): AsyncIterable<WatchEvent> {
      calls.push({ verb: 'watch', namespace, options });
      return backend.watch(options ?? {});
    },
  };
  return client;
}

const deployment = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace, name },
});

/**
 * How many resyncs a handler of a cache with `resyncMs` (undefined: the default) sees over `steps` steps of
 * `stepMs`. At each step the silent watch times out and is resumed, which must not resync.
 */
async function resyncsOver(
  resyncMs: number | undefined,
  steps: number,
  stepMs: number,
): Promise<number> {
  const clock = new FakeClock();
  const client = fakeClient(true, [deployment('a', 'x')]);
  const informer = createCache(
    client,
    resyncMs === undefined ? { clock, random: () => 0 } : { clock, random: () => 0, resyncMs },
  );
  let updates = 0;
  informer.addEventHandler({ onUpdate: () => void updates++ });
  const controller = new AbortController();
  await informer.start(controller.signal);
  await client.backend.nextWatch();
  for (let step = 0; step < steps; step++) {
    for (const watch of client.backend.openWatches()) watch.end();
    await clock.advance(stepMs);
  }
  const seen = updates;
  controller.abort();
  await informer.stopped();
  return seen;
}

describe('createCache', () => {
  it('makes no API call before run, then lists and watches in the namespace with the tweaks applied', async () => {
    const clock = new FakeClock();
    const client = fakeClient(true, [deployment('team', 'web')]);
    const informer = createCache(client, {
      namespace: 'team',
      clock,
      random: () => 0,
      tweakList: (options) => {
        options.labelSelector = 'app=web';
      },
    });
    expect(client.calls).toEqual([]);
    expect(informer.name).toBe('apps/v1, Kind=Deployment');
    const controller = new AbortController();
    await informer.start(controller.signal);
    await client.backend.nextWatch();
    expect(
      client.calls.map((call) => [call.verb, call.namespace, call.options?.labelSelector]),
    ).toEqual([
      ['watch', 'team', 'app=web'], // the streaming list, refused by the fake
      ['list', 'team', 'app=web'],
      ['watch', 'team', 'app=web'],
    ]);
    expect(informer.getIndexer().byIndex(namespaceIndex, 'team')).toHaveLength(1);
    controller.abort();
    await informer.stopped();
  });

  it('ignores the namespace and adds no namespace index for a cluster-scoped kind', async () => {
    const clock = new FakeClock();
    const client = fakeClient(false);
    const informer = createCache(client, { namespace: 'team', clock, random: () => 0 });
    expect(Object.keys(informer.getIndexer().getIndexers())).toEqual([]);
    const controller = new AbortController();
    await informer.start(controller.signal);
    await client.backend.nextWatch();
    expect(client.calls.map((call) => call.namespace)).toEqual([undefined, undefined, undefined]);
    controller.abort();
    await informer.stopped();
  });

  it('defaults handler resync to 10 hours and never resyncs with resyncMs 0', async () => {
    expect(defaultCacheResyncMs).toBe(36_000_000);
    // Ten hours, an hour at a time.
    expect(await resyncsOver(undefined, 10, 3_600_000)).toBe(1);
    expect(await resyncsOver(0, 10, 3_600_000)).toBe(0);
  });

  it('reports a failing waitHealthy through its logger and keeps retrying the list', async () => {
    const clock = new FakeClock();
    const client = fakeClient(true, [deployment('a', 'x')]);
    client.backend.failNextList(new Error('connection refused'));
    const logger = createTestLogger();
    const informer = createCache(client, {
      clock,
      random: () => 0,
      logger,
      waitHealthy: async () => {
        throw new Error('health check failed');
      },
    });
    const controller = new AbortController();
    await informer.start(controller.signal);
    await clock.advance(800);
    await client.backend.nextWatch();
    expect(logger.find('waitHealthy failed')).toHaveLength(1);
    expect(logger.find('list failed, retrying')[0]?.attributes).toMatchObject({
      error: 'connection refused',
    });
    expect(informer.getStore().size()).toBe(1);
    controller.abort();
    await informer.stopped();
  });

  it('reads the default resync from CATTLE_RESYNC_DEFAULT minutes (lasso), an explicit resyncMs winning', async () => {
    expect(defaultResyncMsFromEnv({})).toBe(36_000_000);
    expect(defaultResyncMsFromEnv({ CATTLE_RESYNC_DEFAULT: '' })).toBe(36_000_000);
    expect(defaultResyncMsFromEnv({ CATTLE_RESYNC_DEFAULT: ' 90 ' })).toBe(5_400_000);
    expect(defaultResyncMsFromEnv({ CATTLE_RESYNC_DEFAULT: '0' })).toBe(0);
    for (const bad of ['10h', '-5', '1.5', 'ten']) {
      expect(() => defaultResyncMsFromEnv({ CATTLE_RESYNC_DEFAULT: bad })).toThrow(
        /CATTLE_RESYNC_DEFAULT must be a whole number of minutes/,
      );
    }
    vi.stubEnv('CATTLE_RESYNC_DEFAULT', '60');
    try {
      // Three and a half hours, half an hour at a time: an hourly resync, three times.
      expect(await resyncsOver(undefined, 7, 1_800_000)).toBe(3);
      expect(await resyncsOver(0, 7, 1_800_000)).toBe(0);
      vi.stubEnv('CATTLE_RESYNC_DEFAULT', 'soon');
      expect(() => createCache(fakeClient(true))).toThrow(/CATTLE_RESYNC_DEFAULT/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('rejects a negative resyncMs', () => {
    expect(() => createCache(fakeClient(true), { resyncMs: -1 })).toThrow(RangeError);
  });
});

describe('createClientListerWatcher', () => {
  it('passes a list at resourceVersion "0" through (the watch cache answers it; no Lasso Go rewrite to "")', async () => {
    const client = fakeClient(true);
    const listerWatcher = createClientListerWatcher(client, {
      tweakList: (options) => {
        options.labelSelector = 'a=b';
      },
    });
    await listerWatcher.list({ resourceVersion: '0', limit: 500 });
    expect(client.calls[0]?.options).toEqual({
      resourceVersion: '0',
      limit: 500,
      labelSelector: 'a=b',
    });
  });

  it('waits for the API to be healthy after a failed list, then reports the failure', async () => {
    const client = fakeClient(true);
    client.backend.failNextList(new Error('connection refused'));
    const order: string[] = [];
    const listerWatcher = createClientListerWatcher(client, {
      waitHealthy: async () => {
        order.push('waitHealthy');
      },
    });
    await expect(listerWatcher.list({})).rejects.toThrow('connection refused');
    expect(order).toEqual(['waitHealthy']);
  });

  it('throws the list error, not the waitHealthy failure, and logs the latter', async () => {
    const client = fakeClient(true);
    const listError = new Error('too old resource version');
    client.backend.failNextList(listError);
    const logger = createTestLogger();
    const listerWatcher = createClientListerWatcher(client, {
      logger,
      waitHealthy: async () => {
        throw new Error('health check failed');
      },
    });
    await expect(listerWatcher.list({})).rejects.toBe(listError);
    expect(logger.find('waitHealthy failed')[0]?.attributes).toMatchObject({
      error: 'health check failed',
      listError: 'too old resource version',
    });
  });
});

describe('createClientListerWatcher: watches that cannot connect wait on waitHealthy', () => {
  const refused = () =>
    new LassoError('LASSO_CONNECTION_FAILED', 'GET /apis/apps/v1/deployments: connection failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });

  function gated() {
    const client = fakeClient(true);
    let open: () => void = () => {};
    const waits: Array<{ signal?: AbortSignal }> = [];
    const listerWatcher = createClientListerWatcher(client, {
      waitHealthy: (options) => {
        waits.push(options);
        return new Promise<void>((resolve) => {
          open = resolve;
        });
      },
    });
    return { client, listerWatcher, waits, open: () => open() };
  }

  it('throws a refused watch only once waitHealthy resolved', async () => {
    const { client, listerWatcher, waits, open } = gated();
    const error = refused();
    client.backend.failNextWatch(error);
    const controller = new AbortController();
    const iterator = listerWatcher.watch({ signal: controller.signal })[Symbol.asyncIterator]();
    let settled: unknown;
    const next = iterator.next().then(
      () => 'resolved',
      (thrown: unknown) => {
        settled = thrown;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(waits).toHaveLength(1);
    expect(waits[0]?.signal).toBe(controller.signal);
    expect(settled).toBeUndefined();
    open();
    await next;
    expect(settled).toBe(error);
  });

  it('throws any other watch failure at once, without waiting', async () => {
    const { client, listerWatcher, waits } = gated();
    const forbidden = new ApiError({ status: 403, message: 'forbidden' });
    client.backend.failNextWatch(forbidden);
    const iterator = listerWatcher.watch({})[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toBe(forbidden);
    expect(waits).toHaveLength(0);
  });

  it('stops waiting when the watch is released, throwing its error without a warning', async () => {
    const client = fakeClient(true);
    const error = refused();
    client.backend.failNextWatch(error);
    const logger = createTestLogger();
    const listerWatcher = createClientListerWatcher(client, {
      logger,
      // As the health gate: rejects with the signal's reason when it aborts.
      waitHealthy: ({ signal }) =>
        new Promise<void>((_, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
    });
    const controller = new AbortController();
    const next = listerWatcher.watch({ signal: controller.signal })[Symbol.asyncIterator]().next();
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('released'));
    await expect(next).rejects.toBe(error);
    expect(logger.find('waitHealthy failed after a failed watch')).toHaveLength(0);
  });

  it('keeps the client batch view (one promise per body chunk, not per event)', async () => {
    const events = [
      { type: 'ADDED', object: deployment('ns', 'a') },
      { type: 'ADDED', object: deployment('ns', 'b') },
    ] as WatchEvent[];
    const client: CacheClient = {
      ...fakeClient(true),
      watch: () => ({
        [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }),
      }),
      watchBatches: () => ({
        [Symbol.asyncIterator]() {
          let sent = false;
          return {
            next: async () => {
              if (sent) return { done: true, value: undefined };
              sent = true;
              return { done: false, value: events };
            },
          };
        },
      }),
    };
    const listerWatcher = createClientListerWatcher(client, { waitHealthy: async () => {} });
    const batches = listerWatcher.watchBatches?.({})[Symbol.asyncIterator]();
    expect((await batches?.next())?.value).toEqual(events);
    expect((await batches?.next())?.done).toBe(true);
  });
});

describe('Reflector over a Client', () => {
  /** A loopback API for configmaps in `ns`: lists answer an empty list at resourceVersion 5; `watch` serves watches. */
  async function startApi(
    watch: (response: ServerResponse, url: URL, count: number) => void,
    clock: FakeClock,
  ) {
    let lists = 0;
    const watchUrls: URL[] = [];
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '', 'http://loopback');
      response.writeHead(200, { 'content-type': 'application/json' });
      if (url.searchParams.get('watch') !== 'true') {
        lists++;
        response.end(
          JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '5' }, items: [] }),
        );
        return;
      }
      watchUrls.push(url);
      watch(response, url, watchUrls.length);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const transport = new RestTransport(
      createRestConfig({
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        clock,
      }),
    );
    const client = new Client({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest: transport,
    });
    const errors: WatchError[] = [];
    let reported: (error: WatchError) => void = () => {};
    const store = createStore();
    const reflector = new Reflector(createClientListerWatcher(client, { namespace: 'ns' }), store, {
      clock,
      random: () => 0,
      // This loopback serves any watch as a plain one: these tests pin the watch, after a list.
      initialList: 'cached',
      watchErrorHandler: (error) => {
        errors.push(error);
        reported(error);
      },
    });
    const stopRun = startRun(reflector);
    return {
      store,
      errors,
      watchUrls,
      lists: () => lists,
      /** Resolves with the next reported failure. */
      nextError: () =>
        new Promise<WatchError>((resolve) => {
          reported = resolve;
        }),
      stop: async () => {
        await stopRun();
        await transport.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  /** Resolves once `count` watches have reached the server. */
  function watchesReached(count: number) {
    let resolve: () => void = () => {};
    const reached = new Promise<'reached'>((done) => {
      resolve = () => done('reached');
    });
    return { reached, seen: (n: number) => n >= count && resolve() };
  }

  it('resumes from the last resourceVersion without a relist when a watch body ends in the middle of an event', async () => {
    const second = watchesReached(2);
    const api = await startApi((response, _url, count) => {
      second.seen(count);
      if (count > 1) return; // stays open until the reflector stops
      const added = {
        type: 'ADDED',
        object: { metadata: { namespace: 'ns', name: 'a', resourceVersion: '6' } },
      };
      response.end(`${JSON.stringify(added)}\n{"type":"MODIFIED","object":{"metadata":{"na`);
    }, new FakeClock());
    try {
      expect(await Promise.race([second.reached, api.nextError()])).toBe('reached');
      expect(api.lists()).toBe(1);
      expect(api.watchUrls[1]?.searchParams.get('resourceVersion')).toBe('6');
      expect(api.store.listKeys()).toEqual(['ns/a']);
    } finally {
      await api.stop();
    }
  });

  it('runs one inactivity deadline per watch, closing a quiet watch at it and resuming', async () => {
    const clock = new FakeClock();
    const first = watchesReached(1);
    const second = watchesReached(2);
    const api = await startApi((_response, _url, count) => {
      first.seen(count);
      second.seen(count);
    }, clock);
    try {
      await first.reached;
      // The reflector's deadline only: the client was asked for none (it would arm a second one).
      expect(clock.pendingTimers()).toBe(1);
      const failure = api.nextError();
      await clock.advance(329_999);
      expect(api.errors).toEqual([]);
      await clock.advance(1);
      expect((await failure).cause).toBeInstanceOf(TimeoutError);
      expect(api.errors).toHaveLength(1);
      await clock.advance(800);
      await second.reached;
      expect(api.lists()).toBe(1);
      expect(api.watchUrls[1]?.searchParams.get('resourceVersion')).toBe('5');
    } finally {
      await api.stop();
    }
  });
});
