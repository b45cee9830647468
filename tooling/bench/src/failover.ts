// `pnpm bench:failover`: leader failover of two replicas (failover-replica.ts, each its own process) against the
// @lasso/envtest API server (in a server child process). Replica a leads and has reconciled, replica b stands
// by (warm: caches synced, queue filled; cold: nothing started but the election), then a is SIGKILLed. Measured
// per round: kill -> b leads, b leads -> b's first reconcile, and kill -> first reconcile (the failover), with
// the lease settings printed. Then the fencing probe: the leader, writing one ConfigMap every ~100 ms with its
// reconcile's signal, is SIGSTOPped until the standby has taken over, then SIGCONTed: counted are the writes it
// sent after waking that the server accepted (goal: none), with the elector's fencing and, as
// the control, with writes that ignore the signal. Sizes: --lease MS --renew MS --retry MS (client-go defaults 15000/10000/2000)
// --rounds N (per mode) --objects N (ConfigMaps the controllers cache).
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { loadKubeConfig, RestTransport } from '@lasso/client';
import { startServerChild } from './child.ts';
import { configMapClient, seedConfigMaps } from './configmap-client.ts';
import type { ReplicaReport } from './failover-replica.ts';
import { type BenchSummary, machineNote, median, parseSizes, recordResults } from './measure.ts';

const sizes = parseSizes(process.argv.slice(2), {
  lease: 15_000,
  renew: 10_000,
  retry: 2_000,
  rounds: 3,
  objects: 500,
  pauses: 2,
});

const epochNow = (): number => performance.timeOrigin + performance.now();

/** A forked replica: its reports, waited for by type. */
class Replica {
  readonly child: ChildProcess;
  readonly reports: ReplicaReport[] = [];
  readonly #waiters: Array<{
    type: string;
    resolve(report: ReplicaReport): void;
    reject(error: Error): void;
  }> = [];
  readonly exited: Promise<unknown>;

  constructor(args: string[]) {
    this.child = fork(new URL('./failover-replica.js', import.meta.url), args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = once(this.child, 'exit');
    this.child.on('message', (message) => {
      const report = message as ReplicaReport;
      this.reports.push(report);
      if (report.type === 'stuck')
        process.stderr.write(`replica ${report.identity} stuck: ${report.message}\n`);
      if (report.type === 'failed') {
        for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error(report.message));
        return;
      }
      for (const waiter of this.#waiters.filter((w) => w.type === report.type)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(report);
      }
    });
    this.child.once('exit', (code, signal) => {
      for (const waiter of this.#waiters.splice(0)) {
        waiter.reject(
          new Error(`replica exited (${code ?? signal}) before reporting ${waiter.type}`),
        );
      }
    });
  }

  /** The first report of `type` (already received or next), within `timeoutMs`. */
  report(type: ReplicaReport['type'], timeoutMs: number): Promise<ReplicaReport> {
    const seen = this.reports.find((report) => report.type === type);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<ReplicaReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        const seen = this.reports.map((report) => report.type).join(', ') || 'nothing';
        reject(new Error(`no ${type} within ${timeoutMs} ms (reported: ${seen})`));
      }, timeoutMs);
      this.#waiters.push({
        type,
        resolve: (report) => {
          clearTimeout(timer);
          resolve(report);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.connected) {
      this.child.disconnect();
    }
    await this.exited;
  }
}

interface Round {
  mode: string;
  killToLeadingMs: number;
  leadingToReconcileMs: number;
  failoverMs: number;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Replicas a and b of a round of `mode` on their own lease: a is started first and leads (it has reconciled)
 * before b starts, so that a wins the lease; `use` runs with both, which are stopped after it.
 */
async function withReplicas<T>(
  kubeconfigPath: string,
  namespace: string,
  mode: string,
  index: number,
  use: (a: Replica, b: Replica) => Promise<T>,
): Promise<T> {
  const lease = `failover-${mode}-${index}`;
  const args = (identity: string) => [
    kubeconfigPath,
    namespace,
    lease,
    identity,
    mode,
    String(sizes.lease),
    String(sizes.renew),
    String(sizes.retry),
  ];
  const a = new Replica(args('a'));
  let b: Replica | undefined;
  try {
    await a.report('reconcile', 120_000);
    b = new Replica(args('b'));
    return await use(a, b);
  } finally {
    await Promise.allSettled([a.stop(), b?.stop()]);
  }
}

function round(
  kubeconfigPath: string,
  namespace: string,
  mode: string,
  index: number,
): Promise<Round> {
  return withReplicas(kubeconfigPath, namespace, mode, index, async (a, b) => {
    await b.report('standby', 120_000);
    if (mode === 'warm') await b.report('synced', 120_000);
    // Let b observe a's renewals for a while, as a standby that has been up for some time.
    await wait(sizes.retry * 2);
    const killedAt = epochNow();
    a.child.kill('SIGKILL');
    const timeoutMs = sizes.lease * 3 + 60_000;
    const leading = await b.report('leading', timeoutMs);
    const reconcile = await b.report('reconcile', timeoutMs);
    return {
      mode,
      killToLeadingMs: leading.at - killedAt,
      leadingToReconcileMs: reconcile.at - leading.at,
      failoverMs: reconcile.at - killedAt,
    };
  });
}

interface PauseRound {
  mode: string;
  pausedMs: number;
  resumeToLostMs: number;
  /** Writes the paused leader sent after it woke that the server accepted. */
  lateWrites: number;
  /** Writes it made while leading before the pause (the probe writes at all). */
  writesBefore: number;
}

function pauseRound(
  kubeconfigPath: string,
  namespace: string,
  mode: string,
  index: number,
): Promise<PauseRound> {
  return withReplicas(kubeconfigPath, namespace, mode, index, async (a, b) => {
    try {
      await b.report('synced', 120_000);
      await b.report('standby', 120_000);
      await wait(sizes.retry * 2);
      const stoppedAt = epochNow();
      a.child.kill('SIGSTOP');
      await b.report('leading', sizes.lease * 3 + 60_000);
      // The new leader writes too for a second, then the old one wakes with its reconcile in flight.
      await wait(1_000);
      const resumedAt = epochNow();
      a.child.kill('SIGCONT');
      const lost = await a.report('lost', 60_000);
      await wait(3_000);
      const late = a.reports.filter((report) => report.type === 'write' && report.at >= resumedAt);
      const before = a.reports.filter((report) => report.type === 'write' && report.at < stoppedAt);
      return {
        writesBefore: before.length,
        mode,
        pausedMs: resumedAt - stoppedAt,
        resumeToLostMs: lost.at - resumedAt,
        lateWrites: late.length,
      };
    } finally {
      a.child.kill('SIGCONT');
    }
  });
}

async function main(): Promise<void> {
  const server = await startServerChild(['envtest', 'failover']);
  try {
    const rest = new RestTransport(await loadKubeConfig({ path: server.kubeconfigPath }));
    await seedConfigMaps(configMapClient(rest), server.namespace, sizes.objects, 1);
    process.stdout.write(
      `failover of two replicas (@lasso/factory + @lasso/controller leader election), ${machineNote()}\n` +
        `server: ${server.description}; ${sizes.objects} ConfigMaps cached by each replica\n` +
        `lease settings: leaseDurationMs ${sizes.lease}, renewDeadlineMs ${sizes.renew}, retryPeriodMs ${sizes.retry} (acquire jitter up to +120%)\n` +
        'mode  round  kill->leading  leading->1st reconcile  kill->1st reconcile (failover)\n',
    );
    const results: Round[] = [];
    for (const mode of ['warm', 'cold']) {
      for (let index = 1; index <= sizes.rounds; index++) {
        const result = await round(server.kubeconfigPath, server.namespace, mode, index);
        results.push(result);
        process.stdout.write(
          `${mode.padEnd(5)} ${String(index).padStart(5)}  ${ms(result.killToLeadingMs).padStart(13)}  ${ms(result.leadingToReconcileMs).padStart(22)}  ${ms(result.failoverMs).padStart(30)}\n`,
        );
      }
    }
    const summary: BenchSummary = { sizes, contenders: {} };
    for (const mode of ['warm', 'cold']) {
      const rounds = results.filter((result) => result.mode === mode);
      summary.contenders[mode] = {
        killToLeadingMs: Math.round(median(rounds.map((r) => r.killToLeadingMs))),
        leadingToReconcileMs: Math.round(median(rounds.map((r) => r.leadingToReconcileMs))),
        failoverMs: Math.round(median(rounds.map((r) => r.failoverMs))),
      };
      process.stdout.write(
        `${mode} median: kill->leading ${ms(median(rounds.map((r) => r.killToLeadingMs)))}, leading->1st reconcile ${ms(median(rounds.map((r) => r.leadingToReconcileMs)))}, failover ${ms(median(rounds.map((r) => r.failoverMs)))}\n`,
      );
    }
    process.stdout.write(
      'fencing probe: leader SIGSTOPped until the standby leads, then SIGCONTed\n' +
        'mode            round  paused     wake->leadership aborted  writes before pause  writes sent after waking, accepted\n',
    );
    for (const mode of ['pause', 'pause-unfenced']) {
      const late: number[] = [];
      summary.contenders[mode] = {};
      for (let index = 1; index <= sizes.pauses; index++) {
        const result = await pauseRound(server.kubeconfigPath, server.namespace, mode, index);
        late.push(result.lateWrites);
        (summary.contenders[mode] as Record<string, number>).lateWritesAccepted = late.reduce(
          (sum, n) => sum + n,
          0,
        );
        process.stdout.write(
          `${mode.padEnd(15)} ${String(index).padStart(5)}  ${ms(result.pausedMs).padStart(9)}  ${ms(result.resumeToLostMs).padStart(24)}  ${String(result.writesBefore).padStart(19)}  ${String(result.lateWrites).padStart(34)}\n`,
        );
      }
    }
    await rest.close();
    recordResults('failover', summary);
  } finally {
    await server.stop();
  }
}

function ms(value: number): string {
  return `${value.toFixed(0)} ms`;
}

await main();
