// One replica of the failover benchmark (failover.ts), forked with: kubeconfigPath namespace leaseName identity
// mode leaseMs renewMs retryMs. A @lasso/factory controller of ConfigMaps behind a @lasso/controller leader
// elector. `warm`: the caches run for the process lifetime (started with the process signal) and the workers
// only while leading (`factory.start(leaderSignal, workers)` in onStartedLeading), so a standby's queue is
// filled before it leads; `cold`: everything starts once leading. Reports over IPC, with epoch-ms timestamps
// (performance.timeOrigin + performance.now(), comparable across processes): `synced` (warm caches),
// `standby` (campaigning), `leading`, and `reconcile` for the first reconcile after it leads. `pause`
// (warm): the leader keeps writing one ConfigMap (a merge patch
// every ~100 ms, with the reconcile's signal) and reports each write the server accepted (`write`, at the time
// it was sent) and the loss of leadership (`lost`), for the fencing probe; `pause-unfenced` writes without the
// signal (the probe's control).
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, loadKubeConfig } from '@lasso/client';
import { createLeaderElector, retryAfter } from '@lasso/controller';
import { noopLogger } from '@lasso/core';
import { createSharedControllerFactoryFromConfig } from '@lasso/factory';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

/** What a replica reports. */
export interface ReplicaReport {
  type: 'synced' | 'standby' | 'leading' | 'reconcile' | 'write' | 'lost' | 'stuck' | 'failed';
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
// Reports after the parent went away (at shutdown) are dropped, not an 'error' event that ends the process.
const report = (message: ReplicaReport): void => {
  if (process.connected) process.send?.(message, undefined, undefined, () => {});
};
const send = (message: Omit<ReplicaReport, 'identity' | 'at'>): void =>
  report({ ...message, identity, at: epochNow() });

async function main(): Promise<void> {
  const processStop = new AbortController();
  process.once('disconnect', () => processStop.abort());
  const rest = await loadKubeConfig({ path: kubeconfigPath });
  const factory = createSharedControllerFactoryFromConfig(rest, { logger: noopLogger });
  const configMaps = await factory.forKind({ group: '', version: 'v1', kind: 'ConfigMap' });
  let leading = false;
  let reported = false;
  const pausing = mode.startsWith('pause');
  configMaps.registerHandler(processStop.signal, 'failover', async (_key, object, context) => {
    if (!leading || object?.metadata?.namespace !== namespace) return undefined;
    if (!reported) {
      reported = true;
      send({ type: 'reconcile' });
    }
    if (!pausing || object.metadata?.name !== 'cm-000000') return undefined;
    // A reconcile that waits, then writes with its signal: what a paused leader has in flight.
    // `pause-unfenced` is the control: its writes ignore the signal, as a handler without one would.
    const signal = mode === 'pause-unfenced' ? undefined : context?.signal;
    await sleep(100, undefined, { signal });
    const sentAt = epochNow();
    await configMaps
      .client()
      .patch(
        namespace,
        'cm-000000',
        'merge',
        { metadata: { annotations: { 'bench.lasso.dev/writer': `${identity} ${sentAt}` } } },
        { signal },
      );
    report({ type: 'write', identity, at: sentAt });
    throw retryAfter(0);
  });
  if (mode !== 'cold') {
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
        send({ type: 'lost' });
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
