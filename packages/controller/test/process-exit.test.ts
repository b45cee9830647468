// The process-level bound of runUntilShutdown: a real node process running a controller whose handler ignores
// its signal (and holds a 60 s timer) exits within gracefulShutdownTimeoutMs + closeTimeoutMs after SIGINT, with
// the "not drained" code; one whose handler honours its signal exits 0 at once. The child is a bundle of
// fixtures/shutdown-child.ts built from the sources.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shutdownExitCodes } from '../src/process-shutdown.ts';

let work: string;
let childScript: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lasso-process-exit-'));
  await build({
    entry: { child: fileURLToPath(new URL('./fixtures/shutdown-child.ts', import.meta.url)) },
    outDir: work,
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
  childScript = join(work, 'child.cjs');
}, 60_000);

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const boundMs = 2_000;
const closeMs = 500;
// Generous for a loaded CI machine: the exit itself (flushing, tearing down) and the signal's delivery.
const marginMs = 1_500;

/** Start the child; resolves once its handler runs, with a promise of its exit and the time it came. */
async function startChild(mode: 'ignores' | 'honours') {
  const child = spawn(process.execPath, [childScript, mode, String(boundMs), String(closeMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exit = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('reconciling\n')) resolve();
    });
    void exit.then((outcome) =>
      reject(new Error(`child exited before reconciling: ${JSON.stringify(outcome)}\n${stderr}`)),
    );
  });
  /** The exit, or a rejection naming the output when it has not come within `ms`. */
  const exited = (ms: number) =>
    new Promise<{ code: number | null; signal: string | null; at: number }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the child did not exit within ${ms} ms\n${stderr}`)),
        ms,
      );
      void exit.then((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  return { child, exited, stderr: () => stderr };
}

// How long a test waits for an exit before failing with the child's output (the afterEach kills it).
const exitDeadlineMs = 15_000;

describe('runUntilShutdown in a real process', () => {
  it('exits within the bound after SIGINT, with the not-drained code, although a handler ignores its signal', async () => {
    const { child, exited, stderr } = await startChild('ignores');
    const sentAt = performance.now();
    child.kill('SIGINT');
    const outcome = await exited(exitDeadlineMs);
    const tookMs = outcome.at - sentAt;
    expect(outcome.code, stderr()).toBe(shutdownExitCodes.notDrained);
    // Not before the bound (the stop was given its time), and not long after it (the 60 s timer was not waited).
    expect(tookMs).toBeGreaterThanOrEqual(boundMs);
    expect(tookMs, stderr()).toBeLessThan(boundMs + closeMs + marginMs);
    expect(stderr()).toContain(
      "reconcile of 'ns/stuck' still running after the graceful shutdown bound",
    );
    expect(stderr()).toContain('stop did not drain');
  }, 30_000);

  it('exits 0 at once when the handler honours its signal, and logs the cancellation at info', async () => {
    const { child, exited, stderr } = await startChild('honours');
    const sentAt = performance.now();
    child.kill('SIGINT');
    const outcome = await exited(exitDeadlineMs);
    expect(outcome.code, stderr()).toBe(shutdownExitCodes.drained);
    expect(outcome.at - sentAt).toBeLessThan(boundMs);
    expect(stderr()).toContain("reconcile of 'ns/stuck' cancelled by the stop, requeued");
    expect(stderr()).not.toContain('"level":"error"');
  }, 30_000);

  it('exits at once with 130 at a second SIGINT', async () => {
    const { child, exited, stderr } = await startChild('ignores');
    child.kill('SIGINT');
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (stderr().includes('shutdown signal received')) resolve();
      };
      child.stderr?.on('data', check);
      check();
    });
    const sentAt = performance.now();
    child.kill('SIGINT');
    const outcome = await exited(exitDeadlineMs);
    expect(outcome.code, stderr()).toBe(130);
    expect(outcome.at - sentAt).toBeLessThan(boundMs);
  }, 30_000);
});
