// Streaming lists (KEP-3157) against the API server: what it answers to a watch with sendInitialEvents, and an
// informer that syncs through it where it is served and falls back to a list where it is refused.
import { ApiError, type KubeObject, restTransportFor, type WatchEvent } from '@lasso/client';
import { createTestLogger, createTestMetricsProvider } from '@lasso/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CacheClient, createCache, waitForCacheSync } from '../../src/cache.ts';
import { startCluster, type TestCluster, whileRunning } from './helpers.ts';

describe('streaming lists against the API server', () => {
  let cluster: TestCluster;
  /** kube-apiserver's minor version; undefined for the built-in server. */
  let minor: number | undefined;

  beforeAll(async () => {
    cluster = await startCluster();
    if (cluster.env.mode !== 'builtin') {
      const version = await restTransportFor(cluster.rest).requestJson<{ minor?: string }>({
        method: 'GET',
        path: '/version',
      });
      minor = Number.parseInt(version.minor ?? '', 10);
    }
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('answers a watch with sendInitialEvents as the server version says', async () => {
    const namespace = await cluster.namespace('stream-raw');
    await cluster.configMaps.create(namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
    const events: WatchEvent[] = [];
    let refusal: unknown;
    const controller = new AbortController();
    try {
      for await (const event of cluster.configMaps.watch(namespace, {
        resourceVersion: '',
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: 10,
        signal: controller.signal,
      })) {
        events.push(event);
        if (event.type === 'BOOKMARK') break;
      }
    } catch (error) {
      refusal = error;
    }
    if (minor !== undefined && minor < 27) {
      // Measured on kube-apiserver 1.20.2: 422 Invalid ListOptions.meta.k8s.io, causes
      // "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch" and (at resourceVersion "")
      // "resourceVersionMatch is forbidden unless resourceVersion is provided". sendInitialEvents itself is unknown
      // there (KEP-3157: alpha in 1.27, kubernetes/kubernetes#115402); the answer comes before any event.
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({ status: 422, reason: 'Invalid' });
      expect((refusal as ApiError).message).toContain(
        'resourceVersionMatch is forbidden for watch',
      );
      expect(events).toEqual([]);
      return;
    }
    if (cluster.env.mode === 'builtin') {
      expect(refusal).toBeUndefined();
      expect(events.map((event) => event.type)).toEqual(['ADDED', 'BOOKMARK']);
      const bookmark = events[1]?.object as KubeObject;
      expect(bookmark.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
      expect(bookmark.metadata?.resourceVersion).toBe(
        (events[0]?.object as KubeObject | undefined)?.metadata?.resourceVersion,
      );
    }
  });

  it('refuses a bad combination of the options before any request', () => {
    expect(() =>
      cluster.configMaps.watch(undefined, { sendInitialEvents: true, allowWatchBookmarks: true }),
    ).toThrow(/sendInitialEvents.*resourceVersionMatch/);
    expect(() =>
      cluster.configMaps.watch(undefined, { resourceVersionMatch: 'NotOlderThan' }),
    ).toThrow(TypeError);
  });

  it('syncs an informer by the default strategy and then sees changes on the watch', async () => {
    const namespace = await cluster.namespace('stream-sync');
    for (const name of ['a', 'b', 'c']) {
      await cluster.configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
      });
    }
    const calls: string[] = [];
    const client: CacheClient = {
      gvr: cluster.configMaps.gvr,
      kind: cluster.configMaps.kind,
      namespaced: true,
      list: (ns, options) => {
        calls.push('list');
        return cluster.configMaps.list(ns, options);
      },
      watch: (ns, options) => {
        calls.push(options?.sendInitialEvents ? 'streaming' : 'watch');
        return cluster.configMaps.watch(ns, options);
      },
    };
    const metrics = createTestMetricsProvider();
    const logger = createTestLogger();
    const informer = createCache(client, { namespace, resyncMs: 0, metrics, logger });
    await whileRunning(informer, async (recorder) => {
      await waitForCacheSync(AbortSignal.timeout(20_000), informer);
      expect(informer.getStore().listKeys().sort()).toEqual(
        ['a', 'b', 'c'].map((name) => `${namespace}/${name}`),
      );
      await cluster.configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'd' },
      });
      await recorder.until(() => recorder.state.has(`${namespace}/d`), 'the new object');
      const fallbacks = metrics.value('lasso_reflector_streaming_list_fallbacks_total', {
        name: informer.name,
      });
      if (cluster.env.mode === 'builtin') {
        // One request for the state and the changes.
        expect(calls).toEqual(['streaming']);
        expect(fallbacks).toBe(0);
      } else if (minor !== undefined && minor < 27) {
        // Refused (422), then client-go's list at "0" and a watch; logged once, loud, with the reason.
        expect(calls).toEqual(['streaming', 'list', 'watch']);
        expect(fallbacks).toBe(1);
        expect(logger.find('the server refused the streaming list')).toHaveLength(1);
      }
    });
  });
}, 60_000);
