// The process's end through operator.run(): a real node process running an operator (over this test's API
// server) whose handler ignores its signal and holds a 60 s timer exits within gracefulShutdownTimeoutMs +
// closeTimeoutMs after SIGTERM, with the "not drained" code 3, its probes answering meanwhile; one whose handler
// honours its signal exits 0 at once. The child is a bundle of fixtures/shutdown-child.ts built from the
// sources; every child is killed after its test.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shutdownExitCodes } from '@lasso/controller';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { build } from 'tsup';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let env: Environment | undefined;
let work: string;
let childScript: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lasso-operator-shutdown-'));
  await build({
    entry: { child: fileURLToPath(new URL('./fixtures/shutdown-child.ts', import.meta.url)) },
    outDir: work,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    splitting: false,
    sourcemap: false,
    dts: false,
    silent: true,
    config: false,
    // Bundled CommonJS dependencies (undici) call require(): give the ESM bundle one.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    esbuildOptions(options) {
      options.conditions = ['@lasso/source'];
    },
  });
  childScript = join(work, 'child.js');
  env = await startEnvironment();
}, 60_000);

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

afterAll(async () => {
  await env?.stop();
  await rm(work, { recursive: true, force: true });
});

const boundMs = 2_000;
const closeMs = 500;
// Generous for a loaded machine: the exit itself and the signal's delivery.
const marginMs = 1_500;
// How long a test waits for the child to reconcile or exit before failing with its output.
const deadlineMs = 20_000;

interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly at: number;
}

/** Start the child; resolves once its handler runs, with its health address and a bounded wait for its exit. */
async function startChild(mode: 'ignores' | 'honours', name: string) {
  const child = spawn(
    process.execPath,
    [childScript, env?.kubeconfigPath ?? '', mode, String(boundMs), String(closeMs), name],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exit = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const health = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the child did not reconcile within ${deadlineMs} ms\n${stderr}`)),
      deadlineMs,
    );
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = /reconciling (\S+)\n/.exec(stdout);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    void exit.then((outcome) => {
      clearTimeout(timer);
      reject(new Error(`child exited before reconciling: ${JSON.stringify(outcome)}\n${stderr}`));
    });
  });
  const exited = (ms: number) =>
    new Promise<Exit>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the child did not exit within ${ms} ms\n${stderr}`)),
        ms,
      );
      void exit.then((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  return { child, health, exited, stderr: () => stderr };
}

describe('operator.run() in a real process', () => {
  it('exits 3 within the bound after SIGTERM although a handler ignores its signal, answering probes while it drains', async () => {
    const { child, health, exited, stderr } = await startChild('ignores', 'stuck');
    expect((await fetch(`http://${health}/readyz`)).status).toBe(200);
    const sentAt = performance.now();
    child.kill('SIGTERM');
    // Draining: alive, not ready (a kubelet stops sending traffic, and does not restart it).
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (stderr().includes('shutdown signal received')) resolve();
      };
      child.stderr?.on('data', check);
      check();
    });
    expect((await fetch(`http://${health}/healthz`)).status).toBe(200);
    expect((await fetch(`http://${health}/readyz`)).status).toBe(503);
    const outcome = await exited(deadlineMs);
    const tookMs = outcome.at - sentAt;
    expect(outcome.code, stderr()).toBe(shutdownExitCodes.notDrained);
    // Not before the drain bound (the stop was given its time), not long after bound + close (no 60 s wait).
    expect(tookMs).toBeGreaterThanOrEqual(boundMs);
    expect(tookMs, stderr()).toBeLessThan(boundMs + closeMs + marginMs);
    expect(stderr()).toContain('stop did not drain');
    expect(stderr()).toContain('default/stuck');
  }, 60_000);

  it('exits 0 at once when the handler honours its signal, after closing and cleaning up', async () => {
    const { child, exited, stderr } = await startChild('honours', 'honest');
    const sentAt = performance.now();
    child.kill('SIGTERM');
    const outcome = await exited(deadlineMs);
    expect(outcome.code, stderr()).toBe(shutdownExitCodes.drained);
    expect(outcome.at - sentAt).toBeLessThan(boundMs);
    expect(stderr()).toContain('cleanup ran');
    expect(stderr()).not.toContain('"level":"error"');
  }, 60_000);
});
