#!/usr/bin/env node
// The supported Node versions other than the LTS (which runs the whole suite in `pnpm test:all`): on each, the
// unit tests (and @lasso/sqlcache's crash test), the packed-package check and a start of the example operator (demo mode: the built-in API server,
// until both Icecreams are Ready, then SIGINT and a clean exit). Node binaries come from node-versions.mjs.
// Run after `pnpm build`. Prints one line per step with its time, and a summary.
//
//   node tooling/scripts/test-node-versions.mjs [--versions 20,22,26] [--only unit,packed,operator]
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { envFor, ltsVersion, nodeBin, nodeVersions } from './node-versions.mjs';

const root = join(import.meta.dirname, '..', '..');
const { values } = parseArgs({
  options: { versions: { type: 'string' }, only: { type: 'string' } },
});
const versions =
  values.versions !== undefined
    ? values.versions.split(',').map((v) => v.trim())
    : nodeVersions.filter((entry) => entry !== ltsVersion).map((entry) => String(entry.major));
const steps = (values.only ?? 'unit,packed,operator').split(',').map((s) => s.trim());
for (const name of steps) {
  if (!['unit', 'packed', 'operator'].includes(name)) {
    throw new RangeError(`--only: unknown step ${JSON.stringify(name)} (unit, packed, operator)`);
  }
}

const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1);
const results = [];

function log(message) {
  process.stdout.write(`test-node-versions: ${message}\n`);
}

/** Runs a command on that Node (its bin first on PATH), output streamed; resolves to its exit status. */
function runOn(major, command, args, extraEnv = {}) {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...envFor(major), ...extraEnv },
  });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** The example operator's demo: Ready within a bound, then SIGINT, exit 0 within a bound. */
function operatorSmoke(major) {
  const node = join(nodeBin(major), 'node');
  const env = { ...process.env, LASSO_LOG_LEVEL: 'warn' };
  // The demo's own server, never a cluster found in the environment.
  delete env.KUBECONFIG;
  delete env.KUBERNETES_SERVICE_HOST;
  delete env.LASSO_TEST_KUBECONFIG;
  const readyMs = env.KUBEBUILDER_ASSETS ? 90_000 : 60_000;
  const exitMs = 30_000;
  return new Promise((resolve) => {
    const child = spawn(
      node,
      [
        join(root, 'apps', 'example-operator', 'dist', 'main.js'),
        '--metrics-addr',
        '127.0.0.1:0',
        '--health-addr',
        '127.0.0.1:0',
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let phase = 'starting';
    const finish = (ok, why) => {
      clearTimeout(timer);
      if (!ok) {
        if (child.exitCode === null) child.kill('SIGKILL');
        process.stderr.write(
          `operator on Node ${major}: ${why}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}\n`,
        );
      }
      resolve(ok ? 0 : 1);
    };
    let timer = setTimeout(() => finish(false, `not Ready within ${readyMs / 1000} s`), readyMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (phase === 'starting' && stdout.includes('Both Icecreams are Ready')) {
        phase = 'stopping';
        clearTimeout(timer);
        timer = setTimeout(
          () => finish(false, `did not exit within ${exitMs / 1000} s of SIGINT`),
          exitMs,
        );
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code, signal) => {
      if (phase !== 'stopping') finish(false, `exited (${code ?? signal}) before Ready`);
      else if (code !== 0) finish(false, `exited ${code ?? signal} after SIGINT, expected 0`);
      else if (!stdout.includes('Stopped:')) finish(false, 'exited 0 without its Stopped line');
      else finish(true);
    });
  });
}

let failed = 0;
for (const major of versions) {
  const version = spawnSync(join(nodeBin(major), 'node'), ['--version'], {
    encoding: 'utf8',
  }).stdout.trim();
  for (const name of steps) {
    const started = performance.now();
    log(`${name} on Node ${version}`);
    let status;
    if (name === 'unit') {
      // Every vitest project's unit tests, then the summary line (it prints the Node it ran on). The type tests
      // (`*.test-d.ts`, tsc) do not depend on the Node that runs them: they run once, on the LTS.
      const report = join(root, '.tmp', `vitest-report-node${major}.json`);
      status = runOn(
        major,
        'pnpm',
        [
          'exec',
          'vitest',
          'run',
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${report}`,
        ],
        { LASSO_INTEGRATION: '0', LASSO_TYPECHECK: '0' },
      );
      const counted = runOn(major, 'node', [
        join(root, 'tooling', 'scripts', 'test-summary.mjs'),
        report,
      ]);
      if (status === 0) status = counted;
      // The crash test is an integration test of @lasso/sqlcache: it runs here too, so the driver of this
      // Node passes all of the store contract, encryption, WAL bound and crash tests.
      if (status === 0) {
        status = runOn(major, 'pnpm', ['vitest', 'run', 'packages/sqlcache/test/crash.test.ts']);
      }
    } else if (name === 'packed') {
      status = runOn(major, 'node', [join(root, 'tooling', 'scripts', 'check-packed.mjs')]);
    } else {
      status = await operatorSmoke(major);
    }
    results.push({ version, name, ok: status === 0, time: seconds(started) });
    log(
      `${name} on Node ${version}: ${status === 0 ? 'passed' : 'FAILED'} (${seconds(started)} s)`,
    );
    if (status !== 0) failed++;
  }
}

log('summary');
for (const { version, name, ok, time } of results) {
  process.stdout.write(
    `  ${version.padEnd(9)} ${name.padEnd(9)} ${ok ? 'passed' : 'FAILED'} ${time} s\n`,
  );
}
process.exitCode = failed > 0 ? 1 : 0;
