// One replica of the failover benchmark (failover.ts), forked with: kubeconfigPath namespace leaseName identity
// mode leaseMs renewMs retryMs. A @lasso/factory controller of ConfigMaps behind a @lasso/controller leader
// elector. `warm`: the caches run for the process lifetime (started with the process signal) and the workers
// only while leading (`factory.start(leaderSignal, workers)` in onStartedLeading), so a standby's queue is
// filled before it leads; `cold`: everything starts once leading. Reports over IPC, with epoch-ms timestamps
// (performance.timeOrigin + performance.now(), comparable across processes): `synced` (warm caches),
// `standby` (campaigning), `leading`, and `reconcile` for the first reconcile after it leads.
import { Client, loadKubeConfig } from '@lasso/client';
import { createLeaderElector } from '@lasso/controller';
import { noopLogger } from '@lasso/core';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

/** What a replica reports. */
export interface ReplicaReport {
  type: 'synced' | 'standby' | 'leading' | 'reconcile' | 'stuck' | 'failed';
  identity: string;
  at: number;
  message?: string;
}

const [
  kubeconfigPath = '',
  namespace = 'failover',
  leaseName = 'failover',
  identity = 'a',
  mode = 'warm',
] = process.argv.slice(2);
const [leaseDurationMs, renewDeadlineMs, retryPeriodMs] = process.argv.slice(7).map(Number);

const epochNow = (): number => performance.timeOrigin + performance.now();
const send = (report: Omit<ReplicaReport, 'identity' | 'at'>): void => {
  process.send?.({ ...report, identity, at: epochNow() });
};

async function main(): Promise<void> {
  const processStop = new AbortController();
  process.once('disconnect', () => processStop.abort());
  const rest = await loadKubeConfig({ path: kubeconfigPath });
  const factory = createSharedControllerFactoryFromConfig(rest, { logger: noopLogger });
  const configMaps = await factory.forKind({ group: '', version: 'v1', kind: 'ConfigMap' });
  let leading = false;
  let reported = false;
  configMaps.registerHandler(processStop.signal, 'failover', (_key, object) => {
    if (leading && !reported && object?.metadata?.namespace === namespace) {
      reported = true;
      send({ type: 'reconcile' });
    }
    return undefined;
  });
  if (mode === 'warm') {
    await factory.sharedCacheFactory().start(processStop.signal);
    await factory.sharedCacheFactory().waitForCacheSync(processStop.signal);
    send({ type: 'synced' });
  }
  const leases = new Client<Lease>({
    gvr: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
    kind: 'Lease',
    namespaced: true,
    rest,
  });
  const elector = createLeaderElector(
    {
      client: leases,
      namespace,
      name: leaseName,
      identity,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      logger: noopLogger,
    },
    {
      onStartedLeading: async (signal) => {
        leading = true;
        send({ type: 'leading' });
        // A leader that has not reconciled 20 s after winning says where its kinds are, for the report.
        const probe = setTimeout(() => {
          if (!reported) send({ type: 'stuck', message: JSON.stringify(factory.status()) });
        }, 20_000);
        signal.addEventListener('abort', () => clearTimeout(probe), { once: true });
        await factory.start(signal, 2);
      },
      onStoppedLeading: () => {
        leading = false;
      },
    },
  );
  await elector.start(processStop.signal);
  send({ type: 'standby' });
  await elector.stopped();
  await factory.close();
}

main().catch((error: unknown) => {
  send({
    type: 'failed',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  process.exitCode = 1;
});
