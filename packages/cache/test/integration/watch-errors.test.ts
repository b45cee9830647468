// A cache whose watch the API server refuses still reaches the server's state: a 405 (the resource cannot be watched)
// switches it to listing on an interval, a 403 (RBAC allows list but not watch) relists after every backoff and is
// said once until the watch is allowed again.
import { Client, type KubeObject } from '@lasso/client';
import type { LogAttributes, Logger } from '@lasso/core';
import { createTestMetricsProvider } from '@lasso/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CacheClient, createCache, waitForCacheSync } from '../../src/cache.ts';
import { sameState, serverState, startCluster, type TestCluster, whileRunning } from './helpers.ts';

const configMap = (name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { value },
});

interface Line {
  level: string;
  message: string;
  attributes: LogAttributes;
}

/** A logger that records every line and lets a test await one (bounded by a real-time deadline). */
function recordingLogger() {
  const lines: Line[] = [];
  const waiters = new Set<() => void>();
  const make = (base: LogAttributes): Logger => {
    const log =
      (level: string) =>
      (message: string, attributes: LogAttributes = {}): void => {
        lines.push({ level, message, attributes: { ...base, ...attributes } });
        for (const check of [...waiters]) check();
      };
    return {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
      child: (attributes) => make({ ...base, ...attributes }),
    };
  };
  const find = (text: string): Line[] => lines.filter((line) => line.message.includes(text));
  return {
    logger: make({}),
    lines,
    find,
    until(text: string, timeoutMs = 15_000): Promise<void> {
      if (find(text).length > 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (find(text).length === 0) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for a log line with ${JSON.stringify(text)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
      });
    },
  };
}

describe('a cache whose watch the API server refuses', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  afterEach(() => {
    cluster?.env.server?.faults.reset();
  });

  /** Creates c, updates a and deletes b (seeded a and b) as the admin, then awaits the store equal to the server. */
  async function writeAndConverge(
    namespace: string,
    state: () => Map<string, string>,
    until: (predicate: () => boolean, what: string, timeoutMs?: number) => Promise<void>,
  ): Promise<void> {
    await cluster.configMaps.create(namespace, configMap('c', 'created in the error window'));
    const a = await cluster.configMaps.get(namespace, 'a');
    await cluster.configMaps.update(namespace, {
      ...a,
      data: { value: 'updated in the error window' },
    });
    await cluster.configMaps.delete(namespace, 'b');
    const expected = await serverState(cluster.configMaps, namespace);
    await until(
      () => sameState(state(), expected),
      'the writes of the error window in the store',
      20_000,
    );
  }

  async function seed(prefix: string): Promise<string> {
    const namespace = await cluster.namespace(prefix);
    await cluster.configMaps.create(namespace, configMap('a', 'seed'));
    await cluster.configMaps.create(namespace, configMap('b', 'seed'));
    return namespace;
  }

  it('keeps the store current by listing on an interval when the watch answers 405', async (context) => {
    const server = cluster.env.server;
    // kube-apiserver serves watch for every resource that takes writes (componentstatuses, the one built-in
    // resource that lists but cannot be watched, is covered by the next test).
    if (server === undefined)
      return context.skip('needs the built-in server to answer 405 to watches of configmaps');
    const namespace = await seed('watch-405');
    server.faults.failNext(1_000_000, {
      watch: true,
      path: new RegExp(`/namespaces/${namespace}/configmaps`),
      status: 405,
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
    const metrics = createTestMetricsProvider();
    const log = recordingLogger();
    const informer = createCache(cluster.configMaps, {
      namespace,
      resyncMs: 0,
      pollIntervalMs: 300,
      metrics,
      logger: log.logger,
    });
    await whileRunning(informer, async (recorder) => {
      await waitForCacheSync(AbortSignal.timeout(10_000), informer);
      await log.until('listing every 300 ms');
      await writeAndConverge(
        namespace,
        () => recorder.state,
        (p, w, t) => recorder.until(p, w, t),
      );
      expect(recorder.violations).toEqual([]);
    });
    const name = informer.name;
    expect(metrics.value('lasso_reflector_polling', { name })).toBe(1);
    expect(log.find('listing every')).toEqual([expect.objectContaining({ level: 'warn' })]);
    expect(log.find('watch failed')).toEqual([]);
    expect(metrics.value('lasso_reflector_lists_total', { name })).toBeGreaterThanOrEqual(2);
  });

  // kube-apiserver 1.20 lists componentstatuses without a resourceVersion and answers a watch of them with 405 ("watch
  // is not supported on resources of kind componentstatuses"): either way the informer polls.
  it('syncs componentstatuses (list, no watch) on kube-apiserver by polling', async (context) => {
    if (cluster.env.mode === 'builtin') {
      return context.skip('the built-in server does not serve componentstatuses');
    }
    const componentStatuses = new Client({
      gvr: { group: '', version: 'v1', resource: 'componentstatuses' },
      kind: 'ComponentStatus',
      namespaced: false,
      rest: cluster.rest,
    });
    const metrics = createTestMetricsProvider();
    const log = recordingLogger();
    const informer = createCache(componentStatuses, {
      resyncMs: 0,
      pollIntervalMs: 1_000,
      metrics,
      logger: log.logger,
    });
    await whileRunning(informer, async () => {
      await waitForCacheSync(AbortSignal.timeout(20_000), informer);
      await log.until('listing every 1000 ms');
    });
    expect(informer.getStore().listKeys()).toContain('etcd-0');
    expect(metrics.value('lasso_reflector_polling', { name: informer.name })).toBe(1);
    expect(log.find('listing every')).toHaveLength(1);
  });

  it('never watches a resource configured with watchable: false and keeps it current by listing', async () => {
    const namespace = await seed('watch-off');
    const metrics = createTestMetricsProvider();
    const informer = createCache(cluster.configMaps, {
      namespace,
      resyncMs: 0,
      watchable: false,
      pollIntervalMs: 300,
      metrics,
    });
    await whileRunning(informer, async (recorder) => {
      await waitForCacheSync(AbortSignal.timeout(10_000), informer);
      await writeAndConverge(
        namespace,
        () => recorder.state,
        (p, w, t) => recorder.until(p, w, t),
      );
      expect(recorder.violations).toEqual([]);
    });
    const name = informer.name;
    expect(metrics.value('lasso_reflector_watches_total', { name })).toBe(0);
    expect(metrics.value('lasso_reflector_polling', { name })).toBe(1);
  });

  it('relists after every backoff while RBAC allows list but not watch, says so once, and says once when watch is allowed', async () => {
    const namespace = await seed('watch-403');
    const user = `lasso-list-only-${process.pid}`;
    const roles = new Client({
      gvr: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles' },
      kind: 'Role',
      namespaced: true,
      rest: cluster.rest,
    });
    const bindings = new Client({
      gvr: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings' },
      kind: 'RoleBinding',
      namespaced: true,
      rest: cluster.rest,
    });
    const role = (verbs: string[]): KubeObject =>
      ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'configmaps-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }],
      }) as KubeObject;
    await roles.create(namespace, role(['get', 'list']));
    await bindings.create(namespace, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'configmaps-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmaps-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    } as KubeObject);
    // The informer asks as that user; the writes are the admin's.
    const asUser: CacheClient = cluster.configMaps.withImpersonation({ user });
    const log = recordingLogger();
    const metrics = createTestMetricsProvider();
    const informer = createCache(asUser, {
      namespace,
      resyncMs: 0,
      initialBackoffMs: 100,
      maxBackoffMs: 400,
      metrics,
      logger: log.logger,
    });
    await whileRunning(informer, async (recorder) => {
      // RBAC takes a moment to see a new binding on kube-apiserver: the first lists may be refused too.
      await waitForCacheSync(AbortSignal.timeout(20_000), informer);
      await log.until(`may not watch`);
      await writeAndConverge(
        namespace,
        () => recorder.state,
        (p, w, t) => recorder.until(p, w, t),
      );
      const forbidden = log.find('forbidden:').filter((line) => line.attributes.verb === 'watch');
      expect(forbidden).toEqual([
        expect.objectContaining({
          level: 'warn',
          attributes: expect.objectContaining({
            verb: 'watch',
            resource: 'configmaps',
            user,
            namespace,
          }),
        }),
      ]);
      expect(log.find('watch failed')).toEqual([]);
      expect(
        metrics.value('lasso_reflector_relists_total', { name: informer.name }),
      ).toBeGreaterThanOrEqual(1);
      // Allowed again: the next watch opens; an event on it says so once.
      const current = await roles.get(namespace, 'configmaps-reader');
      await roles.update(namespace, {
        ...current,
        rules: role(['get', 'list', 'watch']).rules,
      } as KubeObject);
      // A write the open watch delivers proves it; one made before the informer's next watch opens (RBAC sees the
      // change a moment later, and the informer retries after its backoff) arrives by a relist instead: write again.
      for (let i = 0; log.find('watch allowed again').length === 0; i++) {
        if (i === 20) throw new Error('the watch was not allowed again within 20 writes');
        await cluster.configMaps.create(namespace, configMap(`after-${i}`, 'watch allowed'));
        await log.until('watch allowed again', 1_000).catch(() => {});
      }
      expect(log.find('watch allowed again')).toEqual([expect.objectContaining({ level: 'info' })]);
      expect(
        log.find('forbidden:').filter((line) => line.attributes.verb === 'watch'),
      ).toHaveLength(1);
      // No token (nor any credential) in any line.
      const token = cluster.env.credentials.token;
      if (token !== undefined) expect(JSON.stringify(log.lines)).not.toContain(token);
    });
  }, 60_000);
});
