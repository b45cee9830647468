// `pnpm test:soak`: the informer soak, then the leader-election soak, then (with --sharded) the sharded soak,
// against one built-in API server process.
// Prints the seed first (replay with --seed or LASSO_SOAK_SEED), the numbers, one PASS/FAIL line per check and
// finally `soak: N passed, N failed`; exits non-zero when a check failed. See README.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type KubeObject, loadKubeConfig, restTransportFor } from '@lasso/client';
import { parseArgs } from './args.ts';
import { runInformerSoak } from './informer-soak.ts';
import { forkChild, forkedChildren, within } from './ipc.ts';
import { soakNamespaces } from './kinds.ts';
import { runLeaderSoak } from './leader-soak.ts';
import { outageNamespace, runOutageSoak } from './outage-soak.ts';
import { seededRandom } from './random.ts';
import { Report } from './report.ts';
import type { ServerMessage } from './server-process.ts';
import { runShardSoak, shardNamespaces, shardRingNamespace } from './shard-soak.ts';

const leaderNamespace = 'soak-leader';

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2), process.env);
  const unhandled: string[] = [];
  const warnings: string[] = [];
  process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));
  process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));
  const report = new Report();
  report.line(
    `soak: seed ${options.seed} (replay: pnpm test:soak -- --seed ${options.seed} --duration ${options.durationS}), ${options.writers} writers at ${options.rate} writes/s over ${options.namespaces} namespaces`,
  );
  // The watchdog: a soak that hangs (a child that never answers) fails instead of holding test:all forever.
  const deadlineMs =
    ((options.informers ? options.durationS + options.quietTimeoutS + options.outageS : 0) +
      (options.sharded ? options.durationS + options.quietTimeoutS : 0) +
      300) *
    1000;
  // Every exit path kills the children still running (a SIGSTOPped replica included: SIGKILL ends it too).
  process.once('exit', () => {
    for (const child of forkedChildren) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of forkedChildren) child.kill('SIGKILL');
      process.exit(130);
    });
  }
  setTimeout(() => {
    report.check(
      `the soak finished within ${deadlineMs / 1000} s`,
      false,
      'stuck; children killed',
    );
    for (const child of forkedChildren) child.kill('SIGKILL');
    report.line(report.summary());
    process.exit(1);
  }, deadlineMs).unref();
  const random = seededRandom(options.seed);
  const directory = await mkdtemp(join(tmpdir(), 'lasso-soak-'));
  const server = forkChild<ServerMessage>('server-process.js', [directory]);
  try {
    const { kubeconfigPath } = await within(server.nextOf('ready'), 120_000, 'the API server');
    const transport = restTransportFor(await loadKubeConfig({ path: kubeconfigPath }));
    const namespaces = new Client<KubeObject>({
      gvr: { group: '', version: 'v1', resource: 'namespaces' },
      kind: 'Namespace',
      namespaced: false,
      rest: transport,
    });
    for (const name of [
      ...soakNamespaces(options.namespaces),
      leaderNamespace,
      outageNamespace,
      ...shardNamespaces,
      shardRingNamespace,
    ]) {
      await namespaces.create(undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    }
    await transport.close();
    if (options.informers) await runInformerSoak(options, random, server, kubeconfigPath, report);
    if (options.informers && options.outageS > 0)
      await runOutageSoak(options, server, kubeconfigPath, report);
    if (options.leader)
      await runLeaderSoak(random, kubeconfigPath, directory, leaderNamespace, report);
    if (options.sharded) await runShardSoak(options, random, kubeconfigPath, directory, report);
  } catch (error) {
    report.check('the soak ran to the end', false, String((error as Error)?.stack ?? error));
  } finally {
    server.disconnect();
    await within(server.exited, 30_000, 'the API server exit').catch(() => {
      server.process.kill('SIGKILL');
    });
    await rm(directory, { recursive: true, force: true });
  }
  report.check(
    'no unhandled rejection in the soak process',
    unhandled.length === 0,
    unhandled.join('; '),
  );
  report.check(
    'no process warning in the soak process',
    warnings.length === 0,
    warnings.join('; '),
  );
  report.line(report.summary());
  return report.failed() === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    console.log('soak: 0 passed, 1 failed');
    process.exitCode = 1;
  },
);
