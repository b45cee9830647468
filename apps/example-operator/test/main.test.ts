// The built command (dist/main.js, what `pnpm start` runs) as a child process: the demo on the built-in API
// server until SIGINT, against a cluster given --kubeconfig, and the usage on a bad flag.
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientFor } from '@lasso/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  icecream,
  isReadyAt,
  observe,
  runSimulatedWorkload,
  startCluster,
  type TestCluster,
  Waiter,
} from './helpers.ts';

const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A running command whose output is collected as it streams, and awaited with deadlines. */
interface Command {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once `stream` contains `text`; rejects after `timeoutMs` or when the process exits first. */
  untilOutput(stream: 'stdout' | 'stderr', text: string, timeoutMs: number): Promise<void>;
  /** The exit code (or signal name); rejects after `timeoutMs` (the process is then killed). */
  exited(timeoutMs: number): Promise<number | string>;
}

function run(args: string[], extraEnv: Record<string, string> = {}): Command {
  const env: Record<string, string | undefined> = { ...process.env, ...extraEnv };
  // No cluster configured unless --kubeconfig says so; the demo must not find one through these. An
  // existing cluster (LASSO_TEST_KUBECONFIG) is not for the demo either; KUBEBUILDER_ASSETS stays, so the
  // demo runs on a real kube-apiserver when the tests do.
  delete env.KUBECONFIG;
  delete env.KUBERNETES_SERVICE_HOST;
  delete env.LASSO_TEST_KUBECONFIG;
  const child = spawn(process.execPath, [mainJs, ...args], { env, cwd: repoRoot });
  const output = { stdout: '', stderr: '' };
  const waiter = new Waiter();
  let exit: number | string | undefined;
  const exitWaiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString('utf8');
    waiter.notify();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8');
    waiter.notify();
  });
  child.on('close', (code, signal) => {
    exit = code ?? signal ?? 'unknown';
    waiter.notify();
    for (const resolve of exitWaiters) resolve();
  });
  const describeOutput = (): string =>
    `\n--- stdout ---\n${output.stdout}\n--- stderr ---\n${output.stderr}`;
  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    async untilOutput(stream, text, timeoutMs) {
      await waiter
        .until(
          () => {
            if (output[stream].includes(text)) return true;
            if (exit !== undefined) throw new Error(`exited (${exit}) before printing "${text}"`);
            return false;
          },
          `"${text}" on ${stream}`,
          timeoutMs,
        )
        .catch((error: Error) => {
          error.message += describeOutput();
          throw error;
        });
    },
    exited(timeoutMs) {
      return new Promise<number | string>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          exitWaiters.delete(done);
          resolve(exit as number | string);
        };
        const timer = setTimeout(() => {
          exitWaiters.delete(done);
          child.kill('SIGKILL');
          reject(new Error(`did not exit within ${timeoutMs} ms${describeOutput()}`));
        }, timeoutMs);
        if (exit !== undefined) done();
        else exitWaiters.add(done);
      });
    },
  };
}

// Starting a kube-apiserver (KUBEBUILDER_ASSETS) inside the command takes seconds: bounds fit both modes.
const startMs = process.env.KUBEBUILDER_ASSETS ? 90_000 : 30_000;
// A node process that loads the command and prints its usage: about a second, several on a loaded CI machine.
// The test's own timeout is above the exit bound, so a hang fails with the output rather than a bare timeout.
const usageExitMs = 20_000;
const usageTestMs = 30_000;

beforeAll(() => {
  // CI builds before testing; a checkout that never built gets the command (and its dependencies) built here.
  if (!existsSync(mainJs)) {
    execFileSync('pnpm', ['--filter', '@lasso/example-operator...', 'build'], {
      cwd: repoRoot,
      stdio: 'pipe',
    });
  }
}, 600_000);

describe('main', () => {
  it('runs the demo until both Icecreams are Ready and stops cleanly on SIGINT', async () => {
    const command = run(['--metrics-addr', '127.0.0.1:0', '--health-addr', '127.0.0.1:0']);
    try {
      await command.untilOutput('stdout', 'Both Icecreams are Ready', startMs);
      expect(command.stdout()).toContain('No cluster configured');
      expect(command.stdout()).toContain('SIMULATED workload controller running');
      // The Icecream webhooks, called by the API server on two dry-run creates.
      await command.untilOutput('stdout', 'webhook denied Icecream pistachio', startMs);
      expect(command.stdout()).toContain(
        'webhook defaulted Icecream strawberry (dry run): spec {"deploymentName":"strawberry","flavor":"strawberry","replicas":1}',
      );
      expect(command.stdout()).toContain(
        'spec.deploymentName must be "pistachio" or start with "pistachio-", got "vanilla-scoops"',
      );
      const metricsUrl = /Metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(
        command.stdout(),
      )?.[1];
      expect(metricsUrl).toBeDefined();
      expect(metricsUrl).not.toContain(':0/');
      const response = await fetch(metricsUrl as string);
      expect(response.status).toBe(200);
      const metrics = await response.text();
      expect(metrics).toContain('workqueue_adds_total');
      expect(metrics).toContain('lasso_controller_total_handler_execution');
      expect(metrics).toContain('rest_client_requests_total');
      expect(metrics).toContain('lasso_webhook_requests_total');

      command.child.kill('SIGINT');
      expect(await command.exited(30_000), command.stderr()).toBe(0);
      expect(command.stdout()).toContain(
        'Stopped: no reconcile in flight, caches closed, API server stopped.',
      );
      expect(command.stderr()).toContain('SIGINT: shutting down');
    } finally {
      if (command.child.exitCode === null) command.child.kill('SIGKILL');
    }
  }, 180_000);

  it.for([
    { name: 'an unknown flag', args: ['--bogus'], names: '--bogus' },
    { name: 'zero workers', args: ['--workers', '0'], names: '--workers' },
    { name: 'a bad address', args: ['--metrics-addr', 'nowhere'], names: '--metrics-addr' },
  ])('prints the usage and exits 2 on $name', { timeout: usageTestMs }, async ({ args, names }) => {
    const command = run(args);
    expect(await command.exited(usageExitMs), command.stderr()).toBe(2);
    expect(command.stderr()).toMatch(new RegExp(`^example-operator: .*${names}`));
    expect(command.stderr()).toContain('Usage: example-operator [flags]');
    expect(command.stdout()).toBe('');
  });

  it('prints the usage and exits 0 on --help', { timeout: usageTestMs }, async () => {
    const command = run(['--help']);
    expect(await command.exited(usageExitMs), command.stderr()).toBe(0);
    expect(command.stdout()).toContain('Usage: example-operator [flags]');
  });

  describe('against a cluster (--kubeconfig)', () => {
    let cluster: TestCluster;

    beforeAll(async () => {
      cluster = await startCluster();
    });

    afterAll(async () => {
      await cluster?.stop();
    });

    it('reconciles, holds the Lease, and releases it when stopped by SIGINT', async () => {
      const namespace = await cluster.namespace('main');
      const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
      const icecreams = await observe(cluster.icecreams, namespace);
      const leases = clientFor(cluster.rest, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
      });
      const command = run(
        [
          '--kubeconfig',
          cluster.env.kubeconfigPath,
          '--namespace',
          namespace,
          '--leader-elect',
          '--metrics-addr',
          '0',
          '--health-addr',
          '0',
        ],
        { LASSO_LOG_LEVEL: 'info' },
      );
      try {
        await command.untilOutput('stderr', 'controller factory started', 30_000);
        await cluster.icecreams.create(namespace, icecream(namespace, 'vanilla'));
        await icecreams.untilObject('vanilla', (o) => isReadyAt(o, 2), 'Ready with 2 replicas');
        const lease = await leases.get(namespace, 'icecream-operator');
        expect(lease.spec?.holderIdentity).toMatch(/.+-[0-9a-f]{8}$/);

        command.child.kill('SIGINT');
        expect(await command.exited(30_000), command.stderr()).toBe(0);
        // JSON lines (stderr is not a terminal), the leader election's own included.
        const lines = command
          .stderr()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg: string; level: number; stack?: unknown });
        const messages = lines.map((line) => line.msg);
        expect(messages).toContain('operator starting');
        expect(messages).toContain('operator stopped');
        expect(messages).toContain('shutdown signal received, stopping');
        expect(messages).toContain('exiting');
        // A shutdown is not an error: nothing at error level (pino's 50), no stack.
        expect(lines.filter((line) => line.level >= 50 || line.stack !== undefined)).toEqual([]);
        expect((await leases.get(namespace, 'icecream-operator')).spec?.holderIdentity ?? '').toBe(
          '',
        );
      } finally {
        if (command.child.exitCode === null) command.child.kill('SIGKILL');
        await icecreams.stop();
        await simulated.stop();
      }
    }, 120_000);
  });
});
