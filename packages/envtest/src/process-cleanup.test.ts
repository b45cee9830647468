// The kubeconfig (admin client key) is private and never outlives its test process: stop(), exit, an
// uncaught exception or rejection, SIGINT/SIGTERM (still ending the process by that signal), and a
// sweep at the next start for SIGKILL. Children are a bundle of __fixtures__/child/environment-child.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  atProcessExit,
  killOrphansOf,
  makePrivateTempDir,
  sweepStaleTempDirs,
  tempDirPrefix,
} from './process-cleanup.ts';

const fixture = fileURLToPath(
  new URL('./__fixtures__/child/environment-child.ts', import.meta.url),
);

let work: string;
let childScript: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lasso-cleanup-test-'));
  // One CommonJS bundle (sources through the `@lasso/source` condition, yaml included) that plain
  // `node` runs in a fraction of a second.
  await build({
    entry: { child: fixture },
    outDir: join(work, 'bundle'),
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    splitting: false,
    sourcemap: false,
    dts: false,
    silent: true,
    config: false,
    esbuildOptions(options) {
      options.conditions = ['@lasso/source'];
    },
  });
  childScript = join(work, 'bundle', 'child.cjs');
}, 60_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Child {
  process: ChildProcess;
  kubeconfigPath: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

let tmp: string;
beforeEach(() => {
  tmp = join(work, `tmp-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(tmp);
});

/** Start a child in mode `how` with its own TMPDIR and the built-in server; resolves once it reports. */
async function startChild(how: string): Promise<Child> {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.KUBEBUILDER_ASSETS;
  delete env.LASSO_TEST_KUBECONFIG;
  const child = spawn(process.execPath, [childScript, how], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exit = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stderr,
  }));
  let stdout = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const end = stdout.indexOf('\n');
      if (end >= 0) resolve(stdout.slice(0, end));
    });
    void exit.then((outcome) =>
      reject(new Error(`child exited before reporting: ${JSON.stringify(outcome)}`)),
    );
  });
  const { kubeconfigPath } = JSON.parse(line) as { kubeconfigPath: string };
  return { process: child, kubeconfigPath, exit };
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('the kubeconfig of a test process', () => {
  it('is a 0600 file in a 0700 dir named after the pid, under TMPDIR', async () => {
    const child = await startChild('wait');
    try {
      expect(mode(child.kubeconfigPath)).toBe(0o600);
      const directory = dirname(child.kubeconfigPath);
      expect(mode(directory)).toBe(0o700);
      expect(dirname(directory)).toBe(tmp);
      expect(basename(directory)).toMatch(
        new RegExp(`^${tempDirPrefix}kubeconfig-${child.process.pid}-[A-Za-z0-9]{6}$`),
      );
    } finally {
      child.process.kill('SIGKILL');
      await child.exit;
    }
  });

  it('is removed by stop()', async () => {
    const child = await startChild('stop');
    expect(await child.exit).toMatchObject({ code: 0, signal: null });
    expect(existsSync(child.kubeconfigPath)).toBe(false);
  });

  it.each([
    ['exit', 'process.exit() without stop()', 0],
    ['throw', 'an uncaught exception', 1],
    ['reject', 'an unhandled rejection', 1],
  ])('is removed on %s (%s), keeping the exit code', async (how, _what, code) => {
    const child = await startChild(how);
    const outcome = await child.exit;
    expect(outcome.code, outcome.stderr).toBe(code);
    expect(existsSync(child.kubeconfigPath)).toBe(false);
    expect(existsSync(dirname(child.kubeconfigPath))).toBe(false);
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    'is removed on %s, and the process still ends by that signal',
    async (signal) => {
      const child = await startChild('wait');
      expect(existsSync(child.kubeconfigPath)).toBe(true);
      child.process.kill(signal);
      expect(await child.exit).toMatchObject({ code: null, signal });
      expect(existsSync(dirname(child.kubeconfigPath))).toBe(false);
    },
  );

  it("leaves a test process's own SIGTERM listener in charge, and is removed when it exits", async () => {
    const child = await startChild('own-handler');
    child.process.kill('SIGTERM');
    expect(await child.exit).toMatchObject({ code: 7, signal: null });
    expect(existsSync(dirname(child.kubeconfigPath))).toBe(false);
  });

  it('survives SIGKILL (nothing can run) and is swept once its pid is gone', async () => {
    const live = makePrivateTempDir('kubeconfig', tmp);
    const child = await startChild('wait');
    child.process.kill('SIGKILL');
    expect(await child.exit).toMatchObject({ signal: 'SIGKILL' });
    expect(existsSync(child.kubeconfigPath)).toBe(true);
    const unrelated = join(tmp, 'lasso-envtest-other');
    mkdirSync(unrelated);

    expect(sweepStaleTempDirs(tmp)).toEqual([dirname(child.kubeconfigPath)]);
    expect(existsSync(dirname(child.kubeconfigPath))).toBe(false);
    // This process's own dir and names it did not make stay.
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
  });

  it('kills the orphaned processes still running from a stale dir before removing it', async () => {
    const tmp = await mkdtemp(join(work, 'orphans-'));
    // A pid that is certainly gone: a child that has already exited.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    const stale = join(tmp, `${tempDirPrefix}kubebuilder-${gone.pid}-abcdef`);
    mkdirSync(stale);
    // Stands in for an etcd left behind by a SIGKILLed test process: its arguments point into the dir.
    const orphan = spawn(process.execPath, [
      '-e',
      'setInterval(() => {}, 1000)',
      '--',
      `--data-dir=${join(stale, 'etcd')}`,
    ]);
    const orphanExit = new Promise<NodeJS.Signals | null>((resolve) =>
      orphan.once('exit', (_code, signal) => resolve(signal)),
    );
    await new Promise((resolve) => orphan.once('spawn', resolve));
    // Unrelated: names a sibling path that only shares the prefix.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', `${stale}x`]);
    await new Promise((resolve) => bystander.once('spawn', resolve));
    try {
      expect(sweepStaleTempDirs(tmp)).toEqual([stale]);
      expect(await orphanExit).toBe('SIGKILL');
      expect(existsSync(stale)).toBe(false);
      expect(bystander.exitCode).toBe(null);
      expect(killOrphansOf(join(tmp, 'nothing-here'))).toEqual([]);
    } finally {
      orphan.kill('SIGKILL');
      bystander.kill('SIGKILL');
    }
  });

  it('is swept by the next startEnvironment() after a SIGKILL', async () => {
    const killed = await startChild('wait');
    killed.process.kill('SIGKILL');
    await killed.exit;
    const next = await startChild('exit');
    await next.exit;
    expect(existsSync(dirname(killed.kubeconfigPath))).toBe(false);
  });
});

describe('atProcessExit', () => {
  it('installs one exit and one listener per signal for all registrations, and removes them', () => {
    const before = ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((event) =>
      process.listenerCount(event),
    );
    const forgetFirst = atProcessExit(() => {});
    const forgetSecond = atProcessExit(() => {});
    expect(
      ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((event) => process.listenerCount(event)),
    ).toEqual(before.map((count) => count + 1));
    forgetFirst();
    expect(process.listenerCount('exit')).toBe(before[0]! + 1);
    forgetSecond();
    expect(
      ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((event) => process.listenerCount(event)),
    ).toEqual(before);
  });
});
