// The operator's probes and metrics over HTTP, against @lasso/envtest (built-in server or kube-apiserver):
// /healthz and /readyz answered from the factories' status (ready = a run started, its kinds synced, running
// or standing by), /metrics in Prometheus text with the lasso series, and warm standby under leader election.
import { loadKubeConfig, type RestConfig } from '@lasso/client';
import type { LogAttributes, Logger } from '@lasso/core';
import { createTestLogger } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { kindFor } from '@lasso/factory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOperator,
  type Operator,
  OperatorClosedError,
  OperatorListenError,
} from '../../src/index.ts';

let env: Environment;
let rest: RestConfig;

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
});

afterAll(async () => {
  await env?.stop();
});

const local = { host: '127.0.0.1', port: 0 };

async function get(address: string | undefined, path: string, method = 'GET') {
  const response = await fetch(`http://${address}${path}`, { method });
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get('content-type'),
  };
}

/**
 * A test logger whose `until(predicate)` re-checks on every entry the operator logs (its phase changes are
 * logged: leading, standing by, stopped), with a real-time deadline: no polling.
 */
function notifyingLogger() {
  const entries = createTestLogger();
  const checks = new Set<() => void>();
  const wrap = (base: Logger): Logger => {
    const notify =
      (level: 'debug' | 'info' | 'warn' | 'error') =>
      (message: string, attributes?: LogAttributes) => {
        base[level](message, attributes);
        queueMicrotask(() => {
          for (const check of [...checks]) check();
        });
      };
    return {
      debug: notify('debug'),
      info: notify('info'),
      warn: notify('warn'),
      error: notify('error'),
      child: (attributes) => wrap(base.child(attributes)),
    };
  };
  const until = (predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate()) return;
        checks.delete(check);
        clearTimeout(deadline);
        resolve();
      };
      const deadline = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      checks.add(check);
      check();
    });
  return { logger: wrap(entries), entries: entries.entries, until };
}

describe('operator endpoints', () => {
  it('answers /healthz, /readyz and /metrics over HTTP through a run, a restart and close', async () => {
    const logger = createTestLogger();
    const operator = await createOperator({
      kubeconfig: env.kubeconfigPath,
      health: local,
      metrics: local,
      logger,
    });
    expect(operator.addresses()).toEqual({ health: undefined, metrics: undefined });
    const configMaps = await operator.forKind(kindFor('v1', 'ConfigMap'));
    configMaps.registerHandler(operator.signal, 'noop', (_key, cm) => cm);
    let stop = new AbortController();
    try {
      await operator.start(stop.signal);
      const { health, metrics } = operator.addresses();
      expect(health).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(metrics).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(metrics).not.toBe(health);

      expect(await get(health, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
      const ready = await get(health, '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toBe(
        '[+]phase running\n[+]kind /v1, Kind=ConfigMap running\nreadyz check passed\n',
      );
      expect(operator.status()).toMatchObject({ phase: 'running', ready: true, healthy: true });

      const scrape = await get(metrics, '/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.type).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(scrape.body).toContain('# TYPE rest_client_requests_total counter\n');
      expect(scrape.body).toMatch(
        /^rest_client_requests_total\{code="200",host="[^"]+",method="GET"\} [1-9]\d*$/m,
      );
      expect(scrape.body).toContain('# TYPE workqueue_adds_total counter\n');
      expect(scrape.body).toMatch(/^workqueue_depth\{name="\/v1, Kind=ConfigMap"\} \d+$/m);
      // Every non-comment line is `name{labels} value`, as Prometheus parses it.
      for (const line of scrape.body.trimEnd().split('\n')) {
        if (!line.startsWith('#')) expect(line).toMatch(/^[a-zA-Z_:][\w:]*(\{.*\})? \S+$/);
      }

      expect((await get(health, '/metrics')).status).toBe(404);
      expect((await get(metrics, '/healthz')).status).toBe(404);
      expect((await get(health, '/healthz', 'POST')).status).toBe(405);

      // Between runs the endpoints still answer: alive, not ready.
      stop.abort();
      expect((await operator.stopped()).drained).toBe(true);
      expect(await get(health, '/healthz')).toMatchObject({ status: 200 });
      expect(await get(health, '/readyz')).toMatchObject({
        status: 503,
        body: '[-]phase idle\n[-]kind /v1, Kind=ConfigMap stopped\nreadyz check failed\n',
      });

      stop = new AbortController();
      await operator.start(stop.signal);
      expect(operator.addresses().health).toBe(health);
      expect((await get(health, '/readyz')).status).toBe(200);
    } finally {
      stop.abort();
      await operator.stopped();
      await operator.close();
    }
    await expect(get(operator.addresses().health, '/healthz')).rejects.toThrow();
    expect(operator.status()).toMatchObject({ phase: 'closed', healthy: false, ready: false });
    await expect(operator.start(new AbortController().signal)).rejects.toBeInstanceOf(
      OperatorClosedError,
    );
    expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('serves the three paths on one port when health and metrics name the same address', async () => {
    const first = await createOperator({ config: rest, health: local, logger: createTestLogger() });
    const stop = new AbortController();
    await first.start(stop.signal);
    const port = Number(first.addresses().health?.split(':')[1]);
    stop.abort();
    await first.stopped();
    await first.close();
    const operator = await createOperator({
      config: rest,
      health: { host: '127.0.0.1', port },
      metrics: { host: '127.0.0.1', port },
      logger: createTestLogger(),
    });
    const run = new AbortController();
    try {
      await operator.start(run.signal);
      const { health, metrics } = operator.addresses();
      expect(metrics).toBe(health);
      expect((await get(health, '/healthz')).status).toBe(200);
      expect((await get(health, '/metrics')).status).toBe(200);
    } finally {
      run.abort();
      await operator.close();
    }
  });

  it('rejects start with an OperatorListenError when the port is taken, and starts nothing', async () => {
    const holder = await createOperator({
      config: rest,
      metrics: local,
      logger: createTestLogger(),
    });
    const hold = new AbortController();
    await holder.start(hold.signal);
    const port = Number(holder.addresses().metrics?.split(':')[1]);
    const operator = await createOperator({
      config: rest,
      metrics: { host: '127.0.0.1', port },
      logger: createTestLogger(),
    });
    try {
      const error = await operator.start(new AbortController().signal).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OperatorListenError);
      expect(error).toMatchObject({
        code: 'LASSO_OPERATOR_LISTEN',
        endpoint: 'metrics',
        address: `127.0.0.1:${port}`,
      });
      expect(operator.isRunning()).toBe(false);
      expect(operator.status().phase).toBe('idle');
    } finally {
      hold.abort();
      await holder.close();
      await operator.close();
    }
  });

  it('with leader election: the standby is ready with synced caches, and takes over when the leader stops', async () => {
    const election = {
      namespace: 'default',
      name: `endpoints-${process.pid}`,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 100,
    };
    const logs = notifyingLogger();
    const until = logs.until;
    const start = async (identity: string): Promise<[Operator, AbortController]> => {
      const operator = await createOperator({
        config: rest,
        health: local,
        leaderElection: { ...election, identity },
        logger: logs.logger,
      });
      const configMaps = await operator.forKind(kindFor('v1', 'ConfigMap'));
      configMaps.registerHandler(operator.signal, 'noop', (_key, cm) => cm);
      const stop = new AbortController();
      await operator.start(stop.signal);
      return [operator, stop];
    };
    const [leader, stopLeader] = await start('leader');
    // The second candidate starts once the first leads: which one wins is then not a race.
    await until(() => leader.status().phase === 'running', 'the first to lead');
    const [standby, stopStandby] = await start('standby');
    try {
      await until(() => standby.status().leader === 'leader', 'the standby to see the leader');
      // Ready once its caches synced, while standing by.
      await standby.factory.sharedCacheFactory().waitForCacheSync(stopStandby.signal);
      expect(standby.status().ready).toBe(true);
      expect(standby.status().phase).toBe('standingBy');
      const readyz = await get(standby.addresses().health, '/readyz');
      expect(readyz).toMatchObject({ status: 200 });
      expect(readyz.body).toContain('[+]phase standingBy\n[+]kind /v1, Kind=ConfigMap running\n');

      // releaseOnCancel: the leader hands the Lease back once its workers stopped.
      stopLeader.abort();
      expect((await leader.stopped()).drained).toBe(true);
      await until(() => standby.status().phase === 'running', 'the standby to take over', 10_000);
      expect(standby.status()).toMatchObject({ leader: 'standby', ready: true });
      expect(leader.leadershipLost()).toBeUndefined();
    } finally {
      stopLeader.abort();
      stopStandby.abort();
      await Promise.all([leader.close(), standby.close()]);
    }
  });
});
