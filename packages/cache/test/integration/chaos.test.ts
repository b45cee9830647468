// Under a writer and repeated faults (closed watches, 500/429, expired history, cut bodies, restarts), a cache
// recovers on its own: afterwards its store equals the server and every handler saw each key's final state.
import type { Client, KubeObject } from '@lasso/client';
import { loadKubeConfig, RestTransport } from '@lasso/client';
import { isLassoError } from '@lasso/core';
import { createTestMetricsProvider } from '@lasso/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCache, waitForCacheSync } from '../../src/cache.ts';
import type { WatchError } from '../../src/errors.ts';
import {
  configMapClient,
  forEachConcurrent,
  StateRecorder,
  sameState,
  serverState,
  startCluster,
  type TestCluster,
  versions,
} from './helpers.ts';

const configMap = (name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { value },
});

/** Seeded pseudo-random numbers: the same operation mix every run (the interleaving with I/O still varies). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('createCache under faults', () => {
  let cluster: TestCluster;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    cluster = await startCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });

  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
    cluster?.env.server?.faults.reset();
  });

  function startInformer(namespace: string) {
    const metrics = createTestMetricsProvider();
    const errors: WatchError[] = [];
    const informer = createCache(cluster.configMaps, {
      namespace,
      resyncMs: 0,
      metrics,
      initialBackoffMs: 20,
      maxBackoffMs: 400,
      watchErrorHandler: (error) => errors.push(error),
    });
    const fast = new StateRecorder();
    const slow = new StateRecorder();
    informer.addEventHandler(fast.handler(), { name: 'fast' });
    informer.addEventHandler(slow.handler({ slow: true }), { name: 'slow' });
    informer.addEventHandler(
      {
        onAdd: () => {
          throw new Error('a broken handler');
        },
      },
      { name: 'broken' },
    );
    const controller = new AbortController();
    void informer.start(controller.signal);
    const counter = (name: string) => metrics.value(name, { name: informer.name });
    /** Wait until the store and every recording handler equal the server's state. */
    const converged = async (): Promise<Map<string, string>> => {
      const server = await serverState(cluster.configMaps, namespace);
      const storeMatches = () => sameState(versions(informer.getStore().list()), server);
      await fast.until(
        () => storeMatches() && sameState(fast.state, server),
        'the fast handler to converge',
      );
      await slow.until(() => sameState(slow.state, server), 'the slow handler to converge');
      return server;
    };
    return {
      informer,
      fast,
      slow,
      errors,
      counter,
      converged,
      stop: async () => {
        controller.abort();
        await informer.stopped();
      },
    };
  }

  it('equals the server and every handler saw each final state after writes under faults', async (context) => {
    const server = cluster.env.server;
    if (server === undefined) return context.skip();
    const namespace = await cluster.namespace('chaos');
    const random = seeded(0x5eed);
    const names = Array.from({ length: 40 }, (_, i) => `cm-${i}`);
    await forEachConcurrent(names.slice(0, 20), 8, async (name) => {
      await cluster.configMaps.create(namespace, configMap(name, 'seed'));
    });
    const subject = startInformer(namespace);
    try {
      await waitForCacheSync(AbortSignal.timeout(10_000), subject.informer);
      const path = new RegExp(`/namespaces/${namespace}/configmaps`);
      let writing = true;
      let writes = 0;
      // Run by the first write started after it was set: lets a fault act once the server has moved on without
      // the informer (a write already in flight may still reach the informer's closing watch).
      let afterNextWrite: { from: number; run: () => void } | undefined;
      let writesStarted = 0;
      const watches = () => subject.counter('lasso_reflector_watches_total');
      const relists = () => subject.counter('lasso_reflector_relists_total');
      /** Keep the informer away; once a write lands, forget history so its next watch gets a 410 and it relists. */
      const awayThenExpire = (): void => {
        server.faults.failNext(3, { path, watch: true, status: 500 });
        server.faults.closeWatches();
        afterNextWrite = { from: writesStarted, run: () => server.faults.expireHistory() };
      };
      // Each fault returns when it has taken effect: a fault waiting for a future request is only ever useful
      // when the informer makes that request, so most faults also close the current watch.
      const faults: Array<() => () => boolean> = [
        () => {
          const before = watches();
          server.faults.closeWatches();
          return () => watches() > before;
        },
        () => {
          // A 500 on a watch ends the watch session (client-go): the informer relists after the backoff.
          const before = relists();
          server.faults.failNext(2, { path, watch: true, status: 500 });
          server.faults.closeWatches();
          return () => relists() > before;
        },
        () => {
          const before = watches();
          server.faults.failNext(2, { path, watch: true, status: 429, retryAfterSeconds: 0 });
          server.faults.closeWatches();
          // The client itself retries a 429 (client-go's MaxRetries), so the reflector may see one watch.
          return () => watches() > before;
        },
        () => {
          const before = relists();
          server.faults.failNext(1, { path, method: 'GET', watch: false, status: 500 });
          awayThenExpire();
          return () => relists() > before;
        },
        () => {
          const before = watches();
          server.faults.cutNext(1, { path, watch: true, afterBytes: 64 });
          server.faults.closeWatches();
          return () => watches() > before + 1;
        },
        () => {
          server.faults.sendBookmarks();
          return () => true;
        },
        () => {
          const before = relists();
          server.faults.cutNext(1, { path, method: 'GET', watch: false, afterBytes: 100 });
          awayThenExpire();
          return () => relists() > before;
        },
        () => {
          const before = watches();
          server.faults.expireHistory();
          server.faults.closeWatches();
          return () => watches() > before;
        },
      ];
      const chaos = (async () => {
        // No wall-clock pacing: each fault comes once the informer has delivered a few events through its
        // current watch, and the next waits until it took effect (each wait bounded by the recorder's deadline).
        // The writers go on until every fault has run twice.
        try {
          for (let round = 0; round <= 2 * faults.length; round++) {
            const mark = subject.fast.events;
            await subject.fast.until(
              () => subject.fast.events >= mark + 3,
              `events before fault ${round}`,
            );
            if (round === 2 * faults.length) break;
            const tookEffect = (faults[round % faults.length] as () => () => boolean)();
            await subject.fast.until(tookEffect, `fault ${round} to take effect`);
          }
        } finally {
          writing = false;
        }
      })();
      // Each writer owns the names congruent to its index, so writes never conflict with each other.
      const writers = Array.from({ length: 4 }, async (_, writer) => {
        const mine = names.filter((_, i) => i % 4 === writer);
        const exists = new Set(mine.filter((name) => names.indexOf(name) < 20));
        for (let op = 0; writing; op++) {
          const name = mine[Math.floor(random() * mine.length)] as string;
          const started = ++writesStarted;
          try {
            if (!exists.has(name)) {
              await cluster.configMaps.create(namespace, configMap(name, `v${op}`));
              exists.add(name);
            } else if (random() < 0.7) {
              await cluster.configMaps.update(namespace, configMap(name, `v${op}`));
            } else {
              await cluster.configMaps.delete(namespace, name);
              exists.delete(name);
            }
            writes++;
            if (afterNextWrite !== undefined && started > afterNextWrite.from) {
              const hook = afterNextWrite;
              afterNextWrite = undefined;
              hook.run();
            }
          } catch {
            // A write hit by an injected fault: the server state is read back at the end anyway.
          }
        }
      });
      await Promise.all([chaos, ...writers]);
      server.faults.reset();
      const final = await subject.converged();
      expect(final.size).toBeGreaterThan(0);
      expect(writes).toBeGreaterThan(100);
      expect(subject.errors.length).toBeGreaterThan(0);
      expect(subject.counter('lasso_reflector_errors_total')).toBe(subject.errors.length);
      expect(subject.counter('lasso_reflector_restarts_total')).toBeGreaterThan(0);
      expect(subject.counter('lasso_reflector_relists_total')).toBeGreaterThan(0);
      expect(subject.informer.getStore().size()).toBe(final.size);

      // Without faults every change must arrive through the watch (a relist would hide a lost event).
      const relistsBeforeCalm = relists();
      const present = [...final.keys()].map((key) => key.split('/')[1] as string);
      const absent = names.filter((name) => !final.has(`${namespace}/${name}`));
      for (const name of present.slice(0, 6)) await cluster.configMaps.delete(namespace, name);
      for (const name of present.slice(6, 12))
        await cluster.configMaps.update(namespace, configMap(name, 'calm'));
      for (const name of absent.slice(0, 6))
        await cluster.configMaps.create(namespace, configMap(name, 'calm'));
      const calm = await subject.converged();
      expect(calm.size).toBe(final.size - Math.min(6, present.length) + Math.min(6, absent.length));
      expect(relists()).toBe(relistsBeforeCalm);
      expect(subject.fast.violations).toEqual([]);
      expect(subject.slow.violations).toEqual([]);
      expect(unhandled).toEqual([]);
    } finally {
      await subject.stop();
    }
  }, 60_000);

  /**
   * The test's own writes after a restart, on a transport of their own: the restart closed every connection, and a
   * write sent on a pooled one before the client saw it close fails (the client, like client-go, does not send
   * again a write the server may have read). The informer under test keeps its transport.
   */
  async function afterRestart(writes: (configMaps: Client) => Promise<void>): Promise<void> {
    const transport = new RestTransport(await loadKubeConfig({ path: cluster.env.kubeconfigPath }));
    try {
      await writes(configMapClient(transport));
    } finally {
      await transport.close();
    }
  }

  it('recovers from a server restart and from an unreachable server without being restarted', async (context) => {
    const server = cluster.env.server;
    if (server === undefined) return context.skip();
    const namespace = await cluster.namespace('restart');
    await forEachConcurrent(['a', 'b', 'c'], 3, async (name) => {
      await cluster.configMaps.create(namespace, configMap(name, 'seed'));
    });
    const subject = startInformer(namespace);
    try {
      await waitForCacheSync(AbortSignal.timeout(10_000), subject.informer);
      await server.faults.restart({ downMs: 0 });
      await afterRestart(async (configMaps) => {
        await configMaps.create(namespace, configMap('after-restart', '1'));
        await configMaps.update(namespace, configMap('a', 'changed'));
      });
      await subject.converged();

      await server.faults.restart({ downMs: 1_500 });
      await afterRestart(async (configMaps) => {
        await configMaps.delete(namespace, 'b');
        await configMaps.create(namespace, configMap('after-outage', '1'));
      });
      const final = await subject.converged();
      expect([...final.keys()].sort()).toEqual(
        [
          `${namespace}/a`,
          `${namespace}/after-outage`,
          `${namespace}/after-restart`,
          `${namespace}/c`,
        ].sort(),
      );
      expect(
        subject.errors.some((error) => isLassoError(error.cause, 'LASSO_CONNECTION_FAILED')),
      ).toBe(true);
      expect(subject.informer.isRunning()).toBe(true);
      expect(subject.fast.violations).toEqual([]);
      expect(subject.slow.violations).toEqual([]);
      expect(unhandled).toEqual([]);
    } finally {
      await subject.stop();
    }
  }, 60_000);
});
